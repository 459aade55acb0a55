"""The panes of the window, each declared once: its name, title, how it is made, where its dock
goes and what it shares room with. The window builds every dock from this list, and zoom, the
palette and the saved layout reach each pane through it, so a new view is one module plus one
line in :data:`PANES`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from app.bridge import Bridge
from app.panes.corpus_pane import CorpusPane
from app.panes.encode_pane import EncodePane
from app.panes.history_pane import HistoryPane
from app.panes.merges_pane import MergesPane
from app.panes.pairs_pane import PairsPane
from app.panes.plots_pane import PLOT_TEXT_SCALE, PlotsPane
from app.panes.vocab_pane import VocabPane

P = TypeVar("P", bound=QWidget)
LEFT, RIGHT = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea


@dataclass(frozen=True)
class PaneSpec(Generic[P]):
    """One pane as the window shows it.

    Parameters
    ----------
    name
        Short name: the window's key for the pane and its dock (``window.docks[name]``); the
        dock's object name is ``dock_<name>``, which users' saved layouts refer to, so a name
        never changes once released.
    title
        The dock's title, which is also its entry in the View menu.
    factory
        Makes the pane for a bridge (a pane class itself, as a rule).
    area
        The dock area the pane opens in.
    below
        The pane it opens under, splitting that pane's room vertically.
    tab_with
        The pane it shares a tabbed dock with (the first of a group is the tab shown).
    visible
        Whether the pane shows in a window with no saved layout.
    restyle
        Recolours what does not read the palette at paint time, when the palette changes.
    zoom
        Given the window's new font size in points, scales what does not follow the window's
        font (the pane's widgets do by themselves).
    """

    name: str
    title: str
    factory: Callable[[Bridge], P]
    area: Qt.DockWidgetArea
    below: str | None = None
    tab_with: str | None = None
    visible: bool = True
    restyle: Callable[[P], None] | None = None
    zoom: Callable[[P, float], None] | None = None

    @property
    def dock_name(self) -> str:
        """The dock's object name, as saved layouts know it."""
        return f"dock_{self.name}"


def _restyle_model(pane: CorpusPane | PairsPane | MergesPane) -> None:
    """A table whose model paints with colours of its own (chips, highlighted rows)."""
    pane.model.restyle()


def _zoom_plots(pane: PlotsPane, points: float) -> None:
    """Plot labels are drawn by pyqtgraph, which does not read the widget font."""
    pane.set_font_size(points * PLOT_TEXT_SCALE)


# The order is the View menu's and the order docks are added in (the default layout depends on it).
PANES: tuple[PaneSpec[Any], ...] = (
    PaneSpec("corpus", "Corpus", CorpusPane, LEFT, restyle=_restyle_model),
    PaneSpec("pairs", "Pairs", PairsPane, RIGHT, restyle=_restyle_model),
    PaneSpec("encode", "Encode", EncodePane, LEFT, below="corpus"),
    PaneSpec("merges", "Merges", MergesPane, RIGHT, below="pairs", restyle=_restyle_model),
    PaneSpec("vocab", "Vocabulary", VocabPane, RIGHT, tab_with="merges"),
    PaneSpec("plots", "Plots", PlotsPane, RIGHT, below="merges", restyle=PlotsPane.restyle, zoom=_zoom_plots),
    PaneSpec("history", "History", HistoryPane, RIGHT, tab_with="vocab"),
)

# The docks' sizes as the window opens (and as Ctrl+0 brings them back): which docks, their
# sizes in that order, along which direction. The Merges, Vocabulary and History tabs are tall
# enough for eight rows of the Vocabulary table.
DEFAULT_SIZES: tuple[tuple[tuple[str, ...], tuple[int, ...], Qt.Orientation], ...] = (
    (("corpus", "pairs"), (760, 680), Qt.Orientation.Horizontal),
    (("corpus", "encode"), (620, 200), Qt.Orientation.Vertical),
    (("pairs", "merges", "plots"), (250, 310, 260), Qt.Orientation.Vertical),
)
