"""The whole-array filter and orders behind the Corpus table, and the Pairs table's counts of
frequent pairs' words, answer as the per-word Python they replace did."""

import random

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.bridge import Bridge
from app.gui import sample_trainer
from app.models import pair_model, word_lookup, word_search
from app.models.corpus_model import COUNT, TOKENS, WORD, CorpusModel
from app.models.pair_model import WORDS, PairModel
from app.models.row_cache import PLACEHOLDER
from app.models.word_search import byte_order, casefolded, stable_order, words_containing
from bpe_core.pipeline.word_types import Words
from tests.gui_helpers import sample

WORDS_OF_ALL_KINDS = [
    "low", "Low", "LOWER", "slow", "lo", "l", "Straße", "STRASSE", "né", "NÉ", "\u212a", "k",
    "a_b", "ab", "a", "b", "aaaaaaaab", "aaaaaaaa", "aaaaaaaaa", "\U0001f600", "x\ud800y", "😀a",
]  # fmt: skip


def python_filter(words: list[str], needle: str) -> list[int]:
    return [i for i, word in enumerate(words) if needle in word.casefold()]


@pytest.fixture(params=[word_search.APART, 0], ids=["a few words folded apart", "a folded copy"])
def apart(request, monkeypatch):
    """Words whose folding changes more than ASCII letters: checked one by one, or (more of
    them than that) all words searched in a folded copy."""
    monkeypatch.setattr(word_search, "APART", request.param)
    return request.param


@pytest.mark.parametrize("needle", ["lo", "l", "ss", "é", "k", "aaaaaaaa", "a_", "😀", "\ud800", "zz"])
def test_the_filter_finds_the_words_python_finds(needle, apart):
    folded = casefolded(Words.of(WORDS_OF_ALL_KINDS))
    assert words_containing(folded, needle).tolist() == python_filter(WORDS_OF_ALL_KINDS, needle)


def test_a_word_folded_longer_than_all_the_text_is_found(apart):
    words = ["\u0149"]  # 2 bytes, folded to 3
    assert words_containing(casefolded(Words.of(words)), "\u02bcn").tolist() == python_filter(
        words, "\u02bcn"
    )


def test_the_filter_and_the_word_order_agree_with_python_on_random_words(apart):
    rng = random.Random(7)
    letters = ["a", "b", "B", "é", "ß", "_", "😀", "aaaaaaa"]
    for _ in range(200):
        words = list({"".join(rng.choices(letters, k=rng.randint(1, 7))) for _ in range(rng.randint(1, 60))})
        compact = Words.of(words)
        assert byte_order(compact).tolist() == sorted(range(len(words)), key=words.__getitem__)
        folded = casefolded(compact)
        for needle in ("a", "ab", "ss", "é", "aaaaaaaa", "_b", "b😀"):
            assert words_containing(folded, needle).tolist() == python_filter(words, needle)


@pytest.mark.parametrize("slice_bytes", [1, 2, 3, 5, 8, 64])
def test_the_filter_finds_the_same_words_however_the_buffer_is_sliced(monkeypatch, slice_bytes, apart):
    monkeypatch.setattr(word_search, "SLICE_BYTES", slice_bytes)  # matches across every boundary
    rng = random.Random(slice_bytes)
    letters = ["a", "b", "é", "_", "😀", "aaaa"]
    for _ in range(60):
        words = list({"".join(rng.choices(letters, k=rng.randint(1, 6))) for _ in range(rng.randint(1, 80))})
        folded = casefolded(Words.of(words))
        for needle in ("a", "b", "ab", "aa", "_a", "é_", "aaaaa", "😀a", "ba_"):
            assert words_containing(folded, needle).tolist() == python_filter(words, needle)


@pytest.mark.parametrize("slice_bytes", [1, 3, 64, 1 << 20])
def test_words_are_searched_as_they_are_and_the_few_whose_other_letters_fold_one_by_one(
    monkeypatch, slice_bytes
):
    """No folded copy is kept: a pattern's ASCII letters match either case in the words' own
    buffer, the few words whose other letters fold are checked one by one, and that finds
    exactly what folding each word finds."""
    monkeypatch.setattr(word_search, "SLICE_BYTES", slice_bytes)
    rng = random.Random(slice_bytes)
    letters = ["a", "A", "b", "Z", "é", "中", "_", "😀", "@", "`", "[", "{", "aAaA", "É", "ß"]
    for _ in range(60):
        words = list({"".join(rng.choices(letters, k=rng.randint(1, 6))) for _ in range(rng.randint(1, 80))})
        compact = Words.of(words)
        folded = casefolded(compact)
        assert folded.words is compact  # the words' own buffer
        for needle in ("a", "ab", "z", "é", "a中", "@", "`", "[", "{", "aaaa", "😀a", "_z", "ss", "éa"):
            assert words_containing(folded, needle).tolist() == python_filter(words, needle)


