"""Pipelines read from other libraries' files, as chains of steps: normalizers, then pre-tokenizers.

The named pipelines of :class:`~bpe_core.pipeline.config.PipelineConfig` ("nfkc", "gpt2", …)
cover what BPE Studio trains. A tokenizer made elsewhere (a Hugging Face ``tokenizer.json``, a
SentencePiece model) may chain any of the steps here instead: ``normalization="custom"`` applies
``PipelineConfig.normalizers`` in order, ``pretokenize="custom"`` applies
``PipelineConfig.pre_tokenizers``. Each step is a frozen dataclass that reads and writes the
JSON Hugging Face writes for it, so a session's pipeline reads like the file it came from, and
each does what Hugging Face ``tokenizers`` does (tested against it). One is SentencePiece's own
and has no Hugging Face counterpart: :class:`SentencePieceNormalizer`, a model's whole
``NormalizerSpec`` as SentencePiece applies it (tested against SentencePiece); its
:meth:`~SentencePieceNormalizer.hf_equivalent` gives the Hugging Face steps that do the same,
where some do.

Normalizers map text to text and say where each output character came from (``starts``), so
the window can paint tokens over the user's text. Pre-tokenizers cut the normalized text into
pieces, each a span of it with an optional prefix (Metaspace's ``▁``, ByteLevel's space), which
merges never cross.

Imports only the standard library, ``regex``, :mod:`bpe_core.errors` and the pipeline's own
helpers below it (:mod:`.hf_split`, :mod:`.charsmap`, :mod:`.unicode_align`).
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

import regex

from bpe_core.errors import ConfigError, InputError, shown
from bpe_core.pipeline.unicode_align import aligned_by

if TYPE_CHECKING:
    from bpe_core.pipeline.charsmap import CharsMap


def _split() -> ModuleType:
    """The splitting half of Hugging Face's pre-tokenizers, with its Oniguruma translation and
    Unicode tables: loaded when a chain of steps first needs it (named pipelines never do)."""
    from bpe_core.pipeline import hf_split

    return hf_split


def _charsmap(blob_base64: str) -> CharsMap:
    """SentencePiece's character map held base64-encoded in ``blob_base64`` (loaded when a step
    first needs it: named pipelines never do)."""
    from bpe_core.pipeline.charsmap import CharsMap

    return CharsMap.from_base64(blob_base64)


@cache
def _whitespace() -> regex.Pattern[str]:
    return regex.compile(r"\p{White_Space}")  # Rust's char::is_whitespace, which Strip uses


def _is_whitespace(char: str) -> bool:
    return _whitespace().match(char) is not None


def _behavior(name: str) -> str:
    """A split behaviour's snake-case name, from either spelling (raises ConfigError)."""
    try:
        return _split().behavior_name(name)
    except ConfigError:  # said again, with a long name cut short
        raise ConfigError(
            f"The split behaviour {shown(name)} is none of {', '.join(_split().BEHAVIORS)}."
        ) from None


def _json_behavior(name: str) -> str:
    """A split behaviour as Hugging Face's JSON spells it (``merged_with_next`` -> ``MergedWithNext``)."""
    return "".join(part.title() for part in name.split("_"))


# A piece of pre-tokenized text: characters ``start:end`` of the text, after ``prefix``.
Piece = tuple[int, int, str]
# The source index of each character; None: each is its own.
Starts = list[int] | None
# Where Metaspace puts its replacement before a piece.
Scheme = Literal["always", "first", "never"]


# -- normalizers -----------------------------------------------------------------------------


class Normalizer:
    """A normalizer step: ``apply`` maps text to text; ``aligned`` also maps each output
    character to the index of the input character it came from."""

    kind: ClassVar[str]

    def apply(self, text: str) -> str:
        raise NotImplementedError

    def aligned(self, text: str) -> tuple[str, Starts]:
        return aligned_by(text, self.apply)

    @property
    def always_matched(self) -> tuple[str, ...]:
        """Special tokens the step leaves as they are and that are found in every text, special
        tokens asked for or not (a SentencePiece normalizer's user-defined pieces)."""
        return ()

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind}


