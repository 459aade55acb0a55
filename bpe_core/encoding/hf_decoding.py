"""An imported ``tokenizer.json``'s decoder, run as Hugging Face ``tokenizers`` runs it.

The decoder is data (``{"type": "Sequence", "decoders": [...]}``); each kind is a step from a
list of token strings to a list of strings, as its ``decode_chain`` is, and the text is their
concatenation. Only the kinds the library has are read; anything else (a kind unknown, a field
of the wrong type) makes :func:`decoder_steps` answer ``None``, and the caller decodes its own way.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby
from typing import Any

from bpe_core.errors import ConfigError
from bpe_core.pipeline.byte_alphabet import CHAR_TO_BYTE
from bpe_core.pipeline.steps import normalizer_from_dict

Step = Callable[[list[str]], list[str]]
_DEPTH_MOST = 32  # nested Sequences read (a real decoder nests one or two)


class _UnknownKind(ValueError):
    """A decoder type Hugging Face's tokenizers do not have."""


def decoder_steps(decoder: Any) -> list[Step] | None:
    """The steps of a decoder as a file holds it, or ``None`` where one is not modelled."""
    try:
        return _steps(decoder, 0)
    except (ConfigError, KeyError, TypeError, ValueError):
        return None


def decoder_fault(decoder: Any) -> str | None:
    """Why Hugging Face's tokenizers would refuse to load ``decoder`` (a type they do not have,
    settings they do not take), as words to follow "has"; ``None`` if they load it."""
    try:
        _steps(decoder, 0)
    except _UnknownKind as error:
        return f"a decoder of the type {error.args[0]!r}, which Hugging Face's tokenizers do not have"
    except (ConfigError, KeyError, TypeError, ValueError):
        return "a decoder whose settings Hugging Face's tokenizers do not take"
    return None


def takes_off(decoder: Any, suffix: str) -> bool:
    """Whether a decoder has a step that takes ``suffix`` off the tokens (a ``BPEDecoder``)."""
    if not isinstance(decoder, dict):
        return False
    if decoder.get("type") == "BPEDecoder":
        return decoder.get("suffix", "</w>") == suffix
    children = decoder.get("decoders") if decoder.get("type") == "Sequence" else None
    return isinstance(children, list) and any(takes_off(child, suffix) for child in children)


def decoded(steps: list[Step], tokens: list[str]) -> str:
    for step in steps:
        tokens = step(tokens)
    return "".join(tokens)


def _steps(node: Any, depth: int) -> list[Step]:
    if not isinstance(node, dict) or depth > _DEPTH_MOST:
        raise TypeError
    kind = node["type"]
    if kind == "Sequence":
        return [step for child in node["decoders"] for step in _steps(child, depth + 1)]
    if kind == "ByteLevel":
        return [_byte_level]
    if kind == "ByteFallback":
        return [_byte_fallback]
    if kind == "Fuse":
        return [lambda tokens: ["".join(tokens)]]
    if kind == "Replace":
        replace = normalizer_from_dict({**node, "type": "Replace"}).apply
        return [lambda tokens: [replace(token) for token in tokens]]
    if kind == "Strip":
        return [_strip(_char(node["content"]), _number(node["start"]), _number(node["stop"]))]
    if kind == "Metaspace":
        return [_metaspace(node)]
    if kind == "WordPiece":
        return [_word_piece(_string(node.get("prefix", "##")), _flag(node.get("cleanup", True)))]
    if kind == "BPEDecoder":
        return [_bpe(_string(node.get("suffix", "</w>")))]
    if kind == "CTC":
        pad, delimiter = (
            _string(node.get("pad_token", "<pad>")),
            _string(node.get("word_delimiter_token", "|")),
        )
        return [_ctc(pad, delimiter, _flag(node.get("cleanup", True)))]
    raise _UnknownKind(kind)


