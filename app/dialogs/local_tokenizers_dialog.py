"""File → Open tokenizer…: the tokenizers already on this computer (Hugging Face's and
tiktoken's caches, :mod:`bpe_core.io.local_tokenizers`), with a filter, and Browse… for any file.

The listing runs on a thread of its own (it hashes tiktoken's files, and a cold disk makes a
large cache slow to walk); the dialog waits for it a moment so that a quick listing shows at
once, and otherwise says where it is looking until the rows arrive. Nothing is downloaded.

Keys: the filter has them first; ↑ ↓ Page Up Page Down there move in the list, Enter opens the
selected tokenizer (with nothing found, it is Browse…), Esc closes; Tab goes filter → list →
Browse… → Open → Cancel.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.guard import guard_overrides
from bpe_core.io.local_tokenizers import HF_CACHE, LocalTokenizer, find_local_tokenizers, searched_folders

NAME, KIND, WHERE = range(3)
TOKENIZER_ROLE = Qt.ItemDataRole.UserRole
WAITED_MS = 150  # a listing done within this is shown as the dialog opens
POLL_MS = 20
MOVE_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown)


def shown_path(path: Path) -> str:
    """A path for the eye: the home folder as ``~``."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def where(tokenizer: LocalTokenizer) -> str:
    """The cache a tokenizer is in (the line below the list gives the selected one's file)."""
    return "Hugging Face cache" if tokenizer.source == HF_CACHE else "tiktoken cache"