@dataclass(frozen=True)
class UnicodeForm(Normalizer):
    """NFC, NFD, NFKC or NFKD."""

    form: Literal["NFC", "NFD", "NFKC", "NFKD"]
    kind: ClassVar[str] = "UnicodeForm"

    def apply(self, text: str) -> str:
        return unicodedata.normalize(self.form, text)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.form}


@dataclass(frozen=True)
class Lowercase(Normalizer):
    """Each character lowercased alone, as Rust's ``char::to_lowercase`` does (a final Σ too)."""

    kind: ClassVar[str] = "Lowercase"

    def apply(self, text: str) -> str:
        return text.replace("Σ", "σ").lower()


@dataclass(frozen=True)
class StripAccents(Normalizer):
    """Combining marks removed (meant after NFD or NFKD)."""

    kind: ClassVar[str] = "StripAccents"

    def apply(self, text: str) -> str:
        return "".join(c for c in text if not _is_mark(c)) if not text.isascii() else text

    def aligned(self, text: str) -> tuple[str, Starts]:
        if text.isascii():
            return text, None
        kept = [i for i, c in enumerate(text) if not _is_mark(c)]
        return "".join(text[i] for i in kept), kept


def _is_mark(char: str) -> bool:
    return unicodedata.category(char) in ("Mn", "Mc", "Me")


@dataclass(frozen=True)
class Strip(Normalizer):
    """Whitespace taken off the left, the right or both ends."""

    left: bool = True
    right: bool = True
    kind: ClassVar[str] = "Strip"

    def apply(self, text: str) -> str:
        return self.aligned(text)[0]

    def aligned(self, text: str) -> tuple[str, Starts]:
        start, end = 0, len(text)
        if self.left:
            while start < end and _is_whitespace(text[start]):
                start += 1
        if self.right:
            while end > start and _is_whitespace(text[end - 1]):
                end -= 1
        if (start, end) == (0, len(text)):
            return text, None
        return text[start:end], list(range(start, end))

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}


@dataclass(frozen=True)
class Prepend(Normalizer):
    """``prepend`` put before non-empty text."""

    prepend: str
    kind: ClassVar[str] = "Prepend"

    def apply(self, text: str) -> str:
        return self.prepend + text if text else text

    def aligned(self, text: str) -> tuple[str, Starts]:
        if not text:
            return text, None
        return self.prepend + text, [0] * len(self.prepend) + list(range(len(text)))

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Prepend", "prepend": self.prepend}


@dataclass(frozen=True)
class Replace(Normalizer):
    """Every match of ``pattern`` (a literal string, or with ``is_regex`` a regular expression as
    Hugging Face's Oniguruma reads it) replaced by ``content``."""

    pattern: str
    content: str
    is_regex: bool = False
    kind: ClassVar[str] = "Replace"

    def __post_init__(self) -> None:
        if not self.pattern:
            raise ConfigError("A Replace normalizer needs a non-empty pattern.")
        if self.is_regex:
            self._compiled  # noqa: B018 - an untranslatable pattern is refused when read, not when used

    @cached_property
    def _compiled(self) -> regex.Pattern[str]:
        return _split().compile_pattern(self.pattern)

    def _matches(self, text: str) -> list[tuple[int, int]]:
        if self.is_regex:
            return _split().regex_matches(self._compiled, text)
        return _split().string_matches(self.pattern, text)

    def apply(self, text: str) -> str:
        if not self.is_regex:
            return text.replace(self.pattern, self.content)
        return self.aligned(text)[0]

    def aligned(self, text: str) -> tuple[str, Starts]:
        matches = self._matches(text)
        if not matches:
            return text, None
        parts: list[str] = []
        starts: list[int] = []
        done = 0
        for start, end in matches:
            parts.append(text[done:start])
            starts.extend(range(done, start))
            parts.append(self.content)
            # What replaces a match comes from its last character, as in Hugging Face's offsets
            # (and its Metaspace's ``first`` scheme, which looks where a piece came from).
            starts.extend([max(start, end - 1)] * len(self.content))
            done = end
        parts.append(text[done:])
        starts.extend(range(done, len(text)))
        return "".join(parts), starts

    def to_dict(self) -> dict[str, Any]:
        pattern = {"Regex": self.pattern} if self.is_regex else {"String": self.pattern}
        return {"type": "Replace", "pattern": pattern, "content": self.content}


