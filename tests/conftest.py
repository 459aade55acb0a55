"""Shared test set-up: headless Qt, and paths to the shared corpora."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"


def corpus_path(name: str) -> Path:
    """A file of ../shared/corpora; the test is skipped only if the shared folder is absent."""
    path = CORPORA / name
    if not path.exists():
        pytest.skip(f"shared corpus {name} not available at {path}")
    return path
