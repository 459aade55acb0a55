"""Colours that follow the palette: token chips alternate, ties and highlights stand out, and
everything stays readable on light and dark palettes (and on a projector)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

LIGHT_CHIPS = ("#cfe3ff", "#ffe0b3", "#d5f5d0", "#f3d4f7")
DARK_CHIPS = ("#2d4a73", "#6b4a1c", "#2f5a34", "#5a2f63")


def is_dark(palette: QPalette | None = None) -> bool:
    palette = palette or QApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def chip_colors(palette: QPalette | None = None) -> list[QColor]:
    return [QColor(c) for c in (DARK_CHIPS if is_dark(palette) else LIGHT_CHIPS)]


def highlight_background(palette: QPalette | None = None) -> QColor:
    """Rows that contain the selected pair or token."""
    return QColor("#5a5220") if is_dark(palette) else QColor("#fff3a8")


def changed_background(palette: QPalette | None = None) -> QColor:
    """Rows the last step changed."""
    return QColor("#1f4d45") if is_dark(palette) else QColor("#c9f2e6")


def tie_background(palette: QPalette | None = None) -> QColor:
    """Pairs tied at the top count."""
    return QColor("#5c3326") if is_dark(palette) else QColor("#ffd9cc")


AA_TEXT = 4.5  # WCAG AA: the least contrast of text on its background


def muted(palette: QPalette | None = None) -> QColor:
    """Text of secondary importance (markers, redo-able merges): the palette's disabled text,
    moved toward the text colour until it reads at AA contrast on the background (a light
    palette's grey is often about 2:1)."""
    palette = palette or QApplication.palette()
    text = palette.color(QPalette.ColorRole.Text)
    base = palette.color(QPalette.ColorRole.Base)
    color = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    for step in range(11):
        mixed = mix(color, text, step / 10)
        if contrast(mixed, base) >= AA_TEXT:
            return mixed
    return text


def mix(a: QColor, b: QColor, share_of_b: float) -> QColor:
    return QColor(
        *(round((1 - share_of_b) * x + share_of_b * y) for x, y in zip(rgb(a), rgb(b), strict=True))
    )


def readable_selection(palette: QPalette) -> QPalette | None:
    """The palette with its selection darkened (or lightened) until the selected text reads at
    AA contrast, or ``None`` when it already does (Fusion's light blue is about 3.7:1)."""
    changed = None
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        text = palette.color(group, QPalette.ColorRole.HighlightedText)
        highlight = palette.color(group, QPalette.ColorRole.Highlight)
        if contrast(text, highlight) >= AA_TEXT:
            continue
        away = QColor("#000000") if text.lightness() >= 128 else QColor("#ffffff")
        for step in range(1, 11):
            candidate = mix(highlight, away, step / 10)
            if contrast(text, candidate) >= AA_TEXT:
                break
        changed = changed or QPalette(palette)
        changed.setColor(group, QPalette.ColorRole.Highlight, candidate)
    return changed


def marker_color(palette: QPalette, chip: QColor) -> QColor:
    """The end-of-word marker on a chip: set back from the token's text, yet legible on the chip
    (mostly text colour: a contrast of at least 4.5:1 on every chip colour, light or dark)."""
    text = palette.color(QPalette.ColorRole.Text)
    return QColor(*(round(0.85 * t + 0.15 * c) for t, c in zip(rgb(text), rgb(chip), strict=True)))


def rgb(color: QColor) -> tuple[int, int, int]:
    """The colour's red, green and blue, 0 to 255 (``getRgb`` without alpha, typed)."""
    return color.red(), color.green(), color.blue()


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""

    def luminance(color: QColor) -> float:
        channels = [c / 255 for c in rgb(color)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