@dataclass(frozen=True)
class Precompiled(Normalizer):
    """SentencePiece's character map (``nmt_nfkc`` and the like), base64 as Hugging Face keeps it."""

    charsmap: str
    kind: ClassVar[str] = "Precompiled"

    def __post_init__(self) -> None:
        self._map  # noqa: B018 - a damaged map is refused when read

    @cached_property
    def _map(self) -> CharsMap:
        return _charsmap(self.charsmap)

    def apply(self, text: str) -> str:
        return self._map.normalize_hf(text)[0]

    def aligned(self, text: str) -> tuple[str, Starts]:
        out, starts = self._map.normalize_hf(text)
        return out, starts

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Precompiled", "precompiled_charsmap": self.charsmap}


_SPACE_RUNS = re.compile(" +")


UNK_SURFACE = " \u2047 "  # what SentencePiece decodes its unknown piece to, unless its model says


@dataclass(frozen=True)
class SentencePieceNormalizer(Normalizer):
    """SentencePiece's own normalizer (its ``NormalizerSpec``), exactly as SentencePiece encodes:

    * at each place, a user-defined piece (``user_defined``, the longest that starts there) is
      copied as it is; elsewhere the character map (``charsmap``, base64; empty: none) replaces
      the *longest* rule that starts there, where Hugging Face's ``Precompiled`` takes the
      shortest one per grapheme cluster;
    * ``remove_extra_whitespaces``: spaces the map leaves at the start are dropped, and a space
      that follows a kept space, unless both came from one rule or one user-defined piece;
    * ``escape_whitespaces``: each space becomes ``▁``;
    * ``add_dummy_prefix``: one more space (``▁``) before the text, or after it with
      ``treat_whitespace_as_suffix`` (SentencePiece's trainer option);
    * ``remove_extra_whitespaces`` again: spaces (``▁``) at the end are dropped, the dummy
      prefix too when nothing else is left.

    ``unk_surface`` is what decoding writes for the unknown piece (its trainer's option).

    Its JSON type is ``SentencePieceNormalizer``, which Hugging Face does not have: export to a
    ``tokenizer.json`` goes through :meth:`hf_equivalent`.
    """

    charsmap: str = ""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    treat_whitespace_as_suffix: bool = False
    user_defined: tuple[str, ...] = ()
    unk_surface: str = UNK_SURFACE
    kind: ClassVar[str] = "SentencePieceNormalizer"

    def __post_init__(self) -> None:
        object.__setattr__(self, "user_defined", tuple(self.user_defined))
        if not all(isinstance(symbol, str) and symbol for symbol in self.user_defined):
            raise ConfigError("A SentencePiece normalizer's user-defined pieces must be non-empty text.")
        self._map  # noqa: B018 - a damaged map is refused when read

    @cached_property
    def _map(self) -> CharsMap:
        return _charsmap(self.charsmap)

    @cached_property
    def _user_pattern(self) -> re.Pattern[str] | None:
        """The user-defined pieces, the longest first at each place (SentencePiece's prefix matcher)."""
        if not self.user_defined:
            return None
        ordered = sorted(set(self.user_defined), key=len, reverse=True)
        return re.compile("|".join(map(re.escape, ordered)))

    @property
    def always_matched(self) -> tuple[str, ...]:
        return self.user_defined

    @property
    def space(self) -> str:
        """What a space becomes: ``▁``, or a space without ``escape_whitespaces``."""
        return "▁" if self.escape_whitespaces else " "

    def apply(self, text: str) -> str:
        return self.aligned(text)[0]

    def aligned(self, text: str) -> tuple[str, Starts]:
        if not text:
            return text, None
        mapped, starts = self._mapped(text)
        if self.remove_extra_whitespaces:
            if not mapped.strip(" ") and _only_spaces(starts, len(text)):
                return "", None  # SentencePiece's "all characters are whitespace"
            mapped, starts = _drop_extra_spaces(mapped, starts)
        space = self.space
        if self.escape_whitespaces:
            mapped = mapped.replace(" ", space)
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            # It stands where the text begins, after the leading spaces dropped.
            first = starts[0] if starts and self.remove_extra_whitespaces else 0
            mapped, starts = space + mapped, [first, *starts]
        if self.remove_extra_whitespaces:
            kept = len(mapped.rstrip(space))
            after = starts[kept] if kept < len(starts) else len(text) - 1
            mapped, starts = mapped[:kept], starts[:kept]
        else:
            after = len(text) - 1
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            mapped, starts = mapped + space, [*starts, min(after, len(text) - 1)]
        return mapped, starts

    def _mapped(self, text: str) -> tuple[str, list[int]]:
        """The text with user-defined pieces copied and the map applied between them, and the
        source index of each character (a rule's output and a user-defined piece point at the
        first character they read).

        The text between two user-defined pieces is mapped on its own: SentencePiece would differ
        only where a rule of several characters ran on into a user-defined piece (of its own maps,
        only rules that compose a Hangul syllable or a character and its marks are that long)."""
        chars_map = self._map
        pattern = self._user_pattern
        if pattern is None or pattern.search(text) is None:
            return chars_map.normalize_sentencepiece(text)
        parts: list[str] = []
        starts: list[int] = []
        done = 0
        for match in pattern.finditer(text):
            begin, end = match.span()
            if begin > done:
                part, part_starts = chars_map.normalize_sentencepiece(text[done:begin])
                parts.append(part)
                starts.extend(done + start for start in part_starts)
            parts.append(match.group())
            starts.extend([begin] * (end - begin))
            done = end
        if done < len(text):
            part, part_starts = chars_map.normalize_sentencepiece(text[done:])
            parts.append(part)
            starts.extend(done + start for start in part_starts)
        return "".join(parts), starts

    def hf_equivalent(self) -> tuple[Normalizer, ...]:
        """Hugging Face normalizers that normalize every text exactly as this step does; raises
        ConfigError (one sentence) where none can."""
        if not self._map.is_identity:
            raise ConfigError(
                "SentencePiece applies its character map by the longest rule and Hugging Face's "
                "Precompiled by the shortest rule of each grapheme cluster, so a tokenizer.json cannot "
                "normalize as this model does."
            )
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            raise ConfigError(
                "Hugging Face has no normalizer that puts SentencePiece's dummy space after the text "
                "(treat_whitespace_as_suffix)."
            )
        space = self.space
        steps: list[Normalizer] = []
        if self.remove_extra_whitespaces:
            steps += [Replace(" {2,}", " ", is_regex=True), Replace(r"\A ", "", is_regex=True)]
        if self.escape_whitespaces:
            steps.append(Replace(" ", space))
        if self.add_dummy_prefix:
            steps.append(Prepend(space))
        if self.remove_extra_whitespaces:
            steps.append(Replace(f"{space}+\\z", "", is_regex=True))
        # Hugging Face looks for an added token as its normalizer rewrites the token's own text;
        # SentencePiece looks for a user-defined piece as it is.
        for symbol in self.user_defined:
            rewritten = normalize_with(symbol, steps)
            if rewritten != symbol:
                raise ConfigError(
                    f"Hugging Face would look for the user-defined piece {shown(symbol)} as its normalizer "
                    f"rewrites it ({shown(rewritten)}), where SentencePiece looks for it as it is."
                )
        return tuple(steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "precompiled_charsmap": self.charsmap,
            "add_dummy_prefix": self.add_dummy_prefix,
            "remove_extra_whitespaces": self.remove_extra_whitespaces,
            "escape_whitespaces": self.escape_whitespaces,
            "treat_whitespace_as_suffix": self.treat_whitespace_as_suffix,
            "user_defined_symbols": list(self.user_defined),
            **({"unk_surface": self.unk_surface} if self.unk_surface != UNK_SURFACE else {}),
        }


