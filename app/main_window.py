"""The main window: composes the panes (dockable), toolbar, menus and status bar around one
bridge. It holds no engine logic; a test can build as many windows as it likes."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSlider,
    QToolBar,
    QWidget,
)

from app.bridge import ASK, Bridge, Source
from app.dialogs.run_dialog import RunDialog
from app.dialogs.settings_dialog import SettingsDialog, Target
from app.dialogs.tie_dialog import TieDialog
from app.files import FileActions
from app.glyphs import visible
from app.panes.corpus_pane import CorpusPane
from app.panes.encode_pane import EncodePane
from app.panes.merges_pane import MergesPane
from app.panes.pairs_pane import PairsPane
from app.panes.plots_pane import PlotsPane
from app.panes.vocab_pane import VocabPane
from app.playback import Playback
from app.samples import SAMPLES, Sample
from app.widgets import status_label
from bpe_core import Trainer
from bpe_core.tiebreak import RULE_NAMES

STATE_VERSION = 1


class MainWindow(QMainWindow):
    """BPE Studio's window, built around ``trainer`` (injected, so tests get fresh ones)."""

    def __init__(
        self, trainer: Trainer, settings: QSettings | None = None, source_name: str = "sample"
    ) -> None:
        super().__init__()
        # Attributes
        self.bridge = Bridge(trainer, Source(source_name), self)
        self.settings = settings if settings is not None else QSettings("BPE Studio", "bpe-studio")
        self.files = FileActions(self.bridge, self.settings, self)
        self.playback = Playback(self.bridge, self)
        self.target = Target()
        self._zoom_points = 0.0
        self._base_points = self.font().pointSizeF()
        self.actions: dict[str, QAction] = {}
        self.docks: dict[str, QDockWidget] = {}
        # Widgets
        self.corpus_pane = CorpusPane(self.bridge)
        self.pairs_pane = PairsPane(self.bridge)
        self.vocab_pane = VocabPane(self.bridge)
        self.merges_pane = MergesPane(self.bridge)
        self.encode_pane = EncodePane(self.bridge)
        self.plots_pane = PlotsPane(self.bridge)
        self.rule_box = QComboBox()
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.status_labels = {
            name: status_label("", width)
            for name, width in (("step", 150), ("vocab", 130), ("tokens", 150), ("ratio", 140), ("rule", 130))
        }
        self.progress = QProgressBar()
        self.cancel_button = QPushButton("Cancel")
        # Setup
        self.setWindowTitle("BPE Studio")
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setDocumentMode(True)
        placeholder = QWidget()
        placeholder.setMaximumSize(0, 0)
        self.setCentralWidget(placeholder)  # every pane is a dock; the centre stays empty
        self._make_docks()
        self._make_actions()
        self._make_toolbar()
        self._make_menus()
        self._make_status_bar()
        self.resize(1440, 900)
        # Signals
        bridge = self.bridge
        bridge.sig_changed.connect(self._update_status)
        bridge.sig_changed.connect(self._update_actions)
        bridge.sig_settings_changed.connect(self._sync_rule_box)
        bridge.sig_busy_changed.connect(self._on_busy)
        bridge.sig_progressed.connect(self._on_progress)
        bridge.sig_error.connect(self._show_error)
        bridge.sig_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        bridge.sig_tie_reached.connect(self.ask_tie)
        bridge.sig_document_changed.connect(self._update_title)
        self.pairs_pane.sig_pair_selected.connect(self._on_pair_selected)
        self.vocab_pane.sig_token_selected.connect(self._on_token_selected)
        self.playback.sig_playing_changed.connect(self._on_playing)
        self.cancel_button.clicked.connect(bridge.cancel)
        self.rule_box.activated.connect(lambda _: bridge.set_tie_rule(self.rule_box.currentData()))
        self.speed.valueChanged.connect(self.playback.set_speed)
        self._restore()
        self._sync_rule_box()
        self._update_status()
        self._update_actions()
        self._update_title()

    # -- construction ------------------------------------------------------------------------

    def _make_docks(self) -> None:
        def dock(name: str, title: str, pane: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
            widget = QDockWidget(title, self)
            widget.setObjectName(f"dock_{name}")
            widget.setWidget(pane)
            self.addDockWidget(area, widget)
            self.docks[name] = widget
            return widget

        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        corpus = dock("corpus", "Corpus", self.corpus_pane, left)
        pairs = dock("pairs", "Pairs", self.pairs_pane, right)
        encode = dock("encode", "Encode", self.encode_pane, left)
        merges = dock("merges", "Merges", self.merges_pane, right)
        vocab = dock("vocab", "Vocabulary", self.vocab_pane, right)
        plots = dock("plots", "Plots", self.plots_pane, right)
        self.splitDockWidget(corpus, encode, Qt.Orientation.Vertical)
        self.splitDockWidget(pairs, merges, Qt.Orientation.Vertical)
        self.splitDockWidget(merges, plots, Qt.Orientation.Vertical)
        self.tabifyDockWidget(merges, vocab)
        merges.raise_()
        self.resizeDocks([corpus, pairs], [760, 680], Qt.Orientation.Horizontal)
        self.resizeDocks([corpus, encode], [620, 200], Qt.Orientation.Vertical)
        self.resizeDocks([pairs, merges, plots], [300, 260, 260], Qt.Orientation.Vertical)

    def _action(self, name: str, text: str, slot, shortcuts=(), tip: str = "", checkable=False) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"action_{name}")
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        keys = ", ".join(QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText) for s in shortcuts)
        action.setToolTip(f"{tip or text.replace('&', '').rstrip('.…')}" + (f" ({keys})" if keys else ""))
        action.setStatusTip(tip)
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        self.addAction(action)
        self.actions[name] = action
        return action

    def _make_actions(self) -> None:
        bridge, files = self.bridge, self.files
        self._action("step", "&Step", bridge.step, ("Space", "Right"), "Merge the next pair")
        self._action("undo", "&Undo", bridge.undo, ("Ctrl+Z", "Left"), "Undo the last merge")
        self._action("redo", "&Redo", bridge.redo, ("Ctrl+Shift+Z", "Ctrl+Y"), "Redo the next merge")
        self._action(
            "run", "Run…", self.ask_run, ("Ctrl+R",), "Run merges to a number, a vocabulary size or a count"
        )
        self._action(
            "run_target",
            "Run to target",
            self.run_to_target,
            ("Ctrl+T",),
            "Run to the target set in Settings",
        )
        self._action(
            "play",
            "Play",
            self.playback.toggle,
            ("P",),
            "Step automatically at the chosen speed",
            checkable=True,
        )
        self._action(
            "reset", "Reset", self.confirm_reset, ("Ctrl+Shift+R",), "Back to step 0, forgetting the history"
        )
        self._action(
            "settings", "Settings…", self.open_settings, ("Ctrl+,",), "Pipeline and training settings"
        )
        self._action("open_corpus", "Open corpus…", files.ask_open_corpus, ("Ctrl+O",))
        self._action("paste", "Paste text as corpus…", files.ask_paste, ("Ctrl+Shift+V",))
        self._action("open_session", "Open session…", files.ask_open_session, ("Ctrl+Shift+O",))
        self._action("save", "Save session", files.save, ("Ctrl+S",))
        self._action("save_as", "Save session as…", files.save_as, ("Ctrl+Shift+S",))
        self._action("quit", "Quit", self.close, ("Ctrl+Q",))
        self._action("zoom_in", "Zoom in", lambda: self.zoom(1), ("Ctrl++", "Ctrl+="))
        self._action("zoom_out", "Zoom out", lambda: self.zoom(-1), ("Ctrl+-",))
        self._action("zoom_reset", "Actual size", lambda: self.zoom(0), ("Ctrl+0",))
        self._action("fullscreen", "Full screen", self.toggle_fullscreen, ("F11",), checkable=True)
        self._action("shortcuts", "Keyboard shortcuts", self.show_shortcuts, ("F1",))
        self._action("cancel", "Cancel", bridge.cancel, ("Escape",), "Cancel the running job")

    def _make_toolbar(self) -> None:
        bar = QToolBar("Training", self)
        bar.setObjectName("toolbar_training")
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for name in ("step", "undo", "redo", "run", "play"):
            bar.addAction(self.actions[name])
        self.speed.setRange(1, 30)
        self.speed.setValue(4)
        self.speed.setMaximumWidth(110)
        self.speed.setToolTip("Play speed: steps per second")
        bar.addWidget(QLabel(" speed "))
        bar.addWidget(self.speed)
        bar.addSeparator()
        bar.addAction(self.actions["reset"])
        bar.addSeparator()
        bar.addWidget(QLabel(" Ties: "))
        for name in RULE_NAMES:
            self.rule_box.addItem(name, name)
        self.rule_box.addItem("Ask me", ASK)
        self.rule_box.setToolTip("How a tie at the top count is decided")
        bar.addWidget(self.rule_box)
        bar.addSeparator()
        bar.addAction(self.actions["settings"])
        self.addToolBar(bar)

    def _make_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        for name in ("open_corpus", "paste", "open_session"):
            file_menu.addAction(self.actions[name])
        self.recent_menu = file_menu.addMenu("Recent files")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        file_menu.addSeparator()
        for name in ("save", "save_as"):
            file_menu.addAction(self.actions[name])
        file_menu.addSeparator()
        file_menu.addAction(self.actions["quit"])
        samples = menu.addMenu("Sa&mples")
        for sample in SAMPLES:
            action = samples.addAction(sample.name)
            action.setToolTip(sample.description)
            action.triggered.connect(lambda _=False, s=sample: self.open_sample(s))
        samples.setToolTipsVisible(True)
        train = menu.addMenu("&Train")
        for name in ("step", "undo", "redo", "run", "run_target", "play", "reset"):
            train.addAction(self.actions[name])
        train.addSeparator()
        rules = train.addMenu("Tie rule")
        self.rule_actions = QActionGroup(self)
        for name in (*RULE_NAMES, ASK):
            action = rules.addAction("Ask me" if name == ASK else name)
            action.setCheckable(True)
            action.setData(name)
            self.rule_actions.addAction(action)
            action.triggered.connect(lambda _=False, n=name: self.bridge.set_tie_rule(n))
        train.addAction(self.actions["settings"])
        view = menu.addMenu("&View")
        for name in ("zoom_in", "zoom_out", "zoom_reset", "fullscreen"):
            view.addAction(self.actions[name])
        view.addSeparator()
        for dock in self.docks.values():
            view.addAction(dock.toggleViewAction())
        help_menu = menu.addMenu("&Help")
        help_menu.addAction(self.actions["shortcuts"])

    def _make_status_bar(self) -> None:
        bar = self.statusBar()
        for label in self.status_labels.values():
            label.setContentsMargins(6, 0, 6, 0)
            # A fixed width: the bar's layout squeezes Ignored-policy widgets to nothing.
            label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
            bar.addPermanentWidget(label)
        self.progress.setMaximumWidth(220)
        self.progress.hide()
        self.cancel_button.hide()
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    # -- commands ----------------------------------------------------------------------------

    def open_sample(self, sample: Sample) -> None:
        if not self.maybe_save():
            return
        self.bridge.open_text(sample.text(), sample.config, sample.name, sample.input_kind, sample.training)
        if sample.target_vocab:
            self.target = Target("vocab_size", sample.target_vocab)

    def open_path(self, path: str | Path) -> None:
        self.files.open_path(path)

    def ask_run(self) -> None:
        trainer = self.bridge.trainer
        dialog = RunDialog(trainer.vocab_size, trainer.training.min_frequency, parent=self)
        if dialog.exec():
            self.bridge.run(**dialog.target())

    def run_to_target(self) -> None:
        if self.target.kind == "merges":
            self.bridge.run(merges=self.target.value)
        elif self.target.kind == "vocab_size":
            self.bridge.run(vocab_size=self.target.value)
        else:
            self.bridge.run()

    def confirm_reset(self) -> None:
        trainer = self.bridge.trainer
        if not trainer.history:
            return
        answer = QMessageBox.question(
            self, "Reset", f"Forget all {len(trainer.history):,} merges and go back to step 0?"
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.bridge.reset()

    def open_settings(self) -> None:
        trainer = self.bridge.trainer
        dialog = SettingsDialog(trainer.corpus.config, trainer.training, self.target, self)
        if not dialog.exec():
            return
        config, training, self.target = dialog.values()
        if config != trainer.corpus.config:
            if (
                trainer.history
                and QMessageBox.question(
                    self,
                    "Rebuild the session?",
                    "New pipeline settings rebuild the session from its source; the "
                    f"{len(trainer.history):,} merges so far will be lost. Continue?",
                )
                != QMessageBox.StandardButton.Yes
            ):
                return
            self.bridge.rebuild(config, training)
            return
        if training.tie_break != trainer.training.tie_break:
            self.bridge.set_tie_rule(training.tie_break)
        if training.min_frequency != trainer.training.min_frequency:
            self.bridge.set_min_frequency(training.min_frequency)

    def ask_tie(self, candidates: list) -> None:
        dialog = TieDialog(self.bridge.trainer, candidates, self)
        if dialog.exec() and dialog.choice is not None:
            pair, decided_by = dialog.choice
            self.bridge.step_pair(pair, decided_by)

    def zoom(self, direction: int) -> None:
        """Scale every pane's font (for a projector); 0 returns to the normal size."""
        self._zoom_points = 0.0 if direction == 0 else max(-4.0, min(24.0, self._zoom_points + 2 * direction))
        size = self._base_points + self._zoom_points
        font = self.font()
        font.setPointSizeF(size)
        self.setFont(font)
        row = int(self.fontMetrics().height() * 1.7)
        for pane in (self.corpus_pane, self.pairs_pane, self.vocab_pane, self.merges_pane):
            pane.view.verticalHeader().setDefaultSectionSize(row)
        self.plots_pane.set_font_size(size * 0.9)

    def toggle_fullscreen(self) -> None:
        if self.isFullScreen():
            self.showNormal()
        else:
            self.showFullScreen()
        self.actions["fullscreen"].setChecked(self.isFullScreen())

    def show_shortcuts(self) -> None:
        lines = [
            f"{a.text().replace('&', '').rstrip('.…')}: "
            + ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in a.shortcuts())
            for a in self.actions.values()
            if a.shortcuts()
        ]
        QMessageBox.information(self, "Keyboard shortcuts", "\n".join(lines))

    def maybe_save(self) -> bool:
        """Ask about unsaved merges; False means the user cancelled."""
        if not self.bridge.dirty or not self.bridge.trainer.history:
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            "Save the current session first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.files.save()
        return answer == QMessageBox.StandardButton.Discard

    # -- reactions ---------------------------------------------------------------------------

    def _shown(self, token_id: int) -> str:
        trainer = self.bridge.trainer
        return visible(trainer.token_string(token_id), trainer.corpus.config)

    def _on_pair_selected(self, pair) -> None:
        """Highlight, in the corpus, the words containing the pair selected in the pairs pane."""
        if pair is None or self.bridge.busy:
            self.corpus_pane.show_selection("", ())
            return
        label = f"{self._shown(pair[0])} + {self._shown(pair[1])}"
        self.corpus_pane.show_selection(label, self.bridge.trainer.words_with_pair(pair))

    def _on_token_selected(self, token) -> None:
        """Highlight the vocabulary's selected token in the encode pane and the corpus."""
        self.encode_pane.highlight_token(token)
        if token is None or self.bridge.busy:
            self.corpus_pane.show_selection("", ())
            return
        self.corpus_pane.show_selection(self._shown(token), self.bridge.trainer.words_with_token(token))

    def _on_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setRange(0, 0)
        if busy:
            self.statusBar().showMessage(self.bridge.job_title + "…")
        self._update_actions()

    def _on_progress(self, title: str, done: int, total: int) -> None:
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        self.progress.setFormat(f"{title}: %p%" if total else title)

    def _on_playing(self, playing: bool) -> None:
        action = self.actions["play"]
        action.setChecked(playing)
        action.setText("Pause" if playing else "Play")

    def _show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self, title, message)

    def _sync_rule_box(self) -> None:
        spec = self.bridge.tie_rule_spec()
        name = ASK if spec == ASK else spec.partition(":")[0]
        self.rule_box.setCurrentIndex(max(0, self.rule_box.findData(name)))
        for action in self.rule_actions.actions():
            action.setChecked(action.data() == name)

    def _update_actions(self) -> None:
        busy = self.bridge.busy
        trainer = self.bridge.trainer
        for name in (
            "step",
            "run",
            "run_target",
            "reset",
            "settings",
            "open_corpus",
            "paste",
            "open_session",
            "save",
            "save_as",
            "play",
        ):
            self.actions[name].setEnabled(not busy)
        if not busy:
            self.actions["undo"].setEnabled(trainer.can_undo)
            self.actions["redo"].setEnabled(trainer.can_redo)
            self.actions["play"].setEnabled(trainer.stop_reason() is None or self.playback.playing)
        else:
            self.actions["undo"].setEnabled(False)
            self.actions["redo"].setEnabled(False)
        self.actions["cancel"].setEnabled(busy)
        self.rule_box.setEnabled(not busy)

    def _update_status(self) -> None:
        if self.bridge.busy:
            return
        trainer = self.bridge.trainer
        labels = self.status_labels
        labels["step"].setText(f"Step {trainer.position:,} of {len(trainer.history):,}")
        labels["vocab"].setText(f"Vocabulary {trainer.vocab_size:,}")
        labels["tokens"].setText(f"{trainer.corpus_tokens:,} tokens")
        initial = trainer.initial_point.corpus_tokens
        labels["ratio"].setText(f"compression {initial / max(1, trainer.corpus_tokens):.2f}×")
        spec = self.bridge.tie_rule_spec()
        labels["rule"].setText(f"ties: {'ask me' if spec == ASK else spec}")

    def _update_title(self) -> None:
        name = self.bridge.path.name if self.bridge.path else self.bridge.source.name
        self.setWindowTitle(
            f"{name}{' *' if self.bridge.dirty and self.bridge.trainer.history else ''} — BPE Studio"
        )

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.files.recent():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self._open_recent(p))
        self.recent_menu.setEnabled(bool(self.files.recent()))

    def _open_recent(self, path: str) -> None:
        if not Path(path).exists():
            self._show_error("File not found", f"The file {path!r} no longer exists.")
            return
        if self.maybe_save():
            self.open_path(path)

    # -- window events -----------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths and self.maybe_save():
            event.acceptProposedAction()
            self.open_path(paths[0])

    def changeEvent(self, event: QEvent) -> None:
        # The system switched between light and dark (or an app palette was set): recolour
        # what does not read the palette at paint time. Chips re-render (their cache is keyed
        # by the palette).
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self.plots_pane.restyle()
            for model in (self.corpus_pane.model, self.pairs_pane.model, self.merges_pane.model):
                model.restyle()
        super().changeEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.playback.pause()
        self.bridge.cancel()
        self.bridge.wait(10_000)
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState(STATE_VERSION))
        self.settings.setValue("window/zoom", self._zoom_points)
        event.accept()

    def _restore(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state, STATE_VERSION)
        try:
            zoom = float(self.settings.value("window/zoom", 0.0))
        except (TypeError, ValueError):
            zoom = 0.0
        if zoom:
            self._zoom_points = zoom - 2
            self.zoom(1)