def test_words_holding_a_nul_byte_sort_as_strings():
    words = ["a\0b", "a", "a\0", "b"]
    assert byte_order(Words.of(words)).tolist() == sorted(range(4), key=words.__getitem__)


def test_stable_orders_keep_equal_keys_in_word_order_both_ways():
    for keys in (np.array([3, 1, 3, 2, 1]), np.array([3, 1, 3, 2**40, 1])):
        for descending in (False, True):
            expected = sorted(range(len(keys)), key=lambda i: int(keys[i]), reverse=descending)
            assert stable_order(keys, descending).tolist() == expected


@pytest.fixture
def bridge(qtbot):
    return Bridge(sample_trainer(sample("Shakespeare")))


def shown_words(model: CorpusModel) -> list[int]:
    return [model.word_index(row) for row in range(model.rowCount())]


@pytest.mark.parametrize("in_background", [False, True])
def test_the_corpus_table_filters_and_sorts_as_python_does(qtbot, bridge, monkeypatch, in_background):
    if in_background:  # as for a corpus of millions: worked out in a thread as it opens
        monkeypatch.setattr(word_lookup, "IN_BACKGROUND", 0)
    model = CorpusModel(bridge)
    for _ in range(3):
        bridge.step()
    corpus, trainer = bridge.trainer.corpus, bridge.trainer
    words, counts = list(corpus.words), list(corpus.counts)
    lengths = [len(trainer.segmentation(w)) for w in range(len(words))]
    for text in ("", "TH", " e "):
        model.set_filter(text)
        wanted = python_filter(words, text.strip().casefold())
        for column, key in (
            (WORD, words.__getitem__),
            (COUNT, counts.__getitem__),
            (TOKENS, lengths.__getitem__),
        ):
            for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
                model.sort(column, order)
                descending = order == Qt.SortOrder.DescendingOrder
                assert shown_words(model) == sorted(wanted, key=key, reverse=descending)
    model.set_filter("th")
    model.set_highlight([0, 1, 2, 3, 4, 5], only=True)
    assert shown_words(model) == sorted(
        set(python_filter(words, "th")) & set(range(6)), key=lambda w: -lengths[w]
    )


def test_the_last_steps_words_are_shaded_in_whatever_order_the_engine_names_them(qtbot, bridge, monkeypatch):
    """The engine promises no order for a step's words (nor that each is named once)."""
    from array import array

    from bpe_core.training.answers import LastChange

    model = CorpusModel(bridge)
    bridge.step()
    real = bridge.trainer.last_change
    changed = list(real.words)
    assert len(changed) > 3
    jumbled = array("i", [*changed[::-1], *changed[:3]])
    monkeypatch.setattr(
        type(bridge.trainer), "last_change", property(lambda _: LastChange(True, real.record, jumbled))
    )
    bridge.undo()  # the model hears of a single change and reads the jumbled words
    shaded = {
        model.word_index(row)
        for row in range(model.rowCount())
        if model.index(row, 0).data(Qt.ItemDataRole.BackgroundRole)
    }
    assert shaded == set(changed) and model.changed_count == len(jumbled)


def test_the_last_steps_words_are_shaded_and_counted(qtbot, bridge):
    model = CorpusModel(bridge)
    bridge.step()
    changed = bridge.trainer.last_change.words
    assert model.changed_count == len(changed) and model.changed_words == frozenset(changed)
    shaded = {
        model.word_index(row)
        for row in range(model.rowCount())
        if model.index(row, 0).data(Qt.ItemDataRole.BackgroundRole)
    }
    assert shaded == set(changed)
    bridge.undo()
    bridge.goto(1)
    assert model.changed_count == 0
    assert not any(
        model.index(row, 0).data(Qt.ItemDataRole.BackgroundRole) for row in range(model.rowCount())
    )


