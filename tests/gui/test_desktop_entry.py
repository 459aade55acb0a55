"""Installed like an application: ``bpe-studio --install-desktop`` writes a valid freedesktop
entry, the icon in the standard sizes and the session file type under the user's data folder
(XDG rules), ``--uninstall-desktop`` removes them; elsewhere it says what it does not do."""

import os
import shutil
import subprocess
import sys

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from app import desktop_entry
from app.gui import application_icon
from tests.conftest import REPO

VALIDATE = shutil.which("desktop-file-validate")


def launcher(*args: str, home) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    return subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )


def test_install_writes_the_entry_icons_and_session_type_and_uninstall_removes_them(tmp_path):
    result = launcher("--install-desktop", home=tmp_path)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout.startswith("Installed BPE Studio for this user") and result.stdout.count("\n") == 1
    data = tmp_path / "data"
    files = desktop_entry.installed_files(data)
    assert all(path.is_file() for path in files)
    entry = (data / "applications" / "bpe-studio.desktop").read_text(encoding="utf-8")
    assert "Icon=bpe-studio" in entry and "MimeType=application/x-bpe-studio-session;" in entry
    assert " %f" in entry and "Terminal=false" in entry
    for size in desktop_entry.ICON_SIZES:
        image = QImage(str(data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "bpe-studio.png"))
        assert image.size() == QSize(size, size)
    mime = (data / "mime" / "packages" / "bpe-studio.xml").read_text(encoding="utf-8")
    assert '<glob pattern="*.bpe.json"' in mime and '<sub-class-of type="application/json"/>' in mime
    if shutil.which("update-mime-database"):  # the desktop's own database now knows the type
        assert "application/x-bpe-studio-session:*.bpe.json" in (data / "mime" / "globs2").read_text()

    result = launcher("--uninstall-desktop", home=tmp_path)
    assert result.returncode == 0 and "Removed" in result.stdout
    assert not any(path.exists() for path in files)
    again = launcher("--uninstall-desktop", home=tmp_path)
    assert again.returncode == 0 and "nothing to remove" in again.stdout


@pytest.mark.skipif(VALIDATE is None, reason="desktop-file-validate (desktop-file-utils) is not installed")
@pytest.mark.parametrize(
    "command", [["/usr/bin/bpe-studio"], ["/opt/my apps/bpe $tudio"], [sys.executable, "-m", "app"]]
)
def test_the_entry_validates_whatever_path_starts_the_program(tmp_path, command):
    path = tmp_path / "bpe-studio.desktop"
    path.write_text(desktop_entry.desktop_entry(command), encoding="utf-8")
    result = subprocess.run([VALIDATE, str(path)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == "" and result.stderr == "", (
        result.stdout + result.stderr
    )


def test_the_data_folder_follows_the_xdg_rules(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert desktop_entry.data_home() == tmp_path / "xdg"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")  # the spec ignores a relative path
    assert desktop_entry.data_home() == tmp_path / ".local" / "share"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert desktop_entry.data_home() == tmp_path / ".local" / "share"


@pytest.mark.parametrize("platform, name", [("darwin", "macOS"), ("win32", "Windows")])
def test_other_systems_are_told_what_is_not_done(monkeypatch, tmp_path, platform, name):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", platform)
    code, message = desktop_entry.run()
    assert code == 1 and message.startswith(name) and "nothing was installed" in message
    assert not any(tmp_path.iterdir())


def test_the_window_carries_the_icon_in_every_size(qapp):
    sizes = {size.width() for size in application_icon().availableSizes()}
    assert sizes == set(desktop_entry.ICON_SIZES)
