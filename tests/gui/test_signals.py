"""SIGTERM (a logout, a shutdown) with unsaved work: the program keeps a recovery copy and
quits, rather than wait behind a dialog; the next start says where the copy is and offers to
open it. Run as a real process with a private home."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from app.main_window import RECOVERY_KEY
from bpe_core.io.session import load_session, read_session
from tests.gui_helpers import run_app_process, wait_idle

REPO = Path(__file__).resolve().parents[2]

WORK_THEN_WAIT = textwrap.dedent(
    """
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from app import gui
    from app.main_window import MainWindow

    def work():
        window = next(w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow))
        if len(sys.argv) < 2:  # no work: the window is up, that is all
            print("ready", flush=True)
            return
        if window.bridge.busy or window.bridge.source.name != "corpus.txt":
            QTimer.singleShot(50, work)  # the corpus is still opening
            return
        window.bridge.step()
        window.bridge.step()
        window.encode_pane.input.setPlainText("kept too")
        QTimer.singleShot(0, window.open_settings)  # a dialog is open when the signal comes
        QTimer.singleShot(200, lambda: print("ready", flush=True))

    app = QApplication(sys.argv[:1])  # gui.run uses it
    QTimer.singleShot(100, work)
    sys.exit(gui.run(sys.argv[1:]))
    """
)


def private_environment(home: Path) -> dict[str, str]:
    """As ``run_app_process`` gives it: offscreen, the home and XDG folders private."""
    folders = {name: str(home) for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")}
    return {**os.environ, **folders, "QT_QPA_PLATFORM": "offscreen"}


def test_sigterm_with_unsaved_work_keeps_a_recovery_copy_and_quits(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest wider widest " * 10, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-c", WORK_THEN_WAIT, str(corpus)],
        cwd=REPO,
        env=private_environment(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout.readline().strip() == "ready", process.stderr.read()[-2000:]
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)  # it waited behind "Save the current session first?" for ever
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, process.stderr.read()[-2000:]
    kept = list((tmp_path / "BPE Studio").glob("recovered *.json"))
    assert len(kept) == 1
    trainer = load_session(kept[0])
    assert trainer.position == 2 and "lowest" in trainer.corpus.words
    assert read_session(kept[0])["test_text"] == "kept too"

    # The next start says where the work is and offers to open it (once).
    log = tmp_path / "BPE Studio" / "bpe-studio.log"
    for _ in range(2):
        result = run_app_process(["-m", "app"], tmp_path, BPE_STUDIO_SMOKE_TEST="800")
        assert result.returncode == 0, result.stderr[-2000:]
    assert log.read_text(encoding="utf-8").count(f"Offered the work kept in {kept[0]}") == 1


def test_sigterm_without_unsaved_work_keeps_nothing(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-c", WORK_THEN_WAIT],  # a sample, no merge: nothing to keep
        cwd=REPO,
        env=private_environment(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout.readline().strip() == "ready", process.stderr.read()[-2000:]
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0
    assert not list((tmp_path / "BPE Studio").glob("recovered *.json"))


def test_the_offer_opens_the_kept_work(qtbot, make_window, tmp_path):
    from bpe_core import Corpus, PipelineConfig, Trainer
    from bpe_core.io.session import save_session

    kept = tmp_path / "recovered.json"
    trainer = Trainer(Corpus.from_text("a b a b c c a b", PipelineConfig()))
    trainer.run(merges=2)
    save_session(trainer, kept, test_text="a b")
    window = make_window()
    window.settings.setValue(RECOVERY_KEY, str(kept))
    window.offer_recovery()
    box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
    assert str(kept) in box.text() and not box.isModal()
    box.button(QMessageBox.StandardButton.Open).click()
    wait_idle(qtbot, window)
    assert window.bridge.path == kept and window.bridge.trainer.position == 2
    assert window.encode_pane.input.toPlainText() == "a b"
    assert window.settings.value(RECOVERY_KEY) is None  # offered once
