r"""Hugging Face's splitting pre-tokenizers as pure functions on a string, exact to its spans.

Every function returns spans ``(start, end)`` in character offsets (Python ``str`` indices), in
order, exactly as ``tokenizers`` 0.23 cuts the same text: ``Split`` with a ``Regex`` pattern (an
Oniguruma regular expression, translated here for the ``regex`` module) or a ``String`` pattern,
under every ``SplitDelimiterBehavior`` and ``invert``; ``Whitespace``, ``WhitespaceSplit``,
``Digits``, ``Punctuation``, ``BertPreTokenizer`` and ``CharDelimiterSplit``. ``UnicodeScripts``
is left out: it runs on an older script table of its own, a third copy of the Unicode data for a
pre-tokenizer few models use. This module may import only the standard library, ``regex`` and
``bpe_core.errors``.

The character classes come from tables at the end of this file, each as the HF component that
uses it has it: Oniguruma's Unicode 16.0 properties for ``Regex`` patterns; the Rust ``regex``
crate's ``\w`` (Alphabetic, M, Nd, Pc, Join_Control; Unicode 16.0) for ``Whitespace``; Rust's
``char::is_numeric`` (N, Unicode 17.0) for ``Digits``; ``is_punc`` (ASCII punctuation, or P in
the ``unicode_categories`` crate's old tables) for ``Punctuation`` and ``BertPreTokenizer``; the 25
White_Space characters of ``char::is_whitespace``. The ``regex`` module's own tables (another
Unicode version, which depends on its release) only speed matching up.

HF compiles a ``Regex`` with Oniguruma 6.9.9 (syntax ``ONIG_SYNTAX_ONIGURUMA``, UTF-8, no options)
and walks it with the ``onig`` crate's ``find_iter``, which refuses an empty match that ends where
the last match ended and searches again one character on (:func:`regex_matches` does the same).
The translation is for ``regex.V1``, used only to subtract sets inside a class; it spells out
every class, anchor and option, so no other V1 default touches a match.

====================================  =====================================================
Oniguruma                             translation
====================================  =====================================================
literal; ``\t \n \r \f \v \a \e``     the code point
``\x{H}`` ``\uHHHH`` ``\o{O}``        the code point; ``\x{H H}``: the characters in turn
``\xHH`` ``\0OO``                     the byte; ``\xHH`` bytes above 7F that spell one
                                      UTF-8 character are it (a broken run is refused)
``\cX`` ``\C-X`` (X a letter)         its control character
``\q`` and other escaped letters      the letter itself
``.`` ``\N``                          ``[^\n]``: only LF ends a line
``\O``; ``.`` under ``(?m)``          any character (Ruby's ``m`` is dot-all)
``^``                                 ``(?:\A|(?<=\n)(?!\Z))``: not after a final LF
``$``                                 ``(?=\n|\Z)``
``\A`` ``\z`` ``\Z`` ``\G``           ``\A``, ``\Z``, ``(?=\n?\Z)``, ``\G``
``\b`` ``\B``                         look-arounds on the ``\w`` class below
``\w``                                Alphabetic, M, Nd, Pc; outside brackets also
                                      ``²³¹¼½¾`` (Oniguruma's Latin-1 table)
``\s`` ``\d`` ``\h``                  White_Space (U+0085 in, U+001C-U+001F out), Nd,
                                      ``[0-9A-Fa-f]``
``\p{X}`` ``\P{X}`` ``\p{^X}``        Oniguruma's Unicode 16.0 sets, not the ``regex``
``[:x:]`` ``[:^x:]``                  module's (another Unicode version); ``\p{Punct}`` is
                                      P but ``[:punct:]`` is P and S; every general
                                      category, script and POSIX name, spelt as Oniguruma
                                      takes it (case, ``_``, ``-``, spaces ignored)
``[..]`` ``[^..]`` ``[a[b]]`` ``&&``  one class, with Oniguruma's rules for ``-``, a leading
                                      ``]`` and an empty ``&&`` side (the empty set)
``(?i)`` ``(?i:..)``                  ASCII letters as explicit case classes, with ``k`` ~
                                      U+212A and ``s`` ~ U+017F
``a(?i)b|c``                          ``a(?i:b|c)``: it reaches the end of its group
``X?+`` ``X*+`` ``X++``               ``(?>X?)``, ``(?>X*)``, ``(?>X+)``
``X{n,m}+`` ``X{n}+``                 *not* possessive: ``(?:X{n,m})+`` (tiktoken's
                                      ``\p{N}{1,3}+`` is 1-3 digit runs, repeated)
``X{n}?``                             ``(?:X{n})?``: a fixed interval is never lazy
``X{n,m}`` with n > m                 ``(?>X{m,n})``
``X{,n}``; ``{`` opening no interval  ``X{0,n}``; a literal ``{``
a quantifier on a quantifier          reduced as Oniguruma's parser does: ``(?:a+)?`` is
                                      ``a*``, ``(?:a*){2,5}`` is ``(?:a*){2}``
``(..)`` ``(?<n>..)`` ``(?'n'..)``    ``(?:..)``: captures change no span
``(?:..)`` ``(?=..)`` ``(?!..)``      the same
``(?<=..)`` ``(?<!..)`` ``(?>..)``
``(?#..)``                            dropped
``\R``                                ``(?>\r\n|[\n\v\f\r\x85\u2028\u2029])``
====================================  =====================================================

Refused with a :class:`~bpe_core.errors.ConfigError` that names the construct: back-references
and ``\1``-``\9``, ``\k<..>``, ``\g<..>``, ``\K``, ``\X``, ``\y``, ``\Y``, ``\M-x``, absent
groups, conditionals, callouts, the options ``x W D S P y C I L``, block and other binary
properties, code points above 10FFFF or in the surrogate range; under ``(?i)``, a non-ASCII
character, a property, ``\w``, a POSIX bracket, a nested class or ``&&``, and the letter pairs
``ss st ff fi fl`` (Oniguruma matches each to one ``ß`` or ligature); ``\R`` in a look-behind
(Oniguruma looks back over ``\r\n`` only). A pattern Oniguruma rejects (a look-ahead, ``\z`` or
``\Z`` in a look-behind, a capture in a negative one, ...) is refused as invalid; a few
look-behinds that can match nothing, on which Oniguruma fails with an "undefined error code",
are translated (as always true or never true, which is what Oniguruma makes of the others).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import regex

from bpe_core.errors import ConfigError, InputError, quoted

Span = tuple[int, int]
Ranges = tuple[tuple[int, int], ...]

BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
_BEHAVIOR_NAMES = {
    **{name: name for name in BEHAVIORS},
    "Removed": "removed",
    "Isolated": "isolated",
    "MergedWithPrevious": "merged_with_previous",
    "MergedWithNext": "merged_with_next",
    "Contiguous": "contiguous",
}
_MAX_CODE = 0x10FFFF


# ---------------------------------------------------------------------------------------------
# Splitting: HF's NormalizedString::split on the matches of a pattern
# ---------------------------------------------------------------------------------------------


def behavior_name(behavior: str) -> str:
    """The behaviour's snake-case name, from the JSON (``MergedWithNext``) or Python spelling."""
    try:
        return _BEHAVIOR_NAMES[behavior]
    except (KeyError, TypeError):
        raise ConfigError(f"The split behaviour {behavior!r} is none of {', '.join(BEHAVIORS)}.") from None


def split_spans(text: str, matches: Iterable[Span], behavior: str, invert: bool = False) -> list[Span]:
    """The pieces HF's ``NormalizedString::split`` keeps, given the pattern's match spans in order."""
    kind = behavior_name(behavior)
    if not text:
        return []  # HF splits an empty text into one empty piece, and drops empty pieces
    # HF's Pattern::find_matches: the gaps between matches (False) and the matches (True), empty
    # matches included, covering the text in order.
    marked: list[tuple[int, int, bool]] = []
    previous = 0
    for start, end in matches:
        if previous != start:
            marked.append((previous, start, False))
        marked.append((start, end, True))
        previous = end
    if previous != len(text):
        marked.append((previous, len(text), False))
    if invert:
        marked = [(start, end, not is_match) for start, end, is_match in marked]
    if kind == "removed":
        pieces = [(start, end) for start, end, is_match in marked if not is_match]
    elif kind == "isolated":
        pieces = [(start, end) for start, end, _ in marked]
    elif kind == "merged_with_next":
        pieces = _fold_merged(marked[::-1], backwards=True)[::-1]
    else:
        pieces = _fold_merged(marked, backwards=False, contiguous=kind == "contiguous")
    return [(start, end) for start, end in pieces if start < end]


def _fold_merged(
    marked: Sequence[tuple[int, int, bool]], backwards: bool, contiguous: bool = False
) -> list[Span]:
    """HF's folds for the merging behaviours, written as its Rust is (empty matches included)."""
    pieces: list[Span] = []
    previous_match = False
    for start, end, is_match in marked:
        # Contiguous joins runs of the same kind; the merged behaviours join a match that
        # follows a non-match to the piece before it (in the direction of the walk).
        joins = is_match == previous_match if contiguous else is_match and not previous_match
        if joins and pieces:
            first, last = pieces[-1]
            pieces[-1] = (start, last) if backwards else (first, end)
        else:
            pieces.append((start, end))
        previous_match = is_match
    return pieces


def regex_matches(compiled: regex.Pattern[str], text: str) -> list[Span]:
    """The match spans as HF's ``find_iter`` walks them (``compiled`` from :func:`compile_pattern`)."""
    spans: list[Span] = []
    position = 0
    last_end: int | None = None
    timed = compiled in _TIMED
    while position <= len(text):
        try:
            if timed:
                match = compiled.search(text, position, timeout=SEARCH_SECONDS)
            else:
                match = compiled.search(text, position)
        except TimeoutError:
            raise InputError(
                f"The split pattern {quoted(compiled.pattern)} took more than {SEARCH_SECONDS:g} s to "
                f"find one match from character {position:,} of the text: a pattern that backtracks "
                "without end (Hugging Face's tokenizers stop it too)."
            ) from None
        if match is None:
            break
        start, end = match.span()
        if start == end and end == last_end:
            # The onig crate refuses an empty match where the last match ended and searches
            # again one character on (unlike Python, which would retry a longer match here).
            position += 1
            continue
        spans.append((start, end))
        position = last_end = end
    return spans


def string_matches(literal: str, text: str) -> list[Span]:
    """Where HF finds a ``String`` pattern: the leftmost non-overlapping occurrences of ``literal``."""
    if not literal:
        # HF compiles the escaped literal: an empty pattern matches once at every position.
        return [(index, index) for index in range(len(text) + 1)]
    spans: list[Span] = []
    index = text.find(literal)
    while index != -1:
        spans.append((index, index + len(literal)))
        index = text.find(literal, index + len(literal))
    return spans


def split_pattern_spans(
    text: str, pattern: str, behavior: str, invert: bool = False, *, literal: bool = False
) -> list[Span]:
    """The pieces of HF's ``Split`` for a ``Regex`` pattern, or a ``String`` one if ``literal``."""
    matches = string_matches(pattern, text) if literal else regex_matches(compile_pattern(pattern), text)
    return split_spans(text, matches, behavior, invert)


# ---------------------------------------------------------------------------------------------
# The other splitting pre-tokenizers
# ---------------------------------------------------------------------------------------------


def whitespace_spans(text: str) -> list[Span]:
    """HF ``Whitespace``: runs of word characters and runs of other non-space characters."""
    return [match.span() for match in _fixed_pattern("whitespace").finditer(text)]


def whitespace_split_spans(text: str) -> list[Span]:
    """HF ``WhitespaceSplit``: the runs between Rust ``char::is_whitespace`` characters."""
    return [match.span() for match in _fixed_pattern("whitespace_split").finditer(text)]


def digits_spans(text: str, individual_digits: bool = False) -> list[Span]:
    """HF ``Digits``: ``char::is_numeric`` runs (single characters if ``individual_digits``) and the rest."""
    name = "digits_individual" if individual_digits else "digits"
    return [match.span() for match in _fixed_pattern(name).finditer(text)]


def punctuation_spans(text: str, behavior: str = "isolated") -> list[Span]:
    """HF ``Punctuation``: each punctuation character as a delimiter under ``behavior``."""
    matches = [match.span() for match in _fixed_pattern("punctuation").finditer(text)]
    return split_spans(text, matches, behavior)


def bert_spans(text: str) -> list[Span]:
    """HF ``BertPreTokenizer``: whitespace removed, then each punctuation character alone."""
    return [match.span() for match in _fixed_pattern("bert").finditer(text)]


def char_delimiter_spans(text: str, delimiter: str) -> list[Span]:
    """HF ``CharDelimiterSplit``: the non-empty runs between occurrences of ``delimiter`` (one character)."""
    if len(delimiter) != 1:
        raise ConfigError(f"The split delimiter {quoted(delimiter)} is not exactly one character.")
    spans: list[Span] = []
    start = 0
    for index, char in enumerate(text):
        if char == delimiter:
            if start < index:
                spans.append((start, index))
            start = index + 1
    if start < len(text):
        spans.append((start, len(text)))
    return spans


@functools.cache
def _fixed_pattern(name: str) -> regex.Pattern[str]:
    """The compiled pattern of one built-in pre-tokenizer."""
    white = _set_from_ranges(_white_space())
    if name == "whitespace":
        # Rust's regex crate: \w is Alphabetic, M, Nd, Pc and Join_Control; \s is White_Space.
        word = _rust_word()
        other = _cs_complement(_cs_union([word, white]))
        source = f"{_class_pattern(word)}+|{_class_pattern(other)}+"
    elif name == "whitespace_split":
        source = f"{_class_pattern(_cs_complement(white))}+"
    elif name in ("digits", "digits_individual"):
        numeric = _rust_numeric()
        repeat = "" if name == "digits_individual" else "+"
        source = f"{_class_pattern(numeric)}{repeat}|{_class_pattern(_cs_complement(numeric))}+"
    elif name == "punctuation":
        source = _class_pattern(_hf_punctuation())
    else:  # bert
        punctuation = _hf_punctuation()
        others = _cs_complement(_cs_union([punctuation, white]))
        source = f"{_class_pattern(punctuation)}|{_class_pattern(others)}+"
    return regex.compile(source, regex.V1)


# ---------------------------------------------------------------------------------------------
# Translating an Oniguruma pattern
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _parsed(pattern: str) -> object:
    """The nodes of an Oniguruma ``pattern``."""
    if not isinstance(pattern, str):
        raise ConfigError("The split pattern is not a string.")
    return _Parser(pattern).parse()


@functools.lru_cache(maxsize=256)
def translate_pattern(pattern: str) -> str:
    """A ``regex.V1`` pattern that matches exactly the spans the Oniguruma ``pattern`` matches in HF."""
    return _emit(_parsed(pattern))


@functools.lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """The compiled translation of an Oniguruma ``pattern`` (cached)."""
    compiled = regex.compile(translate_pattern(pattern), regex.V1)
    if _may_backtrack_for_ever(_parsed(pattern)):
        _TIMED.add(compiled)
    return compiled


# Patterns whose searches are bounded in time (see regex_matches). A bound on every search costs
# about 2 µs a match (three times the search itself), so only these pay it.
_TIMED: set[regex.Pattern[str]] = set()
SEARCH_SECONDS = 2.0  # at most, to find one match of such a pattern


