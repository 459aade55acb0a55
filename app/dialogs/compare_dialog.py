"""The Compare view: two lines of the history side by side, and the rule sweep.

A and B are any two branches. "Run a rule from here" adds what another tie rule would have done
from the current step (a branch, computed in the background). The view shows the one-line
summary (first divergence, vocabulary overlap at the common length, corpus tokens of each), the
merges aligned by step with the first divergence marked, the tokens only in A, only in B and
shared, and the Encode pane's test string segmented under both. The sweep trains every rule
from the corpus to the same length and tabulates each pair of runs; any run opens as a branch.
Everything exports as CSV or Markdown. The dialog stays open and follows the session.
"""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QHideEvent, QShowEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QStyledItemDelegate,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.bridge import Bridge
from app.files import file_name
from app.guard import guard_overrides
from app.models.rows_model import RowsModel
from app.panes.plots_pane import (
    PLOT_TEXT_SCALE,
    TickRoom,
    _across_ticks,
    _compact_ticks,
    _log_tick_strings,
    _log_ticks,
    _set_ticks,
    fit_axes,
)
from app.refresh_timer import RefreshTimer
from app.theme import is_dark
from app.widgets import SideDialog
from bpe_core.errors import BpeError, plural
from bpe_core.history.merge_line import field_values
from bpe_core.runtime.fileio import write_atomic
from bpe_core.tools.compare import (
    SWEEP_HEADER,
    Comparison,
    Run,
    compare,
    comparison_header,
    comparison_rows,
    count,
    encoder_of,
    pairwise_comparisons,
    run_of,
    sweep_rows,
    to_csv,
    to_markdown,
)
from bpe_core.training.tie_rules import RULE_NAMES

CURVES = (("top_count", "Top pair count"), ("corpus_tokens", "Corpus tokens"), ("vocab_size", "Vocabulary"))
SWEEP_RULES = [name for name in RULE_NAMES if name != "random"] + ["random:1", "random:2", "random:3"]


@guard_overrides
class _NumbersRight(QStyledItemDelegate):
    """Right-aligns a table's number columns, as the window's panes do."""

    def initStyleOption(self, option, index) -> None:
        super().initStyleOption(option, index)
        option.displayAlignment = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _label(text: str, buddy: QWidget) -> QLabel:
    """A label that names ``buddy`` (the relation a screen reader reads)."""
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


def _table(
    columns: list[str], name: str, numbers: tuple[int, ...] = (), texts: tuple[int, ...] = ()
) -> QTableView:
    """A table of rows of text; ``numbers``: its right-aligned columns, as wide as their contents
    and header, like every column but the ``texts`` ones, which share what is left (all of them
    share it if none is named)."""
    table = QTableView()
    table.setTabKeyNavigation(False)  # Tab goes on to the window's next control, not the next cell
    table.setAccessibleName(name)
    table.setModel(RowsModel(columns, table))
    table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    if texts:
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for column in texts:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
    delegate = _NumbersRight(table)
    for column in numbers:
        table.setItemDelegateForColumn(column, delegate)
    return table


def _model(table: QTableView) -> RowsModel:
    model = table.model()
    assert isinstance(model, RowsModel)
    return model


