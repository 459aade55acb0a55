"""Importing tiktoken ranks: a ``.tiktoken`` file holds neither the split pattern nor the
special tokens, so the user gives both, pre-filled with what the file implies.

GPT-2's ranks and cl100k_base's are recognised by their content (the SHA-256 that tiktoken
itself checks them with), a file of their size as "looking like" them; anything else starts at
GPT-2's pattern, saying that it is a guess.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.guard import guard_overrides

# The split patterns the engine knows (bpe_core.io.formats.tiktoken_ranks.PATTERNS), as offered.
PATTERN_CHOICES = (
    ("gpt2", "gpt2: GPT-2 and GPT-3 (r50k_base, p50k_base)"),
    ("cl100k", "cl100k: GPT-3.5 and GPT-4 (cl100k_base)"),
)
GPT2_SPECIALS = ("<|endoftext|>",)
CL100K_SPECIALS_NOTE = (
    "cl100k_base's special tokens have ids with a gap (<|endoftext|> is 100257); special tokens "
    "given here take the ids right after the ranks (100256, …)."
)
HASHED_UP_TO = 64 * 1024 * 1024  # bytes: larger files are not hashed (no known ranks are that large)


@dataclass(frozen=True)
class RanksGuess:
    """What a ranks file implies: its split pattern, special tokens, and a sentence saying why."""

    pattern: str
    specials: tuple[str, ...]
    reason: str
    note: str = ""


# SHA-256 of the files tiktoken downloads (tiktoken_ext/openai_public.py checks the same).
KNOWN = {
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": RanksGuess(
        "gpt2", GPT2_SPECIALS, "These are GPT-2's ranks (tiktoken's r50k_base)."
    ),
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": RanksGuess(
        "cl100k", (), "These are cl100k_base's ranks (GPT-3.5 and GPT-4).", CL100K_SPECIALS_NOTE
    ),
}


def guess_ranks(path: Path) -> RanksGuess:
    """The pattern and special tokens ``path`` implies: by its content when it is a known file,
    else by its number of ranks (50,256 to 50,280: GPT-2's family; 100,256: cl100k_base's)."""
    try:
        if path.stat().st_size <= HASHED_UP_TO:
            data = path.read_bytes()
            known = KNOWN.get(hashlib.sha256(data).hexdigest())
            if known is not None:
                return known
            ranks = sum(1 for line in data.splitlines() if line.strip())
            if ranks == 100_256:
                return RanksGuess(
                    "cl100k", (), "It has 100,256 ranks, as cl100k_base has.", CL100K_SPECIALS_NOTE
                )
            if 50_256 <= ranks <= 50_280:
                return RanksGuess("gpt2", GPT2_SPECIALS, f"It has {ranks:,} ranks, as GPT-2's family has.")
    except OSError:
        pass  # the import reports what is wrong with the file
    return RanksGuess(
        "gpt2", (), "BPE Studio does not recognise these ranks: choose the pattern they were trained with."
    )


@guard_overrides
class RanksDialog(QDialog):
    """The split pattern and special tokens for a ``.tiktoken`` file, pre-filled from it."""

    def __init__(self, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Import {path.name}")
        guess = guess_ranks(path)
        # Widgets
        intro = QLabel(
            "tiktoken ranks hold neither the pattern that splits the text nor the special tokens: "
            f"give them as the tokenizer had them. {guess.reason}"
        )
        intro.setWordWrap(True)
        self.pattern = QComboBox()
        for name, label in PATTERN_CHOICES:
            self.pattern.addItem(label, name)
        self.pattern.setCurrentIndex(self.pattern.findData(guess.pattern))
        self.specials = QLineEdit(" ".join(guess.specials))
        self.specials.setPlaceholderText("none; e.g. <|endoftext|>")
        self.specials.setToolTip("Separated by spaces; numbered after the ranks, in this order")
        note = QLabel(guess.note)
        note.setWordWrap(True)
        note.setVisible(bool(guess.note))
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        # Layout
        form = QFormLayout()
        form.addRow("Split pattern", self.pattern)
        form.addRow("Special tokens", self.specials)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(buttons)
        self.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * 36)
        # Signals
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.pattern.setFocus()

    def chosen(self) -> tuple[str, tuple[str, ...]]:
        """(pattern name, special tokens)."""
        return self.pattern.currentData(), tuple(self.specials.text().split())


def ask_ranks_settings(path: Path, parent: QWidget | None = None) -> tuple[str, tuple[str, ...]] | None:
    """Ask for a ``.tiktoken`` file's pattern and special tokens; ``None`` if cancelled."""
    dialog = RanksDialog(path, parent)
    try:
        return dialog.chosen() if dialog.exec() else None
    finally:
        dialog.deleteLater()