def _may_backtrack_for_ever(node: object, under_repeat: bool = False, followed: bool = False) -> bool:
    r"""Whether a pattern has the shape of catastrophic backtracking: a repeat that something
    follows (which may fail), over something that repeats or chooses (``(x+x+)+y``,
    ``(a|ab)*c``): its search can take exponential time where no match follows. Oniguruma stops
    such a search at its retry limit and Hugging Face fails the encoding at once; here its
    searches get a time limit. (GPT-4's ``\p{N}{1,3}+`` repeats a repeat, but nothing follows
    it: its first way of matching is the match.)"""
    if isinstance(node, _Quant):
        repeats = node.upper is None or node.upper > 1
        if under_repeat and repeats:
            return True
        return _may_backtrack_for_ever(node.body, under_repeat or (repeats and followed), followed or repeats)
    if isinstance(node, _Alt):
        if under_repeat and len(node.branches) > 1:
            return True
        return any(_may_backtrack_for_ever(branch, under_repeat, followed) for branch in node.branches)
    if isinstance(node, _Seq):
        last = len(node.items) - 1
        return any(
            _may_backtrack_for_ever(item, under_repeat, followed or index < last)
            for index, item in enumerate(node.items)
        )
    if isinstance(node, _Group):
        if node.opener in ("(?:", "(") or node.transparent:
            return _may_backtrack_for_ever(node.body, under_repeat, followed)
        # atomic groups and look-arounds: once matched, never entered again by backtracking
        return _may_backtrack_for_ever(node.body)
    return False


def _unsupported(construct: str) -> ConfigError:
    """The error for a construct this module does not translate."""
    return ConfigError(f"The split pattern uses {construct}, which BPE Studio does not model.")


@dataclass(frozen=True)
class _Flags:
    """The options in force at a point of the pattern: ``(?i)`` and Ruby's ``(?m)`` (dot-all)."""

    icase: bool = False
    dotall: bool = False


@dataclass(frozen=True)
class _Lit:
    """One literal code point."""

    code: int


@dataclass(frozen=True)
class _Set:
    """One character from a set."""

    chars: _CharSet


@dataclass(frozen=True)
class _Raw:
    """Finished ``regex`` text: an anchor (zero-width, so no quantifier may follow) or an atom."""

    text: str
    zero_width: bool


@dataclass(frozen=True)
class _Seq:
    """Items matched one after another."""

    items: tuple[object, ...]


@dataclass(frozen=True)
class _Alt:
    """Alternatives, tried in order."""

    branches: tuple[object, ...]


@dataclass(frozen=True)
class _Group:
    """A group: ``opener`` is its ``regex`` opening (``(?:``, ``(?=``, ``(?>`` ...)."""

    opener: str
    body: object
    transparent: bool = False  # Oniguruma's (?:...) hands its content on as it is
    zero_width: bool = False


@dataclass(frozen=True)
class _Quant:
    """A quantified item; ``upper`` is ``None`` for no limit."""

    body: object
    lower: int
    upper: int | None
    greedy: bool


def _emit(node: object) -> str:
    """The ``regex`` text of a parsed node."""
    if isinstance(node, _Lit):
        return _escape_code(node.code)
    if isinstance(node, _Set):
        return _class_pattern(node.chars)
    if isinstance(node, _Raw):
        return node.text
    if isinstance(node, _Seq):
        return "".join(_emit(item) for item in node.items)
    if isinstance(node, _Alt):
        return "|".join(_emit(branch) for branch in node.branches)
    if isinstance(node, _Group):
        return f"{node.opener}{_emit(node.body)})"
    assert isinstance(node, _Quant)
    body = _emit(node.body)
    if not isinstance(node.body, (_Lit, _Set, _Group)) and not (
        isinstance(node.body, _Raw) and not node.body.zero_width
    ):
        body = f"(?:{body})"
    lower, upper = node.lower, node.upper
    if (lower, upper) == (0, 1):
        suffix = "?"
    elif (lower, upper) == (0, None):
        suffix = "*"
    elif (lower, upper) == (1, None):
        suffix = "+"
    elif lower == upper:
        suffix = f"{{{lower}}}"
    else:
        suffix = f"{{{lower},{'' if upper is None else upper}}}"
    return body + suffix + ("" if node.greedy else "?")


def _anchor_among(node: object) -> bool:
    """Whether ``node`` is, as Oniguruma sees it, an anchor or look-around, or alternatives
    one of which is (``(?:a|(?:b|\\b))``; not inside a capturing group)."""
    inner = _strip(node)
    if isinstance(inner, (_Raw, _Group)):
        return inner.zero_width
    return isinstance(inner, _Alt) and any(_anchor_among(branch) for branch in inner.branches)


def _strip(node: object) -> object:
    """The node Oniguruma sees through ``(?:...)`` groups and one-item sequences."""
    while True:
        if isinstance(node, _Group) and node.transparent:
            node = node.body
        elif isinstance(node, _Seq) and len(node.items) == 1:
            node = node.items[0]
        elif isinstance(node, _Alt) and len(node.branches) == 1:
            node = node.branches[0]
        else:
            return node


def _quant_kind(quant: _Quant) -> int:
    """Oniguruma's number for the popular quantifiers ``? * + ?? *? +?`` (0-5), else -1."""
    shapes = {(0, 1): 0, (0, None): 1, (1, None): 2}
    kind = shapes.get((quant.lower, quant.upper), -1)
    return kind if kind < 0 or quant.greedy else kind + 3


# Oniguruma's ReduceTypeTable[inner][outer] for a quantifier applied to a quantifier.
_KEEP, _DROP, _STAR, _PLUS, _LAZY_STAR, _LAZY_OPT, _PLUS_LAZY_OPT = range(7)
_REDUCE = (
    (_DROP, _STAR, _STAR, _LAZY_OPT, _LAZY_STAR, _KEEP),
    (_DROP, _DROP, _DROP, _PLUS_LAZY_OPT, _PLUS_LAZY_OPT, _DROP),
    (_STAR, _STAR, _DROP, _KEEP, _PLUS_LAZY_OPT, _DROP),
    (_DROP, _LAZY_STAR, _LAZY_STAR, _DROP, _LAZY_STAR, _LAZY_STAR),
    (_DROP, _DROP, _DROP, _DROP, _DROP, _DROP),
    (_KEEP, _STAR, _PLUS, _LAZY_STAR, _LAZY_STAR, _DROP),
)


def _quantify(target: object, lower: int, upper: int | None, greedy: bool) -> object:
    """``target`` under a quantifier, nested quantifiers reduced as Oniguruma's parser does."""
    if lower == 1 and upper == 1:
        return target  # Oniguruma drops x{1} and x{1,1}
    inner = _strip(target)
    outer = _Quant(target, lower, upper, greedy)
    if not isinstance(inner, _Quant):
        return outer
    inner_kind, outer_kind = _quant_kind(inner), _quant_kind(outer)
    if inner_kind >= 0 and outer_kind < 0:
        # (?:a*){n,m} and (?:a+){n,m} become {n,n} (or {0,1}): the same matches, found sooner.
        if inner_kind in (1, 2) and upper is not None and upper > 1 and greedy:
            return _Quant(target, lower, lower or 1, greedy)
        return outer
    if inner_kind < 0 or outer_kind < 0:
        if lower == upper and inner.lower == inner.upper:
            return _Quant(inner.body, lower * inner.lower, lower * inner.lower, greedy)
        return outer
    action = _REDUCE[inner_kind][outer_kind]
    if action == _DROP:
        return inner
    if action == _STAR:
        return _Quant(inner.body, 0, None, True)
    if action == _PLUS:
        return _Quant(inner.body, 1, None, True)
    if action == _LAZY_STAR:
        return _Quant(inner.body, 0, None, False)
    if action == _LAZY_OPT:
        return _Quant(inner.body, 0, 1, False)
    if action == _PLUS_LAZY_OPT:
        return _Quant(_Quant(inner.body, 1, None, True), 0, 1, False)
    return outer


_FOLD_PAIRS = frozenset({"ss", "st", "ff", "fi", "fl"})  # ASCII runs Oniguruma folds to ß, ﬆ, ﬀ...
_EXTRA_FOLDS = {"k": (0x212A,), "s": (0x17F,)}  # KELVIN SIGN, LATIN SMALL LETTER LONG S
_ESCAPED_CHARS = {"t": 9, "n": 10, "r": 13, "f": 12, "v": 11, "a": 7, "e": 27}
# Oniguruma's syntax pieces that this reader matches in one step ([0-9], not \d: ASCII digits).
_INTERVAL = re.compile(r"\{([0-9]*)(,([0-9]*))?\}")
_ISOLATED_OPTIONS = re.compile(r"\(\?([A-Za-z-]*)\)")
_SCOPED_OPTIONS = re.compile(r"\(\?([A-Za-z-]*):")
_NAMED_GROUP = re.compile(r"\(\?(?:<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')")
_HEX_BYTE = re.compile(r"[0-9A-Fa-f]{1,2}")
_BYTE_ESCAPE = re.compile(r"\\x([0-9A-Fa-f]{1,2})")
_OCTAL_BYTE = re.compile(r"[0-7]{0,2}")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_BRACED_CODES = {
    16: re.compile(r"\{ *([0-9A-Fa-f]{1,8}(?: +[0-9A-Fa-f]{1,8})*) *\}"),
    8: re.compile(r"\{ *([0-7]{1,11}(?: +[0-7]{1,11})*) *\}"),
}
_POSIX_BRACKET = re.compile(r"\[:(\^?)([a-z]+):\]")
_POSIX_NAMES = frozenset(
    {"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space"}
    | {"upper", "xdigit", "word"}
)


