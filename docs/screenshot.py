"""Renders docs/screenshot.png (the README's picture), offscreen.

QT_QPA_PLATFORM=offscreen python docs/screenshot.py
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app import demo  # noqa: E402
from app.gui import sample_trainer  # noqa: E402
from app.main_window import MainWindow  # noqa: E402
from app.samples import SAMPLES  # noqa: E402

if __name__ == "__main__":
    app = QApplication([])
    settings = QSettings(str(ROOT / "artifacts" / "screenshot_settings.ini"), QSettings.Format.IniFormat)
    settings.clear()
    window = MainWindow(sample_trainer(SAMPLES[-1]), settings=settings, source_name=SAMPLES[-1].name)
    window.resize(1440, 900)
    window.show()
    demo.stage(window)
    window.grab().save(str(ROOT / "docs" / "screenshot.png"))
    window.bridge.dirty = False
    window.close()
