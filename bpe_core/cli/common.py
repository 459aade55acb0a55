"""What every command's output shares: the output delivered in one piece at the end (or in
pieces, when large), a progress bar on stderr, and data made visible on one line.

Imported by :mod:`bpe_core.cli` itself, so it imports nothing of the engine.
"""

from __future__ import annotations

import io
import os
import time
from typing import TextIO

from bpe_core.errors import plural

VISIBLE = str.maketrans({" ": "␣", "\n": "↵", "\t": "⇥", "\r": "␍"})
WIDTH = 72  # characters of data shown on one line
_OUTPUT_PIECE = 1 << 20  # characters of output held before they are written out
TO_STDOUT = "-"  # an output file named so is written to standard output


class OutputEnded(Exception):
    """The standard output ended under a command: ``message`` says why it failed, or is
    ``None`` when the reader went away (``| head``)."""

    def __init__(self, message: str | None) -> None:
        super().__init__(message)
        self.message = message


class Output(io.StringIO):
    """What a command prints: written out in one piece at the end, or a piece at a time once
    it grows past ``_OUTPUT_PIECE`` (encoding a large file), so that memory stays flat. A
    failed write stops the command with :class:`OutputEnded`."""

    def __init__(self, target: TextIO | None) -> None:
        super().__init__()
        self._target = target

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.tell() >= _OUTPUT_PIECE:
            self.send()
        return written

    def send(self) -> None:
        """Write out what is held."""
        text = self.getvalue()
        if text:
            self.seek(0)
            self.truncate()
            _deliver(text, self._target)


def write_out(text: str, stdout: TextIO) -> None:
    """``text`` written to standard output now, so that a summary saying it was written comes
    after it (an :class:`Output` holds what it is given until the command ends)."""
    stdout.write(text)
    getattr(stdout, "send", stdout.flush)()


class HeldNotes:
    """A command's standard error with its notes (``bpe-studio: note: …``) held back until
    :meth:`release`, or until something else is written there (a progress bar): a command that
    fails says one sentence, not notes on a file it read first. Anything else passes through."""

    NOTE = "bpe-studio: note: "

    def __init__(self, target: TextIO) -> None:
        self._target = target
        self._held: list[str] = []
        self._in_note = False  # print() writes a note, then its line end apart

    def write(self, text: str) -> int:
        if text.startswith(self.NOTE) or (self._in_note and text == "\n"):
            self._held.append(text)
            self._in_note = not text.endswith("\n")
            return len(text)
        self.release()
        return self._target.write(text)

    def release(self) -> None:
        """Write out the notes held."""
        if self._held:
            self._target.write("".join(self._held))
            self._held.clear()
        self._in_note = False

    def __getattr__(self, name: str):  # isatty, flush, encoding…: the stream's own
        return getattr(self._target, name)


def _deliver(text: str, stdout: TextIO | None) -> None:
    if stdout is None:  # the standard output was closed before we started (``>&-``)
        raise OutputEnded("Cannot write the output: the standard output is closed.")
    try:
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:
        _silence(stdout)
        raise OutputEnded(None) from None
    except UnicodeEncodeError:  # PYTHONIOENCODING=ascii, say: nothing of the text was written
        raise OutputEnded(
            f"Cannot write the output: the standard output's encoding ({stdout.encoding}) cannot hold "
            "it; set PYTHONIOENCODING=utf-8."
        ) from None
    except OSError as error:
        _silence(stdout)
        raise OutputEnded(f"Cannot write the output ({error.strerror or error}).") from None


def _silence(stdout: TextIO) -> None:
    """Point the failed output at /dev/null, so the interpreter's final flush stays quiet."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stdout.fileno())
        os.close(null)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def amount(n: int, noun: str) -> str:
    """``n`` and its noun, singular for one: "1 merge", "2 merges", "1,000 word types"."""
    return f"{n:,} {plural(n, noun)}"


def shown(data: str, width: int = WIDTH) -> str:
    """Data made visible on one line, elided in the middle when long."""
    return elided(data[:width], data[-width:], len(data), width)


def elided(head: str, tail: str, length: int, width: int = WIDTH) -> str:
    """``shown`` of data of ``length`` symbols, from its first and last ``width`` symbols."""
    if length <= width:
        return head.translate(VISIBLE)
    return head[: width // 2 - 1].translate(VISIBLE) + " … " + tail[-(width // 2 - 2) :].translate(VISIBLE)


class ProgressBar:
    """A one-line progress bar on stderr, shown only on a terminal and only for long runs."""

    def __init__(self, stream: TextIO, total: int) -> None:
        self._stream = stream
        self._total = total
        self._enabled = stream.isatty() if hasattr(stream, "isatty") else False
        self._started = time.perf_counter()
        self._shown = 0.0

    def update(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self._enabled or now - self._started < 0.5 or now - self._shown < 0.1:
            return
        self._shown = now
        total = self._total or total
        if total:
            filled = int(30 * min(done, total) / total)
            self._stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done:,}/{total:,} merges")
        else:
            self._stream.write(f"\r{done:,} merges")
        self._stream.flush()

    def close(self) -> None:
        if self._enabled and self._shown:
            self._stream.write("\r" + " " * 60 + "\r")
            self._stream.flush()


class CountProgress:
    """Bytes read of the inputs and the rate, on one line of stderr, shown only on a terminal
    (a script reading stderr gets only the sentences it is promised)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._enabled = stream.isatty() if hasattr(stream, "isatty") else False
        self._started = time.perf_counter()
        self._shown = False

    def update(self, done: int, total: int) -> None:
        if not self._enabled:
            return
        seconds = max(time.perf_counter() - self._started, 1e-9)
        of = f" of {total / 2**20:,.1f}" if total else ""
        rate = done / 2**20 / seconds
        self._stream.write(f"\rCounting: {done / 2**20:,.1f}{of} MB read ({rate:,.1f} MB/s)  ")
        self._stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._shown:
            self._stream.write("\r" + " " * 70 + "\r")
            self._stream.flush()