def _only_spaces(starts: list[int], size: int) -> bool:
    """Whether each of ``size`` source characters became one space of its own (given that the
    mapped text is only spaces): SentencePiece then drops the whole text. A character the map
    deletes (a control character) or a user-defined piece of spaces leaves it a text to encode."""
    return starts == list(range(size))


def _drop_extra_spaces(text: str, starts: list[int]) -> tuple[str, list[int]]:
    """SentencePiece's ``remove_extra_whitespaces`` inside the text, one output of the map (a
    rule's, a copied character's or a user-defined piece's, told apart by their source index) at a
    time: the spaces an output starts with are dropped when the last character kept is a space or
    nothing is kept yet; other spaces stay. So the text's leading spaces go, and in a run of spaces
    those after the first output's."""
    parts: list[str] = []
    kept: list[int] = []
    done = 0
    for run in _SPACE_RUNS.finditer(text):
        begin, end = run.span()
        keep = begin
        if begin > 0:  # a character is kept before the run: its first output's spaces stay
            source = starts[begin]
            while keep < end and starts[keep] == source:
                keep += 1
        parts.append(text[done:keep])
        kept.extend(starts[done:keep])
        done = end
    if not parts:
        return text, starts
    parts.append(text[done:])
    kept.extend(starts[done:])
    return "".join(parts), kept