@guard_overrides
class CompareDialog(SideDialog):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare runs")
        self.setModal(False)
        self.resize(900, 640)
        # Attributes
        self._bridge = bridge
        self.comparison: Comparison | None = None
        self.sweep_runs: list[Run] = []
        self._sweep_corpus: object = None  # the corpus the sweep ran on
        self._timer = RefreshTimer(bridge, self.refresh, 50, self)
        self._shown: tuple = ()  # (revision, A, B) of the comparison on show
        self._merges_typed = False  # the user chose how many merges: a step no longer re-fills it
        # Widgets
        self.a_box, self.b_box = QComboBox(), QComboBox()
        self.rule_box = QComboBox()
        self.rule_box.addItems(SWEEP_RULES)
        self.rule_merges = QSpinBox(minimum=1, maximum=10**7)
        self.rule_button = QPushButton("Run this rule from here")
        self.summary = QLabel(wordWrap=True, textFormat=Qt.TextFormat.PlainText)  # names as typed
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tabs = QTabWidget()
        self.merges = _table(["Step", "A", "B", ""], "Merges of A and B, step by step", numbers=(0,))
        self.search = QLineEdit(placeholderText="Find a token…", clearButtonEnabled=True)
        self.token_order = QComboBox()
        self.token_order.addItems(["Sort A–Z", "Sort by the step that made them"])
        self.only_a, self.only_b, self.shared = QListWidget(), QListWidget(), QListWidget()
        self.token_titles = [QLabel(), QLabel(), QLabel()]
        self.further, self.further_title = QListWidget(), QLabel()  # the longer run's further merges
        for widget, name in (
            (self.only_a, "Tokens only in A"),
            (self.only_b, "Tokens only in B"),
            (self.shared, "Tokens in both"),
            (self.further, "Further merges of the longer run"),
        ):
            widget.setAccessibleName(name)  # their titles above say counts, and change
        self.curves = pg.GraphicsLayoutWidget()
        self.curves.setAccessibleName("Curves of runs A and B by step")
        self.curve_plots = {}
        self._tick_room = TickRoom()
        dark = is_dark()
        ink = "#d4d4d4" if dark else "#333333"  # as the Plots pane
        self.curves.setBackground("#1e1e1e" if dark else "w")
        for column, (key, heading) in enumerate(CURVES):
            plot = self.curves.addPlot(row=0, col=column)
            plot.setTitle(heading, color=ink)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setPen(ink)
                plot.getAxis(axis).setTextPen(ink)
            # Labelled as on the Plots pane (60k, 1.2M), and spaced for the zoom as there.
            if key == "top_count":
                _set_ticks(plot.getAxis("left"), _log_ticks, _log_tick_strings, self._tick_room)
            else:
                plot.getAxis("left").tickStrings = _compact_ticks
            # Steps are whole: a short run's axis had ticks at 0.5, 1.5, 2.5.
            _set_ticks(plot.getAxis("bottom"), _across_ticks, room=self._tick_room)
            plot.addLegend(offset=(-10, -10) if key == "vocab_size" else (-10, 10))  # off the curves
            plot.showGrid(x=True, y=True, alpha=0.2)
            a = plot.plot(pen=pg.mkPen("#1f77b4", width=2), name="A")
            b = plot.plot(pen=pg.mkPen("#ff7f0e", width=2, style=Qt.PenStyle.DashLine), name="B")
            mark = pg.InfiniteLine(angle=90, pen=pg.mkPen("#c0392b", width=1))
            plot.addItem(mark)
            self.curve_plots[key] = (plot, a, b, mark)
        self.curve_plots["top_count"][0].setLogMode(y=True)
        self._fit_curves_to_font()
        self.encoded = QLabel(wordWrap=True)
        self.encoded.setTextFormat(Qt.TextFormat.RichText)
        self.sweep_button = QPushButton("Sweep every rule to the length of A")
        # Small tables (a row per rule, a row per pair of rules): sized to their contents.
        self.sweep_table = _table(
            SWEEP_HEADER, "Rule sweep: each pair of rules compared", numbers=(2, 3, 4, 5, 6), texts=(0, 1)
        )
        self.runs_table = _table(
            ["run", "merges", "corpus tokens"], "Runs of the sweep", numbers=(1, 2), texts=(0,)
        )
        self.open_button = QPushButton("Open the selected run as a branch")
        self.export_button = QPushButton("&Export…")
        # Setup
        header = self.merges.horizontalHeader()
        # The step and the mark as narrow as their widest text (fixed: fitting them to the
        # contents would read every row of a long line).
        for column, widest in ((0, "999,999"), (3, "first divergence")):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(column, self.fontMetrics().horizontalAdvance(widest) + 24)
        self.rule_merges.setToolTip("How many merges the rule makes from the current step")
        # On Linux Qt reads a combo box by its current text whatever its name: each box has a
        # label as its buddy too, which every platform reads.
        self.a_box.setAccessibleName("Branch A")
        self.b_box.setAccessibleName("Branch B")
        self.rule_box.setAccessibleName("Rule to try from here")
        self.rule_merges.setAccessibleName("Merges the rule makes")
        self.token_order.setAccessibleName("Order of the token lists")
        self.further_title.setVisible(False)
        self.further.setVisible(False)
        # Layout
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        for name, box in (("A", self.a_box), ("B", self.b_box)):
            top.addWidget(_label(name, box))
            top.addWidget(box, 1)
        layout.addLayout(top)
        # The rule on two rows: on one, with its button, it made the dialog wider than a
        # projector's screen once zoomed.
        row_widgets: tuple[tuple[QWidget, ...], ...] = (
            (_label("Rule to try from here:", self.rule_box), self.rule_box),
            (_label("Merges it makes:", self.rule_merges), self.rule_merges, self.rule_button),
        )
        for widgets in row_widgets:
            row = QHBoxLayout()
            for part in widgets:
                row.addWidget(part)
            row.addStretch(1)
            layout.addLayout(row)
        layout.addWidget(self.summary)
        tokens = QWidget()
        grid = QGridLayout(tokens)
        grid.addWidget(self.search, 0, 0, 1, 2)
        order = QHBoxLayout()
        order.addWidget(_label("Order:", self.token_order))
        order.addWidget(self.token_order, 1)
        grid.addLayout(order, 0, 2)
        for column, (title, widget) in enumerate(
            zip(self.token_titles, (self.only_a, self.only_b, self.shared), strict=True)
        ):
            grid.addWidget(title, 1, column)
            grid.addWidget(widget, 2, column)
        grid.addWidget(self.further_title, 1, 3)
        grid.addWidget(self.further, 2, 3)
        sweep = self.sweep_tab = QWidget()
        sweep_layout = QVBoxLayout(sweep)
        sweep_layout.addWidget(self.sweep_button)
        sweep_layout.addWidget(self.runs_table, 1)
        sweep_layout.addWidget(self.sweep_table, 2)
        sweep_layout.addWidget(self.open_button)
        encoded = QWidget()
        encoded_layout = QVBoxLayout(encoded)
        encoded_layout.addWidget(self.encoded)
        encoded_layout.addStretch(1)
        self.tabs.addTab(self.merges, "Merges by step")
        self.tabs.addTab(tokens, "Tokens")
        self.tabs.addTab(encoded, "Test string")
        self.tabs.addTab(self.curves, "Curves")
        self.tabs.addTab(sweep, "Rule sweep")
        layout.addWidget(self.tabs, 1)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        bottom.addWidget(self.export_button)
        layout.addLayout(bottom)
        # Signals
        self.a_box.activated.connect(lambda _: self.compare_selected())
        self.b_box.activated.connect(lambda _: self.compare_selected())
        self.rule_merges.valueChanged.connect(self._on_merges_typed)
        self.search.textChanged.connect(self._filter_tokens)
        self.token_order.activated.connect(lambda _: self.comparison and self._show_tokens(self.comparison))
        self.rule_button.clicked.connect(self.run_rule)
        self.sweep_button.clicked.connect(self.run_sweep)
        self.open_button.clicked.connect(self.open_selected_run)
        self.export_button.clicked.connect(self.export)
        self.refresh()

    # -- the two runs ------------------------------------------------------------------------

    def refresh(self) -> None:
        """Re-list the branches (keeping the choices) and compare again; a closed view waits
        until it is shown (it was comparing on every step, and drawing on the Plots pane)."""
        if self._bridge.busy or not self.isVisible():
            return
        trainer = self._bridge.trainer
        branches = trainer.branches()
        chosen = [box.currentData() for box in (self.a_box, self.b_box)]
        for box in (self.a_box, self.b_box):
            box.blockSignals(True)
            box.clear()
            for branch in branches:
                box.addItem(f"{branch.name} ({branch.length:,} {plural(branch.length, 'merge')})", branch.id)
            box.blockSignals(False)
        ids = [b.id for b in branches]
        current = trainer.current_branch
        a = chosen[0] if chosen[0] in ids else (ids[0] if ids[0] != current or len(ids) == 1 else ids[-1])
        b = chosen[1] if chosen[1] in ids and chosen[1] != a else (current if current != a else ids[-1])
        if a == b and len(ids) > 1:  # each box offers every branch but the other's
            b = next(i for i in ids if i != a)
        self.a_box.setCurrentIndex(ids.index(a))
        self.b_box.setCurrentIndex(ids.index(b))
        if not self._merges_typed:  # by default, as many merges as the line has ahead
            ahead = trainer.history_length - trainer.position
            self.rule_merges.blockSignals(True)
            self.rule_merges.setValue(ahead if ahead > 0 else 100)
            self.rule_merges.blockSignals(False)
        self.compare_selected()

    def _on_merges_typed(self) -> None:
        self._merges_typed = True

    def _offer_other_branches(self) -> None:
        """A box cannot pick the branch the other shows (a run compared with itself says nothing)."""
        for box, other in ((self.a_box, self.b_box), (self.b_box, self.a_box)):
            model = box.model()
            assert isinstance(model, QStandardItemModel)  # a combo box's own model
            for row in range(box.count()):
                item = model.item(row)
                if item is not None:
                    item.setEnabled(box.count() < 2 or box.itemData(row) != other.currentData())

    def select(self, a: int, b: int) -> None:
        """Compare branch ``a`` with branch ``b``."""
        for box, branch in ((self.a_box, a), (self.b_box, b)):
            box.setCurrentIndex(box.findData(branch))
        self.compare_selected()

    def compare_selected(self) -> None:
        if self._bridge.busy:
            return
        trainer = self._bridge.trainer
        names = {b.id: b.name for b in trainer.branches()}
        a_id, b_id = self.a_box.currentData(), self.b_box.currentData()
        if a_id not in names or b_id not in names:
            return
        self._offer_other_branches()
        key = (trainer.revision, a_id, b_id)  # undo, redo and jumps leave both lines as they are
        if key == self._shown:
            return
        self._shown = key
        if a_id == b_id:
            self._show_nothing(names[a_id])
            return
        a = run_of(trainer, names[a_id], trainer.branch_history(a_id))
        b = run_of(trainer, names[b_id], trainer.branch_history(b_id))
        self.show_comparison(compare(a, b))

    def _show_nothing(self, name: str) -> None:
        """The session has one branch: say so, rather than compare it with itself."""
        self.comparison = None
        self.summary.setText(
            f"The session has only one branch ({name}): there is nothing to compare yet. Make another "
            "by merging another pair after an undo or a jump, or with “Run this rule from here”."
        )
        _model(self.merges).set_rows([])
        for widget in (self.only_a, self.only_b, self.shared, self.further):
            widget.clear()
        for label in self.token_titles:
            label.setText("")
        self.further.setVisible(False)
        self.further_title.setVisible(False)
        self.encoded.setText("")
        for _plot, a, b, mark in self.curve_plots.values():
            a.setData([], [])
            b.setData([], [])
            mark.setVisible(False)
        plots = getattr(self.parent(), "plots_pane", None)
        if plots is not None:
            plots.show_other(None)

    def show_comparison(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.summary.setText(comparison.summary())
        rows = comparison_rows(comparison)
        first = comparison.first_divergence
        marked = first - 1 if first is not None and first <= len(rows) else None
        model = _model(self.merges)
        model.set_headers(comparison_header(comparison))
        model.set_rows(rows, {row for row, values in enumerate(rows) if values[3]}, marked)
        if marked is not None:
            self.merges.scrollTo(model.index(marked, 0), QTableView.ScrollHint.PositionAtCenter)
        self._show_tokens(comparison)
        self._show_encoded(comparison)
        self._show_curves(comparison)
        self._show_on_plots(comparison)

    def _show_on_plots(self, comparison: Comparison) -> None:
        """On the window's Plots pane, beside the current line: the compared run that is not it."""
        plots = getattr(self.parent(), "plots_pane", None)
        if plots is None:
            return
        trainer = self._bridge.trainer
        current = trainer.branch_history(trainer.current_branch)
        other = comparison.b if comparison.a.records == current else comparison.a
        plots.show_other(other.records, comparison.first_divergence)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:  # the window zoomed
            self._fit_curves_to_font()
        super().changeEvent(event)

    def _fit_curves_to_font(self) -> None:
        """The curves' titles, legends and tick labels at the Plots pane's size for this font."""
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * PLOT_TEXT_SCALE)
        plots = [plot for plot, *_ in self.curve_plots.values()]
        for plot, (_, heading) in zip(plots, CURVES, strict=True):
            plot.setTitle(heading, size=f"{font.pointSizeF():.0f}pt")
            plot.legend.setLabelTextSize(f"{font.pointSizeF():.0f}pt")
            for _, label in plot.legend.items:  # (pyqtgraph draws a label anew only when set)
                label.setText(label.text)
            for axis in ("left", "bottom"):
                plot.getAxis(axis).setTickFont(font)
        fit_axes(plots, self._tick_room, font)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._shown = ()  # what changed while it was closed is compared now
        self._timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        plots = getattr(self.parent(), "plots_pane", None)
        if plots is not None:
            plots.show_other(None)  # the comparison leaves with the view
        super().hideEvent(event)

    def _show_curves(self, comparison: Comparison) -> None:
        """Both runs' top count, corpus tokens and vocabulary per step; the divergence marked."""
        start = self._bridge.trainer.initial_point
        for key, (_plot, a, b, mark) in self.curve_plots.items():
            for curve, run in ((a, comparison.a), (b, comparison.b)):
                values = [getattr(start, key), *field_values(run.records, key)]
                curve.setData(list(range(len(values))), values)
            first = comparison.first_divergence
            mark.setVisible(first is not None)
            mark.setValue(first or 0)

    def _show_tokens(self, comparison: Comparison) -> None:
        length = comparison.common_length
        shown = comparison.a.display
        va, vb = comparison.a.vocabulary(length), comparison.b.vocabulary(length)
        by_step = self.token_order.currentIndex() == 1
        groups = (
            ("Only in A", va - vb, comparison.a),
            ("Only in B", vb - va, comparison.b),
            ("Shared", va & vb, comparison.a),
        )
        widgets = (self.only_a, self.only_b, self.shared)
        for (title, keys, run), label, widget in zip(groups, self.token_titles, widgets, strict=True):
            if by_step:  # the order the run made them in (base symbols first)
                made = {key: step for step, key in enumerate(run.tokens, start=1)}
                ordered = sorted(keys, key=lambda key: (made.get(key, 0), key))
            else:
                ordered = sorted(keys, key=shown)
            label.setText(f"{title} ({len(keys):,}), at {length:,} {plural(length, 'merge')}")
            widget.clear()
            widget.addItems([shown(key) for key in ordered])
        further = comparison.further_tokens()  # in the order they were made
        self.further.clear()
        self.further.addItems([shown(key) for key in further])
        self.further_title.setText(
            f"{comparison.longer}'s {count(len(further))} further {plural(len(further), 'merge')} made"
        )
        self.further.setVisible(bool(further))
        self.further_title.setVisible(bool(further))
        self._filter_tokens(self.search.text())

    def _filter_tokens(self, text: str) -> None:
        needle = text.casefold()
        for widget in (self.only_a, self.only_b, self.shared, self.further):
            for row in range(widget.count()):
                item = widget.item(row)
                item.setHidden(bool(needle) and needle not in item.text().casefold())

    def refresh_encoded(self) -> None:
        """The test string changed in the Encode pane."""
        if self.comparison is not None and not self._bridge.busy:
            self._show_encoded(self.comparison)

    def _show_encoded(self, comparison: Comparison) -> None:
        trainer = self._bridge.trainer
        pane = getattr(self.parent(), "encode_pane", None)
        text = pane.input.toPlainText() if pane is not None else ""
        if not text:
            self.encoded.setText("Type a test string in the Encode pane to see it segmented under both runs.")
            return
        config, specials = trainer.corpus.config, trainer.vocab.n_special
        lines = []
        for name, run in (("A", comparison.a), ("B", comparison.b)):
            encoding = encoder_of(run, config, specials).encode(text[:2000])
            pieces = " │ ".join(_escape(token) for token in encoding.tokens)
            title = f"{name}: {_escape(run.label)}"
            lines.append(f"<p><b>{title}</b> — {len(encoding.ids):,} tokens<br><tt>{pieces}</tt></p>")
        self.encoded.setText("".join(lines))

    # -- commands ----------------------------------------------------------------------------

    def run_rule(self) -> None:
        """What the chosen rule would have done from here, as a branch; then A: where we were,
        B: that branch."""
        trainer = self._bridge.trainer
        origin = trainer.current_branch

        def done() -> None:
            self.refresh()
            self.select(origin, self._bridge.trainer.current_branch)

        self._bridge.run_rule_from_here(self.rule_box.currentText(), self.rule_merges.value(), done)

    def run_sweep(self) -> None:
        trainer = self._bridge.trainer
        a = self.a_box.currentData()
        length = len(trainer.branch_history(a)) if a is not None else trainer.history_length
        corpus = trainer.corpus

        def done(runs: list[Run]) -> None:
            self._sweep_corpus = corpus
            self.show_sweep(runs)

        self._bridge.sweep_rules(SWEEP_RULES, max(1, length), done)

    def show_sweep(self, runs: list[Run]) -> None:
        self.sweep_runs = runs
        _model(self.runs_table).set_rows(
            [[r.label, count(len(r.merges)), count(r.corpus_tokens)] for r in runs]
        )
        _model(self.sweep_table).set_rows(sweep_rows(pairwise_comparisons(runs)))  # pairs 1-2, 1-3, …
        self.tabs.setCurrentIndex(self.tabs.indexOf(self.sweep_tab))

    def open_selected_run(self) -> None:
        row = self.runs_table.currentIndex().row()
        if not 0 <= row < len(self.sweep_runs):
            return
        if self._sweep_corpus is not self._bridge.trainer.corpus:
            self._bridge.sig_error.emit(
                "Cannot open the run", "The sweep was made on another corpus: sweep again."
            )
            return
        self._bridge.open_run_as_branch(self.sweep_runs[row])

    def export(self) -> None:
        """The comparison (or, on the sweep tab, the sweep) as CSV or Markdown."""
        sweep = self.tabs.currentWidget() is self.sweep_tab and self.sweep_runs
        name, kinds = "sweep.csv" if sweep else "comparison.csv", "CSV (*.csv);;Markdown (*.md)"
        files = getattr(self.parent(), "files", None)  # the window's: the last folder chosen
        if files is not None:
            path = files.ask_save_path("Export", file_name(files.session_stem(), name), kinds)
        else:
            path, _ = QFileDialog.getSaveFileName(self, "Export", name, kinds, kinds.split(";;")[0])
        if not path:
            return
        if sweep:
            header, rows, title = (
                SWEEP_HEADER,
                sweep_rows(pairwise_comparisons(self.sweep_runs)),
                "Rule sweep",
            )
        elif self.comparison is not None:
            header, rows, title = (
                comparison_header(self.comparison),
                comparison_rows(self.comparison),
                self.comparison.summary(),
            )
        else:
            return
        text = (
            to_markdown(header, rows, title) if Path(path).suffix.lower() == ".md" else to_csv(header, rows)
        )
        try:
            write_atomic(path, text)
        except (OSError, BpeError) as error:
            self._bridge.sig_error.emit("Could not export", str(error))
            return
        self._bridge.sig_message.emit(f"Exported to {path}")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
