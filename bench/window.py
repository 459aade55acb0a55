"""The real main window for the window benchmarks: offscreen, the default sample, settings of
its own (never the user's), at a laptop's size."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

from common import REPO

sys.path.insert(0, str(REPO))

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from app.gui import sample_trainer
from app.main_window import MainWindow


def bench_window() -> tuple[QApplication, MainWindow]:
    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    settings = QSettings(str(REPO / "artifacts" / "bench_settings.ini"), QSettings.Format.IniFormat)
    settings.clear()
    window = MainWindow(sample_trainer(), settings=settings)
    window.resize(1440, 900)
    window.show()
    app.processEvents()
    return app, window
