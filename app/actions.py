"""The window's commands, toolbar and menus: every action with its text, keys and tip, and
where each one appears. The window decides what a command does; this module only declares and
arranges the commands, and says which of them the current state allows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMenu, QSlider, QToolBar

from app.bridge import ASK, Bridge
from app.files import FileActions
from app.mnemonics import with_mnemonics
from app.playback import Playback
from app.samples import GPT2_SAMPLE_NAME, GPT2_SAMPLE_TIP, SAMPLES
from bpe_core.training.tie_rules import RULE_NAMES

if TYPE_CHECKING:  # the window imports this module
    from app.main_window import MainWindow

NEEDS_CORPUS = " (needs a corpus: File → Attach corpus…)"
# Off while a job runs. Opening stays possible: it cancels the job, or replaces a pending load.
BUSY_DISABLED = (
    "step",
    "run",
    "run_target",
    "goto",
    "reset",
    "settings",
    "save",
    "save_as",
    "play",
    "attach",
    "export_as",
)
TOOLBAR_COMMANDS = ("step", "undo", "redo", "run", "play")
TRAIN_MENU_COMMANDS = ("step", "undo", "redo", "run", "run_target", "play", "goto", "reset")


def add_command(
    window: MainWindow,
    commands: dict[str, QAction],
    name: str,
    text: str,
    slot: Callable[[], object],
    shortcuts: Sequence[str] = (),
    tip: str = "",
    checkable: bool = False,
) -> QAction:
    """Make the window's action ``action_<name>``: its keys work anywhere in the window, and its
    tooltip names them (the tip, else the text without its mnemonic and ellipsis)."""
    action = QAction(text, window)
    action.setObjectName(f"action_{name}")
    if shortcuts:
        action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    keys = ", ".join(QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText) for s in shortcuts)
    action.setToolTip(f"{tip or text.replace('&', '').rstrip('.…')}" + (f" ({keys})" if keys else ""))
    action.setStatusTip(tip)
    action.setCheckable(checkable)
    action.triggered.connect(slot)
    window.addAction(action)
    commands[name] = action
    return action


def make_commands(window: MainWindow) -> dict[str, QAction]:
    """Every command of the window, by name, in the order the shortcuts list shows them."""
    commands: dict[str, QAction] = {}
    bridge, files = window.bridge, window.files

    def add(*args, **kwargs) -> QAction:
        return add_command(window, commands, *args, **kwargs)

    add("step", "&Step", bridge.step, ("Space", "Right"), "Merge the next pair")
    add("undo", "&Undo", bridge.undo, ("Ctrl+Z", "Left"), "Undo the last merge")
    add("redo", "&Redo", bridge.redo, ("Ctrl+Shift+Z", "Ctrl+Y"), "Redo the next merge")
    add("run", "Ru&n…", window.ask_run, ("Ctrl+R",), "Run merges to a number, a vocabulary size or a count")
    add(
        "run_target", "Run to t&arget", window.run_to_target, ("Ctrl+T",), "Run to the target set in Settings"
    )
    add(
        "play",
        "&Play",
        window.playback.toggle,
        ("P",),
        "Step automatically at the chosen speed",
        checkable=True,
    )
    add("goto", "&Go to step…", window.ask_goto, ("Ctrl+G",), "Jump to a step by its number")
    add("reset", "R&eset", window.confirm_reset, ("Ctrl+Shift+R",), "Back to step 0, forgetting the history")
    add("settings", "Sett&ings…", window.open_settings, ("Ctrl+,",), "Pipeline and training settings")
    add("open_corpus", "&Open corpus…", files.ask_open_corpus, ("Ctrl+O",))
    add(
        "open_folder",
        "Open corpus &folder…",
        files.ask_open_corpus_folder,
        ("Ctrl+Alt+O",),
        "A folder of text, compressed, JSONL or Parquet files as one corpus, counted on every core",
    )
    add("paste", "&Paste text as corpus…", files.ask_paste, ("Ctrl+Shift+V",))
    add("open_session", "Open sessio&n…", files.ask_open_session, ("Ctrl+Shift+O",))
    add(
        "open_tokenizer",
        "Open &tokenizer…",
        files.ask_open_tokenizer,
        tip="A tokenizer already on this computer (Hugging Face's and tiktoken's caches), or any file",
    )
    add(
        "import",
        "&Import tokenizer…",
        files.ask_import,
        ("Ctrl+I",),
        "Open a tokenizer file (Hugging Face, GPT-2, tiktoken, subword-nmt, minbpe) as a session",
    )
    add(
        "attach",
        "Attac&h corpus…",
        files.ask_attach,
        tip="Replay the merges on a corpus, filling in each merge's count there",
    )
    add(
        "export_as",
        "&Export as…",
        files.ask_export,
        ("Ctrl+E",),
        "Write the merges up to this step in another tool's format",
    )
    add("save", "&Save session", files.save, ("Ctrl+S",))
    add("save_as", "Save session &as…", files.save_as, ("Ctrl+Shift+S",))
    add(
        "export_view",
        "Export &view…",
        window.ask_export_view,
        tip="The last table you used as CSV, or (with the Plots pane in focus) the plots as PNG or SVG",
    )
    add(
        "walkthrough",
        "Export &walk-through…",
        window.ask_walkthrough,
        tip="Steps 1 to the current one as a lesson document (Markdown or HTML)",
    )
    add("quit", "&Quit", window.close, ("Ctrl+Q",))
    add("zoom_in", "Zoom &in", lambda: window.zoom(1), ("Ctrl++", "Ctrl+="))
    add("zoom_out", "Zoom &out", lambda: window.zoom(-1), ("Ctrl+-",))
    add("zoom_reset", "Actual si&ze", lambda: window.zoom(0), ("Ctrl+0",))
    add("fullscreen", "&Full screen", window.toggle_fullscreen, ("F11",), checkable=True)
    add("shortcuts", "&Keyboard shortcuts", window.show_shortcuts, ("F1",))
    add("about", "&About BPE Studio", window.show_about, tip="Version, licences and the manual")
    add(
        "history",
        "History of &branches",
        window.show_history,
        ("Ctrl+H",),
        "The tree of branches: ↑ ↓ move between them, F2 renames",
    )
    add(
        "compare",
        "Compare &runs…",
        window.show_compare,
        ("Ctrl+Shift+C",),
        "Two branches side by side, what another rule would have done, and the rule sweep",
    )
    add(
        "tokenizers",
        "Compare &tokenizers…",
        window.show_tokenizers,
        ("Ctrl+Shift+T",),
        "This session and other tokenizer files side by side on the Encode pane's text, and on files",
    )
    add(
        "compression",
        "Compressio&n view…",
        window.show_compression,
        tip="The session as the classic compression variant writes it, with decompression",
    )
    add(
        "cancel",
        "Cancel",
        window.on_escape,
        ("Escape",),
        "Cancel the running job; in a text field, leave it (a job goes on)",
    )
    return commands


def make_toolbar(
    window: MainWindow, commands: dict[str, QAction], speed: QSlider, rule_box: QComboBox
) -> QToolBar:
    """The training toolbar: the step commands, Play's speed, Reset, the tie rule, Settings."""
    bar = QToolBar("Training", window)
    bar.setObjectName("toolbar_training")
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    for name in TOOLBAR_COMMANDS:
        bar.addAction(commands[name])
    speed.setRange(1, 30)
    speed.setValue(4)
    speed.setMaximumWidth(110)
    speed.setToolTip("Play speed: steps per second")
    speed_label = QLabel(" speed ")
    speed_label.setBuddy(speed)  # the label of the slider, for screen readers
    bar.addWidget(speed_label)
    bar.addWidget(speed)
    bar.addSeparator()
    bar.addAction(commands["reset"])
    bar.addSeparator()
    # The box's label for screen readers: on Linux Qt names a combo box by its current text.
    ties_label = QLabel(" Ties: ")
    ties_label.setBuddy(rule_box)
    bar.addWidget(ties_label)
    for name in RULE_NAMES:
        rule_box.addItem(name, name)
    rule_box.addItem("Ask me", ASK)
    rule_box.setToolTip("How a tie at the top count is decided")
    bar.addWidget(rule_box)
    bar.addSeparator()
    bar.addAction(commands["settings"])
    return bar