class _Parser:
    """A recursive-descent reader of Oniguruma's syntax that builds the nodes above."""

    def __init__(self, pattern: str) -> None:
        """A reader at the start of ``pattern``."""
        self.pattern = pattern
        self.pos = 0
        # The ASCII letters of the last case-insensitive character, to catch the pairs that
        # Oniguruma folds to one character (the check ignores group boundaries: safe side).
        self.fold_letters: frozenset[str] = frozenset()
        # Inside a look-behind: "positive" or "negative" (the outermost one's kind), else "".
        self.behind = ""
        # With a named group anywhere, Oniguruma's plain (...) captures nothing (and so may
        # stand in a negative look-behind); a named group inside a class only makes this lenient.
        self.names_used = _NAMED_GROUP.search(pattern) is not None

    # -- helpers ---------------------------------------------------------------------------

    def invalid(self, reason: str) -> ConfigError:
        """The error for a pattern Oniguruma itself would refuse."""
        return ConfigError(
            f"The split pattern {quoted(self.pattern)} is not a valid Oniguruma regular expression "
            f"({reason})."
        )

    def peek(self, offset: int = 0) -> str:
        """The character ``offset`` ahead, or ``""`` past the end."""
        index = self.pos + offset
        return self.pattern[index] if index < len(self.pattern) else ""

    def at_end(self) -> bool:
        """Whether the whole pattern is read."""
        return self.pos >= len(self.pattern)

    def take(self, text: str) -> bool:
        """Read ``text`` if it comes next."""
        if self.pattern.startswith(text, self.pos):
            self.pos += len(text)
            return True
        return False

    # -- structure -------------------------------------------------------------------------

    def parse(self) -> object:
        """The whole pattern as a node."""
        node = self.alternation(_Flags())
        if not self.at_end():
            raise self.invalid("unmatched close parenthesis")
        return node

    def alternation(self, flags: _Flags) -> object:
        """Branches separated by ``|``, up to a ``)`` or the end."""
        branches: list[object] = []
        while True:
            branch, rest_taken = self.sequence(flags)
            branches.append(branch)
            if rest_taken or not self.take("|"):
                break
            self.fold_letters = frozenset()
        return branches[0] if len(branches) == 1 else _Alt(tuple(branches))

    def sequence(self, flags: _Flags) -> tuple[object, bool]:
        """One branch, and whether an isolated option took the rest of the group with it."""
        items: list[object] = []
        while not self.at_end() and self.peek() not in "|)":
            isolated = self.isolated_options(flags)
            if isolated is not None:
                # Oniguruma: "(?i)" reaches to the end of the enclosing group, taking the
                # later alternatives with it: a(?i)b|c is a(?i:b|c).
                items.append(_Group("(?:", self.alternation(isolated)))
                return _one(items), True
            atoms = self.atom(flags)
            if atoms:
                # A quantifier after a code point sequence \x{41 42} takes its last character,
                # as one after a literal run "ab+" does.
                items.extend(atoms[:-1])
                items.append(self.quantifiers(atoms[-1]))
        return _one(items), False

    def quantifiers(self, node: object) -> object:
        """The quantifiers after ``node`` applied to it, in turn."""
        while not self.at_end():
            char = self.peek()
            if char in "?*+":
                self.pos += 1
                lower, upper = {"?": (0, 1), "*": (0, None), "+": (1, None)}[char]
                greedy, possessive = True, False
                if self.take("?"):
                    greedy = False
                elif self.take("+"):
                    possessive = True
            elif char == "{":
                interval = self.interval()
                if interval is None:
                    break  # a literal "{"
                lower, upper, fixed = interval
                greedy, possessive = True, False
                if upper is not None and lower > upper:
                    lower, upper, possessive = upper, lower, True  # Oniguruma's {n,m} with n > m
                elif not fixed and self.take("?"):
                    greedy = False  # x{n}? is not lazy: its "?" quantifies again
            else:
                break
            self.check_target(node)
            node = _quantify(node, lower, upper, greedy)
            if possessive:
                node = _Group("(?>", node)
        return node

    def check_target(self, node: object) -> None:
        """Refuse a quantifier on an anchor or look-around, as Oniguruma does: on one, or on
        alternatives one of which is one, through any depth of ``(?:...)`` alternatives."""
        if _anchor_among(node):
            raise self.invalid("target of repeat operator is invalid")

    def interval(self) -> tuple[int, int | None, bool] | None:
        """``{n}``, ``{n,}``, ``{,m}`` or ``{n,m}`` at the position, or ``None`` (a literal ``{``)."""
        found = _INTERVAL.match(self.pattern, self.pos)
        if found is None:
            return None
        low, comma, up = found.group(1), found.group(2), found.group(3)
        if not low and (comma is None or not up):
            return None  # {} and {,} are literals
        lower = int(low) if low else 0
        upper = None if comma is not None and not up else int(up if comma is not None else low)
        if lower > 100_000 or (upper or 0) > 100_000:
            raise self.invalid("too big number for repeat range")
        self.pos = found.end()
        return lower, upper, comma is None

    def isolated_options(self, flags: _Flags) -> _Flags | None:
        """The options of a ``(?imx-imx)`` at the position (consumed), or ``None``."""
        found = _ISOLATED_OPTIONS.match(self.pattern, self.pos)
        if found is None or not found.group(1):
            return None
        self.pos = found.end()
        return self.options(found.group(1), flags)

    def options(self, letters: str, flags: _Flags) -> _Flags:
        """The options after ``(?letters``, from those in force."""
        icase, dotall, on = flags.icase, flags.dotall, True
        for letter in letters:
            if letter == "-":
                on = False
            elif letter == "i":
                icase = on
            elif letter == "m":
                dotall = on
            elif letter == "x":
                if on:
                    raise _unsupported("the extended (?x) option")
            elif letter in "WDSPyCIL":
                raise _unsupported(f"the ({'?' if on else '?-'}{letter}) option")
            else:
                raise self.invalid(f"undefined group option {letter!r}")
        return _Flags(icase, dotall)

    # -- atoms -----------------------------------------------------------------------------

    def atom(self, flags: _Flags) -> list[object]:
        """The next atom (several for a code point sequence, none for a comment)."""
        char = self.peek()
        if char == "(":
            group = self.group(flags)
            return [] if group is None else [group]
        if char == "[":
            self.pos += 1
            return [self.set_atom(self.char_class(flags), flags)]
        if char == "\\":
            return self.escape(flags)
        self.pos += 1
        if char in ".^$":
            self.fold_letters = frozenset()
        if char == ".":
            return [_Set(_any_char() if flags.dotall else _not_newline())]
        if char == "^":
            return [_Raw(r"(?:\A|(?<=\n)(?!\Z))", True)]
        if char == "$":
            return [_Raw(r"(?=\n|\Z)", True)]
        if char in "*+?" or (char == "{" and self.interval_here(self.pos - 1)):
            raise self.invalid("target of repeat operator is not specified")
        return [self.literal(ord(char), flags)]

    def interval_here(self, index: int) -> bool:
        """Whether an interval starts at ``index``."""
        saved, self.pos = self.pos, index
        try:
            return self.interval() is not None
        finally:
            self.pos = saved

    def literal(self, code: int, flags: _Flags) -> object:
        """A literal character, as a case class under ``(?i)``."""
        if not flags.icase:
            self.fold_letters = frozenset()
            return _Lit(code)
        folded = self.fold_chars(frozenset({code}))
        if folded is None:
            return _Lit(code)
        return _Set(_set_from_ranges(_norm((c, c) for c in folded), exact=True))

    def fold_chars(self, codes: frozenset[int]) -> frozenset[int] | None:
        """The ASCII ``codes`` with their case variants, or ``None`` if none is a letter."""
        if any(code >= 0x80 for code in codes):
            bad = min(code for code in codes if code >= 0x80)
            raise _unsupported(f"case-insensitive matching of {chr(bad)!r}")
        letters = frozenset(chr(code).lower() for code in codes if chr(code).isalpha())
        for first in self.fold_letters:
            for second in letters:
                if first + second in _FOLD_PAIRS:
                    raise _unsupported(f"the case-insensitive letters {first + second!r}")
        self.fold_letters = letters
        if not letters:
            return None
        extra = {code for letter in letters for code in _EXTRA_FOLDS.get(letter, ())}
        return codes | {ord(c) for letter in letters for c in (letter, letter.upper())} | extra

    def set_atom(self, chars: _CharSet, flags: _Flags) -> object:
        """A bracketed class as an atom."""
        if not flags.icase:
            self.fold_letters = frozenset()
        return _Set(chars)

    def group(self, flags: _Flags) -> object | None:
        """A parenthesised group, or ``None`` for a comment."""
        if self.take("(?#"):
            # A comment ends at the first unescaped ")".
            while not self.at_end() and self.peek() != ")":
                self.pos += 2 if self.peek() == "\\" else 1
            if not self.take(")"):
                raise self.invalid("end pattern in group")
            return None
        for opener, zero_width in (
            ("(?:", False),
            ("(?=", True),
            ("(?!", True),
            ("(?<=", True),
            ("(?<!", True),
            ("(?>", False),
        ):
            if self.take(opener):
                outer = self.behind
                if outer and (opener in ("(?=", "(?!") or (outer == "positive" and opener == "(?<!")):
                    raise self.invalid("invalid pattern in look-behind")
                if not outer and opener in ("(?<=", "(?<!"):
                    self.behind = "positive" if opener == "(?<=" else "negative"
                body = self.group_body(flags)
                self.behind = outer
                return _Group(opener, body, transparent=opener == "(?:", zero_width=zero_width)
        named = _NAMED_GROUP.match(self.pattern, self.pos)
        plain = not self.pattern.startswith("(?", self.pos)
        if self.behind == "negative" and (named is not None or (plain and not self.names_used)):
            raise self.invalid("invalid pattern in look-behind")
        if named is not None:
            self.pos = named.end()
            return _Group("(?:", self.group_body(flags))
        if self.pattern.startswith("(?~", self.pos):
            raise _unsupported("an absent group (?~...)")
        if self.pattern.startswith("(?(", self.pos):
            raise _unsupported("a conditional group (?(...)...)")
        if self.pattern.startswith(("(?{", "(*"), self.pos):
            raise _unsupported("a callout")
        if self.pattern.startswith("(?<", self.pos) or self.pattern.startswith("(?'", self.pos):
            raise self.invalid("invalid group name")
        scoped = _SCOPED_OPTIONS.match(self.pattern, self.pos)
        if scoped is not None:
            self.pos = scoped.end()
            return _Group("(?:", self.group_body(self.options(scoped.group(1), flags)))
        if self.take("(?"):
            raise self.invalid("undefined group option")
        self.pos += 1
        return _Group("(?:", self.group_body(flags))  # a capture: not transparent to Oniguruma

    def group_body(self, flags: _Flags) -> object:
        """A group's alternatives and its ``)``."""
        body = self.alternation(flags)
        if not self.take(")"):
            raise self.invalid("end pattern with unmatched parenthesis")
        return body

    def escape(self, flags: _Flags) -> list[object]:
        """A backslash escape outside brackets (one node, or several for ``\\x{H H}``)."""
        self.pos += 1
        if self.at_end():
            raise self.invalid("end pattern at escape")
        char = self.peek()
        self.pos += 1
        anchors = {"A": r"\A", "z": r"\Z", "Z": r"(?=\n?\Z)", "G": r"\G"}
        if self.behind and char in "zZ":
            raise self.invalid("invalid pattern in look-behind")
        if self.behind and char == "R":
            # Oniguruma's \R looks back over "\r\n" only (HF finds no "b" in "\nb" with (?<=\R)b).
            raise _unsupported(r"\R inside a look-behind")
        if char in anchors or char in "bB":
            self.fold_letters = frozenset()
            text = _word_boundary(char == "b") if char in "bB" else anchors[char]
            return [_Raw(text, True)]
        if char == "R":
            self.fold_letters = frozenset()
            return [_Raw(r"(?>\r\n|[\n\x0b\x0c\r\x85\u2028\u2029])", False)]
        if char in "NO":
            self.fold_letters = frozenset()
            return [_Set(_not_newline() if char == "N" else _any_char())]
        chars = self.type_escape(char, flags, outside=True)
        if chars is not None:
            self.fold_letters = frozenset()
            return [_Set(chars)]
        if char in "XyYKkg123456789":
            names = {
                "X": r"the grapheme cluster \X",
                "y": r"the text-segment boundary \y",
                "Y": r"the text-segment boundary \Y",
                "K": r"\K (keep)",
                "k": r"a named back-reference \k",
                "g": r"a subexpression call \g",
            }
            raise _unsupported(names.get(char, f"the back-reference or octal escape \\{char}"))
        return [self.literal(code, flags) for code in self.char_escape(char, in_class=False)]

    def type_escape(self, char: str, flags: _Flags, outside: bool) -> _CharSet | None:
        """The set of ``\\w \\d \\s \\h`` (and negations) or ``\\p{..}``, or ``None`` for other escapes."""
        letter = char.lower()
        if letter in "wdsh":
            if flags.icase and letter == "w":
                raise _unsupported(r"\w under case-insensitive matching")
            if letter == "w":
                chosen = _onig_word(outside)
            else:
                chosen = {"d": _gc_set("Nd"), "s": _white_space_set(), "h": _xdigit()}[letter]
            return _cs_complement(chosen) if char.isupper() else chosen
        if char in "pP" and self.peek() == "{":
            close = self.pattern.find("}", self.pos)
            if close == -1:
                raise self.invalid("invalid character property name")
            name = self.pattern[self.pos + 1 : close]
            self.pos = close + 1
            negate = char == "P"
            if name.startswith("^"):
                negate, name = not negate, name[1:]
            if flags.icase:
                raise _unsupported(f"the property \\p{{{name}}} under case-insensitive matching")
            named = _onig_property(name, outside)
            if named is None:
                raise _unsupported(f"the property \\p{{{name}}}")
            return _cs_complement(named) if negate else named
        return None

    def char_escape(self, char: str, in_class: bool) -> list[int]:
        """The code points an escape that stands for characters spells (the escape letter read)."""
        if char in _ESCAPED_CHARS:
            return [_ESCAPED_CHARS[char]]
        if char == "b" and in_class:
            return [8]
        if char == "x":
            if self.peek() == "{":
                return self.braced_codes(16)
            digits = _HEX_BYTE.match(self.pattern, self.pos)
            if digits is None:
                raise _unsupported(r"\x without hex digits")
            self.pos = digits.end()
            return [self.byte_run(int(digits.group(), 16))]
        if char == "0":
            digits = _OCTAL_BYTE.match(self.pattern, self.pos)
            assert digits is not None
            self.pos = digits.end()
            value = int(digits.group() or "0", 8)
            if value >= 0x80:
                raise _unsupported(f"the octal byte escape \\0{digits.group()}")
            return [value]
        if char == "o" and self.peek() == "{":
            return self.braced_codes(8)
        if char == "u":
            digits = _HEX4.match(self.pattern, self.pos)
            if digits is None:
                raise self.invalid("invalid code point value")
            self.pos = digits.end()
            return [self.checked_code(int(digits.group(), 16))]
        if char == "c" or (char == "C" and self.peek() == "-"):
            if char == "C":
                self.pos += 1
            control = self.peek()
            if not ("A" <= control <= "Z" or "a" <= control <= "z"):
                raise _unsupported(f"the control escape \\{char}{'-' if char == 'C' else ''}{control}")
            self.pos += 1
            return [ord(control) & 0x1F]
        if char in "CM":
            raise _unsupported(f"the escape \\{char}")
        if char in "1234567" and in_class:
            raise _unsupported(f"the octal escape \\{char}")
        return [ord(char)]  # any other escaped character stands for itself

    def braced_codes(self, base: int) -> list[int]:
        """The code points of ``{H ...}`` after ``\\x`` or ``\\o``."""
        found = _BRACED_CODES[base].match(self.pattern, self.pos)
        if found is None:
            raise self.invalid("invalid code point value")
        self.pos = found.end()
        return [self.checked_code(int(part, base)) for part in found.group(1).split()]

    def checked_code(self, code: int) -> int:
        """A code point a Python string can hold."""
        if code > _MAX_CODE or 0xD800 <= code <= 0xDFFF:
            raise _unsupported(f"the code point {code:X}, which no text holds")
        return code

    def byte_run(self, first: int) -> int:
        """A character from ``\\xHH`` bytes: HF reads a byte above 7F as part of a UTF-8 sequence."""
        if first < 0x80:
            return first
        length = (
            2 if 0xC2 <= first <= 0xDF else 3 if 0xE0 <= first <= 0xEF else 4 if 0xF0 <= first <= 0xF4 else 0
        )
        data = bytearray([first])
        while 0 < len(data) < length:
            found = _BYTE_ESCAPE.match(self.pattern, self.pos)
            if found is None:
                break
            data.append(int(found.group(1), 16))
            self.pos = found.end()
        try:
            text = bytes(data).decode("utf-8") if len(data) == length else ""
        except UnicodeDecodeError:
            text = ""
        if len(text) != 1:
            raise self.invalid("too short multibyte code string")
        return ord(text)

    # -- classes ---------------------------------------------------------------------------

    def char_class(self, flags: _Flags) -> _CharSet:
        """A bracketed class (the ``[`` read), as Oniguruma's ``prs_cc`` reads it."""
        negate = self.take("^")
        if self.peek() == "]":
            if self.pattern.find("]", self.pos + 1) == -1:
                raise self.invalid("empty char-class")
            first_bracket = True  # Oniguruma reads a leading "]" as a literal when one follows
        else:
            first_bracket = False
        operands: list[list[_CharSet]] = []
        items: list[_CharSet] = []
        pending: int | None = None  # a character that may still start a range
        state = "start"  # start, value (pending set), prop (last item a class), range, complete
        range_start = 0
        letters: set[int] = set()  # the code points named one by one, for (?i)
        nested = False

        def commit() -> None:
            """Add the pending character to the class."""
            nonlocal pending
            if pending is not None:
                items.append(_set_from_ranges(((pending, pending),), exact=True))
                letters.add(pending)
                pending = None

        while True:
            if self.at_end():
                raise self.invalid("premature end of char-class")
            char = self.peek()
            if char == "]" and not first_bracket:
                self.pos += 1
                commit()
                break
            first_bracket = False
            kind, value = self.class_token(flags)
            if kind == "range":
                # "-" makes a range only after a character and before anything but "]" or "&&";
                # after a class escape it is an error there, elsewhere it is a character.
                closes = self.peek() == "]" or self.pattern.startswith("&&", self.pos)
                if state == "value" and not closes:
                    assert pending is not None
                    state, range_start, pending = "range", pending, None
                    continue
                if state == "prop" and not closes:
                    raise self.invalid("unmatched range specifier in char-class")
                kind, value = "char", ord("-")
            if kind == "char":
                assert isinstance(value, int)
                if state == "range":
                    if value < range_start:
                        raise self.invalid("empty range in char class")
                    items.append(_set_from_ranges(((range_start, value),), exact=True))
                    letters.update(range(range_start, min(value, 0x7F) + 1))
                    if value >= 0x80:
                        letters.add(value)
                    state = "complete"
                else:
                    commit()
                    pending, state = value, "value"
            elif kind in ("set", "nested"):
                assert isinstance(value, _CharSet)
                if state == "range" and kind == "set":
                    raise self.invalid("char-class value at end of range")
                if state == "range":
                    raise _unsupported("a range that ends in a nested class")
                commit()
                items.append(value)
                nested = nested or kind == "nested"
                state = "prop" if kind == "set" else "complete"
            else:  # "and"
                if state == "range":
                    raise self.invalid("unmatched range specifier in char-class")
                commit()
                operands.append(items)  # an empty operand is the empty set: [a&&] is empty
                items, state = [], "start"
        if state == "range":
            raise self.invalid("premature end of char-class")
        operands.append(items)
        if flags.icase:
            # Oniguruma folds the class before negating it; \d \s \h (all it lets through
            # here) have no case variants, so only the characters named one by one fold.
            if nested or len(operands) > 1:
                raise _unsupported("a nested class or && under case-insensitive matching")
            folded = self.fold_chars(frozenset(letters))
            if folded is not None:
                operands = [[*items, _set_from_ranges(_norm((c, c) for c in folded), exact=True)]]
        result = _cs_union(operands[0])
        for operand in operands[1:]:
            result = _cs_intersect(result, _cs_union(operand))
        return _cs_complement(result) if negate else result

    def class_token(self, flags: _Flags) -> tuple[str, int | _CharSet | None]:
        """The next item inside a class: ``char``, ``set``, ``nested``, ``range`` (a ``-``) or ``and``."""
        char = self.peek()
        if char == "-":
            self.pos += 1
            return "range", None
        if self.take("&&"):
            return "and", None
        if char == "[":
            posix = _POSIX_BRACKET.match(self.pattern, self.pos)
            if posix is not None:
                if posix.group(2) not in _POSIX_NAMES:
                    raise _unsupported(f"the POSIX bracket [:{posix.group(1)}{posix.group(2)}:]")
                if flags.icase:
                    raise _unsupported("a POSIX bracket under case-insensitive matching")
                self.pos = posix.end()
                bracket = _posix_bracket(posix.group(2))
                return "set", _cs_complement(bracket) if posix.group(1) else bracket
            if self.pattern.startswith("[:", self.pos):
                raise _unsupported("a '[:' that opens no POSIX bracket")
            self.pos += 1
            return "nested", self.char_class(flags)
        if char == "\\":
            self.pos += 1
            if self.at_end():
                raise self.invalid("end pattern at escape")
            escaped = self.peek()
            self.pos += 1
            typed = self.type_escape(escaped, flags, outside=False)
            if typed is not None:
                return "set", typed
            codes = self.char_escape(escaped, in_class=True)
            if len(codes) != 1:
                raise _unsupported("a code point sequence \\x{..} inside a class")
            return "char", codes[0]
        self.pos += 1
        return "char", ord(char)


def _one(items: list[object]) -> object:
    """A single item as itself, several as a sequence."""
    return items[0] if len(items) == 1 else _Seq(tuple(items))


def _escape_code(code: int) -> str:
    """A code point spelt for a ``regex`` pattern, inside or outside a class."""
    if code < 0x80 and chr(code).isalnum():
        return chr(code)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _word_boundary(boundary: bool) -> str:
    """``\\b`` (or ``\\B``) as look-arounds on Oniguruma's ``\\w`` outside brackets."""
    word = _class_pattern(_onig_word(True))
    if boundary:
        return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))"
    return f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))"


