"""The main window: composes the panes (dockable), toolbar, menus and status bar around one
bridge. It holds no engine logic; a test can build as many windows as it likes."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QByteArray, QChildEvent, QDataStream, QEvent, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QDockWidget,
    QGraphicsView,
    QInputDialog,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QSlider,
    QWidget,
)
from shiboken6 import isValid

from app.accessibility import install_control_namer, keep_selection_readable, show_focus
from app.actions import enable_commands, make_commands, make_menus, make_toolbar
from app.bridge import ASK, TIE_LIST, Bridge, Source
from app.busy_keys import BusyKeys
from app.changes import Change
from app.desktop_entry import SESSION_SUFFIX
from app.dialogs.compare_dialog import CompareDialog
from app.dialogs.compression_dialog import CompressionDialog
from app.dialogs.run_dialog import RunDialog
from app.dialogs.settings_dialog import SettingsDialog, Target
from app.dialogs.text_dialog import TextDialog, room_on_screen
from app.dialogs.tie_dialog import TieDialog
from app.dialogs.tokenizers_dialog import TokenizersDialog
from app.files import FileActions, file_name
from app.glyphs import left_to_right
from app.guard import guard_overrides, reporter
from app.help_texts import about_html, shortcuts_html
from app.menu_key import install_shift_f10
from app.mnemonics import with_mnemonics
from app.panes.corpus_pane import CorpusPane
from app.panes.encode_pane import EncodePane
from app.panes.history_pane import HistoryPane
from app.panes.merges_pane import MergesPane
from app.panes.pairs_pane import PairsPane
from app.panes.plots_pane import PlotsPane
from app.panes.registry import DEFAULT_SIZES, PANES, PaneSpec
from app.panes.vocab_pane import VocabPane
from app.playback import Playback
from app.samples import GPT2_RANKS, GPT2_TEST_TEXT, SAMPLES_DIR, Sample
from app.status_bar import StatusFields
from app.text_keys import TextFieldKeys
from app.widgets import FRAME, TITLE_BAR, confirmed, keeping_focus, pass_file_drops, table_csv
from bpe_core import Trainer
from bpe_core.errors import BpeError, plural
from bpe_core.io.session import MAX_TEST_TEXT
from bpe_core.runtime.fileio import write_atomic

log = logging.getLogger("bpe_studio")
STATE_VERSION = 1
RECOVERY_KEY = "recovery/pending"  # a copy of unsaved work kept when a signal ended the program
GEOMETRY_MAGIC = 0x1D9D0CB  # how QWidget.saveGeometry's data begins
DEFAULT_SIZE = QSize(1440, 900)
COMPACT_HEIGHT = 760  # room below this: Plots share a tabbed dock with Merges and Vocabulary
PLOTS_READABLE = 200  # a Plots dock lower than this gets room back when the window grows
TEXT_FIELDS = (QLineEdit, QPlainTextEdit, QAbstractSpinBox)
ZOOM_MIN, ZOOM_MAX = -4.0, 24.0  # points added to the normal font size
W = TypeVar("W", bound=QWidget)


@guard_overrides
class MainWindow(QMainWindow):
    """BPE Studio's window, built around ``trainer`` (injected, so tests get fresh ones), with a
    dock for each of ``panes`` (:data:`app.panes.registry.PANES` unless told otherwise)."""

    def __init__(
        self,
        trainer: Trainer,
        settings: QSettings | None = None,
        source_name: str = "sample",
        *,
        panes: Sequence[PaneSpec[Any]] = PANES,
    ) -> None:
        super().__init__()
        install_control_namer()  # every window and dialog shown gets names a screen reader reads
        keep_selection_readable()
        show_focus()
        install_shift_f10()  # the Menu key's menus by Shift+F10 too
        # Attributes
        self.bridge = Bridge(trainer, Source(source_name, sample=True), self)
        self.settings = settings if settings is not None else QSettings("BPE Studio", "bpe-studio")
        self.files = FileActions(self.bridge, self.settings, self)
        self.playback = Playback(self.bridge, self)
        self.files.sig_asking_to_save.connect(self.playback.pause)
        self.target = Target()
        self._zoom_points = 0.0
        self._zoom_shares: list[tuple[list[QDockWidget], list[float]]] = []
        self._zoom_shown = False  # the zoom set again once the window first shows (see showEvent)
        self._base_points = self.font().pointSizeF()
        self._last_table: QAbstractItemView | None = None
        self._last_focus: QWidget | None = None  # what last had the keys in any of our windows
        self.compression_dialog: CompressionDialog | None = None
        self.compare_dialog: CompareDialog | None = None
        self.tokenizers_dialog: TokenizersDialog | None = None
        self._asking_tie = False
        self._ending = False  # a signal ends the program: closing asks nothing
        self.pane_specs = tuple(panes)
        self.docks: dict[str, QDockWidget] = {}
        # Widgets
        self.panes: dict[str, QWidget] = {spec.name: spec.factory(self.bridge) for spec in self.pane_specs}
        # The panes the window wires to each other (a selection in one shows in another).
        self.corpus_pane = self._pane("corpus", CorpusPane)
        self.pairs_pane = self._pane("pairs", PairsPane)
        self.vocab_pane = self._pane("vocab", VocabPane)
        self.merges_pane = self._pane("merges", MergesPane)
        self.encode_pane = self._pane("encode", EncodePane)
        self.plots_pane = self._pane("plots", PlotsPane)
        self.history_pane = self._pane("history", HistoryPane)
        self.tables = (
            self.corpus_pane.view,
            self.pairs_pane.view,
            self.vocab_pane.view,
            self.merges_pane.view,
        )
        self.rule_box = QComboBox()
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setAccessibleName("Playback speed")
        self.speed.setAccessibleDescription("How many merges Play makes each second")
        self.rule_box.setAccessibleName("Tie rule")
        self.rule_box.setAccessibleDescription("How a tie at the top count is broken, or Ask me")
        self.status = StatusFields(self.statusBar(), self.bridge)
        self.status.focus_home = self._home_table
        # Setup
        self.setWindowTitle("BPE Studio")
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setDocumentMode(True)
        placeholder = QWidget()
        placeholder.setMaximumSize(0, 0)
        self.setCentralWidget(placeholder)  # every pane is a dock; the centre stays empty
        self._make_docks()
        self._name_main_tables()
        pass_file_drops(self)
        self.commands: dict[str, QAction] = make_commands(self)
        self.toolbar = make_toolbar(self, self.commands, self.speed, self.rule_box)
        self.addToolBar(self.toolbar)
        menus = make_menus(self, self.commands)
        self.recent_menu, self.samples_menu = menus.recent, menus.samples
        self.rule_actions = menus.rule_actions
        room = self._screen_room()
        self.resize(DEFAULT_SIZE.boundedTo(room))
        if room.height() < COMPACT_HEIGHT:  # a small screen: the plots need height more than width
            self.tabifyDockWidget(self.docks["merges"], self.docks["plots"])
            self.docks["merges"].raise_()
        # Signals
        bridge = self.bridge
        bridge.sig_change.connect(self._on_change)
        bridge.sig_busy_changed.connect(lambda _: self._update_actions())
        self._busy_keys = BusyKeys(self, self.commands)
        # In a text field, read-only too, the training keys are the field's: they never merge.
        self._text_keys = TextFieldKeys(self, [self.commands[n] for n in ("step", "undo", "redo", "play")])
        bridge.sig_busy_changed.connect(self._busy_keys.hold)
        bridge.sig_error.connect(self._show_error)
        # Queued: the dialog opens once the step, run or job that met the tie has finished.
        bridge.sig_tie_reached.connect(self.ask_tie, Qt.ConnectionType.QueuedConnection)
        bridge.sig_document_changed.connect(self._update_title)
        bridge.sig_opened.connect(self._on_opened)
        bridge.test_text = self._test_text_to_keep
        self.pairs_pane.sig_pair_selected.connect(self._on_pair_selected)
        self.vocab_pane.sig_token_selected.connect(self._on_token_selected)
        self.playback.sig_playing_changed.connect(self._on_playing)
        self.rule_box.activated.connect(lambda _: bridge.set_tie_rule(self.rule_box.currentData()))
        self.speed.valueChanged.connect(self.playback.set_speed)
        app = QApplication.instance()
        assert isinstance(app, QApplication)  # widgets exist only under a QApplication
        app.focusChanged.connect(self._on_focus_changed)
        reporter().sig_reported.connect(self._on_internal_error)
        self._restore()
        self._apply_zoom()
        self._sync_rule_box()
        self.status.update()
        self._update_actions()
        self._update_title()
        # Keys act at once in a fresh window: Space and → step, not type into the filter.
        self.corpus_pane.view.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- construction ------------------------------------------------------------------------

    def _pane(self, name: str, kind: type[W]) -> W:
        """A registered pane the window wires to others, as its own type."""
        pane = self.panes[name]
        assert isinstance(pane, kind), f"the {name} pane is a {type(pane).__name__}, not a {kind.__name__}"
        return pane

    def _make_docks(self) -> None:
        """A dock for every pane, placed as its declaration says: added in order, then split
        under the pane it goes below, then tabbed with the one it shares room with (the first
        of each tabbed group in front)."""
        for spec in self.pane_specs:
            dock = QDockWidget(spec.title, self)
            dock.setObjectName(spec.dock_name)
            dock.setWidget(self.panes[spec.name])
            self.addDockWidget(spec.area, dock)
            self.docks[spec.name] = dock
            dock.topLevelChanged.connect(lambda _floating, dock=dock: self._on_pane_moved(dock))
        docks = self.docks
        for spec in self.pane_specs:
            if spec.below is not None:
                self.splitDockWidget(docks[spec.below], docks[spec.name], Qt.Orientation.Vertical)
        tabbed_with = {spec.name: spec.tab_with for spec in self.pane_specs if spec.tab_with is not None}
        for name, first in tabbed_with.items():
            self.tabifyDockWidget(docks[first], docks[name])
        for first in dict.fromkeys(tabbed_with.values()):
            if first not in tabbed_with:  # the group's first dock
                docks[first].raise_()
        for spec in self.pane_specs:
            if not spec.visible:
                docks[spec.name].hide()
        self.default_dock_sizes()

    def default_dock_sizes(self) -> None:
        """The docks' sizes as the window opens (and as Ctrl+0 brings them back), as
        :data:`app.panes.registry.DEFAULT_SIZES` gives them."""
        for names, sizes, orientation in DEFAULT_SIZES:
            if all(name in self.docks for name in names):
                self.resizeDocks([self.docks[name] for name in names], list(sizes), orientation)

    def _screen_room(self) -> QSize:
        """The room the screen leaves a window (a title bar kept free): the window opens at
        its default size, or smaller where the screen is, never partly off-screen."""
        screen = self.screen() or QApplication.primaryScreen()
        if screen is None:
            return DEFAULT_SIZE
        room = screen.availableGeometry().size()
        return QSize(room.width() - FRAME, room.height() - TITLE_BAR)

    # -- commands ----------------------------------------------------------------------------

    def open_sample(self, sample: Sample) -> None:
        def opened() -> None:
            self.target = Target("vocab_size", sample.target_vocab) if sample.target_vocab else Target()
            self.encode_pane.input.setPlainText(sample.test_text)

        self.files.request_open(
            lambda: self.bridge.open_text(
                sample.text(),
                sample.config,
                sample.name,
                sample.input_kind,
                sample.training,
                on_opened=opened,
                sample=True,
            )
        )

    def open_gpt2_sample(self) -> None:
        def opened() -> None:
            self.target = Target()
            self.encode_pane.allow_special.setChecked(True)
            self.encode_pane.input.setPlainText(GPT2_TEST_TEXT)

        self.files.request_open(
            lambda: self.bridge.open_tokenizer(
                GPT2_RANKS,
                ("<|endoftext|>",),
                corpus=SAMPLES_DIR / "shakespeare.txt",
                name="GPT-2 tokenizer",
                on_opened=opened,
            )
        )

    def _name_main_tables(self) -> None:
        """What a screen reader says of the two tables a lesson lives in (the other panes name
        their own controls)."""
        corpus, pairs = self.corpus_pane, self.pairs_pane
        corpus.view.setAccessibleName("Corpus")
        corpus.view.setAccessibleDescription("Each word type: its count and its segmentation at this step")
        corpus.filter_edit.setAccessibleName("Filter the corpus")
        pairs.view.setAccessibleName("Pairs")
        pairs.view.setAccessibleDescription(
            "Adjacent pairs by count, ties and the rule's pick marked; Enter merges the selected pair"
        )

    def open_path(self, path: str | Path) -> None:
        self.files.open_path(path)

    def open_paths(self, paths: list[str]) -> None:
        """One path as :meth:`open_path`; several (a drop, a shell's glob) counted as one corpus."""
        if len(paths) == 1:
            self.open_path(paths[0])
        else:
            self.files.open_together([Path(path) for path in paths])

    def ask_run(self) -> None:
        trainer = self.bridge.trainer
        dialog = RunDialog(trainer.vocab_size, trainer.training.min_frequency, parent=self)
        with keeping_focus(self):
            target = dialog.target() if dialog.exec() else None
        dialog.deleteLater()  # dialogs are children of the window: never let them pile up
        if target is not None:
            self.bridge.run(**target)

    def run_to_target(self) -> None:
        if self.target.kind == "merges":
            self.bridge.run(merges=self.target.value)
        elif self.target.kind == "vocab_size":
            self.bridge.run(vocab_size=self.target.value)
        else:
            self.bridge.run()

    def ask_goto(self) -> None:
        trainer = self.bridge.trainer
        last = trainer.history_length
        if self.bridge.busy or not last:
            return
        with keeping_focus(self):
            step, ok = QInputDialog.getInt(
                self, "Go to step", f"Step (0 to {last:,}):", trainer.position, 0, last
            )
        if ok:
            self.bridge.goto(step)

    def confirm_reset(self) -> None:
        trainer = self.bridge.trainer
        if not trainer.history_length:
            return
        if confirmed(self, "Reset", f"Forget all {trainer.history_length:,} merges and go back to step 0?"):
            self.bridge.reset()

    def go_to_pane(self, name: str) -> None:
        """Show the pane ``name``, in front of those it shares a tab bar with, and give it the
        keys: its table or graph, where the pane's keys work (Space steps there), else its first
        control that takes Tab."""
        if name == "history":
            self.show_history()
            return
        dock = self.docks[name]
        self._show_pane(dock)
        pane = dock.widget()
        views = [
            w
            for w in pane.findChildren(QAbstractItemView) + pane.findChildren(QGraphicsView)
            if _takes_tab(w)
        ]
        if views:
            # The pane's own table before a helper view (the Vocabulary pane's merge tree, empty
            # until a token is picked), whatever order Qt lists them in.
            views.sort(key=lambda view: view not in self.tables)
            views[0].setFocus(Qt.FocusReason.ShortcutFocusReason)
            return
        target = pane.nextInFocusChain()
        while target is not None and target is not pane:
            if pane.isAncestorOf(target) and _takes_tab(target):
                target.setFocus(Qt.FocusReason.ShortcutFocusReason)
                return
            target = target.nextInFocusChain()

    def show_history(self) -> None:
        """Show the History pane and give its graph the keys (↑ ↓ move between branches)."""
        self._show_pane(self.docks["history"])
        self.history_pane.graph.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _show_pane(self, dock: QDockWidget) -> None:
        """Show ``dock`` in front of its tab bar, and make its window the active one: the keys
        go only to a widget of the active window, and a floating pane is a window of its own."""
        dock.show()
        dock.raise_()
        (dock if dock.isFloating() else self).activateWindow()

    def ask_export_view(self) -> None:
        """Export what the user looks at: the plots (if they have the focus) as PNG or SVG, else
        the last table used as CSV, as shown (sorted and filtered as on screen)."""
        focus = QApplication.focusWidget()
        plots = focus is not None and self.plots_pane.isAncestorOf(focus)
        table = self._home_table()
        name = file_name(self.files.session_stem(), "plots.png" if plots else f"{self._pane_name(table)}.csv")
        kinds = "PNG (*.png);;SVG (*.svg)" if plots else "CSV (*.csv)"
        path = self.files.ask_save_path("Export view", name, kinds)
        if not path:
            return
        try:
            if plots:
                self.plots_pane.export(path)
            else:
                write_atomic(path, table_csv(table))
        except (OSError, BpeError) as error:
            self._show_error("Could not export", str(error))
            return
        self.status.show_message(f"Exported to {path}")

    def _pane_name(self, table: QAbstractItemView) -> str:
        dock = next((d for d in self.docks.values() if d.isAncestorOf(table)), None)
        return dock.windowTitle().lower() if dock is not None else "table"

    def ask_walkthrough(self) -> None:
        path = self.files.ask_save_path(
            "Export walk-through",
            file_name(self.files.session_stem(), "walkthrough.md"),
            "Markdown (*.md);;HTML (*.html)",
        )
        if path:
            self.bridge.export_walkthrough(path)

    def _lend_keys(self, view: QWidget) -> None:
        """The window's keys that a side view's own controls never use (with Ctrl, and F1) work
        in the view too: its views stay open beside the window, and a keyboard user had to
        close one to undo, save or run. Ctrl+1 … Ctrl+7 and Ctrl+H bring the window forward at
        a pane, where Space steps again."""
        for name, action in self.commands.items():
            keys = [key for key in action.shortcuts() if _lendable(key)]
            if keys:
                self._lend(view, keys, action.trigger, forward=name == "history")
        for number, name in enumerate(self.docks, start=1):
            self._lend(view, [QKeySequence(f"Ctrl+{number}")], partial(self.go_to_pane, name), forward=True)

    def _lend(self, view: QWidget, keys: list[QKeySequence], do: Callable[[], None], forward: bool) -> None:
        lent = QAction(view)
        lent.setShortcuts(keys)
        if forward:
            lent.triggered.connect(self._come_forward)
        lent.triggered.connect(lambda _=False: do())
        view.addAction(lent)

    def _come_forward(self) -> None:
        self.raise_()
        self.activateWindow()

    def show_compare(self) -> None:
        """Open (or raise) the Compare view; it stays open beside the window."""
        if self.compare_dialog is None:
            self.compare_dialog = CompareDialog(self.bridge, self)
            self._lend_keys(self.compare_dialog)
            self.encode_pane.input.textChanged.connect(self.compare_dialog.refresh_encoded)
        self.compare_dialog.show()
        self.compare_dialog.raise_()
        self.compare_dialog.refresh()

    def show_tokenizers(self) -> None:
        """Open (or raise) the view comparing tokenizers on the Encode pane's text."""
        if self.tokenizers_dialog is None:
            self.tokenizers_dialog = TokenizersDialog(self.bridge, self.encode_pane.input.toPlainText, self)
            self._lend_keys(self.tokenizers_dialog)
            self.encode_pane.input.textChanged.connect(self.tokenizers_dialog.schedule)
        self.tokenizers_dialog.show()
        self.tokenizers_dialog.raise_()

    def show_compression(self) -> None:
        """Open (or raise) the Compression view; it stays open beside the window."""
        if self.compression_dialog is None:
            self.compression_dialog = CompressionDialog(self.bridge, self)
            self._lend_keys(self.compression_dialog)
        self.compression_dialog.show()
        self.compression_dialog.raise_()

    def open_settings(self) -> None:
        trainer = self.bridge.trainer
        dialog = SettingsDialog(
            trainer.corpus.config,
            trainer.training,
            self.target,
            self,
            self.bridge.ask_at_ties,
            counted=self.bridge.source.pieces,
            lines=self.bridge.source.lines
            if self.bridge.source.has_lines and trainer.numbering is None
            else None,
        )
        with keeping_focus(self):
            accepted = dialog.exec()
        values = dialog.values() if accepted else None
        ask = dialog.ask_at_ties
        lines = dialog.lines.isChecked() if dialog.lines.isEnabled() else self.bridge.source.lines
        dialog.deleteLater()
        if values is None:
            return
        config, training, target = values
        if config != trainer.corpus.config and trainer.numbering is not None:
            with keeping_focus(self):
                QMessageBox.information(
                    self,
                    "An imported tokenizer",
                    "The pipeline of an imported tokenizer is its own: its merges mean nothing on "
                    "another one. The training settings can change; to try another pipeline, train "
                    "a new session.",
                )
            config = trainer.corpus.config
        if config != trainer.corpus.config or lines != self.bridge.source.lines:
            if not self._may_rebuild():
                return  # nothing of the dialog applies: the user kept the session as it was
            self.target = target
            self.bridge.ask_at_ties = ask  # the rebuilt session keeps the choice (Bridge.replace_trainer)
            self.bridge.rebuild(config, training, lines)
            return
        self.target = target
        self.bridge.configure(training, ask_at_ties=ask)

    def _may_rebuild(self) -> bool:
        """Whether the session may be rebuilt for new pipeline settings, losing its merges and
        branches: work not saved is offered to be saved first, as opening a file offers."""
        lost = self.bridge.trainer.history_length
        if not lost:
            return True
        why = (
            "New pipeline settings rebuild the session from its source: its "
            f"{lost:,} {plural(lost, 'merge')} and its branches go."
        )
        if self.bridge.has_unsaved_work():
            return self.files.maybe_save(f"{why} Save the session first?")
        # Nothing unsaved: the file keeps the merges, or a rule made all of them (a sample's)
        path = self.bridge.path
        kept = f"The file {path.name} keeps them." if path else "Training again makes them again."
        return confirmed(self, "Rebuild the session?", f"{why} Continue? ({kept})")

    def ask_tie(self) -> None:
        """A step, Play or Run met a tie in Ask-me mode: let the user decide, then go on. One
        question at a time (a second Space queues a second call), and only about the tie as it
        still is when the answer comes."""
        bridge, playback = self.bridge, self.playback
        trainer = bridge.trainer
        if self._asking_tie or not self.isVisible():
            return
        if bridge.busy or trainer.ties_at_top() < 2:  # the state moved on meanwhile
            bridge.forget_interrupted_run()
            playback.interrupted_by_tie = False
            return
        asked_at = (trainer.revision, trainer.position)
        dialog = TieDialog(trainer, trainer.tied_candidates(limit=TIE_LIST), self)
        self._asking_tie = True
        try:
            with keeping_focus(self):
                choice = dialog.choice if dialog.exec() else None
        finally:
            self._asking_tie = False
            dialog.deleteLater()
        unchanged = not bridge.busy and (trainer.revision, trainer.position) == asked_at
        if choice is not None and unchanged and bridge.step_pair(*choice):
            if not bridge.continue_run() and playback.interrupted_by_tie:
                playback.play()
        else:
            bridge.forget_interrupted_run()
        playback.interrupted_by_tie = False

    def zoom(self, direction: int) -> None:
        """Scale every pane's font (for a projector); 0 returns to the normal size."""
        shares = self._column_shares()
        self._zoom_points = (
            0.0 if direction == 0 else max(ZOOM_MIN, min(ZOOM_MAX, self._zoom_points + 2 * direction))
        )
        if direction == 0:  # actual size: the docks too, which larger fonts had pushed about
            self._apply_zoom()
            QTimer.singleShot(0, self, self.default_dock_sizes)  # once the panes have their new minimums
            return
        self._apply_zoom()
        QTimer.singleShot(0, self, lambda: self._keep_column_shares(shares))

    def _dock_columns(self) -> list[list[QDockWidget]]:
        """The docks shown one above another, column by column (a dock tabbed behind another is
        "visible" but unseen; a floating one is in no column)."""
        columns: dict[tuple, list[QDockWidget]] = {}
        for dock in self.docks.values():
            if dock.isVisible() and not dock.visibleRegion().isEmpty() and not dock.isFloating():
                place = (self.dockWidgetArea(dock), dock.x(), dock.width())
                columns.setdefault(place, []).append(dock)
        return [sorted(docks, key=lambda d: d.y()) for docks in columns.values() if len(docks) > 1]

    def _column_shares(self) -> list[tuple[list[QDockWidget], list[float]]]:
        """Each column's docks and their shares of its height as they were at actual size: the
        layout a user makes there is the one every zoom keeps (zoomed, Qt's own moves of a few
        pixels at each layout pass could not be told from a user's). Taken anew at actual size
        or once the docks are arranged otherwise."""
        now = _shares(self._dock_columns())
        if self._zoom_points == 0 or [c for c, _ in now] != [c for c, _ in self._zoom_shares]:
            self._zoom_shares = now
        return self._zoom_shares

    def _keep_column_shares(self, shares: list[tuple[list[QDockWidget], list[float]]]) -> None:
        """A larger font raises the panes' minimums and Qt takes the room from their neighbours
        (zoomed for a projector, the Encode pane took the Corpus pane's rows): each column gets
        back the shares it had, as far as the new minimums allow."""
        for column, parts in shares:
            if all(d.isVisible() for d in column):
                total = sum(d.height() for d in column)
                self.resizeDocks(column, [round(total * part) for part in parts], Qt.Orientation.Vertical)

    def _apply_zoom(self) -> None:
        size = self._base_points + self._zoom_points
        font = self.font()
        font.setPointSizeF(size)
        self.setFont(font)  # tables refit their rows and columns (RowTable.changeEvent)
        metrics = self.fontMetrics()
        self.status.fit(metrics)
        # Play and Pause take the same room: the toolbar never shifts when one becomes the other.
        action = self.commands["play"]
        button = self.toolbar.widgetForAction(action)
        shown = action.text()
        widths = []
        for text in ("&Play", "&Pause"):
            action.setText(text)
            widths.append(button.sizeHint().width())
        action.setText(shown)
        button.setMinimumWidth(max(widths))
        for spec in self.pane_specs:  # the panes' widgets follow the window's font; the rest:
            if spec.zoom is not None:
                spec.zoom(self.panes[spec.name], size)

    def toggle_fullscreen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.commands["fullscreen"].setChecked(self.isFullScreen())

    def show_shortcuts(self) -> None:
        """The menu commands' keys, then the keys of the panes (History's among them)."""
        lines = [
            f"{a.text().replace('&', '').rstrip('.…')}: "
            + ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in a.shortcuts())
            for a in self.commands.values()
            if a.shortcuts()
        ]
        # Two columns where the commands fit whole beside the panes' keys at a readable width
        metrics = self.fontMetrics()
        beside = max(metrics.horizontalAdvance(line) for line in lines) + 45 * metrics.averageCharWidth()
        columns = 2 if beside <= room_on_screen(self).width() else 1
        dialog = TextDialog("Keyboard shortcuts", shortcuts_html(lines, columns), self)
        with keeping_focus(self):
            dialog.exec()
        dialog.deleteLater()

    def show_about(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.NoIcon, "About BPE Studio", about_html(), QMessageBox.StandardButton.Ok, self
        )
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)  # links open
        with keeping_focus(self):
            box.exec()
        box.deleteLater()

    def on_escape(self) -> None:
        """Esc in a text field hands the keys back to the tables, and only that: leaving a
        field typed in while a corpus loads must not throw the load away. Elsewhere it cancels
        the running job."""
        if isinstance(QApplication.focusWidget(), TEXT_FIELDS):
            self._keys_home(Qt.FocusReason.ShortcutFocusReason)
            return
        if self.bridge.busy:
            self.bridge.cancel()

    def focusNextPrevChild(self, next: bool) -> bool:  # Qt's names
        """Tab and Shift+Tab pass over the panes tabbed away behind another: Qt keeps them
        "visible", off-screen, so the focus went where nobody saw it and the keys changed what
        nobody saw (a screen reader named a pane the screen did not show)."""
        start = QApplication.focusWidget()
        if start is None or not self.isAncestorOf(start):
            return super().focusNextPrevChild(next)
        reason = Qt.FocusReason.TabFocusReason if next else Qt.FocusReason.BacktabFocusReason
        target: QWidget | None = start
        while target is not None:
            target = target.nextInFocusChain() if next else target.previousInFocusChain()
            if target is None or target is start:
                break
            takes = self.isAncestorOf(target) and _takes_tab(target) and target.focusProxy() is None
            if takes and self._behind_tab(target) is None:
                target.setFocus(reason)
                return True
        return super().focusNextPrevChild(next)

    def _behind_tab(self, widget: QWidget) -> QDockWidget | None:
        """The pane ``widget`` is in if that pane is tabbed away behind another, else ``None``."""
        for dock in self.docks.values():
            if dock.isAncestorOf(widget) and not dock.isFloating() and dock.visibleRegion().isEmpty():
                return dock
        return None

    def _bring_forward(self, widget: QWidget) -> None:
        """Bring the pane ``widget`` is in to the front of its tabs, if it is behind another, and
        its window to the front of the others."""
        dock = self._behind_tab(widget)
        if dock is not None:
            dock.raise_()
        if not widget.window().isActiveWindow():  # a floating pane, or the window from one
            widget.window().activateWindow()

    def maybe_save(self) -> bool:
        return self.files.maybe_save()

    def end_keeping_work(self, folder: Path) -> None:
        """A signal (SIGTERM, Ctrl+C in the terminal) ends the program: no dialog waits for an
        answer nobody may give. Unsaved work is written to a recovery copy in ``folder``, offered
        at the next start (:meth:`offer_recovery`); if it cannot be written, closing asks as usual."""
        for widget in QApplication.topLevelWidgets():  # open dialogs (message boxes too) give up
            if isinstance(widget, QDialog) and widget.isVisible():
                widget.reject()
        self.playback.pause()
        self.files.forget_deferred_open()
        self.bridge.shutdown(final=False)  # a run stops between two merges; an opening is dropped
        if self.bridge.has_unsaved_work():
            path = folder / (time.strftime("recovered %Y-%m-%d %H-%M-%S") + SESSION_SUFFIX)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                self.bridge.save_copy(path)
            except Exception:
                log.exception("Could not keep the unsaved work in %s", path)
                QTimer.singleShot(0, self, self.close)  # asks, as the close button does
                return
            self.settings.setValue(RECOVERY_KEY, str(path))
            log.info("Ended by a signal; the unsaved work is kept in %s", path)
        self._ending = True
        QTimer.singleShot(0, self, self.close)  # once the dialogs' own event loops have returned

    def offer_recovery(self) -> None:
        """At start-up: say where the work kept when a signal ended the program is, and offer to
        open it (once; the copy stays where it is)."""
        pending = self.settings.value(RECOVERY_KEY)
        self.settings.remove(RECOVERY_KEY)
        if not isinstance(pending, str) or not Path(pending).is_file():
            return
        box = QMessageBox(
            QMessageBox.Icon.Information,
            "Unsaved work was kept",
            "BPE Studio was ended by a signal (a logout, a shutdown, Ctrl+C) while it held unsaved "
            f"work. The work was saved to\n\n{pending}\n\nOpen it now?",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Close,
            self,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setWindowModality(Qt.WindowModality.NonModal)  # the window stays usable meanwhile

        def clicked(button) -> None:
            if box.standardButton(button) == QMessageBox.StandardButton.Open:
                self.files.open_path(pending, "session")

        box.buttonClicked.connect(clicked)
        box.show()
        log.info("Offered the work kept in %s", pending)

    # -- reactions ---------------------------------------------------------------------------

    def _on_pair_selected(self, pair) -> None:
        """Highlight, in the corpus, the words containing the pair selected in the pairs pane."""
        if pair is None or self.bridge.busy:
            self.corpus_pane.show_selection("", ())
            return
        label = left_to_right(self.pairs_pane.model.pair_label(pair))  # shown, not typed
        self.corpus_pane.show_selection(label, self.bridge.trainer.words_with_pair(pair))

    def _on_token_selected(self, token) -> None:
        """Highlight the vocabulary's selected token in the encode pane and the corpus. A jump
        back may announce a row of a token undone since, before the pane follows the trainer
        and clears it: that is no token."""
        if token is not None and token >= self.bridge.trainer.vocab_size:
            token = None
        self.encode_pane.highlight_token(token)
        if token is None or self.bridge.busy:
            self.corpus_pane.show_selection("", ())
            return
        label = self.vocab_pane.model.token_label(token)
        self.corpus_pane.show_selection(label, self.bridge.trainer.words_with_token(token))

    def _on_opened(self, _path, ok: bool) -> None:
        """A session opened: the Encode test string it kept is back in the Encode pane."""
        text = self.bridge.source.test_text
        if ok and text is not None:
            self.encode_pane.input.setPlainText(text)

    def _test_text_to_keep(self) -> str:
        """The Encode test string as a session keeps it: at most ``MAX_TEST_TEXT`` characters, a
        lone surrogate (Qt's text can hold one, UTF-8 cannot) replaced."""
        text = self.encode_pane.input.toPlainText()[:MAX_TEST_TEXT]
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")

    def _home_table(self) -> QAbstractItemView:
        """Where the keys go back to: the last table used, or the first table whose pane is
        open where its pane has been closed since."""
        last = self._last_table or self.corpus_pane.view
        return last if last.isVisible() else next((t for t in self.tables if t.isVisible()), last)

    def _on_focus_changed(self, old, new) -> None:
        if new is not None:
            self._last_focus = new
        if isinstance(new, QAbstractItemView) and new in self.tables:
            self._last_table = new
        elif old is not None and old.window() in (self, *self.docks.values()) and not old.isVisible():
            # The pane that had the keys was closed, went behind another, or was floated or
            # docked again (hidden while it moves), and Qt handed them to the next field in
            # line, which the user did not choose: a table takes them, where Space steps, once
            # Qt is done.
            QTimer.singleShot(0, lambda: self._keys_home_from(new))

    def _on_pane_moved(self, dock: QDockWidget) -> None:
        """A pane floated, or docked again, keeps the keys it had: Qt gave them to the next
        field of the window it left (docked again, the window it came back to kept that)."""
        widget = self._last_focus
        if widget is not None and isValid(widget) and dock.isAncestorOf(widget):
            widget.setFocus(Qt.FocusReason.OtherFocusReason)  # its window's, once that is active
            QTimer.singleShot(0, lambda: self._give_keys(widget))

    def _give_keys(self, widget: QWidget) -> None:
        if isValid(widget):
            self._bring_forward(widget)
            widget.setFocus(Qt.FocusReason.OtherFocusReason)

    def _keys_home_from(self, moved_to) -> None:
        ours = QApplication.activeWindow() in (self, *self.docks.values())  # not another program's keys
        if QApplication.focusWidget() is moved_to and ours:  # and not moved since
            self._keys_home(Qt.FocusReason.OtherFocusReason)

    def _keys_home(self, reason: Qt.FocusReason) -> None:
        """The keys to the last table used (or one whose pane is open), its pane brought in front
        of its tabs and its window (a floating pane's) made the active one."""
        table = self._home_table()
        if table.isVisible():
            self._bring_forward(table)
            table.setFocus(reason)

    def _on_playing(self, playing: bool) -> None:
        action = self.commands["play"]
        action.setChecked(playing)
        action.setText("&Pause" if playing else "&Play")

    def _show_error(self, title: str, message: str) -> None:
        with keeping_focus(self):
            QMessageBox.warning(self, title, message)

    def _on_internal_error(self, where: str, summary: str) -> None:
        """A Qt override failed (and was contained): say so once per place, without blocking."""
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Internal error",
            f"Something went wrong in {where} ({summary}). BPE Studio carried on and the session "
            "is intact; the details are in the log.",
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setWindowModality(Qt.WindowModality.NonModal)  # the window stays usable
        box.show()

    def _on_change(self, _change: Change) -> None:
        self._update_actions()
        self._sync_rule_box()  # the rule may have changed with any change (a session opened, a job)

    def _sync_rule_box(self) -> None:
        spec = self.bridge.tie_rule_spec()
        name = ASK if spec == ASK else spec.partition(":")[0]
        self.rule_box.setCurrentIndex(max(0, self.rule_box.findData(name)))
        for action in self.rule_actions.actions():
            action.setChecked(action.data() == name)

    def _update_actions(self) -> None:
        enable_commands(self.commands, self.bridge, self.playback)
        self.rule_box.setEnabled(not self.bridge.busy)

    def _update_title(self) -> None:
        name = self.bridge.path.name if self.bridge.path else self.bridge.source.name
        self.setWindowTitle(f"{name}{' *' if self.bridge.has_unsaved_work() else ''} — BPE Studio")

    # -- window events -----------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.open_paths(paths)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if event.oldSize().height() > 0 and event.size().height() > event.oldSize().height():
            QTimer.singleShot(0, self, self._give_plots_room)  # once the docks have their sizes

    def _give_plots_room(self) -> None:
        """Qt gives the height a window gains to the docks as they were last sized: shrunk and
        grown again, the window kept the Plots about 120 px high, their plot areas of no height
        (and saved so). Below a readable height they take back a third of their column."""
        plots = self.docks["plots"]
        if plots.isFloating() or not plots.isVisible() or plots.height() >= PLOTS_READABLE:
            return
        column = next((c for c in self._dock_columns() if plots in c), [plots])
        total = sum(d.height() for d in column)
        if len(column) < 2 or total < 3 * PLOTS_READABLE:
            return  # no room to give: a small window keeps what it has
        target = max(PLOTS_READABLE, total // 3)
        others = [d for d in column if d is not plots]
        share = (total - target) / max(1, sum(d.height() for d in others))
        self.resizeDocks(
            [*others, plots], [round(d.height() * share) for d in others] + [target], Qt.Orientation.Vertical
        )

    def event(self, event: QEvent) -> bool:
        # The desktop's font changed (its size in the system settings; Qt gives widgets no
        # changeEvent for it): the zoom is kept on top of the new size. The window's own font
        # (the zoom's) had kept the old size everywhere but where a delegate read the new one:
        # chips of 20 points in rows of 9.
        if event.type() == QEvent.Type.ApplicationFontChange:
            points = QApplication.font().pointSizeF()
            if points > 0 and points != self._base_points:
                self._base_points = points
                self._apply_zoom()
        return super().event(event)

    def changeEvent(self, event: QEvent) -> None:
        # The system switched between light and dark (or an app palette was set): recolour
        # what does not read the palette at paint time. Chips re-render (their cache is keyed
        # by the palette).
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            keep_selection_readable()
            for spec in self.pane_specs:
                if spec.restyle is not None:
                    spec.restyle(self.panes[spec.name])
        # Activated with the keys nowhere (a side view closed, a menu left), Qt would give them
        # to the first field of the tab chain, the Corpus filter: Space then typed a space.
        if event.type() == QEvent.Type.ActivationChange and self.isActiveWindow():
            focus = self.focusWidget()
            table = self._home_table()
            if (focus is None or not focus.isVisible()) and table.isVisible():
                self._bring_forward(table)
                table.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
        super().changeEvent(event)

    def childEvent(self, event: QChildEvent) -> None:
        # Dialogs (ours and Qt's message boxes) are windows of their own, which Qt does not
        # give their parent's font: they take the zoom too, also a later one while they stay open.
        child = event.child()
        if (
            event.type() == QEvent.Type.ChildPolished
            and isinstance(child, QWidget)
            and child.isWindow()
            and not child.testAttribute(Qt.WidgetAttribute.WA_WindowPropagation)
        ):
            child.setAttribute(Qt.WidgetAttribute.WA_WindowPropagation)
            if isinstance(child, QMessageBox):  # Qt's own texts had none: Alt+D for Discard
                buttons = child.buttons()
                for button, text in zip(buttons, with_mnemonics([b.text() for b in buttons]), strict=True):
                    button.setText(text)
        super().childEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._zoom_points and not self._zoom_shown:
            # A zoom restored before the window first showed left the tables' headers at the
            # normal size under zoomed rows: Qt had not passed the font on to them yet.
            self._zoom_shown = True
            normal = self.font()
            normal.setPointSizeF(self._base_points)
            self.setFont(normal)
            self._apply_zoom()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.playback.pause()
        self.files.forget_deferred_open()  # a file dropped during a run: not once we are closing
        self.bridge.pause()  # a run stops where it is: its merges are asked about below
        if not self._ending and not self.maybe_save():
            event.ignore()
            self.bridge.resume()  # the close was cancelled, not the run
            return
        self.bridge.shutdown()
        self.encode_pane.shutdown()
        layout = self.layout_key()
        self.settings.setValue(f"{layout}/geometry", self.saveGeometry())
        self.settings.setValue(f"{layout}/state", self.saveState(STATE_VERSION))
        self.settings.setValue("window/zoom", self._zoom_points)
        event.accept()

    def layout_key(self) -> str:
        """Where the layout is kept: one per screen size (a layout saved on a large screen,
        reused on a small one, squashed the plots to lines and cut off the right edge)."""
        screen = self.screen() or QApplication.primaryScreen()
        room = screen.availableGeometry().size() if screen is not None else DEFAULT_SIZE
        return f"window/{room.width()}x{room.height()}"

    def _restore(self) -> None:
        layout = self.layout_key()
        geometry, state = self.settings.value(f"{layout}/geometry"), self.settings.value(f"{layout}/state")
        if not isinstance(geometry, QByteArray):  # none for this screen: one kept before, if it fits
            geometry, state = self.settings.value("window/geometry"), self.settings.value("window/state")
            if not (isinstance(geometry, QByteArray) and self._fits_screen(geometry)):
                geometry = state = None  # the layout made for this screen stays
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        if isinstance(state, QByteArray):
            self.restoreState(state, STATE_VERSION)
        self._zoom_points = restored_zoom(self.settings.value("window/zoom", 0.0))

    def _fits_screen(self, geometry: QByteArray) -> bool:
        """Whether a saved geometry's window fits this screen. Qt shrinks one that does not,
        and keeps its docks' sizes: the size is read from the data (``saveGeometry``'s
        format: a magic number, two version numbers, then the frame as a rectangle)."""
        stream = QDataStream(geometry)
        if stream.readUInt32() != GEOMETRY_MAGIC:
            return False
        stream.skipRawData(4)  # the format's major and minor version
        left, top, right, bottom = (stream.readInt32() for _ in range(4))
        screen = self.screen() or QApplication.primaryScreen()
        area = screen.availableGeometry().size() if screen is not None else DEFAULT_SIZE
        width, height = right - left + 1, bottom - top + 1
        return stream.status() == QDataStream.Status.Ok and width <= area.width() and height <= area.height()


def _shares(columns: list[list[QDockWidget]]) -> list[tuple[list[QDockWidget], list[float]]]:
    """Each column's docks with their shares of its height."""
    return [
        (column, [d.height() / max(1, sum(c.height() for c in column)) for d in column]) for column in columns
    ]


def restored_zoom(value: object) -> float:
    """The zoom kept in the settings, within ``ZOOM_MIN``..``ZOOM_MAX``; none (0) if the value
    is not a finite number (a damaged or hand-edited settings file)."""
    try:
        points = float(value) if isinstance(value, int | float | str) else 0.0
    except ValueError:
        return 0.0
    return max(ZOOM_MIN, min(ZOOM_MAX, points)) if math.isfinite(points) else 0.0


def _lendable(key: QKeySequence) -> bool:
    """A key no control of a side view uses: with Ctrl (text fields claim their own: Ctrl+Z
    there undoes the typing), or F1."""
    combination = key[0]  # type: ignore[index]  # (PySide6 indexes it; its stubs say not)
    return bool(combination.keyboardModifiers() & Qt.KeyboardModifier.ControlModifier) or (
        combination.key() == Qt.Key.Key_F1
    )


def _takes_tab(widget: QWidget) -> bool:
    """Whether Tab would stop at ``widget``."""
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus) and widget.isEnabled() and widget.isVisible()
