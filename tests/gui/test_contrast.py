"""Every colour of ours reads at WCAG AA (4.5:1 for text) on light and dark palettes: text on
token chips and on the tie, highlight and changed-row backgrounds; muted text (markers,
redo-able merges) on the background; and selected rows, whose colour the window corrects
where the system's palette falls short."""

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from app import theme
from app.theme import AA_TEXT, contrast


def dark_palette(light: QPalette) -> QPalette:
    dark = QPalette(light)
    for role, colour in (
        (QPalette.ColorRole.Window, "#202020"),
        (QPalette.ColorRole.Base, "#181818"),
        (QPalette.ColorRole.WindowText, "#e0e0e0"),
        (QPalette.ColorRole.Text, "#e0e0e0"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"),
        (QPalette.ColorRole.Highlight, "#3d8ee0"),
    ):
        dark.setColor(role, QColor(colour))
    dark.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, QColor("#505050"))
    return dark


@pytest.fixture(params=["light", "dark"])
def palette(qapp, request):
    light = QApplication.style().standardPalette()
    return light if request.param == "light" else dark_palette(light)


def test_text_reads_on_every_background_of_ours(palette):
    text = palette.color(QPalette.ColorRole.Text)
    backgrounds = [
        *theme.chip_colors(palette),
        theme.highlight_background(palette),
        theme.changed_background(palette),
        theme.tie_background(palette),
        palette.color(QPalette.ColorRole.Base),
    ]
    assert min(contrast(text, background) for background in backgrounds) >= AA_TEXT


def test_muted_text_reads_on_the_background(palette):
    assert contrast(theme.muted(palette), palette.color(QPalette.ColorRole.Base)) >= AA_TEXT


def test_selected_rows_read_once_the_window_corrects_the_selection(palette):
    corrected = theme.readable_selection(palette) or palette
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        text = corrected.color(group, QPalette.ColorRole.HighlightedText)
        assert contrast(text, corrected.color(group, QPalette.ColorRole.Highlight)) >= AA_TEXT
    assert theme.readable_selection(corrected) is None  # stable: no palette change loop


def test_the_open_window_keeps_selection_readable(qtbot, make_window):
    window = make_window()
    palette = QApplication.palette()
    assert (
        contrast(
            palette.color(QPalette.ColorRole.HighlightedText), palette.color(QPalette.ColorRole.Highlight)
        )
        >= AA_TEXT
    )
    assert window.isVisible()


def test_a_focus_frame_follows_the_keys_in_the_palettes_selection_colour(qtbot, make_window):
    from app.accessibility import FocusRing
    from tests.gui_helpers import fresh_focus, press

    window = make_window("Shakespeare")
    fresh_focus(qtbot, window)
    controls = (window.merges_pane.ties_only, window.rule_box, window.speed)  # styles hint faintly
    press("Ctrl+7")  # the History pane's graph, drawn by hand, showed nothing of having the keys
    graph = QApplication.focusWidget()
    assert graph.window() is window and graph is not window.corpus_pane.view
    for widget in (
        graph,
        window.corpus_pane.view,
        window.merges_pane.search,
        *controls,
        window.pairs_pane.view,
    ):
        widget.setFocus()
        qtbot.waitUntil(lambda w=widget: QApplication.focusWidget() is w)
        ring = widget.findChild(FocusRing)
        assert ring is not None and ring.isVisible() and ring.geometry() == widget.rect()
        image = widget.grab().toImage()
        highlight = widget.palette().color(QPalette.ColorRole.Highlight)
        assert image.pixelColor(widget.width() // 2, 0).name() == highlight.name()
    press("Tab")  # the ring moves with the keys
    assert window.pairs_pane.view.findChild(FocusRing) is None
