"""The ``bpe-studio`` entry point: headless commands go to ``bpe_core.cli`` (no Qt import, so
scripts start fast); no argument or an existing file opens the desktop window; anything else is
a usage error. Ctrl+C or SIGTERM at any moment ends with "Interrupted." and status 130, except
once a command's new files are in place: it has then succeeded, and finishes with status 0.
The program's name and its commands are the engine's (``bpe_core.cli``), declared there once."""

from __future__ import annotations

import signal

_early_signals: list[int] = []
# Signals this process was started ignoring (a background job of a script, ``nohup``): left
# ignored, as Unix programs do, rather than stopping the work at the terminal's Ctrl+C.
_IGNORED = {
    number for number in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(number) is signal.SIG_IGN
}


def _handle(handler) -> None:
    """Answer Ctrl+C and SIGTERM with ``handler``, but either signal the process was started ignoring."""
    for number in (signal.SIGINT, signal.SIGTERM):
        if number not in _IGNORED:
            signal.signal(number, handler)


def _keep_for_later(number: int, _frame) -> None:
    """Installed before any other import of ours, while the program's name and commands load
    (with the engine, a tenth of a second): a Ctrl+C then is answered as soon as they are
    loaded, by :func:`_quit_now`, rather than as a traceback from the middle of an import."""
    _early_signals.append(number)


_handle(_keep_for_later)

import glob  # noqa: E402  (after the handler, on purpose)
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import NoReturn  # noqa: E402

# numpy asks Linux for huge pages for its large arrays. Where the kernel defragments memory to
# find them (its usual setting, "madvise"), first touching a fresh array of hundreds of MB took
# 0.47 s here instead of 0.08 s: opening two million word types took 7.7 s instead of 6.6 s.
# Read when numpy is imported (below, with the engine); the user's own setting wins.
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

from bpe_core.cli import COMMANDS, PROG  # noqa: E402
from bpe_core.runtime.fileio import STDIN_COPY  # noqa: E402

STDIN = "-"
_copies: list[str] = []  # folders of standard input kept for the window (see _spooled_stdin)


def _remove_copies() -> None:
    """Remove the copies of standard input made for the window: at exit, and before any
    ``os._exit`` (which runs no exit handler)."""
    while _copies:
        shutil.rmtree(_copies.pop(), ignore_errors=True)


def _quit_now(_signal, _frame) -> None:
    """Until the command runs: imports take a while, and a Ctrl+C then must not print a
    traceback."""
    os.write(2, f"{PROG}: Interrupted.\n".encode())
    _remove_copies()
    os._exit(130)


_handle(_quit_now)
if _early_signals:
    _quit_now(_early_signals[0], None)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = _route(args)  # imports what the command needs, still under _quit_now
    try:
        # From here on Ctrl+C and SIGTERM raise KeyboardInterrupt, so a save in progress
        # removes its temporary file on the way out. (Not during imports: a C extension such
        # as numpy turns a KeyboardInterrupt in its import into an ImportError.)
        _handle(_interrupt)
        code = command()
        fileio = sys.modules.get("bpe_core.runtime.fileio")
        if fileio is not None and fileio.interrupted() and not fileio.placements():
            raise KeyboardInterrupt  # one dropped on its way (see note_interrupt): no success
        return code
    except KeyboardInterrupt:
        _leave(130, "Interrupted.")


def _route(args: list[str]) -> Callable[[], int]:
    first = args[0] if args else None
    if first in ("--version", "-V"):
        from bpe_core import __version__

        _leave(0, f"{PROG} {__version__}", to=sys.stdout)
    if first in ("--install-desktop", "--uninstall-desktop") and len(args) == 1:
        from app.desktop_entry import run as desktop

        code, message = desktop(uninstalling=first == "--uninstall-desktop")
        _leave(code, message, to=sys.stdout if code == 0 else None)
    if first in COMMANDS or first in ("-h", "--help"):
        from bpe_core.cli import main as cli_main

        def headless() -> int:
            # A short-lived command: skip tearing down the (possibly huge) engine object by object.
            _leave(cli_main(args))

        return headless
    if first is not None and first.startswith("-") and first != STDIN:
        _leave(2, f"Unknown option {first!r}; the commands are {', '.join(COMMANDS)} (see --help).")
    paths = _window_inputs(args)
    from app.gui import run  # imports Qt

    return lambda: run(paths)


