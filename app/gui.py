"""Starting the desktop application: the QApplication, the exception hook, the first session."""

from __future__ import annotations

import logging
import os
import signal
import sys
import traceback
from pathlib import Path

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")  # before pyqtgraph: never pick PyQt6

from PySide6.QtCore import QStandardPaths, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app.desktop_entry import APP_ID, ICON_SIZES, ICONS
from app.guard import reporter
from app.main_window import MainWindow
from app.samples import DEFAULT_SAMPLE, Sample
from bpe_core import Corpus, Trainer

log = logging.getLogger("bpe_studio")


def sample_trainer(sample: Sample = DEFAULT_SAMPLE) -> Trainer:
    text = sample.text()
    corpus = (
        Corpus.from_counts(text, sample.config)
        if sample.input_kind == "counts"
        else Corpus.from_text(text, sample.config)
    )
    return Trainer(corpus, sample.training)


def data_folder() -> Path:
    """``~/.local/share/BPE Studio`` on Linux: the log, and work kept when a signal ended the
    program. Qt's application data folder would name the program twice (organisation, then
    application: both "BPE Studio"), and renaming the organisation would move everyone's
    settings."""
    data = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return Path(data) / "BPE Studio" if data else Path.home()


def log_path() -> Path:
    """``~/.local/share/BPE Studio/bpe-studio.log`` on Linux."""
    folder = data_folder()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "bpe-studio.log"


def install_exception_hook() -> None:
    """No uncaught exception passes silently or stops the window: each is logged (to
    :func:`log_path`) and reported once per place through the window's error reporter."""
    try:
        logging.basicConfig(
            filename=log_path(), level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
    except OSError:
        logging.basicConfig(level=logging.INFO)
    sys.excepthook = report_uncaught


def report_uncaught(kind, value, tb) -> None:
    """``sys.excepthook``: slots and timers that raise end up here (Qt carries on after)."""
    details = "".join(traceback.format_exception(kind, value, tb))
    frames = traceback.extract_tb(tb)
    where = frames[-1].name if frames else "an event handler"
    reporter().report(where, value, details)


def application_icon() -> QIcon:
    """BPE Studio's icon in every size it ships (title bars, task bars, docks, Alt+Tab)."""
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addFile(str(ICONS / f"{APP_ID}-{size}.png"))
    return icon


def run(args: list[str]) -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("BPE Studio")
    app.setOrganizationName("BPE Studio")
    QApplication.setDesktopFileName(APP_ID)  # Wayland's app id: task bars find the entry and icon
    QApplication.setWindowIcon(application_icon())
    install_exception_hook()
    window = MainWindow(sample_trainer(), source_name=DEFAULT_SAMPLE.name)
    window.show()
    close_on_signals(window)
    window.offer_recovery()
    if args:
        window.open_paths(args)
    if os.environ.get("BPE_STUDIO_SMOKE_TEST"):  # tests and benchmarks: start, paint, quit
        QTimer.singleShot(int(os.environ["BPE_STUDIO_SMOKE_TEST"]), window.close)
    return app.exec()


def close_on_signals(window: MainWindow) -> None:
    """Ctrl+C in the terminal, or SIGTERM (a logout, a shutdown), ends the program without
    waiting behind a dialog: unsaved work is kept in a recovery copy in :func:`data_folder`,
    offered at the next start. Python runs signal handlers only between its own bytecodes: a
    light timer gives it that chance while Qt's event loop (or a dialog's) waits."""
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) is signal.SIG_IGN:  # started ignoring it (see app.launcher)
            continue
        signal.signal(number, lambda *_: QTimer.singleShot(0, lambda: window.end_keeping_work(data_folder())))
    heartbeat = QTimer(window, interval=250)
    heartbeat.timeout.connect(lambda: None)
    heartbeat.start()