def test_a_frequent_pairs_words_are_counted_once_stepping_pauses(qtbot, bridge, monkeypatch):
    monkeypatch.setattr(pair_model, "COUNTED_AT_ONCE", 0)  # every pair's count is long here
    model = PairModel(bridge)
    assert model.index(0, WORDS).data() == PLACEHOLDER  # asked while stepping: not yet
    bridge.step()
    assert model.index(0, WORDS).data() == PLACEHOLDER
    trainer = bridge.trainer

    def counted() -> bool:
        return all(model.index(row, WORDS).data() != PLACEHOLDER for row in range(5))

    qtbot.waitUntil(counted)
    for row in range(5):
        pair = model.pair_at(row)
        assert model.index(row, WORDS).data() == f"{trainer.word_count_with_pair(pair):,}"


def test_what_a_count_costs_not_the_pairs_count_decides_when_it_is_counted(qtbot, bridge, monkeypatch):
    # A rare pair may have a long list of words that held it once: its count waits too.
    model = PairModel(bridge)
    trainer = bridge.trainer
    monkeypatch.setattr(trainer, "pair_words_work", lambda pair: 10**9)
    bridge.step()
    assert model.index(0, WORDS).data() == PLACEHOLDER
    qtbot.waitUntil(lambda: model.index(0, WORDS).data() != PLACEHOLDER)
    monkeypatch.setattr(trainer, "pair_words_work", lambda pair: 0)
    bridge.step()
    assert model.index(0, WORDS).data() == f"{trainer.word_count_with_pair(model.pair_at(0)):,}"


def test_a_step_repaints_only_the_changed_rows_on_screen_and_recomputes_only_theirs(qtbot, bridge):
    model = CorpusModel(bridge)
    model.shown_rows = lambda: (0, 9)  # what a view shows
    for row in range(model.rowCount()):  # every row painted once: all cached
        model.index(row, 0).data()
    repainted: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda first, last, _roles: repainted.append((first.row(), last.row())))
    computed: list[int] = []
    compute = model._cache._compute
    model._cache._compute = lambda w: computed.append(w) or compute(w)
    bridge.step()
    changed = set(bridge.trainer.last_change.words)
    on_screen = {row for row in range(10) if model.word_index(row) in changed}
    assert {first for first, _last in repainted} == on_screen
    assert all(first == last for first, last in repainted)
    for row in range(model.rowCount()):
        model.index(row, 0).data()
    assert set(computed) == changed  # the other rows' cached texts still hold
    trainer = bridge.trainer
    for row in range(model.rowCount()):
        w = model.word_index(row)
        assert model.index(row, 2).data() == f"{len(trainer.segmentation(w)):,}"


def test_a_step_also_repaints_the_rows_on_screen_the_step_before_highlighted(qtbot, bridge):
    model = CorpusModel(bridge)
    model.shown_rows = lambda: (3, 14)  # scrolled down: rows 3 to 14 on screen
    repainted: list[int] = []
    model.dataChanged.connect(lambda first, _last, _roles: repainted.append(first.row()))
    bridge.step()
    before = set(bridge.trainer.last_change.words)
    repainted.clear()
    bridge.step()
    now = set(bridge.trainer.last_change.words)
    expected = {row for row in range(3, 15) if model.word_index(row) in before | now}
    assert expected - {row for row in range(3, 15) if model.word_index(row) in now}  # the case at hand
    assert set(repainted) == expected
    repainted.clear()
    bridge.undo()  # the undo's words are the second step's: the same rows, unhighlighted or not
    assert set(repainted) == {row for row in range(3, 15) if model.word_index(row) in now}


def test_the_corpus_view_tells_its_model_the_rows_on_screen(qtbot, bridge):
    from app.panes.corpus_pane import CorpusPane

    pane = CorpusPane(bridge)
    qtbot.addWidget(pane)
    assert pane.model.shown_rows() == (0, -1)  # hidden: none
    pane.resize(600, 300)
    pane.show()
    qtbot.waitExposed(pane)
    first, last = pane.model.shown_rows()
    assert first == pane.view.rowAt(0) == 0 and 0 < last < pane.model.rowCount()
    pane.view.scrollToBottom()
    assert pane.model.shown_rows()[1] == pane.model.rowCount() - 1
