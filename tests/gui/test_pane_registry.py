"""A pane is declared once, in the registry: the window gives it a dock, a View-menu toggle,
the zoom, the palette and a place in the saved layout, with no code of its own in the window."""

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QDockWidget, QLabel

from app.gui import sample_trainer
from app.main_window import MainWindow
from app.panes.registry import PANES, RIGHT, PaneSpec
from tests.gui_helpers import delete_window


class NotesPane(QLabel):
    """A pane as small as one can be, standing in for a new view; it records what reached it."""

    def __init__(self, _bridge) -> None:
        super().__init__("Notes")
        self.zoomed_to: list[float] = []
        self.restyled = 0


NOTES = PaneSpec(
    "notes",
    "Notes",
    NotesPane,
    RIGHT,
    tab_with="history",
    restyle=lambda pane: setattr(pane, "restyled", pane.restyled + 1),
    zoom=lambda pane, points: pane.zoomed_to.append(points),
)


@pytest.fixture
def open_window(qtbot, tmp_path, dialogs):
    """open_window(extra pane) -> a shown window with that pane registered after the shipped
    ones, its settings in tmp_path (the same file each time, so a second window opens with
    the first one's layout)."""
    windows = []

    def open_(extra: PaneSpec = NOTES) -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(sample_trainer(), settings=settings, panes=(*PANES, extra))
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield open_
    for window in windows:
        delete_window(window)


def view_menu(window):
    return next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")


def test_a_registered_pane_gets_a_dock_placed_as_declared(open_window):
    window = open_window()
    dock = window.docks["notes"]
    assert isinstance(dock, QDockWidget)
    assert dock.objectName() == "dock_notes" and dock.windowTitle() == "Notes"
    assert dock.widget() is window.panes["notes"]
    assert window.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea
    assert dock in window.tabifiedDockWidgets(window.docks["history"])
    assert not dock.isHidden()


def test_a_registered_pane_has_a_view_menu_toggle(open_window):
    window = open_window()
    toggle = next(a for a in view_menu(window).actions() if a.text().replace("&", "") == "Notes")
    assert toggle.isChecked()
    toggle.trigger()
    assert window.docks["notes"].isHidden()
    toggle.trigger()
    assert not window.docks["notes"].isHidden()


def test_a_registered_pane_follows_the_zoom_and_the_palette(open_window):
    window = open_window()
    pane = window.panes["notes"]
    normal = pane.font().pointSizeF()
    window.zoom(1)
    assert pane.font().pointSizeF() == normal + 2
    assert pane.zoomed_to[-1] == window.font().pointSizeF()
    window.zoom(0)
    assert pane.font().pointSizeF() == normal
    before = pane.restyled
    palette = QPalette(window.palette())
    palette.setColor(QPalette.ColorRole.Window, Qt.GlobalColor.darkGray)
    window.setPalette(palette)
    assert pane.restyled > before


def test_a_registered_pane_is_kept_in_the_saved_layout(open_window):
    window = open_window()
    window.docks["notes"].hide()
    window.close()
    assert not open_window().docks["notes"].isVisible()


def test_a_pane_hidden_by_default_waits_in_the_view_menu(open_window):
    window = open_window(PaneSpec("notes", "Notes", NotesPane, RIGHT, visible=False))
    assert window.docks["notes"].isHidden()
    toggle = next(a for a in view_menu(window).actions() if a.text().replace("&", "") == "Notes")
    assert not toggle.isChecked()


def test_the_shipped_panes_keep_the_dock_names_saved_layouts_know():
    assert [spec.dock_name for spec in PANES] == [
        "dock_corpus",
        "dock_pairs",
        "dock_encode",
        "dock_merges",
        "dock_vocab",
        "dock_plots",
        "dock_history",
    ]
