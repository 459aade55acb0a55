"""A yes/no question with a "Don't ask again" box, for confirmations a user may turn off."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QMessageBox, QWidget


def ask_with_opt_out(parent: QWidget | None, title: str, text: str, go_ahead: str) -> tuple[bool, bool]:
    """Ask; returns (whether to go ahead, whether to stop asking)."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
    proceed = box.addButton(go_ahead, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    opt_out = QCheckBox("Don't ask again (Settings can turn it back on)")
    box.setCheckBox(opt_out)
    box.exec()
    accepted = box.clickedButton() is proceed
    return accepted, accepted and opt_out.isChecked()
