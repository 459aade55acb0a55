"""Settings: every pipeline and training option of the core, and the default run target.

Pipeline changes rebuild the session from its source (after confirmation when merges would be
lost); the tie rule and minimum frequency apply to the next steps without a rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import Qt
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.guard import guard_overrides
from bpe_core import ConfigError, PipelineConfig, TrainingConfig
from bpe_core.pipeline.config import NAMED_NORMALIZATIONS, NAMED_PRETOKENIZERS, UNITS
from bpe_core.training.tie_rules import DESCRIPTIONS, RULE_NAMES, parse_rule

ASK_ME = "Ask me"
ALL = "all"  # merges per pass: every pair of the ranking that does not conflict
TARGETS = ("none", "merges", "vocab_size")
TARGET_LABELS = ("No target (until no pair qualifies)", "Number of merges", "Vocabulary size")


@dataclass(frozen=True)
class Target:
    """The default stop of "Run to target": a number of merges or a vocabulary size."""

    kind: str = "none"
    value: int = 1000


@guard_overrides
class PerPassBox(QSpinBox):
    """Merges per pass: a number, or "all" (0: every non-conflicting pair of the ranking), shown
    and typed as "all" (a plain spin box refused the letters as they were typed)."""

    def __init__(self) -> None:
        super().__init__(minimum=0, maximum=10**6)
        self.setSpecialValueText(ALL)

    def validate(self, text: str, position: int) -> tuple[QValidator.State, str, int]:
        word = text.strip().lower()
        if word and ALL.startswith(word):
            state = QValidator.State.Acceptable if word == ALL else QValidator.State.Intermediate
            return state, text, position
        return super().validate(text, position)

    def valueFromText(self, text: str) -> int:
        return 0 if text.strip().lower() == ALL else super().valueFromText(text)


@guard_overrides
class SettingsDialog(QDialog):
    def __init__(
        self,
        config: PipelineConfig,
        training: TrainingConfig,
        target: Target,
        parent=None,
        ask_at_ties: bool = False,
        counted: bool = False,
        lines: bool | None = None,
    ) -> None:
        """``counted``: the corpus is word counts whose settings that make pieces are the file's;
        ``lines``: whether its text is read a line at a time (``None``: it has no text to read
        again, as word counts and sessions have not)."""
        super().__init__(parent)
        self.setWindowTitle("Settings")
        # Widgets
        self._config = config  # what the dialog does not show (an imported tokenizer's steps) stays
        self.normalization = QComboBox()
        self.normalization.addItems(_choices(NAMED_NORMALIZATIONS, config.normalization))
        self.lowercase = QCheckBox("&Lowercase")
        self.pretokenize = QComboBox()
        self.pretokenize.addItems(_choices(NAMED_PRETOKENIZERS, config.pretokenize))
        self.prefix_space = QCheckBox("Put a &space before the text (Hugging Face's add_prefix_space)")
        self.lines = QCheckBox(
            "Eac&h line is a text, its break kept (as Hugging Face's train(files) reads files)"
        )
        self.unit = QComboBox()
        self.unit.addItems(UNITS)
        self.marker = QLineEdit(placeholderText="none")
        self.attach = QCheckBox("&Attach to the last symbol (w</w>) instead of a symbol of its own")
        self.specials = QPlainTextEdit()
        self.specials.setTabChangesFocus(True)  # a tab is never a special token: Tab moves on
        self.specials.setPlaceholderText("One special token per line, e.g. <|endoftext|>")
        self.specials.setMaximumHeight(64)
        self.min_frequency = QSpinBox(minimum=1, maximum=10**9)
        self.rule = QComboBox()
        for name in RULE_NAMES:
            self.rule.addItem(name)
            self.rule.setItemData(self.rule.count() - 1, DESCRIPTIONS[name], Qt.ItemDataRole.ToolTipRole)
        self.rule.addItem(ASK_ME)  # as in the toolbar: stop at a tie and let the user choose
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1)
        self.per_pass = PerPassBox()
        self.per_pass.setToolTip(
            "1 is classic BPE. More: each step merges up to this many pairs of the ranking at once, "
            "skipping a pair whose left symbol is a taken pair's right one (or the reverse). "
            "Type all (or 0) for every pair that does not conflict."
        )
        self.target_kind = QComboBox()
        self.target_kind.addItems(TARGET_LABELS)
        self.target_value = QSpinBox(minimum=1, maximum=10**7)
        self.target_value.setAccessibleName("Target value")  # beside the target's kind, unlabelled
        self.error = QLabel()
        self.error.setStyleSheet("color: #c0392b;")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        # Setup
        self.normalization.setCurrentText(config.normalization)
        self.lowercase.setChecked(config.lowercase)
        self.pretokenize.setCurrentText(config.pretokenize)
        self.prefix_space.setChecked(config.prefix_space)
        self.lines.setChecked(bool(lines))
        if lines is None:
            self.lines.setEnabled(False)
            self.lines.setToolTip(
                "Only text is read a line at a time: word counts and sessions keep no lines"
            )
        self.unit.setCurrentText(config.unit)
        self.marker.setText(config.end_of_word or "")
        self.attach.setChecked(config.attach_marker)
        self.specials.setPlainText("\n".join(config.special_tokens))
        self.min_frequency.setValue(training.min_frequency)
        rule = parse_rule(training.tie_break)
        self.rule.setCurrentText(ASK_ME if ask_at_ties else rule.name)
        self._engine_rule = training.tie_break  # kept while Ask me decides the ties
        self.seed.setValue(rule.seed)
        self.per_pass.setValue(training.merges_per_pass)
        self.target_kind.setCurrentIndex(TARGETS.index(target.kind))
        self.target_value.setValue(target.value)
        for box, custom in (
            (self.normalization, config.normalization == "custom"),
            (self.pretokenize, config.pretokenize == "custom"),
        ):
            if custom:  # an imported tokenizer's own chain of steps: kept as it is
                box.setEnabled(False)
                box.setToolTip("The imported tokenizer's own chain of steps, kept as it is")
        counting: tuple[QWidget, ...] = (
            self.normalization,
            self.lowercase,
            self.pretokenize,
            self.prefix_space,
            self.specials,
        )
        for field in counting if counted else ():
            field.setEnabled(False)
            field.setToolTip("Set by the word counts file: its words are the pieces this setting made")
        # Layout
        pipeline = QGroupBox(
            "Pipeline (changing it rebuilds the session"
            + ("; greyed: as the word counts were counted)" if counted else ")")
        )
        form = QFormLayout(pipeline)
        form.addRow("Unicode &normalization", self.normalization)
        form.addRow("", self.lowercase)
        form.addRow("&Pre-tokenization", self.pretokenize)
        form.addRow("", self.prefix_space)
        form.addRow("", self.lines)
        form.addRow("&Unit", self.unit)
        form.addRow("&End-of-word marker", self.marker)
        form.addRow("", self.attach)
        form.addRow("Special &tokens", self.specials)
        training_box = QGroupBox("Training (applies to the next steps)")
        form = QFormLayout(training_box)
        form.addRow("&Minimum pair count", self.min_frequency)
        row = QHBoxLayout()
        row.addWidget(self.rule, 1)
        row.addWidget(_buddy("see&d", self.seed))
        row.addWidget(self.seed)
        form.addRow(_buddy("Tie-&break rule", self.rule), row)
        form.addRow("Mer&ges per pass", self.per_pass)
        row = QHBoxLayout()
        row.addWidget(self.target_kind, 1)
        row.addWidget(self.target_value)
        form.addRow(_buddy("&Run to target", self.target_kind), row)
        layout = QVBoxLayout(self)
        layout.addWidget(pipeline)
        layout.addWidget(training_box)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        # Signals
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.rule.currentTextChanged.connect(lambda name: self.seed.setEnabled(name == "random"))
        self.target_kind.currentIndexChanged.connect(lambda i: self.target_value.setEnabled(i != 0))
        self.seed.setEnabled(rule.name == "random")
        self.target_value.setEnabled(target.kind != "none")

    def values(self) -> tuple[PipelineConfig, TrainingConfig, Target]:
        """The chosen settings; raises ConfigError with one sentence if they are invalid."""
        marker = self.marker.text()
        specials = tuple(line for line in self.specials.toPlainText().splitlines() if line)
        config = replace(
            self._config,
            normalization=self.normalization.currentText(),
            lowercase=self.lowercase.isChecked(),
            pretokenize=self.pretokenize.currentText(),
            unit=self.unit.currentText(),
            end_of_word=marker or None,
            attach_marker=self.attach.isChecked() and bool(marker),
            special_tokens=specials,
            prefix_space=self.prefix_space.isChecked(),
            special_matching=tuple(m for m in self._config.special_matching if m.content in specials),
        )
        name = self.rule.currentText()
        spec = f"random:{self.seed.value()}" if name == "random" else name
        spec = self._engine_rule if name == ASK_ME else spec
        training = TrainingConfig(
            min_frequency=self.min_frequency.value(), tie_break=spec, merges_per_pass=self.per_pass.value()
        )
        if config.end_of_word is not None and config.end_of_word in config.special_tokens:
            raise ConfigError("The end-of-word marker cannot also be a special token.")
        target = Target(TARGETS[self.target_kind.currentIndex()], self.target_value.value())
        return config, training, target

    @property
    def ask_at_ties(self) -> bool:
        return self.rule.currentText() == ASK_ME

    def accept(self) -> None:
        try:
            self.values()
        except ConfigError as error:
            self.error.setText(str(error))
            return
        super().accept()


def _choices(named: tuple[str, ...], current: str) -> list[str]:
    """The named settings, and ``custom`` when the session has an imported chain of steps."""
    return [*named, current] if current not in named else list(named)


def _buddy(text: str, field: QWidget) -> QLabel:
    """A label whose mnemonic (Alt and its underlined letter) gives ``field`` the keys."""
    label = QLabel(text)
    label.setBuddy(field)
    return label
