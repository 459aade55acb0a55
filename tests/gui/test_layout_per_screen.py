"""The window's layout is kept per screen size: one saved on a large screen is not forced on a
small one (its plots squashed to lines, its right edge cut off). Screens are faked with the
offscreen platform's screen configuration, in a process of their own each."""

import json
import textwrap

from tests.gui_helpers import run_app_process

SESSION = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QSettings
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from app import gui
    from app.main_window import MainWindow
    from app.samples import SAMPLES
    settings_path, what = sys.argv[1], sys.argv[2]
    settings = QSettings(settings_path, QSettings.Format.IniFormat)
    window = MainWindow(gui.sample_trainer(SAMPLES[-1]), settings=settings)
    window.show()
    QTest.qWait(50)
    if what in ("arrange", "arrange-as-before"):  # a user's layout on this screen
        window.resize(1580, 950)
        QTest.qWait(50)
    screen = window.screen().availableGeometry()
    frame = window.frameGeometry()
    print(json.dumps({
        "screen": [screen.width(), screen.height()],
        "window": [frame.x(), frame.y(), frame.width(), frame.height()],
        "size": [window.width(), window.height()],
        "plots_tabbed": bool(window.tabifiedDockWidgets(window.docks["plots"])),
        "docks": {name: not dock.isHidden() for name, dock in window.docks.items()},
    }))
    if len(sys.argv) > 3:
        window.grab().save(sys.argv[3])
    window.bridge.dirty = False
    window.close()
    if what == "arrange-as-before":  # kept as the window kept it before layouts were per screen
        settings = QSettings(settings_path, QSettings.Format.IniFormat)
        key = window.layout_key()
        for name in ("geometry", "state"):
            settings.setValue(f"window/{name}", settings.value(f"{key}/{name}"))
        settings.remove(key)
        settings.sync()
    """
)


def run_on_screen(tmp_path, width: int, height: int, what: str, shot: str = "") -> dict:
    config = tmp_path / f"screen{width}x{height}.json"
    config.write_text(
        json.dumps(
            {"screens": [{"name": "s", "x": 0, "y": 0, "width": width, "height": height, "logicalDpi": 96}]}
        )
    )
    result = run_app_process(
        ["-c", SESSION, str(tmp_path / "settings.ini"), what, *([shot] if shot else [])],
        tmp_path,
        QT_QPA_PLATFORM=f"offscreen:configfile={config}",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def fits(report: dict) -> bool:
    x, y, width, height = report["window"]
    screen_width, screen_height = report["screen"]
    return x >= 0 and y >= 0 and x + width <= screen_width and y + height <= screen_height


def test_a_layout_saved_on_a_large_screen_leaves_a_small_screen_its_own(tmp_path):
    big = run_on_screen(tmp_path, 1600, 1000, "arrange")
    assert big["size"] == [1580, 950]
    small = run_on_screen(tmp_path, 1024, 700, "look", str(tmp_path / "small.png"))
    assert small["screen"] == [1024, 700] and fits(small)
    assert small["plots_tabbed"] and all(small["docks"].values())  # the small screen's own layout
    again = run_on_screen(tmp_path, 1600, 1000, "look")
    assert again["size"] == [1580, 950]  # and the large screen keeps its own


def test_a_layout_kept_before_layouts_were_per_screen_is_used_only_where_it_fits(tmp_path):
    run_on_screen(tmp_path, 1600, 1000, "arrange-as-before")
    small = run_on_screen(tmp_path, 1024, 700, "look")
    assert fits(small) and small["plots_tabbed"]
    big = run_on_screen(tmp_path, 1600, 1000, "look")
    assert big["size"] == [1580, 950]
