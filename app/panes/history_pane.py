"""History pane: the tree of merge histories drawn as lanes.

Steps run left to right, one lane per branch (a branch below the one it forked from). Each
fork is labelled with the merge that made the branch differ and who decided it; the current
node is the ringed dot. Click a node to go there, double-click a lane (or F2) to rename its
branch; ↑ and ↓ move to the branch above or below at the same step (or its last), Home and End
to the current branch's ends. Only the visible steps are drawn, so 10,000 steps on several
branches paint as fast as ten.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from functools import partial

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QInputDialog,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from app.bridge import Bridge
from app.glyphs import left_to_right
from app.guard import guard_overrides
from app.refresh_timer import RefreshTimer
from app.theme import is_dark, muted
from app.widgets import confirmed, keeping_focus, status_label
from bpe_core.errors import plural
from bpe_core.history.branches import BranchInfo
from bpe_core.history.records import MergeRecord
from bpe_core.pipeline.vocab import display
from bpe_core.tools.compare import line_names

LABEL_PAIRS = 3  # pairs a fork's label names; the rest are counted
NAVIGATION = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_F2)


def lane_order(branches: list[BranchInfo]) -> list[BranchInfo]:
    """Branches top to bottom: each right below the branch it forked from, the earlier fork
    first (a tree walked depth first)."""
    children: dict[int | None, list[BranchInfo]] = {}
    known = {b.id for b in branches}
    for branch in branches:
        parent = branch.parent if branch.parent in known else None
        children.setdefault(parent, []).append(branch)
    ordered: list[BranchInfo] = []
    stack = sorted(children.get(None, []), key=lambda b: (b.fork, b.id), reverse=True)
    while stack:
        branch = stack.pop()
        ordered.append(branch)
        stack.extend(sorted(children.get(branch.id, []), key=lambda b: (b.fork, b.id), reverse=True))
    return ordered


def fork_label(record: MergeRecord, pair_text: Callable[[tuple[int, int]], str]) -> str:
    """A fork's label: the merge, who decided it, and what it was chosen over.

    Example: ``l + o · user · count 7, chosen over e + s (9)``. A pair picked below the top
    names the top pairs (``record.candidates``; a file saved before they were recorded for a
    pick without a tie has none: then only how many); a pair merged at a tie names the others.
    """
    text = f"{pair_text(record.pair)} · {record.decided_by}"
    named = [pair_text(p) for p in record.candidates if p != record.pair][:LABEL_PAIRS]
    if record.count < record.top_count:
        top = max(1, record.ties)
        over = (
            _pairs_phrase(named, top) if named else "the top pair" if top == 1 else f"the {top:,} top pairs"
        )
        each = " each" if top > 1 else ""
        return f"{text} · count {record.count:,}, chosen over {over} ({record.top_count:,}{each})"
    if record.ties > 1:
        others = record.ties - 1
        tied = (
            _pairs_phrase(named, others) if named else "another pair" if others == 1 else f"{others:,} others"
        )
        return f"{text} · tied with {tied}"
    return text


def _pairs_phrase(named: list[str], total: int) -> str:
    """``a + b``, ``a + b and c + d``, or ``a + b, c + d and 3 more`` (``total`` in all)."""
    more = total - len(named)
    if more > 0:
        return f"{', '.join(named)} and {more:,} more"
    return named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"


@guard_overrides
class HistoryGraph(QAbstractScrollArea):
    """The lanes (see the module's docstring). Horizontal scrolling moves along the steps."""

    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self.lanes: list[BranchInfo] = []
        self._labels: dict[int, str] = {}  # branch -> the label of its fork
        self._label_cache: dict[tuple, str] = {}
        self._labelled: weakref.ref | None = None  # the trainer the cache is for
        metrics = QFontMetrics(self.font())
        self.step_width = max(12, metrics.horizontalAdvance("0") * 2)
        self.lane_height = metrics.height() * 2 + 8
        self.name_width = metrics.horizontalAdvance("M") * 12
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.horizontalScrollBar().valueChanged.connect(self.viewport().update)
        self.verticalScrollBar().valueChanged.connect(self.viewport().update)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)

    # -- data --------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the branches again and keep the current node in view."""
        self.reload()
        self.ensure_visible(self.current_lane(), self._bridge.trainer.position)
        self.viewport().update()

    def reload(self) -> None:
        """Read the branches again (cheap: one line per branch), scrolling nothing."""
        trainer = self._bridge.trainer
        if self._labelled is None or self._labelled() is not trainer:
            self._label_cache.clear()
            self._labelled = weakref.ref(trainer)
        self.lanes = lane_order(trainer.branches())
        self._labels = {}
        for branch in self.lanes:
            if branch.parent is not None and branch.length > branch.fork:
                line = trainer.branch_history(branch.id)[: branch.fork + 1]
                # A fork's label changes only with its record (decided anew): cached by both.
                key = (branch.id, line[-1])
                label = self._label_cache.get(key)
                if label is None:
                    label = self._label_cache[key] = self._fork_label(line)
                self._labels[branch.id] = label
        longest = max((b.length for b in self.lanes), default=0)
        bar = self.horizontalScrollBar()
        bar.setRange(0, max(0, self._x(longest) + self.step_width * 4 - self.viewport().width()))
        bar.setPageStep(self.viewport().width())
        bar.setSingleStep(self.step_width)
        vertical = self.verticalScrollBar()
        vertical.setRange(0, max(0, len(self.lanes) * self.lane_height - self.viewport().height()))
        vertical.setPageStep(self.viewport().height())

    def _fork_label(self, records: Sequence[MergeRecord]) -> str:
        """The merge that made a branch differ (the last of ``records``), with what it was
        chosen over (see :func:`fork_label`)."""
        trainer = self._bridge.trainer
        names = line_names(trainer, records)
        marker = trainer.corpus.config.end_of_word
        label = fork_label(
            records[-1],
            lambda pair: f"{display(names[pair[0]], marker)} + {display(names[pair[1]], marker)}",
        )
        return left_to_right(label)  # painted: tokens of any script in their places

    def current_lane(self) -> int:
        return next((i for i, b in enumerate(self.lanes) if b.current), 0)

    # -- geometry ----------------------------------------------------------------------------

    def _x(self, step: int) -> int:
        """Where step ``step`` is drawn, in the whole (unscrolled) graph."""
        return self.name_width + step * self.step_width + self.step_width // 2

    def _y(self, lane: int) -> int:
        return lane * self.lane_height + self.lane_height * 2 // 3

    def node_at(self, point: QPoint) -> tuple[int, int] | None:
        """(lane, step) under a point of the viewport, or ``None``."""
        x = point.x() + self.horizontalScrollBar().value()
        y = point.y() + self.verticalScrollBar().value()
        lane = y // self.lane_height
        if not 0 <= lane < len(self.lanes) or x < self.name_width:
            return None
        branch = self.lanes[lane]
        step = round((x - self.name_width - self.step_width / 2) / self.step_width)
        return lane, min(max(step, 0), branch.length)

    def node_point(self, lane: int, step: int) -> QPoint:
        """The viewport point of a node (for tests and keyboard scrolling)."""
        return QPoint(
            self._x(step) - self.horizontalScrollBar().value(),
            self._y(lane) - self.verticalScrollBar().value(),
        )

    def label_place(self, lane: int) -> tuple[QPointF, str] | None:
        """Where a lane's fork label is drawn in the viewport, and its text as drawn: beside the
        fork, or at the left edge (right of the names) while the fork is scrolled out of view
        and the lane still shows; elided at the right edge. ``None`` when it has no room."""
        branch = self.lanes[lane]
        label = self._labels.get(branch.id)
        if label is None:
            return None
        dx = self.horizontalScrollBar().value()
        radius = max(3, self.step_width // 4)
        left = self.name_width + 2
        if self._x(branch.length) - dx < left:  # the whole lane is scrolled out on the left
            return None
        start = branch.fork if any(b.id == branch.parent for b in self.lanes) else 0
        x = max(self._x(start + 1) - dx + radius + 2, left)
        metrics = QFontMetrics(self.font())
        room = self.viewport().width() - x - 4
        if room < metrics.horizontalAdvance("M") * 4:
            return None
        text = metrics.elidedText(label, Qt.TextElideMode.ElideRight, room)
        y = self._y(lane) - self.verticalScrollBar().value() - radius - 3
        return QPointF(x, y), text

    def ensure_visible(self, lane: int, step: int) -> None:
        x = self._x(step)
        bar = self.horizontalScrollBar()
        left, width = bar.value(), self.viewport().width()
        if x < left + self.name_width + self.step_width or x > left + width - self.step_width * 2:
            bar.setValue(x - self.name_width - (width - self.name_width) // 2)
        y = self._y(lane)
        vertical = self.verticalScrollBar()
        if not vertical.value() <= y <= vertical.value() + self.viewport().height() - self.lane_height // 2:
            vertical.setValue(y - self.viewport().height() // 2)

    # -- painting ----------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self.viewport())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        dx, dy = self.horizontalScrollBar().value(), self.verticalScrollBar().value()
        width = self.viewport().width()
        first = max(0, (dx - self.name_width) // self.step_width - 1)
        last = (dx + width - self.name_width) // self.step_width + 1
        dark = is_dark()
        line, faint = QColor("#d4d4d4" if dark else "#444444"), muted()
        accent = self.palette().highlight().color()
        row = {b.id: i for i, b in enumerate(self.lanes)}
        position = self._bridge.trainer.position
        radius = max(3, self.step_width // 4)
        for lane, branch in enumerate(self.lanes):
            y = self._y(lane) - dy
            if y < -self.lane_height or y > self.viewport().height() + self.lane_height:
                continue
            start = branch.fork if branch.parent in row else 0
            if branch.parent in row:  # the fork: from the parent's lane down to this one
                parent_y = self._y(row[branch.parent]) - dy
                painter.setPen(QPen(faint, 1.5))
                painter.drawLine(QPointF(self._x(start) - dx, parent_y), QPointF(self._x(start + 1) - dx, y))
            painter.setPen(QPen(accent if branch.current else line, 3 if branch.current else 1.5))
            x0, x1 = self._x(max(start, first)) - dx, self._x(min(branch.length, last)) - dx
            if x1 >= x0 and branch.length > start:
                painter.drawLine(QPointF(x0, y), QPointF(x1, y))
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(accent if branch.current else line)
            if self.step_width >= 8:
                for step in range(max(start + 1, first), min(branch.length, last) + 1):
                    painter.drawEllipse(QPointF(self._x(step) - dx, y), radius - 1, radius - 1)
            placed = self.label_place(lane)
            if placed is not None:
                painter.setPen(faint)
                painter.drawText(placed[0], placed[1])
        current = self.current_lane()
        if self.lanes:
            point = QPointF(self._x(position) - dx, self._y(current) - dy)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(accent, 2.5))
            painter.drawEllipse(point, radius + 3, radius + 3)
        # Names stay at the left edge whatever the scroll: drawn last, over a plain background.
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.palette().base())
        painter.drawRect(QRect(0, 0, self.name_width - 4, self.viewport().height()))
        metrics = QFontMetrics(self.font())
        for lane, branch in enumerate(self.lanes):
            y = self._y(lane) - dy
            font = painter.font()
            font.setBold(branch.current)
            painter.setFont(font)
            painter.setPen(line)
            name = metrics.elidedText(branch.name, Qt.TextElideMode.ElideRight, self.name_width - 12)
            painter.drawText(QPointF(6, y + metrics.ascent() / 2 - 1), name)
        painter.end()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self._bridge.trainer_busy:  # a job's end refreshes the pane anyway
            self.refresh()

    # -- input -------------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self._bridge.trainer_busy:
            self.reload()  # not refresh: scrolling now would move the node under the pointer
        node = self.node_at(event.position().toPoint())
        if node is not None and event.button() == Qt.MouseButton.LeftButton:
            lane, step = node
            self._bridge.switch_branch(self.lanes[lane].id, step)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        node = self.node_at(event.position().toPoint())
        if node is not None:
            self.rename(self.lanes[node[0]].id)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        node = self.node_at(event.position().toPoint())
        if node is None:
            self.setToolTip("")
        else:
            branch = self.lanes[node[0]]
            fork = self._labels.get(branch.id)  # in full: the one drawn may be elided
            self.setToolTip(
                f"{branch.name}: step {node[1]:,} of {branch.length:,}. Click to go there; "
                "double-click to rename the branch" + (f"\nForked by {fork}" if fork else "")
            )
        super().mouseMoveEvent(event)

    def event(self, event: QEvent) -> bool:
        # The window's shortcuts would take these keys first: claim them while the graph has focus.
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() in NAVIGATION
            and event.modifiers() == Qt.KeyboardModifier.NoModifier
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        trainer = self._bridge.trainer
        if key in NAVIGATION and not self._bridge.trainer_busy:
            self.refresh()  # the drawing may lag a fast key by one coalesced refresh
        lane = self.current_lane()
        if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.lanes:
            target = lane - 1 if key == Qt.Key.Key_Up else lane + 1
            if 0 <= target < len(self.lanes):
                branch = self.lanes[target]
                self._bridge.switch_branch(branch.id, min(trainer.position, branch.length))
        elif key == Qt.Key.Key_Home:
            self._bridge.goto(0)
        elif key == Qt.Key.Key_End:
            self._bridge.goto(trainer.history_length)
        elif key == Qt.Key.Key_F2 and self.lanes:
            self.rename(self.lanes[lane].id)
        else:
            super().keyPressEvent(event)

    def rename(self, branch: int) -> None:
        info = next((b for b in self.lanes if b.id == branch), None)
        if info is None:
            return
        # A label as wide as the title: a narrow dialog had its title cut ("Renam… ranch").
        with keeping_focus(self.window()):  # the keys come back to the graph, not to nowhere
            name, accepted = QInputDialog.getText(
                self, "Rename branch", f"A new name for {info.name!r}:", text=info.name
            )
        if accepted:
            self._bridge.rename_branch(branch, name)

    def _menu(self, point: QPoint) -> None:
        """The branch's actions at a right-clicked node; from the keyboard (the Menu key,
        Shift+F10), at the current step, with every other branch to delete."""
        clicked = self.node_at(point)
        keyboard = clicked is None
        if clicked is not None:
            lane, step = clicked
        elif self.lanes:
            lane, step = self.current_lane(), self._bridge.trainer.position
        else:
            return
        branch = self.lanes[lane]
        menu = QMenu(self)
        menu.setAccessibleName(f"Branch {branch.name}")
        menu.addAction(
            f"&Go to step {step:,} of {branch.name}", lambda: self._bridge.switch_branch(branch.id, step)
        )
        menu.addAction("&Rename…", lambda: self.rename(branch.id))
        delete = menu.addAction("&Delete branch", lambda: self.delete(branch))
        delete.setEnabled(not branch.current)
        if keyboard:
            others = menu.addMenu("Delete a&nother branch")
            for other in self.lanes:
                if not other.current:
                    others.addAction(other.name.replace("&", "&&"), partial(self.delete, other))
            others.setEnabled(not others.isEmpty())
        menu.exec(self.viewport().mapToGlobal(point))

    def delete(self, branch: BranchInfo) -> None:
        """Delete a branch once the user has said yes: it keeps no undo, and its merges may
        have been chosen by hand."""
        own = branch.length - branch.fork
        question = (
            f"Delete the branch {branch.name!r} and its {own:,} {plural(own, 'merge')} of its own? "
            "This cannot be undone."
        )
        if confirmed(self, "Delete branch", question):
            self._bridge.delete_branch(branch.id)


@guard_overrides
class HistoryPane(QWidget):
    def __init__(self, bridge: Bridge, parent=None) -> None:
        super().__init__(parent)
        # Attributes
        self._bridge = bridge
        self.graph = HistoryGraph(bridge, self)
        self.graph.setAccessibleName("History of branches")
        self.graph.setAccessibleDescription("Each branch as a lane of its merges; the current step is marked")
        self.summary = status_label()
        self._timer = RefreshTimer(bridge, self.refresh, 30, self)  # coalesces fast stepping
        # Layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.graph, 1)
        layout.addWidget(self.summary)
        # Signals
        self.refresh()

    def refresh(self) -> None:
        self.graph.refresh()
        trainer = self._bridge.trainer
        lanes = self.graph.lanes
        current = lanes[self.graph.current_lane()] if lanes else None
        count = len(lanes)
        where = f"on {current.name!r} at step {trainer.position:,} of {current.length:,}" if current else ""
        self.summary.setText(f"{count} branch{'es' if count != 1 else ''}, {where}")
