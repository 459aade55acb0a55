"""The window's panes, one module each, and ``registry``: the one line each pane takes (its dock,
View-menu toggle, zoom, palette and place in the saved layout follow from it)."""
