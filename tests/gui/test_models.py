"""Item models through Qt's model tester, their data against the core, and the bridge's signals."""

import pytest
from PySide6.QtCore import QModelIndex, Qt

from app.bridge import Bridge
from app.changes import ChangeKind
from app.gui import sample_trainer
from app.models.corpus_model import COUNT, SEGMENTATION, TOKENS, TOKENS_ROLE, WORD, CorpusModel
from app.models.merge_model import MergeModel
from app.models.pair_model import PAGE, PairModel
from app.models.vocab_model import FREQUENCY, TOKEN, VocabModel
from tests.gui_helpers import sample

DISPLAY = Qt.ItemDataRole.DisplayRole


@pytest.fixture
def bridge(qtbot):
    return Bridge(sample_trainer(sample("Shakespeare")))


@pytest.mark.parametrize("model_class", [CorpusModel, PairModel, VocabModel, MergeModel])
def test_models_pass_the_qt_model_tester_through_steps_undo_and_jumps(
    qtmodeltester, qtbot, bridge, model_class
):
    model = model_class(bridge)
    # The tester stays connected and checks every change the model announces from here on.
    qtmodeltester.check(model, force_py=True)
    for action in (
        bridge.step,
        bridge.step,
        bridge.undo,
        bridge.redo,
        lambda: bridge.goto(1),
        bridge.reset,
        bridge.step,
    ):
        action()
        model.index(0, 0).data()  # the tester also re-reads rows on every change
    if model_class is CorpusModel:
        model.sort(TOKENS, Qt.SortOrder.DescendingOrder)
        model.set_filter("th")
        model.set_highlight([0, 1, 2], only=True)
    if model_class is VocabModel:
        model.sort(FREQUENCY, Qt.SortOrder.DescendingOrder)
        model.set_filter("e")
    if model_class is PairModel:
        model.fetchMore(QModelIndex())
        qtbot.waitUntil(lambda: model.rowCount() > PAGE)


def test_corpus_model_shows_the_core_segmentation(bridge):
    model = CorpusModel(bridge)
    trainer = bridge.trainer
    for _ in range(5):
        bridge.step()
    for row in (0, 1, 50, model.rowCount() - 1):
        w = model.word_index(row)
        tokens = model.index(row, SEGMENTATION).data(TOKENS_ROLE)
        assert "".join(t + m for t, m in tokens) == "".join(
            trainer.token_string(t) for t in trainer.segmentation(w)
        )
        assert model.index(row, TOKENS).data(DISPLAY) == str(trainer.segmentation_length(w))
        assert model.index(row, COUNT).data(DISPLAY) == f"{trainer.corpus.counts[w]:,}"
    counts = [trainer.corpus.counts[model.word_index(r)] for r in range(model.rowCount())]
    assert counts == sorted(counts, reverse=True)
    assert model.changed_words == frozenset(trainer.last_change.words)
    changed = next(iter(model.changed_words))
    assert "→" in model.index(model.row_of(changed), SEGMENTATION).data(Qt.ItemDataRole.ToolTipRole)
    model.set_filter("king")
    assert model.rowCount() > 0 and all(
        "king" in model.index(r, WORD).data(DISPLAY).casefold() for r in range(model.rowCount())
    )


def test_pair_model_is_the_ranked_table_and_fetches_lazily(qtbot, bridge):
    model = PairModel(bridge)
    trainer = bridge.trainer
    assert model.rowCount() == min(PAGE, trainer.pair_total)
    assert [model.pair_at(r) for r in range(20)] == [p.pair for p in trainer.top_pairs(20)]
    assert model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    qtbot.waitUntil(lambda: model.rowCount() == min(2 * PAGE, trainer.pair_total))
    assert [model.pair_at(r) for r in range(model.rowCount())] == [
        p.pair for p in trainer.top_pairs(model.rowCount())
    ]
    row = 7
    pair = model.pair_at(row)
    assert model.index(row, 4).data(DISPLAY) == f"{trainer.pair_count(pair):,}"
    assert model.index(row, 5).data(DISPLAY) == f"{trainer.replacements(pair):,}"
    assert model.index(row, 6).data(DISPLAY) == f"{len(trainer.words_with_pair(pair)):,}"
    bridge.step()
    assert model.rowCount() == min(PAGE, trainer.pair_total)
    assert model.pair_at(0) == trainer.top_pairs(1)[0].pair