@dataclass(frozen=True)
class Menus:
    """The parts of the menu bar the window updates later."""

    recent: QMenu  # File → Recent files, filled as it opens
    samples: QMenu
    rule_actions: QActionGroup  # Train → Tie rule, checked to follow the rule in use


def make_menus(window: MainWindow, commands: dict[str, QAction]) -> Menus:
    """File, Samples, Train, View (zoom, a toggle per dock, the side views) and Help."""
    menu = window.menuBar()
    file_menu = menu.addMenu("&File")
    for name in ("open_corpus", "open_folder", "paste", "open_session", "open_tokenizer", "import", "attach"):
        file_menu.addAction(commands[name])
    recent = file_menu.addMenu("&Recent files")
    recent.aboutToShow.connect(lambda: fill_recent(recent, window.files))
    file_menu.addSeparator()
    for name in ("save", "save_as"):
        file_menu.addAction(commands[name])
    file_menu.addSeparator()
    for name in ("export_as", "export_view", "walkthrough"):
        file_menu.addAction(commands[name])
    file_menu.addSeparator()
    file_menu.addAction(commands["quit"])
    samples = menu.addMenu("Sa&mples")
    for sample in SAMPLES:
        action = samples.addAction(sample.name)
        action.setToolTip(sample.description)
        action.triggered.connect(lambda _=False, s=sample: window.open_sample(s))
    samples.addSeparator()
    gpt2 = samples.addAction(GPT2_SAMPLE_NAME)
    gpt2.setToolTip(GPT2_SAMPLE_TIP)
    gpt2.triggered.connect(window.open_gpt2_sample)
    samples.setToolTipsVisible(True)
    train = menu.addMenu("&Train")
    for name in TRAIN_MENU_COMMANDS:
        train.addAction(commands[name])
    train.addSeparator()
    rules = train.addMenu("&Tie rule")
    rule_actions = QActionGroup(window)
    for name in (*RULE_NAMES, ASK):
        action = rules.addAction("&Ask me" if name == ASK else name)
        action.setCheckable(True)
        action.setData(name)
        rule_actions.addAction(action)
        action.triggered.connect(lambda _=False, n=name: window.bridge.set_tie_rule(n))
    train.addAction(commands["settings"])
    view = menu.addMenu("&View")
    for name in ("zoom_in", "zoom_out", "zoom_reset", "fullscreen"):
        view.addAction(commands[name])
    view.addSeparator()
    for dock in window.docks.values():
        view.addAction(dock.toggleViewAction())
    go_to = view.addMenu("&Go to pane")
    for number, (name, dock) in enumerate(window.docks.items(), start=1):
        # A pane tabbed behind another is reached by its keys too: shown, brought to the
        # front, and given the keys (Tab skips what is behind another tab).
        action = go_to.addAction(dock.windowTitle())
        if number <= 9:
            action.setShortcut(f"Ctrl+{number}")
        action.triggered.connect(lambda _=False, n=name: window.go_to_pane(n))
    view.addSeparator()
    for name in ("history", "compare", "tokenizers", "compression"):
        view.addAction(commands[name])
    help_menu = menu.addMenu("&Help")
    help_menu.addAction(commands["shortcuts"])
    help_menu.addAction(commands["about"])
    for each in (file_menu, samples, train, rules, view, go_to, help_menu):
        give_mnemonics(each)
    return Menus(recent, samples, rule_actions)


