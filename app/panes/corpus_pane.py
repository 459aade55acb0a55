"""Corpus pane: word types, counts, token counts and segmentations as chips; filter and sort;
the last step's words highlighted (before → after on hover); the words containing the pair or
token selected elsewhere highlighted, or shown alone."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.accessibility import announce
from app.bridge import Bridge
from app.changes import Change, ChangeKind
from app.delegates.chips import ChipDelegate
from app.guard import guard_overrides
from app.models.corpus_model import COUNT, SEGMENTATION, TOKENS, TOKENS_ROLE, WORD, CorpusModel
from app.sort_menu import give_sort_menu
from app.widgets import StatusText, clear_for_new_session, row_table, status_label
from bpe_core.errors import plural


@guard_overrides
class CorpusPane(QWidget):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self._selection: tuple[str, frozenset[int]] = ("", frozenset())
        self.model = CorpusModel(bridge, self)
        # Widgets
        self.filter_edit = QLineEdit(placeholderText="Filter words…", clearButtonEnabled=True)
        self.only_check = QCheckBox("Only words with the selection")
        self.summary = status_label()
        self.selection_label = StatusText(alignment=Qt.AlignmentFlag.AlignRight, muted=True)
        self.view = row_table(
            self.model,
            {  # as wide as this corpus needs: the segmentation is what the pane is for
                WORD: lambda: "m" * min(14, self.model.largest[1]),
                COUNT: lambda: f"{self.model.largest[0]:,}",
                TOKENS: lambda: f"{self.model.largest[1] + 1:,}",  # a unit per byte at most, and a marker
            },
            stretch={SEGMENTATION: "n e w e s t </w>"},
        )
        self._filter_timer = QTimer(self, singleShot=True, interval=150)
        # Setup
        self.view.setItemDelegateForColumn(SEGMENTATION, ChipDelegate(TOKENS_ROLE, self.view))
        self.model.shown_rows = self.view.shown_rows  # a step repaints only the rows on screen
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(COUNT, Qt.SortOrder.DescendingOrder)
        give_sort_menu(self.view)
        self.only_check.setToolTip("Select a pair or a token in another pane to choose the words")
        # Layout
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.only_check)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.view, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.selection_label)
        layout.addLayout(bottom)
        # Signals
        self.filter_edit.textChanged.connect(lambda: self._filter_timer.start())
        self._filter_timer.timeout.connect(self._filter)
        self.only_check.toggled.connect(lambda _: self._apply_selection())
        bridge.sig_change.connect(self._on_change)
        self.model.layoutChanged.connect(self._update_summary)  # filtered or sorted
        self._update_summary()

    def _filter(self) -> None:
        """Show the words holding the filter's text, and say how many to a screen reader: the
        count below the table changes as the user types, where only what is typed is heard."""
        self.model.set_filter(self.filter_edit.text())
        if self._bridge.trainer_busy:  # the summary says it once the job is done
            return
        shown, types = self.model.rowCount(), self._bridge.trainer.word_count
        announce(self.filter_edit, f"{shown:,} of {types:,} word {plural(types, 'type')} shown")

    def _on_change(self, change: Change) -> None:
        if change.kind is ChangeKind.RESET:
            self._on_new_session()
        self._update_summary()

    def _on_new_session(self) -> None:
        """A new session (a file, a sample, a reset) shows all its words: the filter is
        cleared, and keys left in it go to the table, as in a fresh window."""
        self.show_selection("", ())
        self._filter_timer.stop()
        clear_for_new_session(self.filter_edit, self.view)

    def show_selection(self, label: str, words) -> None:
        """Highlight the words containing what is selected elsewhere (``label`` describes it)."""
        self._selection = (label, frozenset(words))
        self._apply_selection()

    def _apply_selection(self) -> None:
        label, words = self._selection
        self.model.set_highlight(words, only=self.only_check.isChecked() and bool(label))
        contain = "word contains" if len(words) == 1 else "words contain"
        self.selection_label.setText(f"{len(words):,} {contain} {label}" if label else "")

    def _update_summary(self) -> None:
        if self._bridge.trainer_busy:
            return
        trainer = self._bridge.trainer
        changed = self.model.changed_count
        change = trainer.last_change
        note = ""
        if change is not None and changed:
            verb = "changed by step" if change.applied else "restored by undoing step"
            note = f" · {changed:,} {verb} {change.record.step:,}"
        types = f"{trainer.word_count:,} word {plural(trainer.word_count, 'type')}"
        if self.model.filtered:
            types = f"{self.model.rowCount():,} of {types} shown"
        words, tokens = trainer.corpus.total_words, trainer.corpus_tokens
        self.summary.setText(
            f"{types} · {words:,} {plural(words, 'word')} · {tokens:,} {plural(tokens, 'token')}{note}"
        )