# ---------------------------------------------------------------------------------------------
# Character sets: exact ranges, written fast
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _CharSet:
    """A set of code points: its exact ``ranges``, and a ``shadow`` class that ``regex`` matches fast."""

    # The shadow names regex's own properties (its Unicode version may differ from Oniguruma's);
    # _class_pattern adds and subtracts the difference. ``exact``: the shadow is the set itself.
    ranges: Ranges
    shadow: str
    exact: bool


def _norm(pairs: Iterable[tuple[int, int]]) -> Ranges:
    """Sorted, merged, disjoint ranges."""
    merged: list[tuple[int, int]] = []
    for low, high in sorted(pairs):
        if merged and low <= merged[-1][1] + 1:
            if high > merged[-1][1]:
                merged[-1] = (merged[-1][0], high)
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: Ranges) -> Ranges:
    """The code points not in ``ranges``."""
    out: list[tuple[int, int]] = []
    next_low = 0
    for low, high in ranges:
        if low > next_low:
            out.append((next_low, low - 1))
        next_low = high + 1
    if next_low <= _MAX_CODE:
        out.append((next_low, _MAX_CODE))
    return tuple(out)


def _union(*sets: Ranges) -> Ranges:
    """The code points in any of ``sets``."""
    return _norm(pair for ranges in sets for pair in ranges)


def _intersect(first: Ranges, second: Ranges) -> Ranges:
    """The code points in both."""
    return _complement(_union(_complement(first), _complement(second)))


def _minus(first: Ranges, second: Ranges) -> Ranges:
    """The code points in ``first`` and not in ``second``."""
    return _intersect(first, _complement(second))


def _ranges_class(ranges: Ranges) -> str:
    """An explicit ``regex`` class of ``ranges`` (one that matches nothing if they are empty)."""
    if not ranges:
        return "[^\\x00-\\U0010ffff]"
    parts = [
        _escape_code(low) if low == high else f"{_escape_code(low)}-{_escape_code(high)}"
        for low, high in ranges
    ]
    return f"[{''.join(parts)}]"


def _set_from_ranges(ranges: Ranges, exact: bool = True) -> _CharSet:
    """A set spelt out as its ranges."""
    return _CharSet(ranges, _ranges_class(ranges), exact)


def _property_set(ranges: Ranges, shadow: str) -> _CharSet:
    """A set with a ``regex`` property as its shadow (explicit if this ``regex`` lacks it)."""
    if _compiles(shadow):
        return _CharSet(ranges, shadow, False)
    return _set_from_ranges(ranges)


@functools.cache
def _compiles(shadow: str) -> bool:
    """Whether the installed ``regex`` compiles ``shadow``."""
    try:
        regex.compile(shadow, regex.V1)
    except Exception:  # regex.error, and the TypeError some set expressions raise inside regex
        return False
    return True


def _cs_union(sets: Sequence[_CharSet]) -> _CharSet:
    """The union of sets (the empty set for none)."""
    if not sets:
        return _set_from_ranges(())
    if len(sets) == 1:
        return sets[0]
    ranges = _union(*(chars.ranges for chars in sets))
    if all(chars.exact for chars in sets):
        return _set_from_ranges(ranges)
    return _CharSet(ranges, f"[{''.join(chars.shadow for chars in sets)}]", False)


def _cs_complement(chars: _CharSet) -> _CharSet:
    """The complement of a set."""
    return _CharSet(_complement(chars.ranges), f"[^{chars.shadow}]", chars.exact)


def _cs_intersect(first: _CharSet, second: _CharSet) -> _CharSet:
    """The intersection of two sets."""
    ranges = _intersect(first.ranges, second.ranges)
    return _CharSet(ranges, f"[{first.shadow}&&{second.shadow}]", first.exact and second.exact)


@functools.cache
def _class_pattern(chars: _CharSet) -> str:
    """A ``regex.V1`` class that matches exactly ``chars``: the shadow, corrected."""
    if chars.exact:
        return chars.shadow
    explicit = _ranges_class(chars.ranges)
    if len(chars.ranges) <= 32:
        return explicit  # few ranges match as fast spelt out, and need no scan
    actual = _scan(chars.shadow)
    extra = _minus(chars.ranges, actual)
    surplus = _minus(actual, chars.ranges)
    text = chars.shadow if not extra else f"[{chars.shadow}{_ranges_class(extra)[1:-1]}]"
    if surplus:
        text = f"[{text}--{_ranges_class(surplus)}]"
    # Some deep set expressions trip the regex module itself: the spelt-out class always works.
    return text if _compiles(text) else explicit


@functools.cache
def _scan(shadow: str) -> Ranges:
    """The code points the installed ``regex`` matches with ``shadow`` (one pass over all of them)."""
    compiled = regex.compile(f"{shadow}+", regex.V1)
    return tuple((match.start(), match.end() - 1) for match in compiled.finditer(_all_code_points()))


@functools.cache
def _all_code_points() -> str:
    """Every code point, in order, as one string (4 MB, built once, for scans)."""
    return "".join(map(chr, range(_MAX_CODE + 1)))


# ---------------------------------------------------------------------------------------------
# Unicode properties as Oniguruma 6.9.9 (Unicode 16.0) and the Rust side of HF have them
# ---------------------------------------------------------------------------------------------


def _decode_runs(runs: str, token: str) -> dict[str, Ranges]:
    """Run-length data (a name, then a base-36 length, over all code points) as ranges per name."""
    table: dict[str, list[tuple[int, int]]] = {}
    code = 0
    for name, length in re.findall(token, runs):
        size = int(length, 36)
        table.setdefault(name, []).append((code, code + size - 1))
        code += size
    assert code == _MAX_CODE + 1, "the Unicode run tables do not cover every code point"
    return {name: tuple(ranges) for name, ranges in table.items()}


def _decode_ranges(text: str) -> Ranges:
    """Base-36 ranges ``a-b`` and single code points ``a``, separated by spaces."""
    pairs = []
    for item in text.split():
        low, _, high = item.partition("-")
        pairs.append((int(low, 36), int(high or low, 36)))
    return _norm(pairs)


@functools.cache
def _general_categories() -> dict[str, Ranges]:
    """The ranges of each general category (two-letter names)."""
    return _decode_runs(_GC_RUNS, r"([A-Z][a-z])([0-9a-z]+)")


@functools.cache
def _scripts() -> dict[str, Ranges]:
    """The ranges of each script (ISO 15924 codes)."""
    return _decode_runs(_SCRIPT_RUNS, r"([A-Z][a-z]{3})([0-9a-z]+)")


_MAJOR_CATEGORIES = {
    "L": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "LC": ("Lu", "Ll", "Lt"),
    "M": ("Mn", "Mc", "Me"),
    "N": ("Nd", "Nl", "No"),
    "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "S": ("Sm", "Sc", "Sk", "So"),
    "Z": ("Zs", "Zl", "Zp"),
    "C": ("Cc", "Cf", "Cn", "Co", "Cs"),
}
# Oniguruma's names for the general categories (compared without case, "_", "-" or spaces).
_CATEGORY_NAMES = {
    "cc": "Cc",
    "control": "Cc",
    "cntrl": "Cc",
    "cf": "Cf",
    "format": "Cf",
    "cn": "Cn",
    "unassigned": "Cn",
    "co": "Co",
    "privateuse": "Co",
    "cs": "Cs",
    "surrogate": "Cs",
    "ll": "Ll",
    "lowercaseletter": "Ll",
    "lm": "Lm",
    "modifierletter": "Lm",
    "lo": "Lo",
    "otherletter": "Lo",
    "lt": "Lt",
    "titlecaseletter": "Lt",
    "lu": "Lu",
    "uppercaseletter": "Lu",
    "mc": "Mc",
    "spacingmark": "Mc",
    "me": "Me",
    "enclosingmark": "Me",
    "mn": "Mn",
    "nonspacingmark": "Mn",
    "nd": "Nd",
    "decimalnumber": "Nd",
    "digit": "Nd",
    "nl": "Nl",
    "letternumber": "Nl",
    "no": "No",
    "othernumber": "No",
    "pc": "Pc",
    "connectorpunctuation": "Pc",
    "pd": "Pd",
    "dashpunctuation": "Pd",
    "pe": "Pe",
    "closepunctuation": "Pe",
    "pf": "Pf",
    "finalpunctuation": "Pf",
    "pi": "Pi",
    "initialpunctuation": "Pi",
    "po": "Po",
    "otherpunctuation": "Po",
    "ps": "Ps",
    "openpunctuation": "Ps",
    "sc": "Sc",
    "currencysymbol": "Sc",
    "sk": "Sk",
    "modifiersymbol": "Sk",
    "sm": "Sm",
    "mathsymbol": "Sm",
    "so": "So",
    "othersymbol": "So",
    "zl": "Zl",
    "lineseparator": "Zl",
    "zp": "Zp",
    "paragraphseparator": "Zp",
    "zs": "Zs",
    "spaceseparator": "Zs",
    "l": "L",
    "letter": "L",
    "lc": "LC",
    "casedletter": "LC",
    "m": "M",
    "mark": "M",
    "combiningmark": "M",
    "n": "N",
    "number": "N",
    "p": "P",
    "punct": "P",
    "punctuation": "P",
    "s": "S",
    "symbol": "S",
    "z": "Z",
    "separator": "Z",
    "c": "C",
    "other": "C",
}


@functools.cache
def _gc_set(name: str) -> _CharSet:
    """A general category or major class by its short name (``Lu``, ``L``, ``LC`` ...)."""
    table = _general_categories()
    ranges = _union(*(table.get(part, ()) for part in _MAJOR_CATEGORIES.get(name, (name,))))
    return _property_set(ranges, f"\\p{{{name}}}")


@functools.cache
def _script_names() -> dict[str, str]:
    """Every spelling Oniguruma accepts for a script (normalised), to its ISO 15924 code."""
    names: dict[str, str] = {}
    for entry in _SCRIPT_NAMES.split():
        code, _, aliases = entry.partition(":")
        for alias in [code.lower(), *filter(None, aliases.split(","))]:
            names[alias] = code
    return names


@functools.cache
def _script_set(code: str) -> _CharSet:
    """A script by its ISO 15924 code."""
    return _property_set(_scripts().get(code, ()), f"\\p{{sc={code}}}")


@functools.cache
def _white_space() -> Ranges:
    """White_Space, the same 25 characters for Oniguruma's ``\\s`` and Rust's ``is_whitespace``."""
    return _norm(
        [
            (0x09, 0x0D),
            (0x20, 0x20),
            (0x85, 0x85),
            (0xA0, 0xA0),
            (0x1680, 0x1680),
            (0x2000, 0x200A),
            (0x2028, 0x2029),
            (0x202F, 0x202F),
            (0x205F, 0x205F),
            (0x3000, 0x3000),
        ]
    )


def _white_space_set() -> _CharSet:
    """White_Space as a set."""
    return _set_from_ranges(_white_space())


def _xdigit() -> _CharSet:
    """``[0-9A-Fa-f]``, Oniguruma's ``\\h``."""
    return _set_from_ranges(((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)))


def _not_newline() -> _CharSet:
    """Every character but LF, Oniguruma's ``.``."""
    return _set_from_ranges(_complement(((0x0A, 0x0A),)))


def _any_char() -> _CharSet:
    """Every character."""
    return _set_from_ranges(((0, _MAX_CODE),))


@functools.cache
def _alphabetic() -> _CharSet:
    """Alphabetic: L, Nl and Other_Alphabetic."""
    ranges = _union(_gc_set("L").ranges, _gc_set("Nl").ranges, _decode_ranges(_OTHER_ALPHABETIC))
    return _property_set(ranges, r"\p{Alphabetic}")


@functools.cache
def _onig_word(outside: bool) -> _CharSet:
    """Oniguruma's ``\\w``: Alphabetic, M, Nd, Pc; outside brackets its Latin-1 table adds ``²³¹¼½¾``."""
    ranges = _union(_alphabetic().ranges, _gc_set("M").ranges, _gc_set("Nd").ranges, _gc_set("Pc").ranges)
    if outside:
        ranges = _union(ranges, ((0xB2, 0xB3), (0xB9, 0xB9), (0xBC, 0xBE)))
    return _property_set(ranges, r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}]")


def _posix_bracket(name: str) -> _CharSet:
    """A ``[:name:]`` class; only ``punct`` differs from the ``\\p{name}`` of the same name."""
    if name == "punct":
        return _property_set(_union(_gc_set("P").ranges, _gc_set("S").ranges), r"[\p{P}\p{S}]")
    chars = _onig_property(name, outside=False)
    assert chars is not None
    return chars


def _onig_property(name: str, outside: bool) -> _CharSet | None:
    """The set Oniguruma gives ``\\p{name}``, or ``None`` for a name this module does not model."""
    if not name.isascii():
        return None
    key = re.sub(r"[ _-]", "", name).lower()  # Oniguruma ignores case, "_", "-" and spaces
    if key in _CATEGORY_NAMES:
        return _gc_set(_CATEGORY_NAMES[key])
    if key in _script_names():
        return _script_set(_script_names()[key])
    builder = _NAMED_SETS.get(key)
    return builder(outside) if builder is not None else None


def _alnum() -> _CharSet:
    """Alphabetic and Nd."""
    return _property_set(_union(_alphabetic().ranges, _gc_set("Nd").ranges), r"[\p{Alphabetic}\p{Nd}]")


def _blank() -> _CharSet:
    """Zs and tab."""
    return _property_set(_union(_gc_set("Zs").ranges, ((9, 9),)), r"[\t\p{Zs}]")


def _print() -> _CharSet:
    """Graph and Zs."""
    shadow = r"[[^\p{White_Space}\p{Cc}\p{Cs}\p{Cn}]\p{Zs}]"
    return _property_set(_union(_graph().ranges, _gc_set("Zs").ranges), shadow)


@functools.cache
def _lowercase() -> _CharSet:
    """Lowercase: Ll and Other_Lowercase."""
    ranges = _union(_gc_set("Ll").ranges, _decode_ranges(_OTHER_LOWERCASE))
    return _property_set(ranges, r"\p{Lowercase}")


@functools.cache
def _uppercase() -> _CharSet:
    """Uppercase: Lu and Other_Uppercase."""
    ranges = _union(_gc_set("Lu").ranges, _decode_ranges(_OTHER_UPPERCASE))
    return _property_set(ranges, r"\p{Uppercase}")


@functools.cache
def _graph() -> _CharSet:
    """Everything but White_Space, Cc, Cs and Cn."""
    hidden = _union(_white_space(), *(_gc_set(name).ranges for name in ("Cc", "Cs", "Cn")))
    return _property_set(_complement(hidden), r"[^\p{White_Space}\p{Cc}\p{Cs}\p{Cn}]")


@functools.cache
def _rust_word() -> _CharSet:
    """Rust ``regex``'s ``\\w`` (Unicode 16.0): Alphabetic, M, Nd, Pc and Join_Control."""
    ranges = _union(_onig_word(False).ranges, ((0x200C, 0x200D),))
    return _property_set(ranges, r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]")


@functools.cache
def _rust_numeric() -> _CharSet:
    """Rust's ``char::is_numeric``: N, in the Unicode 17.0 of the Rust that built HF."""
    return _property_set(_union(_gc_set("N").ranges, _decode_ranges(_NUMERIC_17)), r"\p{N}")


@functools.cache
def _hf_punctuation() -> _CharSet:
    """HF's ``is_punc``: ASCII punctuation, or P in the old tables of the ``unicode_categories`` crate."""
    return _property_set(_decode_ranges(_PUNCTUATION), r"[\p{P}\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]")


