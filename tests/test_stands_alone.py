"""The project stands alone: nothing in it reaches outside the checkout except the tests marked
``corpora``, through ``tests.conftest.corpus_path`` (which fails a test that is not marked). CI
therefore hides the shared corpora for those tests only, not for the whole suite again."""

import ast
from pathlib import Path

from tests.conftest import REPO

CODE = ("app", "bpe_core", "tests")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are docstrings (they may name the shared folder)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _reaches_outside(text: str) -> bool:
    return text == "shared" or "../shared" in text or "..\\shared" in text


def test_only_the_corpus_lookup_names_the_shared_folder():
    named = []
    for folder in CODE:
        for path in sorted((REPO / folder).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue  # this test spells what it looks for
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docstrings = _docstrings(tree)
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and id(node) not in docstrings
                    and _reaches_outside(node.value)
                ):
                    named.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert named == ["tests/conftest.py:20"]  # CORPORA, the folder corpus_path reads
