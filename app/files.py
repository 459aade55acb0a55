"""Opening and saving from the window: corpus files (text or word counts), pasted text,
sessions, recent files, and what a dropped file is."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from app.bridge import Bridge
from bpe_core import PipelineConfig

RECENT_KEY = "files/recent"
FOLDER_KEY = "files/last_folder"
MAX_RECENT = 8
CORPUS_FILTERS = "Text (*.txt *.text *.md);;Word counts, word<TAB>count (*.tsv *.counts);;All files (*)"
SESSION_FILTER = "BPE Studio sessions (*.json)"


def kind_of(path: Path) -> str:
    """``session``, ``counts`` or ``text``, from the file's extension and first bytes."""
    if path.suffix.lower() == ".json":
        try:
            with path.open("rb") as stream:
                head = stream.read(200)
        except OSError:
            return "session"  # let the loader report the problem
        return "session" if b"bpe-studio-session" in head else "text"
    return "counts" if path.suffix.lower() in (".tsv", ".counts") else "text"


class FileActions:
    """File operations on behalf of the main window (which passes itself as ``parent``)."""

    def __init__(self, bridge: Bridge, settings: QSettings, parent: QWidget) -> None:
        self._bridge = bridge
        self._settings = settings
        self._parent = parent

    # -- opening -----------------------------------------------------------------------------

    def open_path(self, path: str | Path, config: PipelineConfig | None = None) -> None:
        """Open a corpus or a session file (command line, drop, recent files)."""
        path = Path(path)
        self.remember(path)
        kind = kind_of(path)
        if kind == "session":
            self._bridge.load(path)
        else:
            self._bridge.open_corpus(path, config or PipelineConfig(), kind)

    def ask_open_corpus(self) -> None:
        path, chosen = QFileDialog.getOpenFileName(self._parent, "Open corpus", self.folder(), CORPUS_FILTERS)
        if path:
            kind = "counts" if chosen.startswith("Word counts") else kind_of(Path(path))
            self.remember(Path(path))
            self._bridge.open_corpus(path, PipelineConfig(), "session" if kind == "session" else kind)

    def ask_open_session(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._parent, "Open session", self.folder(), SESSION_FILTER)
        if path:
            self.remember(Path(path))
            self._bridge.load(path)

    def ask_paste(self) -> None:
        text, ok = QInputDialog.getMultiLineText(self._parent, "Paste text as corpus", "Text:")
        if ok and text.strip():
            self._bridge.open_text(text, PipelineConfig(), "pasted text")
        elif ok:
            QMessageBox.warning(self._parent, "Empty corpus", "The pasted text has no words.")

    # -- saving ------------------------------------------------------------------------------

    def save(self) -> bool:
        if self._bridge.path is None:
            return self.save_as()
        return self._bridge.save(self._bridge.path)

    def save_as(self) -> bool:
        suggested = str(Path(self.folder()) / (Path(self._bridge.source.name).stem + ".json"))
        path, _ = QFileDialog.getSaveFileName(self._parent, "Save session", suggested, SESSION_FILTER)
        if not path:
            return False
        if not path.endswith(".json"):
            path += ".json"
        self.remember(Path(path))
        return self._bridge.save(path)

    # -- recent files and folders ------------------------------------------------------------

    def folder(self) -> str:
        return str(self._settings.value(FOLDER_KEY, str(Path.home())))

    def recent(self) -> list[str]:
        value = self._settings.value(RECENT_KEY, [])
        if isinstance(value, str):  # QSettings returns a bare string for one-element lists
            value = [value]
        return [v for v in value if isinstance(v, str)]

    def remember(self, path: Path) -> None:
        path = path.resolve()
        self._settings.setValue(FOLDER_KEY, str(path.parent))
        recent = [str(path)] + [p for p in self.recent() if p != str(path)]
        self._settings.setValue(RECENT_KEY, recent[:MAX_RECENT])
