"""The trainer's read-only queries, mixed into it: pairs and their ranking, the vocabulary and the
corpus as segmented now, the per-step series for plots. None of them changes the trainer."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from bpe_core.encoding.encoder import Encoder, MergeColumns
from bpe_core.encoding.numbering import Numbering
from bpe_core.errors import quoted
from bpe_core.history.merge_line import LineView, MergeLine
from bpe_core.history.records import CANDIDATE_CAP
from bpe_core.pipeline.corpus import Corpus
from bpe_core.pipeline.vocab import MARK, Vocabulary, joined
from bpe_core.training.answers import LastChange, Pair, PairStat, SeriesPoint, key_pair, pair_key
from bpe_core.training.pair_index import MergeEffect, PairIndex
from bpe_core.training.pair_queue import PairQueue
from bpe_core.training.tie_rules import RULE_NAMES, TieBreakRule


class TrainerQueries:
    """Questions about the trainer's state now (a mixin of :class:`~bpe_core.training.trainer.Trainer`)."""

    corpus: Corpus
    vocab: Vocabulary
    numbering: Numbering | None
    revision: int
    _index: PairIndex
    _queue: PairQueue
    _records: MergeLine
    _effects: list[MergeEffect | None]
    _last_change: LastChange | None
    _initial: SeriesPoint
    _numbers: list[int]
    _numbers_revision: int

    if TYPE_CHECKING:  # the trainer's own

        @property
        def position(self) -> int: ...

        @property
        def history(self) -> LineView: ...

        def _ties(self, top: int) -> int: ...

    # -- pairs --------------------------------------------------------------------

    def pair_count(self, pair: Pair) -> int:
        """Weighted count of adjacent occurrences (overlapping included); 0 if absent."""
        return self._index.count(pair_key(pair))

    def pair_counts(self) -> dict[Pair, int]:
        """Every live pair with its count (a full copy: for checks and exports, not per step)."""
        return {key_pair(k): c for k, c in self._index.live_pairs()}

    @property
    def pair_total(self) -> int:
        """Number of distinct pairs present now."""
        return self._index.pair_total

    def top_pairs(self, n: int) -> list[PairStat]:
        """The ``n`` best pairs in the current rule's order (cheap for small ``n``)."""
        count = self._index.count
        return [PairStat(key_pair(k), count(k)) for k in self._queue.ranked(n)]

    def ranked_pairs(self) -> list[PairStat]:
        """All live pairs, best first (sorts everything: use for full tables, not every step)."""
        return self.top_pairs(self.pair_total)

    def top_count(self) -> int:
        return self._queue.top_count()

    def ties_at_top(self) -> int:
        """How many pairs share the highest count now."""
        return self._ties(self._queue.top_count())

    def tied_candidates(self, limit: int = CANDIDATE_CAP) -> list[Pair]:
        """Up to ``limit`` pairs tied at the top count, in the current rule's order."""
        return [key_pair(k) for k in self._queue.ranked(min(self.ties_at_top(), limit))]

    def replacements(self, pair: Pair) -> int:
        """Replacements a merge of ``pair`` would really make (non-overlapping, weighted)."""
        return self._index.replacements(pair_key(pair))

    def words_with_pair(self, pair: Pair) -> list[int]:
        """Indices of the word types whose current segmentation contains ``pair``."""
        return self._index.words_with(pair_key(pair))

    def word_count_with_pair(self, pair: Pair) -> int:
        """How many word types contain ``pair`` (cheaper than the list)."""
        return self._index.word_count(pair_key(pair))

    def pair_words_work(self, pair: Pair) -> int:
        """How many word entries counting ``pair``'s words (or replacements) goes through: its
        listed words, stale entries included, and the words not yet warm that hold it. What
        such a count costs, which the pair's own count does not bound (a pair found a few times
        may have a list of a hundred thousand words that held it once)."""
        key = pair_key(pair)
        index = self._index
        cold = 0 if index.cold is None else index.cold.holder_count(key)
        return len(index.where.get(key, ())) + cold

    def first_occurrence(self, pair: Pair) -> tuple[int, int]:
        """(word index, position) of the pair's first occurrence (the first-seen key). The
        position orders occurrences within the word; in a corpus counted afresh (its flat index)
        and in a long word it counts first symbols, elsewhere tokens."""
        key = pair_key(pair)
        word = self._index.first_word(key)
        return word, self._index.position(word, key)

    def tied_pairs(self) -> list[Pair]:
        """Every pair tied at the top count now, in no particular order (a full scan)."""
        top = self._queue.top_count()
        if not top:
            return []
        return [key_pair(k) for k in self._index.pairs_counted(top)]

    def rule_choices(self, pairs: list[Pair] | None = None) -> dict[str, Pair]:
        """Which pair each named rule would pick: among ``pairs``, or by default among *all*
        pairs tied at the top count (what a step under that rule would merge now)."""
        if pairs is None:
            pairs = self.tied_pairs()
        if not pairs:
            return {}
        tokens = self.vocab.tokens
        choices: dict[str, Pair] = {}
        for name in RULE_NAMES:
            if name == "random":
                continue
            rule = TieBreakRule(name)
            if rule.depends_on_position:
                choices[name] = min(pairs, key=self.first_occurrence)
            else:
                choices[name] = min(pairs, key=partial(static_key, rule, tokens))
        return choices

    # -- queries: vocabulary and corpus ----------------------------------------------------

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def token_string(self, token_id: int) -> str:
        return self.vocab.tokens[token_id]

    def pair_string(self, pair: Pair) -> str:
        return f"({quoted(self.vocab.tokens[pair[0]])}, {quoted(self.vocab.tokens[pair[1]])})"

    def token_length(self, token_id: int) -> int:
        """Units (characters, or bytes in byte mode) of text the token stands for: the end-of-word
        marker covers none; a special token counts its own text."""
        key = self.vocab.keys[token_id]
        if token_id < self.vocab.n_special:
            return len(key.encode("utf-8")) if self.corpus.config.unit == "byte" else len(key)
        return len(key) - (self.corpus.config.end_of_word is not None and key.endswith(MARK))

    def token_frequency(self, token_id: int) -> int:
        """Occurrences of the token in the current segmentation of the corpus."""
        return self._index.token_freq[token_id]

    def line_keys(self) -> list[str]:
        """The keys of the tokens now, then of those the redo-able merges of this line make."""
        keys, line = list(self.vocab.keys), self._records
        for i in range(self.position, len(line)):
            if line.new_token(i):
                left, right = line.pair(i)
                keys.append(joined(keys[left], keys[right], self.vocab.prefix))
        return keys

    def token_numbers(self) -> list[int] | None:
        """The exported id of each token of :meth:`line_keys` (an imported tokenizer's ids, see
        ``bpe_core.encoding.numbering``), or ``None`` when they are the session's own ids. The list is
        the same object for as long as the recorded history is (undo and redo keep it)."""
        if self.numbering is None:
            return None
        if self._numbers_revision != self.revision:
            self._numbers = self.numbering.ids(self.line_keys(), self.vocab.n_special)
            self._numbers_revision = self.revision
        return self._numbers

    def encoder(self, full_history: bool = False) -> Encoder:
        """An encoder of the vocabulary and the merges applied so far (a snapshot).

        With ``full_history`` it also holds the redo-able merges after the current position
        (encode with ``upto=trainer.position`` for the current state); it then stays valid
        while the user moves back and forth in the same history.

        >>> trainer = Trainer(Corpus.from_text("low low lower", PipelineConfig()))
        >>> _ = trainer.run()
        >>> trainer.encoder().encode("lowest").tokens
        ['low', 'e', 's', 't', '</w>']
        """
        history = self.history
        records = history if full_history else history.prefix(self.position)
        # With the tokens of merges undone so far but recorded, when they are wanted.
        keys = self.line_keys() if full_history else list(self.vocab.keys)
        # The history's columns as they are: a Merge object per merge would cost the window
        # megabytes over a long history.
        merges = MergeColumns(*(records.column(name) for name in ("left", "right", "token", "count")))
        encoder = Encoder(self.corpus.config, keys, merges, range(self.vocab.n_special))
        numbers = self.token_numbers()
        if numbers is None or self.numbering is None:
            return encoder
        return encoder.renumbered(numbers[: len(keys)], self.numbering.unknown, self.numbering.parts)

    def token_created_at(self, token_id: int) -> int:
        """Step that created the token (0 for special and base tokens)."""
        return self.vocab.created_at[token_id]

    def token_parts(self, token_id: int) -> Pair | None:
        """The pair whose merge first created ``token_id`` (``None`` for base and special)."""
        step = self.vocab.created_at[token_id]
        return self._records.pair(step - 1) if step else None

    @property
    def corpus_tokens(self) -> int:
        """Total number of tokens in the corpus' current segmentation."""
        return self._index.total_tokens

    @property
    def word_count(self) -> int:
        """Number of distinct word types."""
        return len(self.corpus.words)

    def segmentation(self, word: int) -> list[int]:
        """Token ids of word type ``word`` now."""
        return [ord(ch) for ch in self._index.seg(word)]

    def segmentation_length(self, word: int) -> int:
        return self._index.seg_length(word)

    def segmentation_lengths(self) -> np.ndarray:
        """Every word type's current number of tokens (one array: cheaper than asking each)."""
        return self._index.seg_lengths()

    def words_with_token(self, token_id: int) -> list[int]:
        """Indices of the word types whose current segmentation contains the token."""
        return self._index.words_with_symbol(token_id)

    def changed_words(self) -> list[int]:
        """Word types the last applied merge changed (empty at step 0)."""
        return self._last_effect().changed if self._effects else []

    def _last_effect(self) -> MergeEffect:
        """What the last applied merge changed; for a merge restored from a session, worked out
        now, as the words holding its token (it is the last merge applied)."""
        effect = self._effects[-1]
        if effect is None:
            record = self._records[self.position - 1]
            effect = MergeEffect(self._index.lazy_words(record.token), record.replacements)
            self._effects[-1] = effect
        return effect

    @property
    def last_change(self) -> LastChange | None:
        """What the last single step, undo or redo changed (``None`` after a run or jump)."""
        return self._last_change

    # -- queries: per-step series for plots ------------------------------------------------

    def series(self) -> list[SeriesPoint]:
        """One point per step up to the current position, starting with the initial state."""
        line, n = self._records, self.position
        columns = (
            line.column(name, n).tolist() for name in ("top_count", "ties", "vocab_size", "corpus_tokens")
        )
        return [self._initial, *map(SeriesPoint, range(1, n + 1), *columns)]

    @property
    def initial_point(self) -> SeriesPoint:
        return self._initial


def static_key(rule: TieBreakRule, tokens: Sequence[str], pair: Pair) -> Any:
    return rule.static_key(tokens[pair[0]], tokens[pair[1]], *pair)