# The other names Oniguruma accepts that this module models (normalised), each to its set; the
# argument says whether the name stands outside brackets (only "word" cares).
_NAMED_SETS: dict[str, Callable[[bool], _CharSet]] = {
    "alpha": lambda _: _alphabetic(),
    "alphabetic": lambda _: _alphabetic(),
    "word": _onig_word,
    "alnum": lambda _: _alnum(),
    "lower": lambda _: _lowercase(),
    "lowercase": lambda _: _lowercase(),
    "upper": lambda _: _uppercase(),
    "uppercase": lambda _: _uppercase(),
    "space": lambda _: _white_space_set(),
    "whitespace": lambda _: _white_space_set(),
    "wspace": lambda _: _white_space_set(),
    "blank": lambda _: _blank(),
    "xdigit": lambda _: _xdigit(),
    "ahex": lambda _: _xdigit(),
    "asciihexdigit": lambda _: _xdigit(),
    "ascii": lambda _: _set_from_ranges(((0, 0x7F),)),
    "inbasiclatin": lambda _: _set_from_ranges(((0, 0x7F),)),
    "any": lambda _: _any_char(),
    "assigned": lambda _: _cs_complement(_gc_set("Cn")),
    "newline": lambda _: _set_from_ranges(((0x0A, 0x0A),)),
    "graph": lambda _: _graph(),
    "print": lambda _: _print(),
    "posixpunct": lambda _: _posix_bracket("punct"),
}


# ---------------------------------------------------------------------------------------------
# Data. The general categories and scripts of every code point as Oniguruma 6.9.9 (the version
# HF 0.23's onig crate builds) has them for Unicode 16.0: runs of a name and a base-36 length.
# _OTHER_*: Alphabetic, Lowercase and Uppercase beyond L+Nl, Ll and Lu. _PUNCTUATION: HF's
# is_punc (ASCII punctuation or the unicode_categories crate's P). _NUMERIC_17: the N characters
# Unicode 17.0 adds, which Rust's char::is_numeric in HF 0.23 knows. The tests check every code
# point of each against HF.
# ---------------------------------------------------------------------------------------------


_GC_RUNS = (
    "CcwZs1Po3Sc1Po3Ps1Pe1Po1Sm1Po1Pd1Po2NdaPo2Sm3Po2LuqPs1Po1Pe1Sk1Pc1Sk1LlqPs1Sm1Pe1Sm1CcxZs1Po1Sc4"
    "So1Po1Sk1So1Lo1Pi1Sm1Cf1So1Sk1So1Sm1No2Sk1Ll1Po2Sk1No1Lo1Pf1No3Po1LunSm1Lu7LloSm1Ll8Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll2Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll2Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu2Ll1Lu1Ll1Lu1Ll3Lu2Ll1Lu1Ll1Lu2Ll1Lu3Ll2"
    "Lu4Ll1Lu2Ll1Lu3Ll3Lu2Ll1Lu2Ll1Lu1Ll1Lu1Ll1Lu2Ll1Lu1Ll2Lu1Ll1Lu2Ll1Lu3Ll1Lu1Ll1Lu2Ll2Lo1Lu1Ll3Lo4"
    "Lu1Lt1Ll1Lu1Lt1Ll1Lu1Lt1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll2Lu1Ll1Lu1Ll1Lu1Ll1Lu1"
    "Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll2Lu1Lt1Ll1Lu1Ll1Lu3Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll7Lu2Ll1Lu2Ll2Lu1Ll1Lu4Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1xLo1LlrLmiSk"
    "4LmcSkeLm5Sk7Lm1Sk1Lm1SkhMn34Lu1Ll1Lu1Ll1Lm1Sk1Lu1Ll1Cn2Lm1Ll3Po1Lu1Cn4Sk2Lu1Po1Lu3Cn1Lu1Cn1Lu2L"
    "l1LuhCn1Lu9LlzLu1Ll2Lu3Ll3Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l5Lu1Ll1Sm1Lu1Ll1Lu2Ll2Lu1fLl1cLu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll"
    "1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1So1Mn5Me2Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu"
    "1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu"
    "1Ll1Lu1Ll1Lu1Ll1Lu2Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll2Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu"
    "1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu"
    "1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu"
    "1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Cn1Lu12Cn2Lm1Po6Ll15Po1Pd1Cn2So2Sc1Cn1"
    "Mn19Pd1Mn1Po1Mn2Po1Mn2Po1Mn1Cn8LorCn4Lo4Po2CnbCf6Sm3Po2Sc1Po2So2MnbPo1Cf1Po3LowLm1LoaMnlNdaPo4Lo"
    "2Mn1Lo2rPo1Lo1Mn7Cf1So1Mn6Lm2Mn2So1Mn4Lo2NdaLo3So2Lo1PoeCn1Cf1Lo1Mn1LouMnrCn2Lo2hMnbLo1CneNdaLox"
    "Mn9Lm2So1Po3Lm1Cn2Mn1Sc2LomMn4Lm1Mn9Lm1Mn3Lm1Mn5Cn2PofCn1LopMn3Cn2Po1Cn1LobCn5LooSk1Lo6Cn1Cf2Cn5"
    "Mn9Lo15Lm1MnoCf1MnwMc1Lo1iMn1Mc1Mn1Lo1Mc3Mn8Mc4Mn1Mc2Lo1Mn7LoaMn2Po2NdaPo1Lm1LofMn1Mc2Cn1Lo8Cn2L"
    "o2Cn2LomCn1Lo7Cn1Lo1Cn3Lo4Cn2Mn1Lo1Mc3Mn4Cn2Mc2Cn2Mc2Mn1Lo1Cn8Mc1Cn4Lo2Cn1Lo3Mn2Cn2NdaLo2Sc2No6S"
    "o1Sc1Lo1Po1Mn1Cn2Mn2Mc1Cn1Lo6Cn4Lo2Cn2LomCn1Lo7Cn1Lo2Cn1Lo2Cn1Lo2Cn2Mn1Cn1Mc3Mn2Cn4Mn2Cn2Mn3Cn3M"
    "n1Cn7Lo4Cn1Lo1Cn7NdaMn2Lo3Mn1Po1CnaMn2Mc1Cn1Lo9Cn1Lo3Cn1LomCn1Lo7Cn1Lo2Cn1Lo5Cn2Mn1Lo1Mc3Mn5Cn1M"
    "n2Mc1Cn1Mc2Mn1Cn2Lo1CnfLo2Mn2Cn2NdaPo1Sc1Cn7Lo1Mn6Cn1Mn1Mc2Cn1Lo8Cn2Lo2Cn2LomCn1Lo7Cn1Lo2Cn1Lo5C"
    "n2Mn1Lo1Mc1Mn1Mc1Mn4Cn2Mc2Cn2Mc2Mn1Cn7Mn2Mc1Cn4Lo2Cn1Lo3Mn2Cn2NdaSo1Lo1No6CnaMn1Lo1Cn1Lo6Cn3Lo3C"
    "n1Lo4Cn3Lo2Cn1Lo1Cn1Lo2Cn3Lo2Cn3Lo3Cn3LocCn4Mc2Mn1Mc2Cn3Mc3Cn1Mc3Mn1Cn2Lo1Cn6Mc1CneNdaNo3So6Sc1S"
    "o1Cn5Mn1Mc3Mn1Lo8Cn1Lo3Cn1LonCn1LogCn2Mn1Lo1Mn3Mc4Cn1Mn3Cn1Mn4Cn7Mn2Cn1Lo3Cn2Lo1Cn2Lo2Mn2Cn2NdaC"
    "n7Po1No7So1Lo1Mn1Mc2Po1Lo8Cn1Lo3Cn1LonCn1LoaCn1Lo5Cn2Mn1Lo1Mc1Mn1Mc5Cn1Mn1Mc2Cn1Mc2Mn2Cn7Mc2Cn6L"
    "o2Cn1Lo2Mn2Cn2NdaCn1Lo2Mc1CncMn2Mc2Lo9Cn1Lo3Cn1Lo15Mn2Lo1Mc3Mn4Cn1Mc3Cn1Mc3Mn1Lo1So1Cn4Lo3Mc1No7"
    "Lo3Mn2Cn2NdaNo9So1Lo6Cn1Mn1Mc2Cn1LoiCn3LooCn1Lo9Cn1Lo1Cn2Lo7Cn3Mn1Cn4Mc3Mn3Cn1Mn1Cn1Mc8Cn6NdaCn2"
    "Mc2Po1CncLo1cMn1Lo2Mn7Cn4Sc1Lo6Lm1Mn8Po1NdaPo2Cn11Lo2Cn1Lo1Cn1Lo5Cn1LooCn1Lo1Cn1LoaMn1Lo2Mn9Lo1C"
    "n2Lo5Cn1Lm1Cn1Mn7Cn1NdaCn2Lo4CnwLo1So3PofSo1Po1So3Mn2So6NdaNoaSo1Mn1So1Mn1So1Mn1Ps1Pe1Ps1Pe1Mc2L"
    "o8Cn1Lo10Cn4MneMc1Mn5Po1Mn2Lo5MnbCn1Mn10Cn1So8Mn1So6Cn1So2Po5So4Po2Cn11Lo17Mc2Mn4Mc1Mn6Mc1Mn2Mc2"
    "Mn2Lo1NdaPo6Lo6Mc2Mn2Lo4Mn3Lo1Mc3Lo2Mc7Lo3Mn4LodMn1Mc2Mn2Mc6Mn1Lo1Mc1NdaMc3Mn1So2Lu12Cn1Lu1Cn5Lu"
    "1Cn2Ll17Po1Lm1Ll3Lo95Cn1Lo4Cn2Lo7Cn1Lo1Cn1Lo4Cn2Lo15Cn1Lo4Cn2LoxCn1Lo4Cn2Lo7Cn1Lo1Cn1Lo4Cn2LofCn"
    "1Lo1lCn1Lo4Cn2Lo1vCn2Mn3Po9NokCn3LogSoaCn6Lu2eCn2Ll6Cn2Pd1Loh8So1Po1LohZs1LoqPs1Pe1Cn3Lo23Po3Nl3"
    "Lo8Cn7LoiMn3Mc1Cn9LojMn2Mc1Po2Cn9LoiMn2CncLodCn1Lo3Cn1Mn2CncLo1gMn2Mc1Mn7Mc8Mn1Mc2MnbPo3Lm1Po3Sc"
    "1Lo1Mn1Cn2NdaCn6NoaCn6Po6Pd1Po4Mn3Cf1Mn1NdaCn6LozLm1Lo1hCn7Lo5Mn2LoyMn1Lo1Cn5Lo1yCnaLovCn1Mn3Mc4"
    "Mn2Mc3Cn4Mc2Mn1Mc6Mn3Cn4So1Cn3Po2NdaLouCn2Lo5CnbLo18Cn4LoqCn6NdaNo1Cn3SoyLonMn2Mc2Mn1Cn2Po2Lo1hM"
    "c1Mn1Mc1Mn7Cn1Mn1Mc1Mn1Mc2Mn8Mc6MnaCn2Mn1NdaCn6NdaCn6Po7Lm1Po6Cn2MneMe1MngCn1dMn4Mc1Lo1bMn1Mc1Mn"
    "5Mc1Mn1Mc5Mn1Mc2Lo8Cn1Po2NdaPo7SoaMn9So9Po3Mn2Mc1LouMc1Mn4Mc2Mn2Mc1Mn3Lo2NdaLo18Mn1Mc1Mn2Mc3Mn1M"
    "c1Mn3Mc2Cn8Po4Lo10Mc8Mn8Mc2Mn2Cn3Po5NdaCn3Lo3NdaLouLm6Po2Ll9Lu1Ll1Cn5Lu17Cn2Lu3Po8Cn8Mn3Po1MndMc"
    "1Mn7Lo4Mn1Lo6Mn1Lo2Mc1Mn2Lo1Cn5Ll18Lm1rLldLm1LlyLm11Mn1sLu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll9Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1L"
    "l1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll9Lu8Ll6Cn2Lu6Cn2Ll8Lu8Ll8Lu8Ll6Cn2Lu6Cn2Ll8Cn1Lu1Cn1Lu1Cn1Lu1Cn1L"
    "u1Ll8Lu8LleCn2Ll8Lt8Ll8Lt8Ll8Lt8Ll5Cn1Ll2Lu4Lt1Sk1Ll1Sk3Ll3Cn1Ll2Lu4Lt1Sk3Ll4Cn2Ll2Lu4Cn1Sk3Ll8L"
    "u5Sk3Cn2Ll3Cn1Ll2Lu4Lt1Sk2Cn1ZsbCf5Pd6Po2Pi1Pf1Ps1Pi2Pf1Ps1Pi1Po8Zl1Zp1Cf5Zs1Po9Pi1Pf1Po4Pc2Po3S"
    "m1Ps1Pe1PobSm1Po1Pc1PoaZs1Cf5Cn1CfaNo1Lm1Cn2No6Sm3Ps1Pe1Lm1NoaSm3Ps1Pe1Cn1LmdCn3ScxCnfMndMe4Mn1M"
    "e3MncCnfSo2Lu1So4Lu1So2Ll1Lu3Ll2Lu3Ll1So1Lu1So2Sm1Lu5So6Lu1So1Lu1So1Lu1So1Lu4So1Ll1Lu4Ll1Lo4Ll1S"
    "o2Ll2Lu2Sm5Lu1Ll4So1Sm1So2Ll1So1NogNlzLu1Ll1Nl4No1So2Cn4Sm5So5Sm2So4Sm1So2Sm1So2Sm1So7Sm1SovSm2S"
    "o2Sm1So1Sm1SovSm7gSo8Ps1Pe1Ps1Pe1SokSm2So7Ps1Pe1So29Sm1SouSmpSo14Sm6So20CnmSobCnlNo1oSo26NomSo53"
    "Sm1So9Sm1So1iSm8So33Sm1So6wPs1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1NouSo18Sm5Ps1Pe1SmvPs1Pe1Ps"
    "1Pe1Ps1Pe1Ps1Pe1Ps1Pe1SmgSo74Sm3nPs1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1"
    "Pe1Sm1rPs1Pe1Ps1Pe1SmwPs1Pe1Sm76So1cSmlSo2Sm6So13Cn2SowCn1So2xLu1cLl1cLu1Ll1Lu3Ll2Lu1Ll1Lu1Ll1Lu"
    "1Ll1Lu4Ll1Lu1Ll2Lu1Ll6Lm2Lu3Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll"
    "1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll"
    "1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll"
    "1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll2So6Lu1Ll1Lu1Ll1Mn3Lu1Ll1Cn5Po4No1Po2Ll12Cn1Ll1Cn5Ll1Cn2Lo1k"
    "Cn7Lm1Po1CneMn1LonCn9Lo7Cn1Lo7Cn1Lo7Cn1Lo7Cn1Lo7Cn1Lo7Cn1Lo7Cn1Lo7Cn1MnwPo2Pi1Pf1Pi1Pf1Po3Pi1Pf1"
    "Po1Pi1Pf1Po9Pd1Po2Pd1Po1Pi1Pf1Po2Pi1Pf1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Po5Lm1PoaPd2Po4Pd1Po1Ps1PodSo2Po3"
    "Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Pd1CnySoqCn1So2hCncSo5yCnqSogZs1Po3So1Lm1Lo1Nl1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1P"
    "s1Pe1So2Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Pd1Ps1Pe2So1Nl9Mn4Mc2Pd1Lm5So2Nl3Lm1Lo1Po1So2Cn1Lo2eCn2Mn2Sk2Lm2"
    "Lo1Pd1Lo2iPo1Lm3Lo1Cn5Lo17Cn1Lo2mCn1So2No4SoaLowSo12Cn9So1LogSovCn1NoaSouNo8So1NofSowNoaSo13NofS"
    "o8wLo534So1sLog7pLm1LovrCn3So1jCn9Lo14Lm6Po2Lo7gLm1Po3LogNdaLo2CnkLu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1"
    "Lu1Ll1Lu1Ll1Lo1Mn1Me3Po1MnaPo1Lm1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1"
    "Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lm2Mn2Lo1yNlaMn2Po6Cn8SknLm9Sk2Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll3Lu"
    "1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu"
    "1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lm1Ll8Lu"
    "1Ll1Lu1Ll1Lu2Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lm1Sk2Lu1Ll1Lu1Ll1Lo1Lu1Ll1Lu1Ll3Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll"
    "1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu5Ll1Lu5Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu4Ll"
    "1Lu1Ll1Lu2Ll1Cn2Lu1Ll1Cn1Ll1Cn1Ll1Lu1Ll1Lu1Ll1Lu1Ll1Lu1CnlLm3Lu1Ll1Lo1Lm2Ll1Lo7Mn1Lo3Mn1Lo4Mn1Lo"
    "nMc2Mn2Mc1So4Mn1Cn3No6So2Sc1So1Cn6Lo1gPo4Cn8Mc2Lo1eMcgMn2Cn8Po2NdaCn6MniLo6Po3Lo1Po1Lo2Mn1NdaLos"
    "Mn8Po2LonMnbMc2CnbPo1LotCn3Mn3Mc1Lo1bMn1Mc2Mn4Mc2Mn2Mc3PodCn1Lm1NdaCn4Po2Lo5Mn1Lm1Lo9NdaLo5Cn1Lo"
    "15Mn6Mc2Mn2Mc2Mn2Cn9Lo3Mn1Lo8Mn1Mc1Cn2NdaCn2Po4LogLm1Lo6So3Lo1Mc1Mn1Mc1Lo1eMn1Lo1Mn3Lo2Mn2Lo5Mn2"
    "Lo1Mn1Lo1CnoLo2Lm1Po2LobMc1Mn2Mc2Po2Lo1Lm2Mc1Mn1CnaLo6Cn2Lo6Cn2Lo6Cn9Lo7Cn1Lo7Cn1Ll17Sk1Lm4Ll9Lm"
    "1Sk2Cn4Ll28LozMc2Mn1Mc2Mn1Mc2Po1Mc1Mn1Cn2NdaCn6Lo8mcCncLonCn4Lo1dCn4Cs1kwCo4xsLoa6Cn2Lo2yCn12Ll7"
    "CncLl5Cn5Lo1Mn1LoaSm1LodCn1Lo5Cn1Lo1Cn1Lo2Cn1Lo2Cn1Lo30SkhCngLoa3Pe1Ps1SogLo1sCn2Lo1iCn7So1CnwLo"
    "cSc1So3MngPo7Ps1Pe1Po1Cn6MngPo1Pd2Pc2Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Ps1Pe1Po2Ps1Pe1Po"
    "4Pc3Po3Cn1Po4Pd1Ps1Pe1Ps1Pe1Ps1Pe1Po3Sm1Pd1Sm3Cn1Po1Sc1Po2Cn4Lo5Cn1Lo3rCn2Cf1Cn1Po3Sc1Po3Ps1Pe1P"
    "o1Sm1Po1Pd1Po2NdaPo2Sm3Po2LuqPs1Po1Pe1Sk1Pc1Sk1LlqPs1Sm1Pe1Sm1Ps1Pe1Po1Ps1Pe1Po2LoaLm1Lo19Lm2Lov"
    "Cn3Lo6Cn2Lo6Cn2Lo6Cn2Lo3Cn3Sc2Sm1Sk1So1Sc2Cn1So1Sm4So2CnaCf3So2Cn2LocCn1LoqCn1LojCn1Lo2Cn1LofCn2"
    "LoeCnyLo3fCn5Po3Cn4No19Cn3So9Nl1hNo4SohNo2So3Cn1SodCn3So1Cn1bSo19Mn1Cn3mLotCn3Lo1dCnfMn1NorCn4Lo"
    "wNo4Cn9LokNl1Lo8Nl1Cn5Lo12Mn5Cn5LouCn1Po1Lo10Cn4Lo8Po1Nl5Cn16Lu14Ll14Lo26Cn2NdaCn6Lu10Cn4Ll10Cn4"
    "Lo14Cn8Lo1gCnbPo1LubCn1LufCn1Lu7Cn1Lu2Cn1LlbCn1LlfCn1Ll7Cn1Ll2Cn3Lo1gCncLo8nCn9LomCnaLo8CnoLm6Cn"
    "1Lm16Cn1Lm9Cn1xLo6Cn2Lo1Cn1Lo18Cn1Lo2Cn3Lo1Cn2LonCn1Po1No8LonSo2No7LovCn8No9Cn1cLojCn1Lo2Cn5No5L"
    "omNo6Cn3Po1LoqCn5Po1Cn1sLo1kCn4No2Lo2NogCn2No1aLo1Mn3Cn1Mn2Cn5Mn4Lo4Cn1Lo3Cn1LotCn2Mn3Cn4Mn1No9C"
    "n7Po9Cn7LotNo2Po1LotNo3CnwLo8So1LosMn2Cn4No5Po7Cn9Lo1iCn3Po7LomCn2No8LojCn5No8LoiCn7Po4CncNo7Cn2"
    "8Lo21Cn1jLu1fCndLl1fCn7No6Lo10Mn4Cn8NdaCn6NdaLo4Lm1Lo1LumCn3Mn5Pd1Lm1LlmCn8Sm2Cn5sNovCn1Lo16Cn1M"
    "n2Pd1Cn2Lo2CngLo3Cn1jMn4LotNoaLo1Cn8LomMnbNo4Po5CnmLoiMn4Po4Cn12LolNo7CnkLonCn9Mc1Mn1Mc1Lo1hMnfP"
    "o7Cn4NokNdaMn1Lo2Mn2Lo1Cn9Mn3Mc1Lo19Mc3Mn4Mc2Mn2Po2Cf1Po4Mn1CnaCf1Cn2LopCn7NdaCn6Mn3Lo10Mn5Mc1Mn"
    "8Cn1NdaPo4Lo1Mc2Lo1Cn8LozMn1Po2Lo1Cn9Mn2Mc1Lo1cMc3Mn9Mc2Lo4Po4Mn4Po1Mc1Mn1NdaLo1Po1Lo1Po3Cn1NokC"
    "nbLoiCn1LopMc3Mn3Mc2Mn1Mc1Mn2Po6Mn1Lo2Mn1Cn1qLo7Cn1Lo1Cn1Lo4Cn1LofCn1LoaPo1Cn6Lo1bMn1Mc3Mn8Cn5Nd"
    "aCn6Mn2Mc2Cn1Lo8Cn2Lo2Cn2LomCn1Lo7Cn1Lo2Cn1Lo5Cn1Mn2Lo1Mc2Mn1Mc4Cn2Mc2Cn2Mc3Cn2Lo1Cn6Mc1Cn5Lo5Mc"
    "2Cn2Mn7Cn3Mn5CnbLoaCn1Lo1Cn2Lo1Cn1Lo12Cn1Lo1Mc3Mn6Cn1Mc1Cn2Mc1Cn1Mc4Cn1Mc2Mn1Mc1Mn1Lo1Mn1Lo1Po2C"
    "n1Po2Cn8Mn2CntLo1hMc3Mn8Mc2Mn3Mc1Mn1Lo4Po5NdaPo2Cn1Po1Mn1Lo3CnuLo1cMc3Mn6Mc1Mn1Mc4Mn2Mc1Mn2Lo2Po"
    "1Lo1Cn8NdaCn4mLo1bMc3Mn4Cn2Mc4Mn2Mc1Mn2PonLo4Mn2CnyLo1cMc3Mn8Mc2Mn1Mc1Mn2Po3Lo1CnbNdaCn6PodCnjLo"
    "17Mn1Mc1Mn1Mc2Mn6Mc1Mn1Lo1Po1Cn6NdaCn6NdkCnsLorCn2Mn1Mc1Mn1Mc2Mn4Mc1Mn5Cn4NdaNo2Po3So1Lo7Cn55Lo1"
    "8Mc3Mn9Mc1Mn2Po1Cn2sLuwLlwNdaNo9CncLo8Cn2Lo1Cn2Lo8Cn1Lo2Cn1LooMc6Cn1Mc2Cn2Mn2Mc1Mn1Lo1Mc1Lo1Mc1M"
    "n1Po3Cn9NdaCn1yLo8Cn2Lo13Mc3Mn4Cn2Mn2Mc4Mn1Lo1Po1Lo1Mc1CnrLo1MnaLo14Mn6Mc1Lo1Mn4Po8Mn1Cn8Lo1Mn6M"
    "c2Mn3Lo1aMndMc1Mn2Po3Lo1Po5CndLo21Cn7PoaCn52LoxPo1CneNdaCn6Lo9Cn1Lo11Mc1Mn7Cn1Mn6Mc1Mn1Lo1Po5Cna"
    "NdaNojCn3Po2LouCn2MnmCn1Mc1Mn7Mc1Mn2Mc1Mn2Cn21Lo7Cn1Lo2Cn1Lo12Mn6Cn3Mn1Cn1Mn2Cn1Mn7Lo1Mn1Cn8NdaC"
    "n6Lo6Cn1Lo2Cn1LowMc5Cn1Mn2Cn1Mc2Mn1Mc1Mn1Lo1Cn7NdaCn8mLojMn2Mc2Po2Cn7Mn2Lo1Mc1LodCn1LoyMc2Mn5Cn3"
    "Mc2Mn1Mc1Mn1PodNdaMn1Cn2dLo1CnfNolSo8Sc4SohCndPo1LopmCn2uNl33Cn1Po5CnbLo5gCn218Lo2pPo2CndLotsCfg"
    "Mn1Lo6MnfCnaLo32zCn5Log7Cn5a1LouMncMc3Mn3NdaCn1c6LoftCn7LovCn1NdaCn4Po2Lo27Cn1NdaCn6LouCn2Mn5Po1"
    "CnaLo1cMn7Po5So4Lm4Po1So1CnaNdaCn1No7Cn1LolCn5LojCnc0Lm3Lo14Lm2Po3NdaCn5iLuwLlwNonPo4Cn2tLo23Cn4"
    "Mn1Lo1Mc1jCn7Mn4LmdCn1sLm2Po1Lm1Mn1CnbMc2CneLo4qgCn8LoyeCn15LoaCn6w7Lm4Cn1Lm7Cn1Lm2Cn1Lo83CnfLo1"
    "CntLo3Cn2Lo1CneLo4Cn8Lob0Cn1s4Lo2zCn5LodCn3Lo9Cn7LoaCn2So1Mn2Po1Cf4Cn318So6oNdaCn6Soc4Cn24Mn1aCn"
    "2MnnCn9So38Cn1oSo6uCnaSo13Cn2So1oMc2Mn3So3Mc6Cf8Mn8So2Mn7SouMn4So1pCnlSo1uMn3So1Cn3eNokCncNokCnc"
    "So2fCn9NopCn3rLuqLlqLuqLl7Cn1LliLuqLlqLu1Cn1Lu2Cn2Lu1Cn2Lu2Cn2Lu4Cn1Lu8Ll4Cn1Ll1Cn1Ll7Cn1LlbLuqL"
    "lqLu2Cn1Lu4Cn2Lu8Cn1Lu7Cn1LlqLu2Cn1Lu4Cn1Lu5Cn1Lu1Cn3Lu7Cn1LlqLuqLlqLuqLlqLuqLlqLuqLlqLuqLlqLuqL"
    "lsCn2LupSm1LlpSm1Ll6LupSm1LlpSm1Ll6LupSm1LlpSm1Ll6LupSm1LlpSm1Ll6LupSm1LlpSm1Ll6Lu1Ll1Cn2Nd1eSoe"
    "8Mn1jSo4Mn1eSo8Mn1SoeMn1So2Po5CnfMn5Cn1MnfCnuoLlaLo1LlkCn6Ll6Cn5xMn7Cn1MnhCn2Mn7Cn1Mn2Cn1Mn5Cn5L"
    "m1qCnxMn1Cn34Lo19Cn3Mn7Lm7Cn2NdaCn4Lo1So1Cn8wLouMn1CnhLo18Mn4NdaCn5Sc1CncwLorLm1Mn4NdaCn5yLouMn2"
    "Lo1NdaCn4Po1CndcLo7Cn1Lo4Cn1Lo2Cn1LofCn1Lo5hCn2No9Mn7Cn15LuyLlyMn7Lm1Cn4NdaCn4Po2CnltNo1nSo1No3S"
    "c1No4Cn24No19So1NofCn5eLo4Cn1LorCn1Lo2Cn1Lo1Cn2Lo1Cn1LoaCn1Lo4Cn1Lo1Cn1Lo1Cn6Lo1Cn4Lo1Cn1Lo1Cn1L"
    "o1Cn1Lo3Cn1Lo2Cn1Lo1Cn2Lo1Cn1Lo1Cn1Lo1Cn1Lo1Cn1Lo1Cn1Lo2Cn1Lo1Cn2Lo4Cn1Lo7Cn1Lo4Cn1Lo4Cn1Lo1Cn1L"
    "oaCn1LohCn5Lo3Cn1Lo5Cn1LohCn1gSm2Cn7iSo18Cn4So2sCncSofCn2SofCn1SofCn1So11CnaNodSo4hCn1kSotCndSo1"
    "8Cn4So9Cn7So2CneSo6Cn4aSo6zSk5Sok8Cn4SohCn3SodCn3So3bCn4So2nCn6SocCn4So1CnfSocCn4So1kCn8SoaCn6So"
    "14Cn8SouCn2SocCn4So2Cn1qSo9gCncSoeCn2SodCn3SoaCn5So1kCn7SofCn2SobCn6So9Cn7So43Cn1So2kNdaCnsmLowy"
    "oCnwLo37eCn6Lo66Cn2Lo4g2CneLo5rlCnfLohaCn1wiLof2Cn15uLo3t7Cn5Lo38gCnf975Cf1CnuCf2oCn3kMn6oCn1e6o"
    "Co1ekeCn2Co1ekeCn2"
)

