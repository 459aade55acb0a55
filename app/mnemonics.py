"""Mnemonics: the underlined letter that Alt (or, in a menu, the letter alone) presses."""

from __future__ import annotations


def mnemonic(text: str) -> str:
    """The letter after ``text``'s ``&`` (lower case), or "" without one (``&&`` is a plain ``&``)."""
    at = text.replace("&&", "").find("&")
    return text.replace("&&", "")[at + 1 : at + 2].lower() if at >= 0 else ""


def with_mnemonics(texts: list[str]) -> list[str]:
    """``texts`` (a menu's items, a dialog's buttons), each without a mnemonic given one no
    other has: the first free letter starting a word, else any free letter or digit."""
    used = {mnemonic(text) for text in texts} - {""}
    given = []
    for text in texts:
        if not mnemonic(text):
            starts = [i for i, c in enumerate(text) if c.isalnum() and (i == 0 or not text[i - 1].isalnum())]
            rest = [i for i, c in enumerate(text) if c.isalnum() and i not in starts]
            free = next((i for i in [*starts, *rest] if text[i].lower() not in used), None)
            if free is not None:
                used.add(text[free].lower())
                text = text[:free] + "&" + text[free:]
        given.append(text)
    return given
