"""The window (PySide6 and pyqtgraph) over the engine: one adapter (``bridge``) turns the engine's
events into Qt signals and runs its jobs; panes, item models and dialogs talk to the bridge.

May import ``bpe_core`` (its public face and its stages); the engine never imports this.
"""
