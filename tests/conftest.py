"""Shared test set-up: headless Qt, and paths to the shared corpora."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

pytest_plugins = ["tests.gui_helpers"]  # the window and dialog fixtures

REPO = Path(__file__).resolve().parents[1]
# The shared corpora live beside the checkout (../shared/corpora); a clone elsewhere finds them
# through BPE_STUDIO_CORPORA or the workspace's fixed location.
_CANDIDATES = [
    Path(os.environ["BPE_STUDIO_CORPORA"]) if os.environ.get("BPE_STUDIO_CORPORA") else None,
    REPO.parent / "shared" / "corpora",
    Path("/work/shared/corpora"),
]
CORPORA = next((p for p in _CANDIDATES if p is not None and p.is_dir()), REPO.parent / "shared" / "corpora")


def corpus_path(name: str) -> Path:
    """A file of the shared corpora; skipped (with the reason) only if they are absent."""
    path = CORPORA / name
    if not path.exists():
        pytest.skip(f"shared corpus {name} not available at {path}")
    return path