def normalize_with(text: str, steps: Sequence[Normalizer]) -> str:
    """``text`` through every step in order."""
    for step in steps:
        text = step.apply(text)
    return text


def normalize_with_aligned(text: str, steps: Sequence[Normalizer]) -> tuple[str, Starts]:
    """``text`` through every step, with the index in ``text`` of each output character."""
    starts: Starts = None
    for step in steps:
        text, step_starts = step.aligned(text)
        if step_starts is not None:
            starts = step_starts if starts is None else [starts[i] for i in step_starts]
    return text, starts


# -- pre-tokenizers --------------------------------------------------------------------------


class PreTokenizer:
    """A pre-tokenizer step: cuts each piece into pieces (and may rewrite characters one for
    one, as Metaspace does: ``rewrite`` applies it to the whole text first)."""

    kind: ClassVar[str]

    def rewrite(self, text: str) -> str:
        return text

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The pieces of ``text`` as spans (``text`` is the prefix and the piece's characters)."""
        raise NotImplementedError

    def prefix(self, piece_text: str, at_start: bool) -> str:
        """What the step puts before a piece (``at_start``: the piece begins the user's text)."""
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind}


@dataclass(frozen=True)
class Split(PreTokenizer):
    """Hugging Face's ``Split``: matches of ``pattern`` (a string, or an Oniguruma regex) as
    delimiters, kept or dropped as ``behavior`` says; ``invert``: the matches are the pieces."""

    pattern: str
    is_regex: bool
    behavior: str = "isolated"
    invert: bool = False
    kind: ClassVar[str] = "Split"

    def __post_init__(self) -> None:
        object.__setattr__(self, "behavior", _behavior(self.behavior))
        if self.is_regex:
            self._compiled  # noqa: B018 - refused when read, not when used
        elif not self.pattern:
            raise ConfigError("A Split pre-tokenizer needs a non-empty pattern.")

    @cached_property
    def _compiled(self) -> regex.Pattern[str]:
        return _split().compile_pattern(self.pattern)

    def spans(self, text: str) -> list[tuple[int, int]]:
        if self.is_regex:
            matches = _split().regex_matches(self._compiled, text)
        else:
            matches = _split().string_matches(self.pattern, text)
        return _split().split_spans(text, matches, self.behavior, self.invert)

    def to_dict(self) -> dict[str, Any]:
        pattern = {"Regex": self.pattern} if self.is_regex else {"String": self.pattern}
        return {
            "type": "Split",
            "pattern": pattern,
            "behavior": _json_behavior(self.behavior),
            "invert": self.invert,
        }