def _byte_level(tokens: list[str]) -> list[str]:
    """Each token's characters as the bytes GPT-2's alphabet shows; a token holding any other
    character gives its own UTF-8 bytes; the whole read as UTF-8, lossy."""
    data = bytearray()
    for token in tokens:
        try:
            data += bytes([CHAR_TO_BYTE[char] for char in token])  # whole, or not at all
        except KeyError:
            data += token.encode("utf-8", "surrogatepass")
    return [data.decode("utf-8", "replace")]


def _byte_fallback(tokens: list[str]) -> list[str]:
    """Runs of ``<0xNN>`` tokens as the text of their bytes, or a U+FFFD for each token of a run
    that is not UTF-8 as a whole."""
    out: list[str] = []
    run = bytearray()

    def flush() -> None:
        if run:
            try:
                out.append(run.decode("utf-8"))
            except UnicodeDecodeError:
                out.extend("\ufffd" * len(run))
            run.clear()

    for token in tokens:
        byte = _byte_token(token)
        if byte is None:
            flush()
            out.append(token)
        else:
            run.append(byte)
    flush()
    return out


def _byte_token(token: str) -> int | None:
    # Rust's from_str_radix takes a sign too ("<0x+A>"): as there, a byte of two characters
    if len(token.encode("utf-8")) != 6 or not (token.startswith("<0x") and token.endswith(">")):
        return None
    digits = token[3:5]
    try:
        return int(digits, 16) if digits.lstrip("+").isalnum() and digits.isascii() else None
    except ValueError:
        return None


def _strip(content: str, start: int, stop: int) -> Step:
    """Up to ``start`` leading and ``stop`` trailing ``content`` characters off each token."""

    def step(tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            first = 0
            while first < min(start, len(token)) and token[first] == content:
                first += 1
            last = len(token)
            while len(token) - last < stop and last > first and token[last - 1] == content:
                last -= 1
            out.append(token[first:last])
        return out

    return step


def _metaspace(node: dict[str, Any]) -> Step:
    """The replacement character is a space, but in the first token, where the text was
    prefixed with one (every replacement character of it is dropped, as the library drops them)."""
    replacement = _char(node.get("replacement", "▁"))
    scheme = node.get("prepend_scheme")  # (files written before it say add_prefix_space)
    prepends = _flag(node.get("add_prefix_space", True)) if scheme is None else _string(scheme) != "never"

    def step(tokens: list[str]) -> list[str]:
        first = "" if prepends else " "
        return [token.replace(replacement, " " if place else first) for place, token in enumerate(tokens)]

    return step


def _word_piece(prefix: str, cleanup: bool) -> Step:
    def step(tokens: list[str]) -> list[str]:
        out = []
        for place, token in enumerate(tokens):
            if place:
                token = token[len(prefix) :] if token.startswith(prefix) else " " + token
            out.append(_cleaned(token) if cleanup else token)
        return out

    return step


def _cleaned(text: str) -> str:
    """WordPiece's cleanup: spaces before punctuation and English contractions taken out."""
    for dirty, clean in _CLEANUP:
        text = text.replace(dirty, clean)
    return text


_CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


def _bpe(suffix: str) -> Step:
    """The suffix a space, but in the last token, where it is nothing."""

    def step(tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [token.replace(suffix, "" if place == last else " ") for place, token in enumerate(tokens)]

    return step


def _ctc(pad: str, delimiter: str, cleanup: bool) -> Step:
    """Repeats dropped, the pad token taken out, the word delimiter a space."""

    def step(tokens: list[str]) -> list[str]:
        out = []
        for token, _ in groupby(tokens):
            text = token.replace(pad, "")
            if cleanup:
                text = _cleaned(text).replace(delimiter, " ")
            if text:
                out.append(text)
        return out

    return step


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError
    return value


def _char(value: Any) -> str:
    if not isinstance(value, str) or len(value) != 1:
        raise TypeError
    return value


def _number(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1 << 16:
        raise TypeError
    return value


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError
    return value
