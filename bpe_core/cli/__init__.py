"""Headless command line: ``bpe-studio train | count | encode | decode | compress | compare |
import | export | measure`` (a contract scripts rely on).

Bad input of any kind ends with one sentence on stderr and a non-zero exit, never a traceback:
exit 2 for a malformed command line, 1 for unusable input.

Each command lives in a module of this package, which imports what the command needs; the
module is imported only when its command is parsed, so a command loads nothing the others use
(``train`` loads no tokenizer format, ``encode`` no trainer tool). Building the parser imports no
command: a command's options are added to its parser the first time that parser is used.

Adding a command, ``measure`` say: write ``bpe_core/cli/measure.py`` with
``options_measure(parser)``, which adds its arguments (the option types and the option groups
commands share are in :mod:`bpe_core.cli.options`), and ``run_measure(args, stdout, stderr)``,
which writes its output to ``stdout`` (:mod:`bpe_core.cli.common` has the output helpers), raises
:class:`~bpe_core.errors.BpeError` for unusable input and returns the exit status. Then give it
its line in ``_COMMANDS`` below, and its name in ``COMMANDS``, by which the launcher routes.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NamedTuple, NoReturn, TextIO

from bpe_core.cli.common import HeldNotes, Output, OutputEnded
from bpe_core.errors import BpeError
from bpe_core.runtime.fileio import placements
from bpe_core.runtime.gc_pause import gc_paused

PROG = "bpe-studio"  # the program's one name, which the launcher (app.launcher) says too
# The commands: the launcher sends these to main() and opens the window otherwise, and lists
# them in this order. The same names as ``_COMMANDS`` (a test checks the parser's against these).
COMMANDS = ("train", "count", "encode", "decode", "compress", "compare", "export", "import", "measure")


class _Command(NamedTuple):
    """Where a command lives: ``bpe_core.cli.<module>`` defines ``options_<command>`` and
    ``run_<command>``."""

    module: str
    help: str


# The dispatch table, in the order ``--help`` lists the commands: one line a command.
_COMMANDS = {
    "train": _Command("train", "learn merges from corpus files"),
    "count": _Command("count", "count the word types of corpora of any size, on every core or Spark"),
    "compare": _Command("compare", "train with several tie rules and compare the runs"),
    "encode": _Command("encode", "encode text with a saved model or tokenizer file"),
    "decode": _Command("encode", "turn token ids back into text"),
    "import": _Command("formats", "open a tokenizer file as a session (its merges as history)"),
    "export": _Command("formats", "write a model or tokenizer in another tool's format"),
    "measure": _Command(
        "measure", "tokenizers side by side on the same text or files: tokens, ratios, fertility"
    ),
    "compress": _Command(
        "compress", "the classic compression variant: the file as one sequence, each merge a new symbol"
    ),
}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2), not usage plus error."""

    def error(self, message: str) -> NoReturn:
        sentence = message[0].upper() + message[1:]
        self.exit(2, f"{PROG}: {sentence.rstrip('.')}.\n")


class _CommandParser(_Parser):
    """A command's parser, whose arguments its module adds the first time the parser is used
    (to parse or to show help): only then is the module, and what it imports, loaded."""

    def __init__(self, *, command: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pending: str | None = command  # None once its arguments are added

    def _add_arguments(self) -> None:
        if self._pending is not None:
            command, self._pending = self._pending, None
            getattr(_module(command), f"options_{command}")(self)

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        self._add_arguments()
        return super().parse_known_args(*args, **kwargs)

    def format_usage(self) -> str:
        self._add_arguments()
        return super().format_usage()

    def format_help(self) -> str:
        self._add_arguments()
        return super().format_help()


def _module(command: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{_COMMANDS[command].module}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Explore Byte Pair Encoding. Without a command, opens the desktop window "
        f"({PROG} [FILE]); {PROG} --install-desktop (--uninstall-desktop) adds it to the desktop's "
        "launcher, with its icon and session file type.",
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_CommandParser)
    for name, command in _COMMANDS.items():
        commands.add_parser(name, help=command.help, command=name)
    return parser


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run one command; returns the exit status. Output is written at the end, in one piece:
    a reader that went away (``| head``) ends the command quietly, a full disk or a closed
    output gets one sentence. Ctrl+C ends it with "Interrupted." (status 130) until its files
    are in place; after that it has succeeded, and ends quietly with status 0."""
    stderr = stderr or sys.stderr
    out = Output(stdout or sys.stdout)
    placed = placements()
    code = 0
    try:
        args = build_parser().parse_args(argv)
        with gc_paused():  # see bpe_core.runtime.gc_pause; a command never builds reference cycles to collect
            code = _run_command(args, out, stderr)
        out.send()
    except OutputEnded as ended:  # a reader that went away has what it wanted, as with any Unix filter
        if ended.message is not None:
            print(f"{PROG}: {ended.message}", file=stderr)
            return 1
    except KeyboardInterrupt:
        if placements() != placed:  # the new files are in place: the command has done its work
            return 0
        print(f"{PROG}: Interrupted.", file=stderr)
        return 130
    return code


def _run_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    run = getattr(_module(args.command), f"run_{args.command}")
    notes = HeldNotes(stderr)  # dropped if the command fails: it says one sentence
    try:
        code = run(args, stdout, notes)
    except BpeError as error:
        print(f"{PROG}: {error}", file=stderr)
        return 1
    notes.release()
    return code