@dataclass(frozen=True)
class Metaspace(PreTokenizer):
    """Spaces become ``replacement`` (``▁``), which is put before a piece (``always``, or
    ``first``: only before the text's first) and, with ``split``, starts each piece."""

    replacement: str = "▁"
    prepend_scheme: Scheme = "always"
    split: bool = True
    kind: ClassVar[str] = "Metaspace"

    def __post_init__(self) -> None:
        if len(self.replacement) != 1:
            raise ConfigError("A Metaspace replacement must be one character.")
        if self.prepend_scheme not in ("always", "first", "never"):
            raise ConfigError(f"Unknown Metaspace prepend scheme {shown(self.prepend_scheme)}.")

    def rewrite(self, text: str) -> str:
        return text.replace(" ", self.replacement)

    def prefix(self, piece_text: str, at_start: bool) -> str:
        scheme = self.prepend_scheme
        if (
            scheme == "never"
            or (scheme == "first" and not at_start)
            or piece_text.startswith(self.replacement)
        ):
            return ""
        return self.replacement

    def spans(self, text: str) -> list[tuple[int, int]]:
        if not self.split:
            return [(0, len(text))] if text else []
        matches = _split().string_matches(self.replacement, text)
        return _split().split_spans(text, matches, "merged_with_next", False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "Metaspace",
            "replacement": self.replacement,
            "prepend_scheme": self.prepend_scheme,
            "split": self.split,
        }


@dataclass(frozen=True)
class ByteLevel(PreTokenizer):
    """Hugging Face's ``ByteLevel`` as a pre-tokenizer: a space before every piece that lacks
    one (``add_prefix_space``), then GPT-2's split (``use_regex``). Its byte alphabet is the
    pipeline's ``unit="byte"``, so it is the chain's last step."""

    add_prefix_space: bool = False
    use_regex: bool = True
    kind: ClassVar[str] = "ByteLevel"

    def prefix(self, piece_text: str, at_start: bool) -> str:
        return " " if self.add_prefix_space and not piece_text.startswith(" ") else ""

    def spans(self, text: str) -> list[tuple[int, int]]:
        if not self.use_regex:
            return [(0, len(text))] if text else []
        return _split().split_spans(text, _split().regex_matches(_gpt2(), text), "isolated", False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "ByteLevel",
            "add_prefix_space": self.add_prefix_space,
            "trim_offsets": True,
            "use_regex": self.use_regex,
        }


def _gpt2() -> regex.Pattern[str]:
    from bpe_core.pipeline.pretokenize import GPT2_PATTERN  # the named mode's own pattern

    return _split().compile_pattern(GPT2_PATTERN)


@dataclass(frozen=True)
class Digits(PreTokenizer):
    """Digits apart from the rest; ``individual``: each digit alone."""

    individual: bool = False
    kind: ClassVar[str] = "Digits"

    def spans(self, text: str) -> list[tuple[int, int]]:
        return _split().digits_spans(text, self.individual)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Digits", "individual_digits": self.individual}


@dataclass(frozen=True)
class Punctuation(PreTokenizer):
    """Punctuation apart from the rest, as ``behavior`` says."""

    behavior: str = "isolated"
    kind: ClassVar[str] = "Punctuation"

    def __post_init__(self) -> None:
        object.__setattr__(self, "behavior", _behavior(self.behavior))

    def spans(self, text: str) -> list[tuple[int, int]]:
        return _split().punctuation_spans(text, self.behavior)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": _json_behavior(self.behavior)}


@dataclass(frozen=True)
class Whitespace(PreTokenizer):
    """Hugging Face's ``Whitespace``: ``\\w+|[^\\w\\s]+``."""

    kind: ClassVar[str] = "Whitespace"

    def spans(self, text: str) -> list[tuple[int, int]]:
        return _split().whitespace_spans(text)