def _window_inputs(args: list[str]) -> list[str]:
    """The paths the window opens, once it is sure to open: standard input is copied only then."""
    paths = _window_paths(args)
    _require_display()
    return [_spooled_stdin() if path == STDIN else path for path in paths]


def _window_paths(args: list[str]) -> list[str]:
    """The files and folders the window opens (counted as one corpus when several): a pattern
    the shell left alone (quoted) matched as the commands match it, and ``-`` the piped-in
    standard input (see :func:`_spooled_stdin`)."""
    from bpe_core.errors import InputError
    from bpe_core.io.sources import expand

    paths = []
    for arg in args:
        if arg == STDIN:
            if STDIN in paths:  # the second would find the first had read it all
                _leave(2, "Standard input (-) can be read only once.")
            if sys.stdin is None or sys.stdin.isatty():
                _leave(2, "Standard input (-) is closed or a terminal; pipe a corpus in: ... | bpe-studio -")
            paths.append(STDIN)  # kept once the window is sure to open (see _spooled_stdin)
        elif Path(arg).exists():
            paths.append(arg)
        elif glob.has_magic(arg):
            try:
                paths.extend(source.name for source in expand([arg]))
            except InputError as error:
                _leave(1, str(error))
        else:
            commands = ", ".join(COMMANDS)
            _leave(2, f"{arg!r} is neither a command nor an existing file; the commands are {commands}.")
    return paths


def _spooled_stdin() -> str:
    """Standard input, copied to a private temporary file the window opens: it reads its corpus
    again when a setting changes, and a pipe can be read only once. Compressed input keeps its
    compression (the file's suffix says which); the file goes when the program ends, however
    it ends (see :func:`_remove_copies`)."""
    import atexit
    import tempfile

    from bpe_core.errors import InputError
    from bpe_core.io.sources import stream_suffix

    stream = sys.stdin.buffer  # a BufferedReader, which can peek
    try:
        suffix = stream_suffix(stream.peek(16)[:16], STDIN)  # type: ignore[union-attr]
    except InputError as error:
        _leave(1, str(error))
    folder = tempfile.mkdtemp(prefix=STDIN_COPY)
    _copies.append(folder)
    atexit.register(_remove_copies)
    path = os.path.join(folder, "standard input" + suffix)
    try:
        with open(path, "wb") as copy:
            shutil.copyfileobj(stream, copy, 1 << 20)
    except OSError as error:
        _leave(1, f"Cannot keep standard input for the window in {folder!r}: {error.strerror or error}.")
    return path


def _require_display() -> None:
    """Without a display Qt aborts the process with several lines (status 134); say it in one
    sentence first. A platform named in QT_QPA_PLATFORM (offscreen, vnc, ...) is Qt's to open."""
    if sys.platform in ("darwin", "win32", "cygwin") or os.environ.get("QT_QPA_PLATFORM"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    _leave(
        1,
        "No display was found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the window cannot open; "
        f"the commands work without one: {', '.join(COMMANDS)}.",
    )


def _interrupt(_signal, _frame) -> None:
    fileio = sys.modules.get("bpe_core.runtime.fileio")
    if fileio is not None and fileio.placements() > 0:
        return  # too late: the command's files are in place, so it has succeeded and is finishing
    if fileio is not None:
        fileio.note_interrupt()  # kept, should the exception be dropped on its way
    raise KeyboardInterrupt


def _leave(code: int, message: str = "", to=None) -> NoReturn:
    """Say ``message`` (on stderr by default), flush, and exit at once with ``code``."""
    stream = to or sys.stderr
    try:
        if message and stream is not None:
            print(message if stream is sys.stdout else f"{PROG}: {message}", file=stream)
        for output in (sys.stdout, sys.stderr):
            if output is not None:
                output.flush()
    except (OSError, ValueError):
        pass
    except KeyboardInterrupt:
        code = 130
    _remove_copies()
    os._exit(code)


if __name__ == "__main__":
    raise SystemExit(main())
