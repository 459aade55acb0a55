"""Item data roles and alignments as plain module constants.

Views call ``data()`` hundreds of times per repaint, and PySide6 resolves ``Qt.ItemDataRole.X``
through a slow attribute hook on every access (about 0.6 µs; building an alignment flag with
``|`` about 3 µs): looked up once here, the models' ``data()`` stays cheap.
"""

from PySide6.QtCore import Qt

DISPLAY = Qt.ItemDataRole.DisplayRole
ALIGNMENT = Qt.ItemDataRole.TextAlignmentRole
BACKGROUND = Qt.ItemDataRole.BackgroundRole
FOREGROUND = Qt.ItemDataRole.ForegroundRole
FONT = Qt.ItemDataRole.FontRole
TOOLTIP = Qt.ItemDataRole.ToolTipRole
ACCESSIBLE_TEXT = Qt.ItemDataRole.AccessibleTextRole  # what a screen reader says of a cell
USER = Qt.ItemDataRole.UserRole

RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
HORIZONTAL = Qt.Orientation.Horizontal