_SCRIPT_RUNS = (
    "Zyyy1tLatnqZyyy6LatnqZyyy1bLatn1ZyyyfLatn1Zyyy5LatnnZyyy1LatnvZyyy1LatnchZyyy13Latn5Zyyy5Bopo2Zy"
    "yykZinh34Grek4Zyyy1Grek3Zzzz2Grek4Zyyy1Grek1Zzzz4Grek1Zyyy1Grek1Zyyy1Grek3Zzzz1Grek1Zzzz1GrekkZz"
    "zz1Grek1rCopteGrekgCyrl3pZinh2Cyrl4pZzzz1Armn12Zzzz2Armn1eZzzz2Armn3Zzzz1Hebr1jZzzz8HebrrZzzz4He"
    "br6ZzzzbArab5Zyyy1Arab6Zyyy1ArabeZyyy1Arab3Zyyy1ArabwZyyy1ArabaZinhbArabqZinh1Arab30Zyyy1ArabySy"
    "rceZzzz1Syrc1oZzzz2Syrc3Arab1cThaa1eZzzzeNkoo1nZzzz2Nkoo3Samr1aZzzz2SamrfZzzz1MandsZzzz2Mand1Zzz"
    "z1SyrcbZzzz5ArabvZzzz1Arab2Zzzz5Arab23Zyyy1ArabtDeva29Zinh4DevafZyyy2DevaqBeng4Zzzz1Beng8Zzzz2Be"
    "ng2Zzzz2BengmZzzz1Beng7Zzzz1Beng1Zzzz3Beng4Zzzz2Beng9Zzzz2Beng2Zzzz2Beng4Zzzz8Beng1Zzzz4Beng2Zzz"
    "z1Beng5Zzzz2BengpZzzz2Guru3Zzzz1Guru6Zzzz4Guru2Zzzz2GurumZzzz1Guru7Zzzz1Guru2Zzzz1Guru2Zzzz1Guru"
    "2Zzzz2Guru1Zzzz1Guru5Zzzz4Guru2Zzzz2Guru3Zzzz3Guru1Zzzz7Guru4Zzzz1Guru1Zzzz7GuruhZzzzaGujr3Zzzz1"
    "Gujr9Zzzz1Gujr3Zzzz1GujrmZzzz1Gujr7Zzzz1Gujr2Zzzz1Gujr5Zzzz2GujraZzzz1Gujr3Zzzz1Gujr3Zzzz2Gujr1Z"
    "zzzfGujr4Zzzz2GujrcZzzz7Gujr7Zzzz1Orya3Zzzz1Orya8Zzzz2Orya2Zzzz2OryamZzzz1Orya7Zzzz1Orya2Zzzz1Or"
    "ya5Zzzz2Orya9Zzzz2Orya2Zzzz2Orya3Zzzz7Orya3Zzzz4Orya2Zzzz1Orya5Zzzz2OryaiZzzzaTaml2Zzzz1Taml6Zzz"
    "z3Taml3Zzzz1Taml4Zzzz3Taml2Zzzz1Taml1Zzzz1Taml2Zzzz3Taml2Zzzz3Taml3Zzzz3TamlcZzzz4Taml5Zzzz3Taml"
    "3Zzzz1Taml4Zzzz2Taml1Zzzz6Taml1ZzzzeTamllZzzz5TeludZzzz1Telu3Zzzz1TelunZzzz1TelugZzzz2Telu9Zzzz1"
    "Telu3Zzzz1Telu4Zzzz7Telu2Zzzz1Telu3Zzzz2Telu1Zzzz2Telu4Zzzz2TeluaZzzz7Telu9KndadZzzz1Knda3Zzzz1K"
    "ndanZzzz1KndaaZzzz1Knda5Zzzz2Knda9Zzzz1Knda3Zzzz1Knda4Zzzz7Knda2Zzzz6Knda2Zzzz1Knda4Zzzz2KndaaZz"
    "zz1Knda3ZzzzcMlymdZzzz1Mlym3Zzzz1Mlym1fZzzz1Mlym3Zzzz1Mlym6Zzzz4MlymgZzzz2MlymqZzzz1Sinh3Zzzz1Si"
    "nhiZzzz3SinhoZzzz1Sinh9Zzzz1Sinh1Zzzz2Sinh7Zzzz3Sinh1Zzzz4Sinh6Zzzz1Sinh1Zzzz1Sinh8Zzzz6SinhaZzz"
    "z2Sinh3ZzzzcThai1mZzzz4Zyyy1ThaisZzzz11Laoo2Zzzz1Laoo1Zzzz1Laoo5Zzzz1LaoooZzzz1Laoo1Zzzz1LaoonZz"
    "zz2Laoo5Zzzz1Laoo1Zzzz1Laoo7Zzzz1LaooaZzzz2Laoo4ZzzzwTibt20Zzzz1Tibt10Zzzz4Tibt13Zzzz1Tibt10Zzzz"
    "1TibtfZzzz1Tibt7Zyyy4Tibt2Zzzz11Mymr4gGeor12Zzzz1Geor1Zzzz5Geor1Zzzz2Geor17Zyyy1Geor4Hang74Ethi2"
    "1Zzzz1Ethi4Zzzz2Ethi7Zzzz1Ethi1Zzzz1Ethi4Zzzz2Ethi15Zzzz1Ethi4Zzzz2EthixZzzz1Ethi4Zzzz2Ethi7Zzzz"
    "1Ethi1Zzzz1Ethi4Zzzz2EthifZzzz1Ethi1lZzzz1Ethi4Zzzz2Ethi1vZzzz2EthiwZzzz3EthiqZzzz6Cher2eZzzz2Ch"
    "er6Zzzz2CanshsOgamtZzzz3Runr23Zyyy3RunrbZzzz7TglgmZzzz9Tglg1HanolZyyy2Zzzz9BuhdkZzzzcTagbdZzzz1T"
    "agb3Zzzz1Tagb2ZzzzcKhmr2mZzzz2KhmraZzzz6KhmraZzzz6Mong2Zyyy2Mong1Zyyy1MongkZzzz6Mong2hZzzz7Mong1"
    "7Zzzz5Cans1yZzzzaLimbvZzzz1LimbcZzzz4LimbcZzzz4Limb1Zzzz3LimbcTaleuZzzz2Tale5ZzzzbTalu18Zzzz4Tal"
    "uqZzzz6TalubZzzz3Talu2KhmrwBugisZzzz2Bugi2Lana1rZzzz1LanatZzzz2LanabZzzz6LanaaZzzz6LanaeZzzz2Zin"
    "hvZzzz1dBali25Zzzz1Bali1eSund1sBatk1gZzzz8Batk4Lepc1kZzzz3LepcfZzzz3Lepc3Olck1cCyrlbZzzz5Geor17Z"
    "zzz2Geor3Sund8Zzzz8Zinh3Zyyy1ZinhdZyyy1Zinh7Zyyy4Zinh1Zyyy6Zinh1Zyyy3Zinh2Zyyy1Zzzz5Latn12Grek5C"
    "yrl1Latn1dGrek5Latn4Grek5LatndCyrl1Latn1yGrek1Zinh1sLatn74GrekmZzzz2Grek6Zzzz2Grek12Zzzz2Grek6Zz"
    "zz2Grek8Zzzz1Grek1Zzzz1Grek1Zzzz1Grek1Zzzz1GrekvZzzz2Grek1hZzzz1GrekfZzzz1GrekeZzzz2Grek6Zzzz1Gr"
    "ekjZzzz2Grek3Zzzz1Grek9Zzzz1ZyyycZinh2Zyyy2fZzzz1ZyyybLatn1Zzzz2ZyyybLatn1ZyyyfZzzz1LatndZzzz3Zy"
    "yyxZzzzfZinhxZzzzfZyyy12Grek1Zyyy3Latn2Zyyy6Latn1ZyyyrLatn1ZyyyhLatn15Zyyy3Zzzz4ZyyyiiZzzzmZyyyb"
    "ZzzzlZyyypsBrai74ZyyyhgZzzz2ZyyywZzzz1Zyyy2xGlag2oLatnwCopt38Zzzz5Copt7Geor12Zzzz1Geor1Zzzz5Geor"
    "1Zzzz2Tfng1kZzzz7Tfng2ZzzzeTfng1EthinZzzz9Ethi7Zzzz1Ethi7Zzzz1Ethi7Zzzz1Ethi7Zzzz1Ethi7Zzzz1Ethi"
    "7Zzzz1Ethi7Zzzz1Ethi7Zzzz1CyrlwZyyy2mZzzzyHaniqZzzz1Hani2hZzzzcHani5yZzzzqZyyylHani1Zyyy1Hani1Zy"
    "yypHani9Zinh4Hang2Zyyy8Hani4Zyyy4Zzzz1Hira2eZzzz2Zinh2Zyyy2Hira3Zyyy1Kana2iZyyy2Kana3Zzzz5Bopo17"
    "Zzzz1Hang2mZzzz1ZyyygBopowZyyy12Zzzz9Zyyy1KanagHangvZzzz1Zyyy1sHangvZyyy29Kana1bZyyy1Kana2gZyyy4"
    "oHani534Zyyy1sHanig74YiiiwdZzzz3Yiii1jZzzz9Lisu1cVaii8cZzzzkCyrl2oBamu2gZzzz8ZyyyyLatn2uZyyy3Lat"
    "n1vZzzz2Latn2Zzzz1Latn1Zzzz1Latn8ZzzzlLatneSylo19Zzzz3ZyyyaZzzz6Phag1kZzzz8Saur1yZzzz8SaurcZzzz6"
    "DevawKali1aZyyy1Kali1Rjng10ZzzzbRjng1HangtZzzz3Java26Zzzz1Zyyy1JavaaZzzz4Java2MymrvZzzz1Cham1jZz"
    "zz9ChameZzzz2ChamaZzzz2Cham4MymrwTavt1vZzzzoTavt5MteinZzzzaEthi6Zzzz2Ethi6Zzzz2Ethi6Zzzz9Ethi7Zz"
    "zz1Ethi7Zzzz1Latn17Zyyy1Latn9Grek1Latn4Zyyy2Zzzz4Cher28Mtei1aZzzz2MteiaZzzz6Hang8mcZzzzcHangnZzz"
    "z4Hang1dZzzz6isHania6Zzzz2Hani2yZzzz12Latn7ZzzzcArmn5Zzzz5HebrqZzzz1Hebr5Zzzz1Hebr1Zzzz1Hebr2Zzz"
    "z1Hebr2Zzzz1HebraArab37ZzzzgAraba3Zyyy2Arab28Zzzz2Arab1iZzzz7Arab1ZzzzwArabgZinhgZyyyaZzzz6Zinhe"
    "Cyrl2ZyyyzZzzz1ZyyyjZzzz1Zyyy4Zzzz4Arab5Zzzz1Arab3rZzzz2Zyyy1Zzzz1ZyyywLatnqZyyy6LatnqZyyybKanaa"
    "Zyyy1Kana19Zyyy2HangvZzzz3Hang6Zzzz2Hang6Zzzz2Hang6Zzzz2Hang3Zzzz3Zyyy7Zzzz1Zyyy7ZzzzaZyyy5Zzzz2"
    "LinbcZzzz1LinbqZzzz1LinbjZzzz1Linb2Zzzz1LinbfZzzz2LinbeZzzzyLinb3fZzzz5Zyyy3Zzzz4Zyyy19Zzzz3Zyyy"
    "9Grek27Zzzz1ZyyydZzzz3Grek1Zzzz1bZyyy19Zinh1Zzzz3mLycitZzzz3Cari1dZzzzfZinh1ZyyyrZzzz4Ital10Zzzz"
    "9Ital3GothrZzzz5Perm17Zzzz5UgaruZzzz1Ugar1Xpeo10Zzzz4XpeoeZzzz16Dsrt28Shaw1cOsmauZzzz2OsmaaZzzz6"
    "Osge10Zzzz4Osge10Zzzz4Elba14Zzzz8Aghb1gZzzzbAghb1VithbZzzz1VithfZzzz1Vith7Zzzz1Vith2Zzzz1VithbZz"
    "zz1VithfZzzz1Vith7Zzzz1Vith2Zzzz3Todr1gZzzzcLina8nZzzz9LinamZzzzaLina8ZzzzoLatn6Zzzz1Latn16Zzzz1"
    "Latn9Zzzz1xCprt6Zzzz2Cprt1Zzzz1Cprt18Zzzz1Cprt2Zzzz3Cprt1Zzzz2Cprt1ArmimZzzz1Armi9PalmwNbatvZzzz"
    "8Nbat9Zzzz1cHatrjZzzz1Hatr2Zzzz5Hatr5PhnxsZzzz3Phnx1LydiqZzzz5Lydi1Zzzz1sMerowMercoZzzz4MerckZzz"
    "z2Merc1aKhar4Zzzz1Khar2Zzzz5Khar8Zzzz1Khar3Zzzz1KhartZzzz2Khar3Zzzz4KharaZzzz7Khar9Zzzz7SarbwNar"
    "bwZzzzwMani13Zzzz4ManicZzzz9Avst1iZzzz3Avst7PrtimZzzz2Prti8PhlijZzzz5Phli8PhlpiZzzz7Phlp4ZzzzcPh"
    "lp7Zzzz28Orkh21Zzzz1jHung1fZzzzdHung1fZzzz7Hung6Rohg14Zzzz8RohgaZzzz6Gara12Zzzz3GaratZzzz8Gara2Z"
    "zzz5sArabvZzzz1Yezi16Zzzz1Yezi3Zzzz2Yezi2ZzzzgArab3Zzzz1jArab4Sogo14Zzzz8Sogd16ZzzzmOugrqZzzz12C"
    "hrssZzzzkElymnZzzz9Brah26Zzzz4Brah10Zzzz9Brah1Kthi1vZzzzaKthi1Zzzz2SorapZzzz7SoraaZzzz6Cakm1hZzz"
    "z1CakmiZzzz8Mahj13Zzzz9Shrd2oZzzz1SinhkZzzzbKhojiZzzz1Khoj1bZzzz1qMult7Zzzz1Mult1Zzzz1Mult4Zzzz1"
    "MultfZzzz1MultbZzzz6Sind1nZzzz5SindaZzzz6Gran4Zzzz1Gran8Zzzz2Gran2Zzzz2GranmZzzz1Gran7Zzzz1Gran2"
    "Zzzz1Gran5Zzzz1Zinh1Gran9Zzzz2Gran2Zzzz2Gran3Zzzz2Gran1Zzzz6Gran1Zzzz5Gran7Zzzz2Gran7Zzzz3Gran5Z"
    "zzzbTutgaZzzz1Tutg1Zzzz2Tutg1Zzzz1Tutg12Zzzz1TutgaZzzz1Tutg1Zzzz2Tutg1Zzzz1Tutg4Zzzz1TutgaZzzz1T"
    "utg2Zzzz8Tutg2ZzzztNewa2kZzzz1Newa5ZzzzuTirh20Zzzz8TirhaZzzz4mSidd1iZzzz2Sidd12ZzzzyModi1xZzzzbM"
    "odiaZzzz6MongdZzzzjTakr1mZzzz6TakraZzzz6MymrkZzzzsAhomrZzzz2AhomfZzzz4AhomnZzzz55Dogr1oZzzz2sWar"
    "a2bZzzzcWara1Diak7Zzzz2Diak1Zzzz2Diak8Zzzz1Diak2Zzzz1DiakuZzzz1Diak2Zzzz2DiakcZzzz9DiakaZzzz1yNa"
    "nd8Zzzz2Nand1aZzzz2NandbZzzzrZanb20Zzzz8Soyo2bZzzzdCansgPauc1lZzzz7DevaaZzzz52SunuyZzzzeSunuaZzz"
    "z6Bhks9Zzzz1Bhks19Zzzz1BhkseZzzzaBhkstZzzz3MarcwZzzz2MarcmZzzz1MarceZzzz21Gonm7Zzzz1Gonm2Zzzz1Go"
    "nm18Zzzz3Gonm1Zzzz1Gonm2Zzzz1Gonm9Zzzz8GonmaZzzz6Gong6Zzzz1Gong2Zzzz1Gong11Zzzz1Gong2Zzzz1Gong6Z"
    "zzz7GongaZzzz8mMakapZzzz7KawihZzzz1Kawi15Zzzz3KawitZzzz2dLisu1ZzzzfTaml1eZzzzdTaml1XsuxpmZzzz2uX"
    "sux33Zzzz1Xsux5ZzzzbXsux5gZzzz218Cpmn2rZzzzdEgypuuZzzzaEgyp32zZzzz5Hluwg7Zzzz5a1Gukh1mZzzz1c6Bam"
    "uftZzzz7MroovZzzz1MrooaZzzz4Mroo2Tnsa27Zzzz1TnsaaZzzz6BassuZzzz2Bass6ZzzzaHmng1yZzzzaHmngaZzzz1H"
    "mng7Zzzz1HmnglZzzz5HmngjZzzzc0Krai1mZzzz5iMedf2jZzzz2tPlrd23Zzzz4Plrd1lZzzz7PlrdhZzzz1sTang1Nshu"
    "1Hani2Kits1ZzzzbHani2ZzzzeTang4qgZzzz8TanglcKitsd2Zzzz15Kits1Tang9Zzzz6w7Kana4Zzzz1Kana7Zzzz1Kan"
    "a2Zzzz1Kana1Hira7zKana3ZzzzfHira1ZzzztHira3Zzzz2Kana1ZzzzeKana4Zzzz8Nshub0Zzzz1s4Dupl2zZzzz5Dupl"
    "dZzzz3Dupl9Zzzz7DuplaZzzz2Dupl4Zyyy4Zzzz318Zyyy6yZzzz6Zyyyc4Zzzz24Zinh1aZzzz2ZinhnZzzz9Zyyy38Zzz"
    "z1oZyyy6uZzzzaZyyy13Zzzz2Zyyy1qZinh3ZyyyhZinh8Zyyy2Zinh7ZyyyuZinh4Zyyy1pZzzzlGrek1yZzzz3eZyyykZz"
    "zzcZyyykZzzzcZyyy2fZzzz9ZyyypZzzz3rZyyy2dZzzz1Zyyy1zZzzz1Zyyy2Zzzz2Zyyy1Zzzz2Zyyy2Zzzz2Zyyy4Zzzz"
    "1ZyyycZzzz1Zyyy1Zzzz1Zyyy7Zzzz1Zyyy1tZzzz1Zyyy4Zzzz2Zyyy8Zzzz1Zyyy7Zzzz1ZyyysZzzz1Zyyy4Zzzz1Zyyy"
    "5Zzzz1Zyyy1Zzzz3Zyyy7Zzzz1Zyyy9gZzzz2Zyyy84Zzzz2Zyyy1eSgnwi4ZzzzfSgnw5Zzzz1SgnwfZzzzuoLatnvZzzz6"
    "Latn6Zzzz5xGlag7Zzzz1GlaghZzzz2Glag7Zzzz1Glag2Zzzz1Glag5Zzzz5Cyrl1qZzzzxCyrl1Zzzz34Hmnp19Zzzz3Hm"
    "npeZzzz2HmnpaZzzz4Hmnp2Zzzz8wTotovZzzzhWcho1mZzzz5Wcho1ZzzzcwNagm16Zzzz5yOnao17Zzzz4Onao1ZzzzdcE"
    "thi7Zzzz1Ethi4Zzzz1Ethi2Zzzz1EthifZzzz1Mend5hZzzz2MendgZzzz15Adlm24Zzzz4AdlmaZzzz4Adlm2ZzzzltZyy"
    "y1wZzzz24Zyyy1pZzzz5eArab4Zzzz1ArabrZzzz1Arab2Zzzz1Arab1Zzzz2Arab1Zzzz1ArabaZzzz1Arab4Zzzz1Arab1"
    "Zzzz1Arab1Zzzz6Arab1Zzzz4Arab1Zzzz1Arab1Zzzz1Arab1Zzzz1Arab3Zzzz1Arab2Zzzz1Arab1Zzzz2Arab1Zzzz1A"
    "rab1Zzzz1Arab1Zzzz1Arab1Zzzz1Arab1Zzzz1Arab2Zzzz1Arab1Zzzz2Arab4Zzzz1Arab7Zzzz1Arab4Zzzz1Arab4Zz"
    "zz1Arab1Zzzz1ArabaZzzz1ArabhZzzz5Arab3Zzzz1Arab5Zzzz1ArabhZzzz1gArab2Zzzz7iZyyy18Zzzz4Zyyy2sZzzz"
    "cZyyyfZzzz2ZyyyfZzzz1ZyyyfZzzz1Zyyy11ZzzzaZyyy4uZzzz1kZyyyqHira1Zyyy2ZzzzdZyyy18Zzzz4Zyyy9Zzzz7Z"
    "yyy2ZzzzeZyyy6Zzzz4aZyyyrcZzzz4ZyyyhZzzz3ZyyydZzzz3Zyyy3bZzzz4Zyyy2nZzzz6ZyyycZzzz4Zyyy1ZzzzfZyy"
    "ycZzzz4Zyyy1kZzzz8ZyyyaZzzz6Zyyy14Zzzz8ZyyyuZzzz2ZyyycZzzz4Zyyy2Zzzz1qZyyy9gZzzzcZyyyeZzzz2Zyyyd"
    "Zzzz3ZyyyaZzzz5Zyyy1kZzzz7ZyyyfZzzz2ZyyybZzzz6Zyyy9Zzzz7Zyyy43Zzzz1Zyyy2uZzzzsmHaniwyoZzzzwHani3"
    "7eZzzz6Hani66Zzzz2Hani4g2ZzzzeHani5rlZzzzfHanihaZzzz1wiHanif2Zzzz15uHani3t7Zzzz5Hani38gZzzzf975Z"
    "yyy1ZzzzuZyyy2oZzzz3kZinh6oZzzz47bk"
)