@dataclass(frozen=True)
class WhitespaceSplit(PreTokenizer):
    """Hugging Face's ``WhitespaceSplit``: runs of non-whitespace (Rust's whitespace)."""

    kind: ClassVar[str] = "WhitespaceSplit"

    def spans(self, text: str) -> list[tuple[int, int]]:
        return _split().whitespace_split_spans(text)


def pre_tokenize_with(
    text: str, steps: Sequence[PreTokenizer], at_start: bool = True
) -> tuple[str, list[Piece]]:
    """The text as the steps rewrite it, and its pieces in order: ``(start, end, prefix)``, the
    piece being ``prefix + text[start:end]`` (the prefix stands before character ``start``).
    ``at_start``: ``text`` begins the user's text (not a part after a special token)."""
    pieces: list[Piece] = [(0, len(text), "")] if text else []
    for step in steps:
        text = step.rewrite(text)
        cut: list[Piece] = []
        for start, end, prefix in pieces:
            body = text[start:end]
            added = step.prefix(prefix + body, at_start and start == 0 and not prefix)
            prefix = added + prefix
            joined = prefix + body if prefix else body
            size = len(prefix)
            for a, b in step.spans(joined):
                if b <= size:  # only prefix characters: they stand before ``start``
                    cut.append((start, start, prefix[a:b]))
                else:
                    cut.append(
                        (start + max(a - size, 0), start + b - size, prefix[a:size] if a < size else "")
                    )
        pieces = cut
    return text, pieces


def space_escape(
    normalizers: Sequence[Normalizer], pre_tokenizers: Sequence[PreTokenizer]
) -> tuple[str | None, bool]:
    """How a chain of steps spells a space, for decoding: (the character that stands for it,
    ``▁`` in Metaspace and SentencePiece pipelines, or ``None``; whether one is put before the
    text, which decoding takes off again, as Hugging Face's Metaspace and Strip decoders do)."""
    for splitter in pre_tokenizers:
        if isinstance(splitter, Metaspace):
            return splitter.replacement, splitter.prepend_scheme != "never"
    for step in normalizers:
        if isinstance(step, SentencePieceNormalizer) and step.escape_whitespaces:
            return "▁", step.add_dummy_prefix and not step.treat_whitespace_as_suffix
        if isinstance(step, Replace) and not step.is_regex and step.pattern == " " and len(step.content) == 1:
            prepended = any(isinstance(s, Prepend) and s.prepend == step.content for s in normalizers)
            return step.content, prepended
    return None, False


def piece_strings(text: str, steps: Sequence[PreTokenizer], at_start: bool = True) -> list[str]:
    """The pieces of :func:`pre_tokenize_with` as strings."""
    text, pieces = pre_tokenize_with(text, steps, at_start)
    return [prefix + text[start:end] for start, end, prefix in pieces]


# -- reading and writing steps ---------------------------------------------------------------

_FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def normalizer_from_dict(node: dict[str, Any]) -> Normalizer:
    """A normalizer step from its Hugging Face JSON (raises ConfigError naming what is wrong)."""
    kind = node.get("type")
    if kind in _FORMS:
        return UnicodeForm(kind)
    if kind == "Lowercase":
        return Lowercase()
    if kind == "StripAccents":
        return StripAccents()
    if kind == "Strip":
        return Strip(_flag(node, "strip_left", True), _flag(node, "strip_right", True))
    if kind == "Prepend":
        return Prepend(_text(node, "prepend"))
    if kind == "Replace":
        pattern, is_regex = _pattern(node)
        return Replace(pattern, _text(node, "content"), is_regex)
    if kind == SentencePieceNormalizer.kind:
        return _sentencepiece_normalizer(node)
    if kind == "Precompiled":
        charsmap = node.get("precompiled_charsmap")
        if not isinstance(charsmap, str):
            raise ConfigError("A Precompiled normalizer has no character map.")
        try:
            return Precompiled(charsmap)
        except (InputError, binascii.Error, ValueError) as error:
            raise ConfigError(f"The Precompiled normalizer's character map is damaged: {error}") from None
    raise ConfigError(f"The normalizer {shown(kind)} is not modelled by BPE Studio.")


