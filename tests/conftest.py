"""Shared test set-up: headless Qt, and paths to the shared corpora."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

pytest_plugins = ["tests.gui_helpers"]  # the window and dialog fixtures

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"  # small real texts: the suite needs nothing else
GPT2_RANKS = REPO / "resources" / "tokenizers" / "gpt2.tiktoken"  # shipped: the GPT-2 sample
# The large shared corpora serve the tests marked ``corpora``: the folder named by
# BPE_STUDIO_CORPORA (authoritative when set: CI sets it to nowhere to prove the suite stands
# alone), else ../shared/corpora beside the checkout.
_named = os.environ.get("BPE_STUDIO_CORPORA")
CORPORA = Path(_named) if _named is not None else REPO.parent / "shared" / "corpora"


def data_text(name: str) -> str:
    """A text of ``tests/data`` (sources and licences in its SOURCES.md)."""
    return (DATA / name).read_text(encoding="utf-8")


# The test now running: CI's second pass, with the corpora hidden, runs only the tests marked
# ``corpora``, so a test reaching for a corpus without the mark fails here, in every run.
_running: list[pytest.Item] = []


def pytest_runtest_setup(item: pytest.Item) -> None:
    _running[:] = [item]


def pytest_runtest_teardown(item: pytest.Item) -> None:
    _running.clear()


def corpus_path(name: str) -> Path:
    """A file of the large shared corpora; the test skips, saying why, if they are absent.
    Only tests marked ``corpora`` may use them."""
    if _running and _running[0].get_closest_marker("corpora") is None:
        raise AssertionError(f"{_running[0].nodeid} reads the shared corpora: mark it `corpora`")
    path = CORPORA / name
    if not path.is_file():
        pytest.skip(f"the shared corpus {name} is not at {path} (set BPE_STUDIO_CORPORA)")
    return path
