"""Importing tiktoken ranks: a ``.tiktoken`` file holds neither the split pattern nor the
special tokens, so the user gives both, pre-filled with what the file implies.

tiktoken's encodings (r50k_base, p50k_base, cl100k_base, o200k_base) are recognised by their
content (the SHA-256 that tiktoken itself checks them with), a file of their size as "looking
like" them; choosing an encoding gives its pattern and its special tokens at their own ids.
Anything else starts at GPT-2's pattern, saying that it is a guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.guard import guard_overrides
from bpe_core.io.formats.tiktoken_encodings import ENCODINGS, encoding_of_content

# What the pattern box offers: an encoding (its pattern and special tokens), or a pattern alone
# with the special tokens typed below (numbered after the ranks).
PATTERN_CHOICES = (
    ("r50k_base", "r50k_base: GPT-2 and GPT-3"),
    ("p50k_base", "p50k_base: Codex and text-davinci"),
    ("cl100k_base", "cl100k_base: GPT-3.5 and GPT-4"),
    ("o200k_base", "o200k_base: GPT-4o"),
    ("gpt2", "GPT-2's pattern, special tokens below"),
    ("cl100k", "cl100k's pattern, special tokens below"),
    ("o200k", "o200k's pattern, special tokens below"),
)
HASHED_UP_TO = 64 * 1024 * 1024  # bytes: larger files are not hashed (no known ranks are that large)
# Ranks each encoding's file holds, to say a file of that size looks like it.
RANK_COUNTS = {50_256: "r50k_base", 50_280: "p50k_base", 100_256: "cl100k_base", 199_998: "o200k_base"}


@dataclass(frozen=True)
class RanksGuess:
    """What a ranks file implies: an encoding's or a pattern's name, and a sentence saying why."""

    pattern: str
    reason: str


def guess_ranks(path: Path) -> RanksGuess:
    """The encoding ``path`` is by its content when it is a known file, else the one whose
    number of ranks it has, else GPT-2's pattern as a guess."""
    try:
        if path.stat().st_size <= HASHED_UP_TO:
            data = path.read_bytes()
            known = encoding_of_content(data)
            if known is not None:
                return RanksGuess(known.name, f"These are tiktoken's {known.name} ranks.")
            ranks = sum(1 for line in data.splitlines() if line.strip())
            if ranks in RANK_COUNTS:
                name = RANK_COUNTS[ranks]
                return RanksGuess(name, f"It has {ranks:,} ranks, as {name} has.")
    except OSError:
        pass  # the import reports what is wrong with the file
    return RanksGuess(
        "gpt2", "BPE Studio does not recognise these ranks: choose the pattern they were trained with."
    )


@guard_overrides
class RanksDialog(QDialog):
    """The split pattern and special tokens for a ``.tiktoken`` file, pre-filled from it."""

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Import {path.name}")
        guess = guess_ranks(path)
        # Widgets
        intro = QLabel(
            "tiktoken ranks hold neither the pattern that splits the text nor the special tokens: "
            f"give them as the tokenizer had them. {guess.reason}"
        )
        intro.setWordWrap(True)
        self.pattern = QComboBox()
        for name, label in PATTERN_CHOICES:
            self.pattern.addItem(label, name)
        self.specials = QLineEdit()
        self.specials.setPlaceholderText("none; e.g. <|endoftext|>")
        self.specials.setToolTip("Separated by spaces; numbered after the ranks, in this order")
        self._typed = ""  # the special tokens typed for a pattern, kept while an encoding is shown
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        # Layout
        form = QFormLayout()
        form.addRow("Split pattern", self.pattern)
        form.addRow("Special tokens", self.specials)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * 36)
        # Signals
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.pattern.currentIndexChanged.connect(lambda _: self._show_specials())
        self.pattern.setCurrentIndex(self.pattern.findData(guess.pattern))
        self._show_specials()
        self.pattern.setFocus()

    def _show_specials(self) -> None:
        """An encoding's own special tokens (with their ids, not editable), or those typed."""
        encoding = ENCODINGS.get(self.pattern.currentData())
        if self.specials.isEnabled():
            self._typed = self.specials.text()
        self.specials.setEnabled(encoding is None)
        self.specials.setText(" ".join(encoding.specials) if encoding else self._typed)

    def chosen(self) -> tuple[str, tuple[str, ...]]:
        """(encoding or pattern name, special tokens: none for an encoding, which has its own)."""
        name = self.pattern.currentData()
        return name, () if name in ENCODINGS else tuple(self.specials.text().split())


def ask_ranks_settings(path: Path, parent: QWidget | None = None) -> tuple[str, tuple[str, ...]] | None:
    """Ask for a ``.tiktoken`` file's pattern and special tokens; ``None`` if cancelled."""
    dialog = RanksDialog(path, parent)
    try:
        return dialog.chosen() if dialog.exec() else None
    finally:
        dialog.deleteLater()
