"""Ask me: a step met a tie. Shows the tied candidates and which one each named rule would pick;
the user picks one (recorded as decided by the user) or lets a rule decide (recorded by name)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from app.delegates.left_to_right import tokens_left_to_right
from app.glyphs import visible
from app.guard import guard_overrides
from app.mnemonics import with_mnemonics
from bpe_core import Trainer
from bpe_core.history.records import USER

Pair = tuple[int, int]


@guard_overrides
class TieDialog(QDialog):
    """``candidates``: the first tied pairs in the current rule's order. Each rule's pick is
    computed among *all* tied pairs, and listed too if it is not among them."""

    def __init__(self, trainer: Trainer, candidates: list[Pair], parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("A tie: choose the next merge")
        # Attributes
        self.choice: tuple[Pair, str] | None = None
        self._choices = trainer.rule_choices()
        first = len(candidates)
        self._candidates = list(candidates)
        self._candidates += [p for p in dict.fromkeys(self._choices.values()) if p not in self._candidates]
        candidates = self._candidates
        config = trainer.corpus.config
        token = trainer.token_string
        ties = trainer.ties_at_top()
        # Widgets
        intro = QLabel(
            f"{ties:,} pairs share the top count {trainer.top_count():,}."
            + (
                f" Listed: the first {first} in the current rule's order, and each rule's pick "
                f"among all {ties:,}."
                if ties > first
                else ""
            )
        )
        intro.setWordWrap(True)
        self.list = QTreeWidget()
        self.list.setAccessibleName("Tied pairs")
        self.list.setAccessibleDescription("The pairs tied at the top count; Enter merges the selected one")
        self.list.setHeaderLabels(["Pair", "Merged", "Picked by"])
        self.list.setRootIsDecorated(False)
        tokens_left_to_right(self.list, 0, 1)
        for pair in candidates:
            left, right = token(pair[0]), token(pair[1])
            picked_by = ", ".join(rule for rule, choice in self._choices.items() if choice == pair)
            self.list.addTopLevelItem(
                QTreeWidgetItem(
                    [
                        f"{visible(left, config)}  +  {visible(right, config)}",
                        visible(left + right, config),
                        picked_by,
                    ]
                )
            )
        top = self.list.topLevelItem(0)
        if top is not None:
            self.list.setCurrentItem(top)
        self.list.setColumnWidth(0, 200)
        self.list.setColumnWidth(1, 120)
        buttons = QDialogButtonBox()
        # Alt and a letter presses each: the rules' own first letters where they differ.
        merge, *rules = with_mnemonics(["&Merge selected", *self._choices])
        self.merge_button = buttons.addButton(merge, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        # The rules' buttons two to a row: in one row they made the dialog wider than a
        # projector's screen once zoomed, Cancel out of sight.
        rule_grid = QGridLayout()
        self.rule_buttons: dict[str, QPushButton] = {}
        for index, (rule, text) in enumerate(zip(self._choices, rules, strict=True)):
            button = QPushButton(f"Let {text} decide")
            rule_grid.addWidget(button, index // 2, index % 2)
            self.rule_buttons[rule] = button
            button.clicked.connect(lambda _=False, r=rule: self._decide(self._choices[r], r))
        # Layout
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addLayout(rule_grid)
        layout.addWidget(buttons)
        # Enter merges the selected pair: set once the button is the dialog's (before, the dialog
        # took its first button for the default, "Let first-seen decide").
        self.merge_button.setDefault(True)
        self.resize(620, 380)
        self.list.setFocus()  # the keys on the pairs: ↑ ↓ choose, Enter merges
        # Signals
        self.merge_button.clicked.connect(self._merge_selected)
        self.list.itemDoubleClicked.connect(lambda *_: self._merge_selected())
        buttons.rejected.connect(self.reject)

    def select(self, pair: Pair) -> None:
        item = self.list.topLevelItem(self._candidates.index(pair))
        if item is not None:
            self.list.setCurrentItem(item)

    def _merge_selected(self) -> None:
        item = self.list.currentItem()
        row = -1 if item is None else self.list.indexOfTopLevelItem(item)
        if row >= 0:
            self._decide(self._candidates[row], USER)

    def _decide(self, pair: Pair, decided_by: str) -> None:
        self.choice = (pair, decided_by)
        self.accept()
