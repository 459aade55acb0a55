"""The program's name and commands are declared once, by the engine's command line; the launcher
routes by them, and a Ctrl+C while they load still ends the program in one line."""

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from app import launcher
from bpe_core import cli

REPO = Path(__file__).resolve().parents[2]


def test_the_launcher_uses_the_engines_name_and_commands():
    assert launcher.PROG is cli.PROG == "bpe-studio"
    assert launcher.COMMANDS is cli.COMMANDS


def test_the_declared_commands_are_the_parsers_commands():
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(commands.choices) == sorted(cli.COMMANDS)


def test_ctrl_c_while_the_commands_load_says_interrupted():
    code = textwrap.dedent(
        """
        import builtins, os, signal
        real_import = builtins.__import__

        def import_after_a_ctrl_c(name, *args, **kwargs):
            if name == "bpe_core.cli":
                os.kill(os.getpid(), signal.SIGINT)
            return real_import(name, *args, **kwargs)

        builtins.__import__ = import_after_a_ctrl_c
        from app import launcher
        print("not interrupted")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout, result.stderr) == (130, "", "bpe-studio: Interrupted.\n")


def test_every_path_given_to_the_window_must_exist(tmp_path):
    (tmp_path / "a.txt").write_text("low lower", encoding="utf-8")
    missing = str(tmp_path / "missing.txt")
    done = subprocess.run(
        [sys.executable, "-m", "app", str(tmp_path / "a.txt"), missing],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"bpe-studio: {missing!r} is neither a command nor an existing file; "
        f"the commands are {', '.join(cli.COMMANDS)}.\n"
    )