def test_vocab_and_merge_models_follow_steps(bridge):
    vocab, merges = VocabModel(bridge), MergeModel(bridge)
    trainer = bridge.trainer
    size = trainer.vocab_size
    bridge.step()
    assert vocab.rowCount() == size + 1 and merges.rowCount() == 1
    token = trainer.history[0].token
    assert vocab.index(token, TOKEN).data(DISPLAY) == trainer.token_string(token)
    assert vocab.index(token, FREQUENCY).data(DISPLAY) == f"{trainer.token_frequency(token):,}"
    bridge.undo()
    assert vocab.rowCount() == size and merges.rowCount() == 1
    assert merges.index(0, 0).data(Qt.ItemDataRole.ForegroundRole) is not None  # dimmed: redo-able
    bridge.redo()
    assert merges.index(0, 0).data(DISPLAY).startswith("▶")


def test_bridge_signals_for_each_command(qtbot, bridge):
    received = []
    bridge.sig_change.connect(lambda change: received.append(change.kind))
    for command in (bridge.step, bridge.undo, bridge.redo, lambda: bridge.goto(0), bridge.reset):
        with qtbot.waitSignal(bridge.sig_change):
            command()
    assert received == [
        ChangeKind.APPLIED,
        ChangeKind.UNDONE,
        ChangeKind.APPLIED,
        ChangeKind.JUMPED,
        ChangeKind.RESET,
    ]


def test_a_background_run_is_announced_once_after_it_ends(qtbot, bridge):
    jumps = []
    bridge.sig_change.connect(lambda change: jumps.append((change.before, change.after, bridge.busy)))
    with qtbot.waitSignal(
        bridge.sig_busy_changed, check_params_cb=lambda busy: busy is False, timeout=30_000
    ):
        bridge.run(merges=300)
    qtbot.waitUntil(lambda: bool(jumps))
    assert jumps == [(0, 300, False)]


def test_a_background_job_ends_on_the_gui_thread(qtbot, bridge):
    import threading

    threads = []
    bridge.sig_change.connect(lambda _change: threads.append(threading.current_thread()))
    bridge.sig_busy_changed.connect(lambda busy: threads.append(threading.current_thread()))
    bridge.open_text("a new corpus of words of words", bridge.trainer.corpus.config, "test")
    qtbot.waitUntil(lambda: not bridge.busy and bridge.source.name == "test", timeout=10_000)
    assert threads and all(t is threading.main_thread() for t in threads)


def test_a_right_to_left_merge_is_painted_left_plus_right_gives_token_and_kept_as_typed(qtbot):
    from PySide6.QtGui import QFont, QTextLayout, QTextOption
    from PySide6.QtWidgets import QStyleOptionViewItem

    from app.delegates.left_to_right import LeftToRightDelegate
    from app.models.merge_model import MERGE
    from bpe_core import Corpus, PipelineConfig, Trainer

    bridge = Bridge(Trainer(Corpus.from_text("مرحبا مرحبا مرحبا شكرا", PipelineConfig(end_of_word=None))))
    bridge.step()
    merges = MergeModel(bridge)
    left, right = (bridge.trainer.token_string(t) for t in bridge.trainer.history[0].pair)
    typed = f"{left} + {right} → {left}{right}"
    assert merges.index(0, MERGE).data(DISPLAY) == typed  # copied, exported, read out as it is
    assert merges.find(f"{left} + {right}") == 0
    option = QStyleOptionViewItem()
    LeftToRightDelegate().initStyleOption(option, merges.index(0, MERGE))
    painted = option.text
    # Laid out as a cell is (left to right), the first token, the plus, the second token, the
    # arrow and the new token follow one another from the left, as in a row of Latin tokens.
    layout = QTextLayout(painted, QFont())
    text_option = QTextOption()
    text_option.setTextDirection(Qt.LayoutDirection.LeftToRight)
    layout.setTextOption(text_option)
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(1000)
    layout.endLayout()
    x = lambda part: line.cursorToX(painted.index(part))[0]  # noqa: E731
    assert x("+") < x(right) < x("→") < x(left + right)
    assert painted.replace("\u200e", "") == typed
    tooltip = merges.index(0, MERGE).data(Qt.ItemDataRole.ToolTipRole)  # shown the same way
    assert typed in tooltip.replace("\u200e", "") and f"\u200e{right}\u200e" in tooltip


