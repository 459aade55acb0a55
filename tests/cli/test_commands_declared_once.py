"""The program's name and commands are declared once, by the engine's command line; the launcher
routes by them, and a Ctrl+C while they load still ends the program in one line."""

import argparse
import json
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


def _window_paths(argv: list[str], stdin: bytes, cwd, display: bool = True) -> subprocess.CompletedProcess:
    """What the launcher would hand the window for ``argv``, and the files' bytes (temporary
    folders made in ``cwd``)."""
    code = (
        "import sys, json; from app import launcher; paths = launcher._window_inputs(sys.argv[1:]); "
        "print(json.dumps([paths, [open(p, 'rb').read().hex() for p in paths]]))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(cwd)}
    for name in () if display else ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=cwd, input=stdin, env=env, capture_output=True, timeout=60
    )


def test_the_window_takes_standard_input_and_patterns_as_the_commands_do(tmp_path):
    """``… | bpe-studio -`` and ``bpe-studio 'shards/*.txt'`` (quoted: the shell leaves it)
    were refused. Standard input is kept in a private file, compressed as it came (the window
    reads its corpus again when a setting changes: a pipe cannot be); a pattern matches as
    ``count``'s does."""
    import gzip

    (tmp_path / "shards").mkdir()
    for name in ("a.txt", "b.txt", "_c.txt"):
        (tmp_path / "shards" / name).write_text(name, encoding="utf-8")
    piped = gzip.compress(b"to be or not to be\n")
    done = _window_paths(["-", "shards/*.txt"], piped, tmp_path)
    assert done.returncode == 0, done.stderr
    paths, hexes = json.loads(done.stdout)
    contents = [bytes.fromhex(h) for h in hexes]
    assert paths[0].endswith("standard input.gz") and contents[0] == piped
    assert paths[1:] == ["shards/a.txt", "shards/b.txt"] and contents[1:] == [b"a.txt", b"b.txt"]
    assert not os.path.exists(paths[0])  # gone with the program

    # No window can open: nothing is copied, and nothing is left behind.
    done = _window_paths(["-"], piped, tmp_path, display=False)
    assert done.returncode == 1 and "No display" in done.stderr.decode()
    assert not list(tmp_path.glob("bpe-studio-stdin-*"))

    done = _window_paths(["-", "shards/a.txt", "-"], piped, tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode() == "bpe-studio: Standard input (-) can be read only once.\n"
    assert not list(tmp_path.glob("bpe-studio-stdin-*"))

    done = _window_paths(["shards/*.nothing"], b"", tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == "bpe-studio: No file matches 'shards/*.nothing'.\n"