class _Listing:
    """``find_local_tokenizers`` on a thread of its own; the dialog polls ``done``. Nothing of
    Qt is touched there, so a dialog closed before the listing ends just stops polling."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.found: list[LocalTokenizer] = []
        self.done = threading.Event()
        environ = dict(environ)
        thread = threading.Thread(target=self._run, args=(environ,), name="local tokenizers", daemon=True)
        thread.start()

    def _run(self, environ: dict[str, str]) -> None:
        try:
            self.found = find_local_tokenizers(environ)
        finally:  # it skips what it cannot read; anything else leaves the list empty
            self.done.set()


@guard_overrides
class LocalTokenizersDialog(QDialog):
    """Pick a tokenizer found on this computer (:meth:`chosen`) or browse for a file
    (:meth:`chosen_path`); ``folder`` and ``filters`` are the file dialog's."""

    def __init__(
        self,
        folder: str = "",
        filters: str = "",
        parent: QWidget | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open tokenizer")
        self._folder, self._filters = folder, filters
        self._path: str | None = None
        folders = searched_folders(os.environ if environ is None else environ)
        self._searched = " and ".join(shown_path(f) for f in folders)
        # Widgets
        intro = QLabel("Tokenizers already on this computer, in Hugging Face's and tiktoken's caches:")
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by name, kind or cache")
        self.filter.setClearButtonEnabled(True)
        self.list = QTreeWidget()
        self.list.setAccessibleName("Tokenizers on this computer")
        self.list.setAccessibleDescription("Enter opens the selected tokenizer")
        self.list.setHeaderLabels(["Name", "Kind", "Where"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAlternatingRowColors(True)
        self.list.setAllColumnsShowFocus(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.list.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.path = QLabel()  # the selected tokenizer's file (elided in the middle), for keyboard users too
        self.path.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._full_path = ""
        self.note = QLabel(f"Looking in {self._searched}…")
        self.note.setWordWrap(True)
        self.browse = QPushButton("Browse…")
        self.browse.setToolTip("Open any tokenizer file")
        self.buttons = QDialogButtonBox()
        self.open_button = self.buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        for button in (self.browse, cancel):
            button.setAutoDefault(False)  # Enter anywhere opens the selected tokenizer
        self.open_button.setDefault(True)
        self.open_button.setEnabled(False)
        # Layout
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.path)
        layout.addWidget(self.note)
        row = QHBoxLayout()
        row.addWidget(self.browse)
        row.addStretch(1)
        row.addWidget(self.buttons)
        layout.addLayout(row)
        em = self.fontMetrics().horizontalAdvance("M")
        self.resize(em * 68, self.fontMetrics().height() * 26)
        QWidget.setTabOrder(self.filter, self.list)
        QWidget.setTabOrder(self.list, self.browse)
        QWidget.setTabOrder(self.browse, self.open_button)
        QWidget.setTabOrder(self.open_button, cancel)
        # Signals
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.browse.clicked.connect(self._browse)
        self.filter.textChanged.connect(lambda _: self._apply_filter())
        self.filter.installEventFilter(self)
        self.list.currentItemChanged.connect(lambda *_: self._show_current())
        self.list.itemDoubleClicked.connect(lambda *_: self.accept())
        self.filter.setFocus()
        # The listing
        self._listing = _Listing(os.environ if environ is None else environ)
        self._poll = QTimer(self, interval=POLL_MS)
        self._poll.timeout.connect(self._arrived)
        if self._listing.done.wait(WAITED_MS / 1000):
            self._arrived()
        else:
            self._poll.start()

    # -- what was chosen -----------------------------------------------------------------------

    def chosen(self) -> LocalTokenizer | None:
        """The selected tokenizer (``None`` once a file was browsed for, or with no row)."""
        item = self.list.currentItem()
        if self._path is not None or item is None or item.isHidden():
            return None
        return item.data(NAME, TOKENIZER_ROLE)

    def chosen_path(self) -> str | None:
        """The file chosen with Browse…, if any."""
        return self._path

    # -- the list ------------------------------------------------------------------------------

    def _arrived(self) -> None:
        if not self._listing.done.is_set():
            return
        self._poll.stop()
        found = self._listing.found
        for tokenizer in found:
            item = QTreeWidgetItem([tokenizer.name, tokenizer.description, where(tokenizer)])
            item.setData(NAME, TOKENIZER_ROLE, tokenizer)
            tip = str(tokenizer.path)
            for column in (NAME, KIND, WHERE):
                item.setToolTip(column, tip)
            self.list.addTopLevelItem(item)
        # The name as wide as the longest (a tiktoken file's hashed name at most 40 characters),
        # the kind as its longest, the cache in the rest.
        em = self.fontMetrics().horizontalAdvance("M")
        for column, widest in ((NAME, 24 * em), (KIND, 26 * em)):
            self.list.resizeColumnToContents(column)
            self.list.setColumnWidth(column, max(10 * em, min(self.list.columnWidth(column), widest)))
        self._apply_filter()

    def _apply_filter(self) -> None:
        """Rows whose name, kind or cache hold every word typed; the first shown is selected."""
        if not self._listing.done.is_set():
            return
        words = self.filter.text().casefold().split()
        items = [self.list.topLevelItem(row) for row in range(self.list.topLevelItemCount())]
        total, shown = len(items), []
        for item in filter(None, items):
            text = " ".join(item.text(c) for c in (NAME, KIND, WHERE)).casefold()
            item.setHidden(not all(word in text for word in words))
            if not item.isHidden():
                shown.append(item)
        current = self.list.currentItem()
        if current is None or current.isHidden():
            if shown:
                self.list.setCurrentItem(shown[0])
            else:
                self.list.setCurrentIndex(QModelIndex())  # nothing selected
        if not total:
            self.note.setText(f"No tokenizers found in {self._searched}.")
            self.browse.setDefault(True)  # Enter browses: there is nothing to open here
        elif words:
            self.note.setText(f"{len(shown):,} of {total:,} shown")
        else:
            self.note.setText(f"{total:,} found in {self._searched}")
        self._show_current()

    def _show_current(self) -> None:
        tokenizer = self.chosen()
        self.open_button.setEnabled(tokenizer is not None)
        self._full_path = shown_path(tokenizer.path) if tokenizer is not None else ""
        self.path.setToolTip(str(tokenizer.path) if tokenizer is not None else "")
        self._elide_path()

    def _elide_path(self) -> None:
        metrics = self.path.fontMetrics()
        self.path.setText(
            metrics.elidedText(self._full_path, Qt.TextElideMode.ElideMiddle, self.path.width())
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide_path()

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open tokenizer file", self._folder, self._filters)
        if path:
            self._path = path
            self.accept()

    # -- keys ----------------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """↑ ↓ Page Up and Page Down in the filter move in the list, as they would there."""
        if (
            watched is self.filter
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() in MOVE_KEYS
        ):
            QApplication.sendEvent(self.list, QKeyEvent(event.type(), event.key(), event.modifiers()))
            return True
        return super().eventFilter(watched, event)