def _sentencepiece_normalizer(node: dict[str, Any]) -> SentencePieceNormalizer:
    symbols = node.get("user_defined_symbols", [])
    if not isinstance(symbols, list) or not all(isinstance(symbol, str) for symbol in symbols):
        raise ConfigError("A SentencePiece normalizer's user-defined symbols are not a list of text.")
    options = {
        name: _flag(node, name, default)
        for name, default in (
            ("add_dummy_prefix", True),
            ("remove_extra_whitespaces", True),
            ("escape_whitespaces", True),
            ("treat_whitespace_as_suffix", False),
        )
    }
    try:
        return SentencePieceNormalizer(
            _text(node, "precompiled_charsmap", ""),
            user_defined=tuple(symbols),
            unk_surface=_text(node, "unk_surface", UNK_SURFACE),
            **options,
        )
    except (InputError, binascii.Error, ValueError) as error:
        raise ConfigError(f"The SentencePiece normalizer's character map is damaged: {error}") from None


def pre_tokenizer_from_dict(node: dict[str, Any]) -> PreTokenizer:
    """A pre-tokenizer step from its Hugging Face JSON (raises ConfigError naming what is wrong)."""
    kind = node.get("type")
    if kind == "Split":
        pattern, is_regex = _pattern(node)
        return Split(pattern, is_regex, _text(node, "behavior", "Isolated"), _flag(node, "invert", False))
    if kind == "Metaspace":
        scheme = node.get("prepend_scheme")
        if scheme is None:  # files written before prepend_scheme existed
            scheme = "always" if _flag(node, "add_prefix_space", True) else "never"
        if scheme not in ("always", "first", "never"):
            raise ConfigError(f"Unknown Metaspace prepend scheme {shown(scheme)}.")
        return Metaspace(_text(node, "replacement", "▁"), cast(Scheme, scheme), _flag(node, "split", True))
    if kind == "ByteLevel":
        return ByteLevel(_flag(node, "add_prefix_space", False), _flag(node, "use_regex", True))
    if kind == "Digits":
        return Digits(_flag(node, "individual_digits", False))
    if kind == "Punctuation":
        return Punctuation(_text(node, "behavior", "Isolated"))
    if kind == "Whitespace":
        return Whitespace()
    if kind == "WhitespaceSplit":
        return WhitespaceSplit()
    raise ConfigError(f"The pre-tokenizer {shown(kind)} is not modelled by BPE Studio.")


def steps_to_dicts(steps: Sequence[Normalizer | PreTokenizer]) -> list[dict[str, Any]]:
    return [step.to_dict() for step in steps]


def _pattern(node: dict[str, Any]) -> tuple[str, bool]:
    pattern = node.get("pattern")
    if isinstance(pattern, dict) and len(pattern) == 1:
        ((kind, value),) = pattern.items()
        if kind in ("Regex", "String") and isinstance(value, str):
            return value, kind == "Regex"
    raise ConfigError(f"A {shown(node.get('type'))} step has a pattern that is neither a string nor a regex.")


def _flag(node: dict[str, Any], name: str, default: bool) -> bool:
    value = node.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(f"A {shown(node.get('type'))} step's {name} is not true or false.")
    return value


def _text(node: dict[str, Any], name: str, default: str | None = None) -> str:
    value = node.get(name, default)
    if not isinstance(value, str):
        raise ConfigError(f"A {shown(node.get('type'))} step's {name} is not text.")
    return value


def decode_base64(text: str) -> bytes:
    """Bytes of base64 ``text`` (raises ValueError when it is not base64)."""
    return base64.b64decode(text, validate=True)


Step = Normalizer | PreTokenizer
StepReader = Callable[[dict[str, Any]], Step]
