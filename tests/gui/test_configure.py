"""The bridge takes the Settings dialog's training settings in one call, announced once."""

from dataclasses import replace

import pytest

from app.bridge import ASK, Bridge
from app.changes import ChangeKind
from app.gui import sample_trainer
from tests.gui_helpers import sample


@pytest.fixture
def bridge(qtbot):
    return Bridge(sample_trainer(sample("low · lower")))


def listen(bridge: Bridge) -> list[str]:
    heard: list[str] = []
    bridge.sig_change.connect(lambda change: heard.append(change.kind))
    bridge.sig_document_changed.connect(lambda: heard.append("document"))
    return heard


def test_three_settings_at_once_are_one_change_and_unsaved(bridge):
    heard = listen(bridge)
    trainer = bridge.trainer
    wanted = replace(trainer.training, tie_break="hf", min_frequency=3, merges_per_pass=0)
    bridge.configure(wanted)
    assert trainer.training == wanted and trainer.rule.spec == "hf"
    assert heard == [ChangeKind.SETTINGS, "document"]
    assert bridge.dirty
    bridge.configure(replace(wanted, tie_break="first-seen", min_frequency=2, merges_per_pass=1))
    assert not bridge.dirty  # back to what was saved


def test_the_same_settings_change_nothing(bridge):
    heard = listen(bridge)
    bridge.configure(bridge.trainer.training, ask_at_ties=False)
    assert heard == [] and not bridge.dirty


def test_asking_at_ties_is_a_setting_of_the_bridge_alone(bridge):
    heard = listen(bridge)
    trainer = bridge.trainer
    before = trainer.training
    bridge.configure(trainer.training, ask_at_ties=True)
    assert bridge.ask_at_ties and bridge.tie_rule_spec() == ASK and trainer.training == before
    assert heard == [ChangeKind.SETTINGS] and not bridge.dirty
    bridge.configure(replace(trainer.training, min_frequency=4))  # None: Ask me stays
    assert bridge.ask_at_ties and trainer.training.min_frequency == 4


def test_nothing_is_configured_while_a_job_runs(qtbot, bridge):
    bridge.run(merges=5)
    assert bridge.busy  # until the job's end is handled on this thread
    before = bridge.trainer.training
    bridge.configure(replace(before, min_frequency=5))
    assert bridge.trainer.training == before
    qtbot.waitUntil(lambda: not bridge.busy)