def give_mnemonics(menu: QMenu) -> None:
    """Give each item of ``menu`` without a mnemonic (a sample, a pane) one no other item has:
    keyboard users open any item with Alt and two letters."""
    actions = [a for a in menu.actions() if not a.isSeparator()]
    for action, text in zip(actions, with_mnemonics([a.text() for a in actions]), strict=True):
        action.setText(text)


def fill_recent(menu: QMenu, files: FileActions) -> None:
    """File → Recent files as it opens: one entry per recent file, none and greyed out if none."""
    menu.clear()
    for path in files.recent():
        action = menu.addAction(path.replace("&", "&&"))  # a path's "&" is shown, not a mnemonic
        action.triggered.connect(lambda _=False, p=path: files.open_recent(p))
    menu.setEnabled(bool(files.recent()))


def enable_commands(commands: dict[str, QAction], bridge: Bridge, playback: Playback) -> None:
    """Enable what the state allows: nothing that changes the session while a job runs; Undo,
    Redo, Go to and Play as the history allows; Run only with a corpus (its tip says why not)."""
    busy = bridge.busy
    trainer = bridge.trainer
    for name in BUSY_DISABLED:
        commands[name].setEnabled(not busy)
    if not busy:
        commands["undo"].setEnabled(trainer.can_undo)
        commands["redo"].setEnabled(trainer.can_redo)
        commands["goto"].setEnabled(trainer.history_length > 0)
        steps = trainer.stop_reason() is None or (trainer.numbering is not None and trainer.can_redo)
        commands["play"].setEnabled(steps or playback.playing)
        if not trainer.word_count:  # a tokenizer without a corpus: Step takes its next merge
            commands["step"].setEnabled(trainer.can_redo)
            commands["run"].setEnabled(False)
            commands["run_target"].setEnabled(False)
        for name in ("run", "run_target"):
            action = commands[name]
            tip = action.toolTip().removesuffix(NEEDS_CORPUS)
            action.setToolTip(tip + (NEEDS_CORPUS if not trainer.word_count else ""))
    else:
        commands["undo"].setEnabled(False)
        commands["redo"].setEnabled(False)
