"""Opening and saving from the window: corpus files (text or word counts), pasted text,
sessions, recent files, and asking to save before work is replaced."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.bridge import Bridge
from app.desktop_entry import SESSION_SUFFIX
from app.dialogs.export_dialog import ExportDialog
from app.dialogs.local_tokenizers_dialog import LocalTokenizersDialog
from app.dialogs.ranks_dialog import ask_ranks_settings
from app.samples import SAMPLES_DIR
from app.widgets import ask_text, keeping_focus
from bpe_core import PipelineConfig
from bpe_core.io.formats import DESCRIPTIONS, formats_for, tokenizer_format
from bpe_core.io.local_tokenizers import LocalTokenizer
from bpe_core.runtime.fileio import STDIN_COPY, is_pipe

RECENT_KEY = "files/recent"
FOLDER_KEY = "files/last_folder"
MAX_RECENT = 8
CORPUS_FILTERS = (
    "Text, records or session (*.txt *.text *.md *.json *.jsonl *.ndjson *.parquet *.gz *.bz2 *.xz *.zst)"
    ";;Word counts, word<TAB>count (*.tsv *.counts *.parquet);;All files (*)"
)
SESSION_FILTER = "BPE Studio sessions (*.bpe.json *.json);;All files (*)"
TOKENIZER_FILTER = "Tokenizer files (*.json *.tiktoken *.model *.codes *.bpe *.txt);;All files (*)"
EXPORT_SUFFIXES = {"hf": "tokenizer.json", "codes": ".codes", "tiktoken": ".tiktoken"}
EXPORT_FILTERS = {
    "hf": "Hugging Face tokenizer (*.json)",
    "codes": "subword-nmt codes (*.codes *.txt)",
    "tiktoken": "tiktoken ranks (*.tiktoken)",
}
ALL_FILES = "All files (*)"
INSTALLED = SAMPLES_DIR.parent  # the install's own files: opening a sample chose no folder


def clean_stem(name: str) -> str:
    """A file name's stem from a session's name: lower case, words joined by hyphens, a
    parenthesised note left out.

    Example: "GPT-2 tokenizer" -> "gpt2-tokenizer"; "low · lower (a note)" -> "low-lower"
    """
    words = re.sub(r"\([^)]*\)", " ", name).casefold()
    stem = re.sub(r"[^\w]+", "-", words).strip("-_")
    stem = re.sub(r"\b([a-z]{1,4})-([0-9]+)\b", r"\1\2", stem)  # gpt-2 -> gpt2, not shakespeare60
    return stem[:40].rstrip("-") or "session"


def file_name(stem: str, suffix: str) -> str:
    """``stem`` and ``suffix`` (an extension, or a word and an extension) joined without saying
    a word twice.

    Example: ("gpt2-tokenizer", "tokenizer.json") -> "gpt2-tokenizer.json"
    """
    if suffix.startswith("."):
        return stem + suffix
    word, _, extension = suffix.partition(".")
    if stem == word or stem.endswith("-" + word):
        return f"{stem}.{extension}"
    return f"{stem}-{suffix}"


def session_stem_of(name: str) -> str:
    """A file name without its session suffix (``run.bpe.json`` -> ``run``) or its last suffix."""
    return name.removesuffix(SESSION_SUFFIX) if name.endswith(SESSION_SUFFIX) else Path(name).stem


class FileActions(QObject):
    """File operations on behalf of the main window (which passes itself as ``parent``)."""

    # About to ask whether to save unsaved work: whatever changes the session on its own (Play)
    # stops first, so that the session asked about stays as it is, and no dialog comes on top.
    sig_asking_to_save = Signal()

    def __init__(self, bridge: Bridge, settings: QSettings, parent: QWidget) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._settings = settings
        self._window = parent
        self._deferred: Callable[[], None] | None = None
        self._pasted = ""  # the text last given to Paste text as corpus
        bridge.sig_opened.connect(self._on_opened)
        bridge.sig_busy_changed.connect(self._on_busy)

    # -- opening -----------------------------------------------------------------------------

    def request_open(self, start: Callable[[], None]) -> None:
        """Open something in place of the session, asking to save unsaved work first.

        While a file is being opened, ``start`` replaces that request (the session shown is
        still the one already asked about). A run or a jump is cancelled first, and the request
        carried out once it has stopped, since its merges may need saving.
        """
        bridge = self._bridge
        if bridge.busy and not bridge.opening:
            self._deferred = start
            bridge.stopped_for_open = bridge.job_title
            bridge.cancel()
            return
        if not bridge.busy and not self.maybe_save():
            bridge.stopped_for_open = ""
            return
        start()

    def _on_busy(self, busy: bool) -> None:
        if not busy and self._deferred is not None:
            start, self._deferred = self._deferred, None
            # After the job's outcome is announced (the unsaved-changes state depends on it);
            # with this object as context, nothing runs once the window is gone.
            QTimer.singleShot(0, self, lambda: self.request_open(start))

    def forget_deferred_open(self) -> None:
        self._deferred = None

    def open_path(self, path: str | Path, kind: str | None = None) -> None:
        """Open a session or a corpus file (command line, drop, recent files, dialogs)."""
        if kind is None and not is_pipe(Path(path)) and tokenizer_format(path) == "tiktoken":
            self.import_ranks(path)  # a drop too: the pattern is asked, not assumed
            return
        if self._bridge.refused_not_text(Path(path)):
            self.forget(path)  # as any file that fails to open
            return
        self.request_open(lambda: self._bridge.open_file(path, kind=kind))

    def open_together(self, paths: list[Path]) -> None:
        """Files and folders dropped together, counted as one corpus."""
        if any(self._bridge.refused_not_text(path) for path in paths):
            return
        self.request_open(lambda: self._bridge.open_files(paths))

    def ask_open_corpus(self) -> None:
        with keeping_focus(self._window):
            path, chosen = QFileDialog.getOpenFileName(
                self._window, "Open corpus", self.folder(), CORPUS_FILTERS
            )
        if path:
            self.open_path(path, "counts" if chosen.startswith("Word counts") else None)

    def ask_open_corpus_folder(self) -> None:
        """A folder of text, compressed, JSONL or Parquet files, counted as one corpus."""
        with keeping_focus(self._window):
            path = QFileDialog.getExistingDirectory(self._window, "Open corpus folder", self.folder())
        if path:
            self.open_path(path, None)  # a folder of texts, or of counts files (shards)

    def ask_open_session(self) -> None:
        with keeping_focus(self._window):
            path, _ = QFileDialog.getOpenFileName(self._window, "Open session", self.folder(), SESSION_FILTER)
        if path:
            self.open_path(path, "session")

    def ask_import(self) -> None:
        """A tokenizer file (for GPT-2's two files, either of them) opened as a session."""
        with keeping_focus(self._window):
            path, _ = QFileDialog.getOpenFileName(
                self._window, "Import tokenizer", self.folder(), TOKENIZER_FILTER
            )
        if path:
            self.import_file(path)

    def import_file(self, path: str) -> None:
        if self._bridge.refused_pipe(Path(path)):  # its format is read from it below
            return
        if tokenizer_format(path) == "tiktoken":
            self.import_ranks(path)
            return
        self.request_open(lambda: self._bridge.open_tokenizer(path))

    def ask_open_tokenizer(self) -> None:
        """A tokenizer already on this computer (Hugging Face's or tiktoken's cache), or any
        file chosen with Browse…"""
        dialog = LocalTokenizersDialog(self.folder(), TOKENIZER_FILTER, self._window)
        with keeping_focus(self._window):
            accepted = dialog.exec()
        chosen, path = (dialog.chosen(), dialog.chosen_path()) if accepted else (None, None)
        dialog.deleteLater()
        if path is not None:
            self.import_file(path)
        elif chosen is not None:
            self.open_local(chosen)

    def open_local(self, tokenizer: LocalTokenizer) -> None:
        """A tokenizer of the caches, named as its cache names it; tiktoken ranks of a known
        encoding take its pattern and special tokens, other ranks ask for them."""
        if tokenizer.kind == "tiktoken" and tokenizer.encoding is None:
            self.import_ranks(tokenizer.path)
            return
        path, pattern, name = tokenizer.path, tokenizer.encoding, tokenizer.name
        self.request_open(lambda: self._bridge.open_tokenizer(path, pattern=pattern, name=name))

    def import_ranks(self, path: str | Path) -> None:
        """tiktoken ranks hold neither the split pattern nor the special tokens: ask for both
        (pre-filled with what the file implies), then import."""
        with keeping_focus(self._window):
            chosen = ask_ranks_settings(Path(path), self._window)
        if chosen is not None:
            pattern, specials = chosen
            self.request_open(lambda: self._bridge.open_tokenizer(path, specials, pattern=pattern))

    def ask_attach(self) -> None:
        """A corpus whose counts fill in the session's merges (an imported tokenizer's, mostly)."""
        with keeping_focus(self._window):
            path, chosen = QFileDialog.getOpenFileName(
                self._window, "Attach corpus", self.folder(), CORPUS_FILTERS
            )
        if path:
            self._bridge.attach(path, "counts" if chosen.startswith("Word counts") else None)

    def ask_export(self) -> None:
        """Export as another tool's format: the format, then where."""
        bridge = self._bridge
        if bridge.busy:
            return
        dialog = ExportDialog(formats_for(bridge.trainer.encoder()), self._window)
        with keeping_focus(self._window):
            accepted = dialog.exec()
        format = dialog.chosen() if accepted else None
        dialog.deleteLater()
        if format is None:
            return
        if format == "gpt2":
            with keeping_focus(self._window):
                path = QFileDialog.getExistingDirectory(
                    self._window, "Folder for vocab.json and merges.txt", self.folder()
                )
            if path:
                self._settings.setValue(FOLDER_KEY, str(Path(path).resolve().parent))
        else:
            path = self.ask_save_path(
                f"Export as {DESCRIPTIONS[format]}",
                file_name(self.session_stem(), EXPORT_SUFFIXES[format]),
                f"{EXPORT_FILTERS[format]};;{ALL_FILES}",
            )
        if path:
            bridge.export_tokenizer(format, path, self._show_export_notes)

    def _show_export_notes(self, outcome: str, notes: list[str]) -> None:
        """What the exported file does not hold, whole, in a dialog (the status bar cut it off)."""
        with keeping_focus(self._window):
            QMessageBox.information(
                self._window, "Exported, with notes", "\n\n".join([outcome, *(f"Note: {n}" for n in notes)])
            )

    def ask_paste(self) -> None:
        """Ask for a text to open as the corpus. The text given is kept for the next time the
        dialog opens, so that cancelling the question about unsaved work loses none of it."""
        with keeping_focus(self._window):
            text, ok = ask_text(
                self._window,
                "Paste text as corpus",
                "The text to use as the corpus (Ctrl+Enter uses it):",
                "Text to use as the corpus",
                self._pasted,
            )
            if ok and not text.strip():
                QMessageBox.warning(self._window, "Empty corpus", "The pasted text has no words.")
        if ok:
            self._pasted = text
        if ok and text.strip():
            self.request_open(lambda: self._bridge.open_text(text, PipelineConfig(), "pasted text"))

    def open_recent(self, path: str) -> None:
        if not Path(path).exists():
            self.forget(path)
            with keeping_focus(self._window):
                QMessageBox.warning(self._window, "File not found", f"The file {path!r} no longer exists.")
            return
        self.open_path(path)

    def _on_opened(self, path: Path, ok: bool) -> None:
        sample = Path(path).resolve().is_relative_to(INSTALLED.resolve())
        if sample or Path(path).parent.name.startswith(STDIN_COPY):  # piped in: gone at exit
            return  # neither a recent file nor a folder the user chose
        if ok:
            self.remember(path)
        else:
            self.forget(path)

    # -- saving ------------------------------------------------------------------------------

    def maybe_save(self, question: str = "Save the current session first?") -> bool:
        """Ask about unsaved work; False means the user cancelled."""
        if not self._bridge.has_unsaved_work():
            return True
        self.sig_asking_to_save.emit()
        with keeping_focus(self._window):
            answer = QMessageBox.question(
                self._window,
                "Unsaved changes",
                question,
                QMessageBox.StandardButton.Save
                | QMessageBox.StandardButton.Discard
                | QMessageBox.StandardButton.Cancel,
            )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def save(self) -> bool:
        if self._bridge.path is None:
            return self.save_as()
        return self._bridge.save(self._bridge.path)

    def save_as(self) -> bool:
        path = self.ask_save_path("Save session", self.session_stem() + SESSION_SUFFIX, SESSION_FILTER)
        if not path:
            return False
        if not path.endswith(".json"):  # a name of the user's own: the session type's suffix
            path += SESSION_SUFFIX
        if not self._bridge.save(path):
            return False
        self.remember(Path(path))
        return True

    # -- recent files and folders ------------------------------------------------------------

    def ask_save_path(self, title: str, name: str, filters: str) -> str:
        """Where to save or export: a dialog in the last folder the user chose (else home),
        offering ``name``, the first of ``filters`` selected. The folder chosen is remembered;
        "" if the user cancelled."""
        with keeping_focus(self._window):
            path, _ = QFileDialog.getSaveFileName(
                self._window, title, str(Path(self.folder()) / name), filters, filters.split(";;")[0]
            )
        if path:
            self._settings.setValue(FOLDER_KEY, str(Path(path).resolve().parent))
        return path

    def session_stem(self) -> str:
        """The session's name as a file name's stem (its file's, else its source's)."""
        bridge = self._bridge
        path = bridge.path or bridge.source.path
        return clean_stem(session_stem_of(path.name) if path is not None else bridge.source.name)

    def folder(self) -> str:
        """The last folder the user chose, if it is still there; else the home folder."""
        folder = self._settings.value(FOLDER_KEY, "")
        if isinstance(folder, str) and folder and Path(folder).is_dir():
            return folder
        return str(Path.home())

    def recent(self) -> list[str]:
        value = self._settings.value(RECENT_KEY, [])
        if isinstance(value, str):  # QSettings returns a bare string for one-element lists
            value = [value]
        if not isinstance(value, list | tuple):  # a damaged settings file
            return []
        return [v for v in value if isinstance(v, str)]

    def remember(self, path: Path) -> None:
        # Absolute, a symlink kept as named: a Hugging Face snapshot's tokenizer.json, not the
        # hash-named blob it points to.
        path = Path(os.path.abspath(path))
        self._settings.setValue(FOLDER_KEY, str(path.parent))
        recent = [str(path)] + [p for p in self.recent() if p != str(path)]
        self._settings.setValue(RECENT_KEY, recent[:MAX_RECENT])

    def forget(self, path: str | Path) -> None:
        """Drop a file from the recent list (it failed to open or no longer exists)."""
        gone = {str(path), str(Path(path).resolve())}
        self._settings.setValue(RECENT_KEY, [p for p in self.recent() if p not in gone])