_SCRIPT_NAMES = (
    "Adlm:adlam Ahom Hluw:anatolianhieroglyphs Arab:arabic Armn:armenian Avst:avestan Bali:balinese "
    "Bamu:bamum Bass:bassavah Batk:batak Beng:bengali Bhks:bhaiksuki Bopo:bopomofo Brah:brahmi "
    "Brai:braille Bugi:buginese Buhd:buhid Cans:canadianaboriginal Cari:carian Aghb:caucasianalbanian "
    "Cakm:chakma Cham Cher:cherokee Chrs:chorasmian Zyyy:common Copt:coptic,qaac Xsux:cuneiform "
    "Cprt:cypriot Cpmn:cyprominoan Cyrl:cyrillic Dsrt:deseret Deva:devanagari Diak:divesakuru "
    "Dogr:dogra Dupl:duployan Egyp:egyptianhieroglyphs Elba:elbasan Elym:elymaic Ethi:ethiopic "
    "Gara:garay Geor:georgian Glag:glagolitic Goth:gothic Gran:grantha Grek:greek Gujr:gujarati "
    "Gong:gunjalagondi Guru:gurmukhi Gukh:gurungkhema Hani:han Hang:hangul Rohg:hanifirohingya "
    "Hano:hanunoo Hatr:hatran Hebr:hebrew Hira:hiragana Armi:imperialaramaic Zinh:inherited,qaai "
    "Phli:inscriptionalpahlavi Prti:inscriptionalparthian Java:javanese Kthi:kaithi Knda:kannada "
    "Kana:katakana Kawi Kali:kayahli Khar:kharoshthi Kits:khitansmallscript Khmr:khmer Khoj:khojki "
    "Sind:khudawadi Krai:kiratrai Laoo:lao Latn:latin Lepc:lepcha Limb:limbu Lina:lineara "
    "Linb:linearb Lisu Lyci:lycian Lydi:lydian Mahj:mahajani Maka:makasar Mlym:malayalam Mand:mandaic "
    "Mani:manichaean Marc:marchen Gonm:masaramgondi Medf:medefaidrin Mtei:meeteimayek "
    "Mend:mendekikakui Merc:meroiticcursive Mero:meroitichieroglyphs Plrd:miao Modi Mong:mongolian "
    "Mroo:mro Mult:multani Mymr:myanmar Nbat:nabataean Nagm:nagmundari Nand:nandinagari "
    "Talu:newtailue Newa Nkoo:nko Nshu:nushu Hmnp:nyiakengpuachuehmong Ogam:ogham Olck:olchiki "
    "Onao:olonal Hung:oldhungarian Ital:olditalic Narb:oldnortharabian Perm:oldpermic Xpeo:oldpersian "
    "Sogo:oldsogdian Sarb:oldsoutharabian Orkh:oldturkic Ougr:olduyghur Orya:oriya Osge:osage "
    "Osma:osmanya Hmng:pahawhhmong Palm:palmyrene Pauc:paucinhau Phag:phagspa Phnx:phoenician "
    "Phlp:psalterpahlavi Rjng:rejang Runr:runic Samr:samaritan Saur:saurashtra Shrd:sharada "
    "Shaw:shavian Sidd:siddham Sgnw:signwriting Sinh:sinhala Sogd:sogdian Sora:sorasompeng "
    "Soyo:soyombo Sund:sundanese Sunu:sunuwar Sylo:sylotinagri Syrc:syriac Tglg:tagalog Tagb:tagbanwa "
    "Tale:taile Lana:taitham Tavt:taiviet Takr:takri Taml:tamil Tnsa:tangsa Tang:tangut Telu:telugu "
    "Thaa:thaana Thai Tibt:tibetan Tfng:tifinagh Tirh:tirhuta Todr:todhri Toto Tutg:tulutigalari "
    "Ugar:ugaritic Zzzz:unknown Vaii:vai Vith:vithkuqi Wcho:wancho Wara:warangciti Yezi:yezidi "
    "Yiii:yi Zanb:zanabazarsquare"
)

