"""BPE Studio installed for the user like an application on a freedesktop.org desktop (Linux,
the BSDs): a ``.desktop`` entry in the launcher, the icon in the standard sizes, and a MIME type
for session files (``*.bpe.json``) that file managers then show and open with it.

Everything goes under the user's data folder as the XDG base-directory rules name it
(``$XDG_DATA_HOME``, else ``~/.local/share``); nothing needs root. The desktop's caches are
refreshed with the tools that keep them, where they are installed. Imports no Qt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from bpe_core.io.sources import SESSION_SUFFIX

APP_ID = "bpe-studio"
SESSION_MIME = "application/x-bpe-studio-session"
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def data_home() -> Path:
    """``$XDG_DATA_HOME`` if it is an absolute path (the spec ignores a relative one), else
    ``~/.local/share``."""
    given = os.environ.get("XDG_DATA_HOME", "")
    return Path(given) if given and os.path.isabs(given) else Path.home() / ".local" / "share"


def installed_files(home: Path) -> list[Path]:
    """Every file the installation writes, under ``home``."""
    icons = home / "icons" / "hicolor"
    return [
        home / "applications" / f"{APP_ID}.desktop",
        home / "mime" / "packages" / f"{APP_ID}.xml",
        icons / "scalable" / "apps" / f"{APP_ID}.svg",
        *(icons / f"{n}x{n}" / "apps" / f"{APP_ID}.png" for n in ICON_SIZES),
    ]


def unsupported() -> str | None:
    """Why this system has no freedesktop.org desktop to install into, or ``None``."""
    if sys.platform == "darwin":
        return (
            "macOS has no freedesktop.org launcher entries, so nothing was installed: start BPE Studio "
            "with bpe-studio, or keep it in the Dock while it runs."
        )
    if sys.platform in ("win32", "cygwin"):
        return (
            "Windows has no freedesktop.org launcher entries, so nothing was installed: start BPE Studio "
            "with bpe-studio, or pin it to the taskbar while it runs."
        )
    return None


def desktop_entry(command: list[str]) -> str:
    """The ``.desktop`` file that starts ``command`` with a file (``%f``)."""
    exec_line = " ".join(_exec_argument(part) for part in command)
    return "\n".join(
        [
            "[Desktop Entry]",
            "Type=Application",
            "Version=1.4",
            "Name=BPE Studio",
            "GenericName=Tokenizer Studio",
            "Comment=Explore Byte Pair Encoding: step, undo, choose among ties and encode live",
            f"Exec={exec_line} %f",
            f"Icon={APP_ID}",
            "Terminal=false",
            "Categories=Education;ComputerScience;",
            "Keywords=BPE;tokenizer;tokenization;subword;NLP;",
            f"MimeType={SESSION_MIME};",
            "StartupNotify=true",
            "",
        ]
    )


def _exec_argument(text: str) -> str:
    """An Exec argument as the Desktop Entry spec quotes it: in double quotes when it has a
    reserved character, with ``"``, `````, ``$`` and ``\\`` escaped, then every backslash
    doubled again as any string value's is."""
    if not any(c in text for c in " \t\n\"'\\><~|&;$*?#()`="):
        return text
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in text)
    return ('"' + escaped + '"').replace("\\", "\\\\")


def mime_package() -> str:
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            '<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">',
            f'  <mime-type type="{SESSION_MIME}">',
            "    <comment>BPE Studio session</comment>",
            '    <sub-class-of type="application/json"/>',
            f'    <glob pattern="*{SESSION_SUFFIX}" weight="60"/>',
            f'    <icon name="{APP_ID}"/>',
            "  </mime-type>",
            "</mime-info>",
            "",
        ]
    )


def launch_command() -> list[str]:
    """How the launcher starts this BPE Studio: the ``bpe-studio`` script it was installed
    with, else this Python running the package."""
    script = shutil.which("bpe-studio")
    if script is not None:
        return [str(Path(script).resolve())]
    return [sys.executable, "-m", "app"]


def install(home: Path | None = None, command: list[str] | None = None) -> list[Path]:
    """Write the entry, the icons and the session type under ``home``; the files written."""
    home = home or data_home()
    files = installed_files(home)
    entry, mime, svg, *pngs = files
    contents: list[tuple[Path, bytes]] = [
        (entry, desktop_entry(command or launch_command()).encode()),
        (mime, mime_package().encode()),
        (svg, (ICONS / f"{APP_ID}.svg").read_bytes()),
        *((png, (ICONS / f"{APP_ID}-{n}.png").read_bytes()) for png, n in zip(pngs, ICON_SIZES, strict=True)),
    ]
    for path, data in contents:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".part")
        temporary.write_bytes(data)
        os.replace(temporary, path)
    _refresh(home)
    return files


def uninstall(home: Path | None = None) -> list[Path]:
    """Remove what :func:`install` wrote (nothing else); the files removed."""
    home = home or data_home()
    removed = []
    for path in installed_files(home):
        if path.is_file():
            path.unlink()
            removed.append(path)
    _refresh(home)
    return removed


def _refresh(home: Path) -> None:
    """Tell the desktop: its MIME, application and icon caches, where their tools exist."""
    for tool, argument in (
        ("update-mime-database", home / "mime"),
        ("update-desktop-database", home / "applications"),
        ("gtk-update-icon-cache", home / "icons" / "hicolor"),
    ):
        found = shutil.which(tool)
        if found is None or not argument.is_dir():
            continue
        extra = ["-q", "-t", "-f"] if tool == "gtk-update-icon-cache" else []
        subprocess.run([found, *extra, str(argument)], capture_output=True, check=False, timeout=60)


def run(uninstalling: bool = False) -> tuple[int, str]:
    """(exit status, the one sentence to say) of ``--install-desktop`` / ``--uninstall-desktop``."""
    reason = unsupported()
    if reason is not None:
        return 1, reason
    home = data_home()
    try:
        if uninstalling:
            removed = uninstall(home)
            if not removed:
                return 0, f"BPE Studio was not installed in {home}; nothing to remove."
            return 0, f"Removed BPE Studio's launcher entry, icons and session type from {home}."
        install(home)
    except OSError as error:
        return 1, f"Could not write under {home} ({error.strerror or error})."
    return 0, (
        f"Installed BPE Studio for this user: its launcher entry, its icon in {len(ICON_SIZES) + 1} "
        f"sizes and the session file type ({SESSION_SUFFIX}) under {home}."
    )