def _marker_painted_after_the_word(view, index, marker: str = "</w>") -> bool:
    """Whether the cell at ``index``, one token ending in ``marker``, is painted with the
    marker after (right of) every letter of the word, as Qt lays a cell's text out: its
    direction taken from the text itself (a right-to-left word makes it right to left)."""
    from PySide6.QtGui import QFont, QTextLayout
    from PySide6.QtWidgets import QStyleOptionViewItem

    option = QStyleOptionViewItem()
    view.itemDelegateForIndex(index).initStyleOption(option, index)
    painted = option.text
    layout = QTextLayout(painted, QFont())
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(1000)
    layout.endLayout()
    at = painted.index(marker)
    letters = [i for i, c in enumerate(painted[:at]) if c != "\u200e"]
    return bool(letters) and all(line.cursorToX(i)[0] <= line.cursorToX(at)[0] for i in letters)


def test_a_right_to_left_token_with_its_marker_is_painted_as_the_corpus_chips_show_it(qtbot):
    """A cell of one Arabic token ending in </w> was laid out from the right, its marker read
    backwards on the far side ("<w/>العالم"): in the Pairs, the Vocabulary and its tree, and
    the tie dialog, a token is painted left to right, the marker after the word's letters."""
    from app.dialogs.tie_dialog import TieDialog
    from app.models.pair_model import MERGED
    from app.panes.pairs_pane import PairsPane
    from app.panes.vocab_pane import VocabPane
    from bpe_core import Corpus, PipelineConfig, Trainer

    def trained(steps):  # ال, الع, العال, العالم, then العالم</w>
        trainer = Trainer(Corpus.from_text("العالم العالم العالم كتب كتب", PipelineConfig()))
        trainer.run(merges=steps)
        return Bridge(trainer)

    word = "العالم"
    token_text = f"{word}</w>"
    pairs = PairsPane(trained(4))
    qtbot.addWidget(pairs)
    row = next(r for r in range(pairs.model.rowCount()) if pairs.model.index(r, MERGED).data() == token_text)
    assert _marker_painted_after_the_word(pairs.view, pairs.model.index(row, MERGED))
    bridge = trained(5)
    vocab = VocabPane(bridge)
    qtbot.addWidget(vocab)
    token = next(t for t in range(bridge.trainer.vocab_size) if bridge.trainer.token_string(t) == token_text)
    row = next(r for r in range(vocab.model.rowCount()) if vocab.model.index(r, TOKEN).data() == token_text)
    assert _marker_painted_after_the_word(vocab.view, vocab.model.index(row, TOKEN))
    vocab.select_token(token)
    assert _marker_painted_after_the_word(vocab.tree, vocab.tree.model().index(0, 0))
    dialog = TieDialog(bridge.trainer, [bridge.trainer.history[-1].pair], None)
    qtbot.addWidget(dialog)
    item = dialog.list.model().index(0, 1)
    assert _marker_painted_after_the_word(dialog.list, item)