_OTHER_ALPHABETIC = (
    "n9 o3-of 14g-14t 14v 14x-14y 150-151 153 174-17e 18r-193 195-19b 19s 1cm-1cs 1cx-1d0 1d3-1d4 1d9 "
    "1e9 1f4-1fj 1ie-1io 1li-1lj 1ln-1lv 1lx-1lz 1m1-1m4 1p3 1qs-1r3 1r7-1rd 1rk-1s3 1tm-1tn 1tq-1u4 "
    "1u6-1u7 1ud-1uf 1uq-1ur 1vl-1vn 1xa-1xg 1xj-1xk 1xn-1xo 1xz 1ya-1yb 1z5-1z7 20u-20y 213-214 "
    "217-218 21d 228-229 22d 22p-22r 24e-24l 24n-24p 24r-24s 25e-25f 262-264 269-26b 27y-284 287-288 "
    "28b-28c 28m-28n 28y-28z 29u 2bi-2bm 2bq-2bs 2bu-2bw 2c7 2dc-2dg 2f2-2f8 2fa-2fc 2fe-2fg 2fp-2fq "
    "2g2-2g3 2gx-2gz 2im-2is 2iu-2iw 2iy-2j0 2j9-2ja 2jm-2jn 2k3 2kg-2kj 2m6-2mc 2me-2mg 2mi-2mk 2mv "
    "2n6-2n7 2o1-2o3 2q7-2qc 2qe 2qg-2qn 2r6-2r7 2sx 2t0-2t6 2tp 2wh 2wk-2wp 2wr-2ws 2x9 31t-32b "
    "32l-32v 32x-33w 36z-37a 37c 37f-37i 386-389 38e-38g 38i-38k 38n-38t 38x-390 39e-39p 39r 3a2-3a5 "
    "4k2-4k3 4ky-4kz 4lu-4lv 4mq-4mr 4om-4p4 4ud-4ue 4vd 4yo-4yz 4z4-4zc 55j-55n 579-57i 57l-584 "
    "5a7-5a8 5ak-5am 5c0-5c4 5dh-5dv 5fk-5fm 5gh-5gp 5gs-5gt 5if-5ip 5k4-5km 5w3-5x0 792-7ah 928-933 "
    "wvo-wvv wwu-wwv x6q x6z x7n-x7r xa8-xa9 xbo-xc3 xc5 xdr xeu-xey xfr-xg2 xhc-xhf xis-xj3 xk5 "
    "xm1-xme xmr xn0-xn1 xob-xod xps xpu-xpw xpz-xq0 xq6 xrf-xrj xrp xyb-xyi 1dlq 1f92-1f96 1gjl-1gjn "
    "1gjp-1gjq 1gjw-1gjz 1h5w-1h5z 1h7t 1hgr-1hgs 1hj0 1hq8-1hqa 1hrs-1hs5 1htf-1htg 1hts-1htu "
    "1hv4-1hvc 1hvm 1hxc-1hxe 1hyf-1hyq 1hz9-1hza 1i0w-1i0y 1i2b-1i2n 1i32-1i33 1i5o-1i5w 1i5z 1i66 "
    "1i69 1ian-1iaw 1ibk-1ibn 1ida-1idg 1idj-1idk 1idn-1ido 1idz 1iea-1ieb 1igo-1igw 1igy 1ih1 "
    "1ih3-1ih6 1ih8-1ih9 1ik5-1ikh 1ikj-1ikl 1ink-1io1 1iun-1iut 1iuw-1iv2 1ivw-1ivx 1iy8-1iym 1iyo "
    "1j1n-1j1x 1j4t-1j56 1jcc-1jco 1jjk-1jjp 1jjr-1jjs 1jjv-1jjw 1jk0 1jk2 1jo1-1jo7 1joa-1jof 1jok "
    "1jpd-1jpm 1jqt-1jqx 1jqz-1jr2 1jrl-1jrv 1jt6-1jtj 1k4v-1k52 1k54-1k5a 1k7m-1k87 1k89-1k8m "
    "1kc1-1kc6 1kca 1kcc-1kcd 1kcf-1kch 1kcj 1kcn 1kei-1kem 1keo-1kep 1ker-1keu 1koj-1kom 1kow-1kox "
    "1koz 1kqc-1kqi 1kqm-1kqo 1xr2-1xri 20jz 20k1-20lj 20lr-20lu 20og-20oh 2ftq 2mtc-2mti 2mtk-2mu0 "
    "2mu3-2mu9 2mub-2muc 2mue-2mui 2mxb 2onb 2q7k-2q89 2q8g-2q95 2q9c-2qa1"
)

_OTHER_LOWERCASE = (
    "4q 56 j4-jc jk-jl kg-kk n9 oq 3cs 5rg-5t6 5tk 5uj-5vj 6ep 6f3 6fk-6fw 6ls-6m7 79s-7ah 8sc-8sd "
    "wws-wwt x2o x6a-x6c x6g-x6h xuk-xun xux 1g1s 1g1v-1g1x 1g1z-1g34 1g36-1g3e 2muo-2mwd"
)

_OTHER_UPPERCASE = "6lc-6lr 792-79r 2q7k-2q89 2q8g-2q95 2q9c-2qa1"

_PUNCTUATION = (
    "x-1b 1m-1s 2j-2o 3f-3i 4h 4n 4r 52-53 57 5b ou p3 122-127 13d-13e 14u 14w 14z 152 16b-16c "
    "16x-16y 170-171 17f 17i-17j 19m-19p 1ck 1ds-1e5 1kn-1kp 1m8-1mm 1ni 1us-1ut 1v4 25s 2r8 2tr "
    "2u2-2u3 2ys-2z6 2z8 30a-30d 32d 34g-34k 34p-34q 37u-37z 3cr 3ts-3u0 3y8 4fh-4fi 4gr-4gs 4iz-4j1 "
    "4l1-4l2 4pg-4pi 4pk-4pm 4qo-4qy 4zo-4zp 55q-55r 59c-59i 59k-59p 5ei-5eo 5j0-5j3 5kr-5kv 5mm-5mn "
    "5og-5on 5oz 6c0-6cn 6cw-6df 6dh-6dt 6dv-6e6 6f1-6f2 6fh-6fi 6x4-6x7 6y1-6y2 7s8-7sl 7ut-7uu "
    "7vq-7vz 877-87s 89k-89n 8ak-8al 8vt-8vw 8vy-8vz 8z4 934-94e 94g-94y 9hd-9hf 9hk-9ht 9hw-9i7 9io "
    "9j1 9ls 9ob wla-wlb wst-wsv wvn wvy wz6-wzb x9w-x9z xce-xcf xdk-xdm xdo xf2-xf3 xgf xj5-xjh "
    "xjy-xjz xng-xnj xr2-xr3 xrk-xrl xyj 1e0u-1e0v 1e6o-1e6x 1e7k-1e8i 1e8k-1e8x 1e8z 1e94 1e96-1e97 "
    "1edd-1edf 1edh-1edm 1edo-1edr 1ee2-1ee3 1ee7-1ee8 1eez-1ef1 1ef3 1efv 1efx 1efz-1eg5 1erk-1erm "
    "1fa7 1fbk 1fn3 1g7r 1gdb 1ge7 1gls-1gm0 1gn3 1gq8-1gqe 1gs9-1gsf 1gux-1gv0 1hs7-1hsd 1hvf-1hvg "
    "1hvi-1hvl 1hz4-1hz7 1i0k-1i0l 1i2t-1i2x 1i31 1i3f 1i3h-1i3j 1i60-1i65 1i95 1io6 1iv5-1ivr "
    "1iyp-1iyr 1j5o-1j5q 1lrk-1lro 1zla-1zlb 1zp1 1zqv-1zqz 1zr8 2ftr 2lqf-2lqj"
)

_NUMERIC_17 = "1kgw-1kh5 20ok-20om"
