"""The command line at its edges: every failure one sentence (never a traceback), output to
closed or full streams, interrupts, huge counts, byte mode with an attached marker, and the
output file checked before training. Each case is a reproduction from an adversarial pass."""

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, InputError, PipelineConfig, Trainer
from bpe_core.io.session import load_encoder, session_to_dict
from tests.cli.test_contract import one_sentence, run
from tests.helpers import recount

REPO = Path(__file__).resolve().parents[2]
LOW = "low\t5\nlower\t2\nnewest\t6\nwidest\t3\n"


def shell(command: str, cwd: Path, timeout: int = 60) -> subprocess.CompletedProcess:
    """Run a shell line with ``bpe-studio`` meaning this checkout's entry point."""
    entry = f"{sys.executable} -m app"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        command.replace("bpe-studio", entry),
        shell=True,
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=timeout,
    )


@pytest.fixture
def model(tmp_path) -> Path:
    (tmp_path / "low.tsv").write_text(LOW)
    code, _, err = run(
        "train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "m.json")
    )
    assert code == 0, err
    return tmp_path / "m.json"


# -- 1. silent corruption ------------------------------------------------------------------


def test_byte_mode_with_an_attached_marker_has_no_unknown_ids(tmp_path):
    (tmp_path / "ab.txt").write_text("aa bb aa bb\n")
    code, _, err = run(
        "train", str(tmp_path / "ab.txt"), "--unit", "byte", "--attach-marker", "-o", str(tmp_path / "a.json")
    )
    assert code == 0, err
    code, out, _ = run("encode", "--model", str(tmp_path / "a.json"), "abc", "--json")
    assert code == 0 and -1 not in json.loads(out)["ids"] and "unknown" not in json.loads(out)


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_byte_mode_with_an_attached_marker_encodes_any_text_without_unknowns(text):
    config = PipelineConfig(unit="byte", attach_marker=True)
    trainer = Trainer(Corpus.from_text("aa bb aa bb cc", config))
    trainer.run()
    encoding = trainer.encoder().encode(text)
    assert not any(encoding.unknown)


def test_counts_beyond_2_53_stay_exact():
    big = 2**55 + 3  # float64 would round this
    trainer = Trainer(Corpus.from_counts(f"ab\t{big}\nabc\t{big + 2}\nbc\t7\n", PipelineConfig()))
    pairs, _tokens, total = recount(trainer)
    assert trainer.pair_counts() == dict(pairs) and trainer.corpus_tokens == total
    assert trainer.top_pairs(1)[0].count == 2 * big + 2


@pytest.mark.parametrize("count", [2**62, 2**63 - 1, 2**63, 10**40, "9" * 5000])
def test_counts_beyond_the_supported_range_are_refused_with_one_sentence(tmp_path, count):
    path = tmp_path / "huge.tsv"
    path.write_text(f"a\t{count}\nb\t5\n")
    code, out, err = run("train", str(path), "--input", "counts")
    assert code == 1 and one_sentence(err) and "2^62" in err and out == ""
    with pytest.raises(InputError, match="2\\^62"):
        Corpus.from_counts(path.read_text(), PipelineConfig())


def test_a_vocabulary_size_below_the_alphabet_says_what_happened(tmp_path):
    (tmp_path / "low.tsv").write_text(LOW)
    code, out, _ = run("train", str(tmp_path / "low.tsv"), "--input", "counts", "--vocab-size", "3")
    assert code == 0 and "starts with 11 tokens" in out and "more than the 3 requested" in out
    assert "reached the requested vocabulary size" not in out


# -- 2. one sentence, never a traceback ----------------------------------------------------


def session_variant(model: Path, tmp_path: Path, name: str, change) -> Path:
    data = json.loads(model.read_text())
    text = change(data)
    path = tmp_path / name
    path.write_text(text if isinstance(text, str) else json.dumps(data))
    return path


def test_model_files_with_huge_numbers_deep_nesting_or_a_foreign_alphabet_get_one_sentence(tmp_path, model):
    long_number = session_variant(
        model,
        tmp_path,
        "long.json",
        lambda d: json.dumps(d).replace('"count": 9', '"count": ' + "9" * 5000, 1),
    )
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 3000 + "]" * 3000)
    foreign = tmp_path / "foreign.json"
    trainer = Trainer(Corpus.from_text("aa bb aa", PipelineConfig(unit="byte", end_of_word=None)))
    data = session_to_dict(trainer)
    data["alphabet"][-1] = "é€"  # not a byte symbol
    foreign.write_text(json.dumps(data))
    for path in (long_number, deep, foreign):
        for argv in (["encode", "--model", str(path), "ab"], ["decode", "--model", str(path), "1"]):
            code, out, err = run(*argv)
            assert code == 1 and one_sentence(err) and out == "", (path.name, err)


def test_undecodable_text_arguments_get_one_sentence(tmp_path, model):
    result = shell(f"bpe-studio encode --model {model} $(printf 'ab\\377c') --json", tmp_path)
    assert result.returncode == 1 and one_sentence(result.stderr.decode()), result.stderr
    assert result.stdout == b""


def test_output_to_a_closed_reader_a_full_disk_or_a_closed_stdout(tmp_path, model):
    (tmp_path / "big.txt").write_text("the lowest newer widest\n" * 20_000)
    piped = shell(f"bpe-studio encode --model {model} --file big.txt | head -c 10", tmp_path)
    assert piped.stderr == b"" and len(piped.stdout) == 10
    full = shell(f"bpe-studio encode --model {model} lowest > /dev/full", tmp_path)
    assert full.returncode == 1 and one_sentence(full.stderr.decode()) and "No space" in full.stderr.decode()
    closed = shell(f"bpe-studio encode --model {model} lowest >&-", tmp_path)
    assert closed.returncode == 1 and one_sentence(closed.stderr.decode())
    narrow = shell(f"PYTHONIOENCODING=ascii bpe-studio encode --model {model} 'lowest née' --json", tmp_path)
    assert narrow.returncode == 1 and one_sentence(narrow.stderr.decode()), narrow.stderr
    assert b"encoding (ascii) cannot hold it" in narrow.stderr and narrow.stdout == b""


def test_a_closed_reader_ends_the_command_with_status_zero(tmp_path, model):
    (tmp_path / "big.txt").write_text("the lowest newer widest\n" * 20_000)
    result = subprocess.run(
        [
            "bash",
            "-c",
            f"{sys.executable} -m app encode --model {model} --file big.txt | head -c 10 >/dev/null; "
            "echo ${PIPESTATUS[0]}",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == "0" and result.stderr == ""


@pytest.mark.parametrize("word", ["trian", "--colour", "-x"])
def test_a_first_word_that_is_neither_a_command_nor_a_file_is_a_usage_error(tmp_path, word):
    result = shell(f"bpe-studio {word} x", tmp_path)
    assert result.returncode == 2 and one_sentence(result.stderr.decode()) and b"train" in result.stderr


def test_version(tmp_path):
    from bpe_core import __version__

    result = shell("bpe-studio --version", tmp_path)
    assert result.returncode == 0 and result.stdout.decode().strip() == f"bpe-studio {__version__}"


@pytest.mark.parametrize("asked, huge", [(None, False), ("1", True)])
def test_the_program_asks_no_huge_pages_for_its_arrays_unless_the_user_does(tmp_path, asked, huge):
    """Where Linux defragments memory to find huge pages, a fresh array of hundreds of MB took
    six times longer to fill; the user's own NUMPY_MADVISE_HUGEPAGE is kept."""
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    if asked is not None:
        env["NUMPY_MADVISE_HUGEPAGE"] = asked
    core = "(getattr(numpy, '_core', None) or numpy.core)"  # numpy 2 or 1
    check = f"import app.launcher, numpy; print({core}.multiarray._get_madvise_hugepage())"
    result = subprocess.run(
        [sys.executable, "-c", check],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.strip() == str(huge), result.stderr


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="X11 and Wayland name their display")
@pytest.mark.parametrize("argv", [[], ["a.txt"]])
def test_the_window_without_a_display_says_so_in_one_sentence(tmp_path, argv):
    """Qt aborted with its multi-line message and status 134."""
    (tmp_path / "a.txt").write_text("hello there\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    home = tmp_path / "home"  # nothing is written; should it be, not in the real HOME
    env.update(PYTHONPATH=str(REPO), HOME=str(home), XDG_CONFIG_HOME=str(home), XDG_DATA_HOME=str(home))
    result = subprocess.run(
        [sys.executable, "-m", "app", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert "display" in result.stderr and "train" in result.stderr and result.stdout == ""


def start_training(folder: Path, *args: str) -> subprocess.Popen:
    """``bpe-studio train ARGS -o m.json`` running in ``folder``, as a user starts it."""
    return subprocess.Popen(
        [sys.executable, "-m", "app", "train", *args, "-o", "m.json"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for_our_handlers(pid: int) -> None:
    """Until the process catches SIGTERM: our launcher's first act. Before it, Python itself
    is still starting (site, .pth files) and a Ctrl+C there is Python's to report."""
    status = Path(f"/proc/{pid}/status")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        caught = next(line for line in status.read_text().splitlines() if line.startswith("SigCgt:"))
        if int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.001)
    raise AssertionError("the launcher never installed its handlers")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads signal masks from /proc")
@pytest.mark.parametrize("delay", [0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6])
def test_ctrl_c_at_any_moment_of_start_up_says_interrupted(tmp_path, delay):
    (tmp_path / "low.tsv").write_text(LOW * 20_000)
    process = start_training(tmp_path, "low.tsv", "--input", "counts")
    wait_for_our_handlers(process.pid)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    if process.returncode == 0:  # it had finished
        return
    assert process.returncode == 130 and err.decode() == "bpe-studio: Interrupted.\n", err
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_ctrl_c_just_after_a_save_ends_quietly_with_success(tmp_path, monkeypatch):
    """The new file is in place: the command has done its work ("Interrupted." and 130 said
    otherwise, after the old model was already gone)."""
    from bpe_core.cli import train as cli

    (tmp_path / "low.tsv").write_text(LOW)

    def interrupt(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_train_summary", interrupt)  # the next thing after the save
    code, out, err = run(
        "train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "m.json")
    )
    assert code == 0 and err == "" and out == ""
    assert load_encoder(tmp_path / "m.json").merges


# Each command that writes files, run with a signal sent to itself at one moment: its outputs,
# which hold "old" before it runs.
WRITERS = {
    "train": (["train", "low.tsv", "--input", "counts", "-o", "m.json"], ["m.json"]),
    "train with a walk-through": (
        ["train", "low.tsv", "--input", "counts", "-o", "m.json", "--walkthrough", "w.md"],
        ["m.json", "w.md"],
    ),
    "import": (["import", "tok.json", "-o", "s.json"], ["s.json"]),
    "export": (["export", "a.json", "--format", "hf", "-o", "out.json"], ["out.json"]),
    "export as GPT-2's two files": (
        ["export", "b.json", "--format", "gpt2", "-o", "gpt2"],
        ["gpt2/vocab.json", "gpt2/merges.txt"],
    ),
}
SIGNALLED = """
import os, signal, sys
from app import launcher
from bpe_core.cli import common as cli

def signalling(function):
    def wrapper(*args, **kwargs):
        os.kill(os.getpid(), signal.{signal})
        return function(*args, **kwargs)
    return wrapper

def then_signalling(function):
    def wrapper(*args, **kwargs):
        result = function(*args, **kwargs)
        os.kill(os.getpid(), signal.{signal})
        return result
    return wrapper

{patch}
launcher.main(sys.argv[1:])
"""
MOMENTS = {
    # before any file is replaced: the old files stay, and "Interrupted." is right
    "writing": ("os.fsync = signalling(os.fsync)", False),
    # after a replace, and while the command writes its report: it has succeeded
    "replaced": ("os.replace = then_signalling(os.replace)", True),
    "reporting": ("cli._deliver = signalling(cli._deliver)", True),
}


@pytest.fixture
def writer_inputs(tmp_path) -> Path:
    (tmp_path / "low.tsv").write_text(LOW)
    for argv in (
        ["train", "low.tsv", "--input", "counts", "--attach-marker", "-o", "a.json"],
        ["export", "a.json", "--format", "hf", "-o", "tok.json"],
        [
            *("train", "low.tsv", "--input", "counts", "--unit", "byte", "--pretokenize", "gpt2"),
            *("--end-of-word", "none", "-o", "b.json"),
        ],
    ):
        code, _, err = run(*(str(tmp_path / a) if a.endswith((".tsv", ".json")) else a for a in argv))
        assert code == 0, err
    return tmp_path


@pytest.mark.skipif(not hasattr(os, "kill") or sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("number", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("command", WRITERS)
def test_a_signal_once_the_new_files_are_in_place_ends_with_success(writer_inputs, command, moment, number):
    folder = writer_inputs
    argv, outputs = WRITERS[command]
    (folder / "gpt2").mkdir()
    for name in outputs:
        (folder / name).write_text("old")
    patch, succeeds = MOMENTS[moment]
    result = subprocess.run(
        [sys.executable, "-c", SIGNALLED.format(signal=number, patch=patch), *argv],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    contents = [(folder / name).read_text() for name in outputs]
    if succeeds:
        assert result.returncode == 0 and "Interrupted" not in result.stderr, result.stderr
        assert "old" not in contents and result.stdout
    else:
        assert (result.returncode, result.stderr) == (130, "bpe-studio: Interrupted.\n"), result.stderr
        assert contents == ["old"] * len(outputs)
    assert not [p.name for p in folder.rglob("*.tmp")]


# -- 4. files ------------------------------------------------------------------------------


def test_saved_models_get_the_umask_and_a_replaced_file_keeps_its_mode(tmp_path):
    (tmp_path / "low.tsv").write_text(LOW)
    old = os.umask(0o022)
    try:
        code, _, _ = run(
            "train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "m.json")
        )
        assert code == 0 and stat.S_IMODE((tmp_path / "m.json").stat().st_mode) == 0o644
        (tmp_path / "m.json").chmod(0o600)
        run("train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "m.json"))
        assert stat.S_IMODE((tmp_path / "m.json").stat().st_mode) == 0o600
    finally:
        os.umask(old)


def test_a_save_killed_midway_leaves_a_temporary_the_next_save_removes(tmp_path):
    (tmp_path / "low.tsv").write_text(LOW)
    stale = tmp_path / ".m.json.999999.abcd1234.tmp"  # a writer that no longer exists
    stale.write_text("")
    code, _, _ = run("train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "m.json"))
    assert code == 0 and not stale.exists()


ODD_NAMES = [
    ".m.json.99999999999999999999.x.tmp",  # a number os.kill overflows on
    ".m.json.4294967297.abcd1234.tmp",  # beyond any process id
    ".m.json." + "9" * 230 + ".abcd1234.tmp",  # as long as a name may be
    ".m.json.0.abcd1234.tmp",  # os.kill(0, ...) means the whole process group
    ".m.json.\u0663\u0663\u0663\u0663\u0663\u0663.abcd1234.tmp",  # digits, but not ASCII ones
    ".m.json.999999.abcd1234.tmp\n",  # only looks like ours up to a line break
    ".m.json.999999.abcd1234.tmp.tmp",
    ".m.json.999999.ABCD1234.tmp",  # mkstemp never writes capitals
]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_a_name_that_only_looks_like_a_temporary_never_fails_a_save(tmp_path, name):
    """A stray file named like a killed save's temporary crashed every save after training
    (OverflowError in the clean-up), so the training was lost; names that are not ours stay."""
    (tmp_path / "low.tsv").write_text(LOW)
    (tmp_path / name).write_text("not ours")
    stale = tmp_path / ".m.json.999999.abcd1234.tmp"  # ours, from a writer that is gone
    stale.write_text("")
    code, out, err = run(
        "train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "m.json")
    )
    assert code == 0 and err == "" and "Saved the model" in out
    assert load_encoder(tmp_path / "m.json").merges
    assert (tmp_path / name).read_text() == "not ours" and not stale.exists()


def test_a_folder_or_an_unremovable_file_named_like_a_temporary_never_fails_a_save(tmp_path, monkeypatch):
    (tmp_path / "low.tsv").write_text(LOW)
    (tmp_path / ".m.json.999999.abcd1234.tmp").mkdir()
    (tmp_path / ".m.json.999998.abcd1234.tmp").symlink_to("low.tsv")
    locked = tmp_path / ".m.json.999997.abcd1234.tmp"
    locked.write_text("")
    real_unlink = os.unlink

    def refuse(path, *args, **kwargs):  # a file of another user in a sticky folder, say
        if Path(path).name == locked.name:
            raise PermissionError(1, "Operation not permitted")
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse)
    for _ in range(2):
        code, _, err = run(
            "train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "m.json")
        )
        assert code == 0 and err == ""
    assert (tmp_path / ".m.json.999999.abcd1234.tmp").is_dir() and locked.exists()
    assert (tmp_path / "low.tsv").read_text() == LOW and load_encoder(tmp_path / "m.json").merges


def test_sigterm_during_training_cleans_up_like_ctrl_c(tmp_path):
    (tmp_path / "big.txt").write_text(" ".join(f"w{i}x{i % 97}y" for i in range(300_000)))
    process = start_training(tmp_path, "big.txt", "--min-frequency", "1")
    time.sleep(1.5)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode in (0, 130), err
    if process.returncode == 130:
        assert err.decode() == "bpe-studio: Interrupted.\n"
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("output", ["", "newdir/", "missing/m.json", "low.tsv/m.json", "readonly/m.json"])
def test_a_bad_output_path_is_refused_before_training(tmp_path, monkeypatch, output):
    from bpe_core.runtime import fileio

    (tmp_path / "low.tsv").write_text(LOW)
    (tmp_path / "newdir").mkdir()
    (tmp_path / "readonly").mkdir()
    # As root every folder is writable: deny this one as the system would deny a user.
    real_access = os.access
    monkeypatch.setattr(
        fileio.os, "access", lambda path, mode: "readonly" not in str(path) and real_access(path, mode)
    )
    trained = []
    monkeypatch.setattr(Trainer, "run", lambda self, **kw: trained.append(1))
    target = str(tmp_path / output) if output else ""
    code, out, err = run("train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", target)
    assert code == 1 and one_sentence(err) and out == "" and not trained
    assert not (tmp_path / "newdir" / "model.json").exists()


def test_saving_through_a_symlink_writes_its_target(tmp_path):
    (tmp_path / "low.tsv").write_text(LOW)
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to("real.json")
    code, _, _ = run(
        "train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(tmp_path / "link.json")
    )
    assert code == 0 and (tmp_path / "link.json").is_symlink()
    assert load_encoder(tmp_path / "real.json").merges


HUGE = "9" * 5000


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "X", "--merges", HUGE],
        ["train", "X", "--vocab-size", HUGE],
        ["train", "X", "--min-frequency", HUGE],
        ["train", "X", "--tie-break", "random:" + HUGE],
        ["train", "X", "--end-of-word", "\udcff"],  # the byte 0xFF as the system passes it on
        ["train", "X", "--special-token", "<\udcff>"],
        ["encode", "--model", "M", "--special-token", "<\udcff>", "hi"],
        ["decode", "--model", "M", "--", "-2"],
        ["decode", "--model", "M", "1_000"],
        ["decode", "--model", "M", "\u0663"],  # ٣, a digit to int()
    ],
)
def test_odd_option_values_are_usage_errors_in_one_short_sentence(argv):
    """They were internal-looking ("invalid _positive value: '999…5,000 digits'"), a traceback at
    save time (a marker that is not UTF-8), or accepted (decode -1 printed U+FFFD)."""
    code, out, err = run(*argv)
    assert code == 2 and out == "" and one_sentence(err), err
    assert "_positive" not in err and "_rule" not in err and len(err) < 200


def test_saving_to_a_fifo_or_a_device_writes_into_it_and_leaves_it_in_place(tmp_path):
    """``-o`` naming a FIFO or a character device (``/dev/null``) writes into it, as ``cp``
    does; it was replaced by a regular file (as root, ``-o /dev/null`` replaced the device)."""
    import threading

    (tmp_path / "low.tsv").write_text(LOW)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    code, _, err = run("train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(fifo))
    reader.join(timeout=30)
    assert code == 0, err
    assert stat.S_ISFIFO(fifo.stat().st_mode) and json.loads(received[0])["merges"]
    targets = [Path("/dev/null")] if Path("/dev/null").is_char_device() else []
    try:  # a null device of our own where we may make one (root): the real one is not risked
        os.mknod(tmp_path / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        targets = [tmp_path / "null"]
    except OSError:
        pass
    for device in targets:
        code, _, err = run("train", str(tmp_path / "low.tsv"), "--input", "counts", "-o", str(device))
        assert code == 0 and device.is_char_device(), err


@pytest.mark.parametrize("form", ["session", "hf", "codes"])
def test_a_model_read_through_a_pipe_encodes_as_the_file_does(tmp_path, model, form):
    """``--model <(cat m.json)`` and ``cat m.json | ... --model /dev/stdin``: the format was told
    from the pipe's head, and then opening it again hung (or found it empty)."""
    path = model
    if form != "session":
        attached = tmp_path / "a.json"
        code, _, err = run(
            "train", str(tmp_path / "low.tsv"), "--input", "counts", "--attach-marker", "-o", str(attached)
        )
        assert code == 0, err
        path = tmp_path / ("tok.json" if form == "hf" else "m.codes")
        code, _, err = run("export", str(attached), "--format", form, "-o", str(path))
        assert code == 0, err
    from_file = shell(f"bpe-studio encode --model {path} 'lowest newer'", tmp_path)
    assert from_file.returncode == 0, from_file.stderr
    for line in (
        f"bpe-studio encode --model <(cat {path}) 'lowest newer'",
        f"cat {path} | bpe-studio encode --model /dev/stdin 'lowest newer'",
    ):
        piped = shell(f"bash -c {json.dumps(line)}", tmp_path, timeout=30)
        assert (piped.returncode, piped.stdout) == (0, from_file.stdout), piped.stderr


def test_a_fifo_that_is_not_a_model_is_refused_in_one_sentence(tmp_path):
    piped = shell("bash -c 'bpe-studio encode --model <(echo hello there) x'", tmp_path, timeout=30)
    assert piped.returncode == 1 and one_sentence(piped.stderr.decode()), piped.stderr


# -- 3. reading stays bounded --------------------------------------------------------------


def test_reading_dev_zero_stops_at_its_first_block(tmp_path, monkeypatch):
    """Corpora stream through without a size limit: an endless device is refused by what it holds."""
    code, _out, err = run("train", "/dev/zero")
    assert code == 1 and one_sentence(err) and "looks binary" in err


def test_a_nul_byte_deep_in_a_file_is_refused(tmp_path):
    path = tmp_path / "late.txt"
    path.write_bytes(b"hello world " * 10_000 + b"\x00" + b"more words")
    code, _, err = run("train", str(path))
    assert code == 1 and one_sentence(err) and "NUL" in err


# Ctrl+C within ``fork``, as a worker starts: its handler would run in the parent's after-fork
# hooks, which drop the exception.
INTERRUPTED_AT_FORK = """
import os, signal, sys
from app import launcher
from bpe_core.io import counting

counting.ONE_WORKER_BELOW = 0  # on worker processes however small the input
os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGINT))
launcher.main(sys.argv[1:])
"""

# One worker killed (as the out-of-memory killer would) while the other is deep in a task.
WORKER_KILLED = """
import os, signal, sys, time
from app import launcher
from bpe_core.io import counting, count_workers

counting.ONE_WORKER_BELOW, counting.CHUNK, count_workers.STOP_SECONDS = 0, 4_000, 0.5
def task(task, *args):
    try:  # the first worker to get here is killed once the other is in a task
        os.close(os.open("killed", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        open("counting", "w").close()
        time.sleep(30)  # still counting when the main process ends it
    while not os.path.exists("counting"):
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGKILL)

counting.count_task = task
launcher.main(sys.argv[1:])
"""


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signals")
def test_ctrl_c_as_counting_processes_start_and_a_worker_killed_end_in_one_sentence(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower newest widest\n" * 2000, encoding="utf-8")
    for script, code, says in (
        (INTERRUPTED_AT_FORK, 130, "bpe-studio: Interrupted.\n"),
        (WORKER_KILLED, 1, "A counting process ended unexpectedly"),
    ):
        output = tmp_path / "counts.tsv"
        result = subprocess.run(
            [sys.executable, "-c", script, "count", str(corpus), "--workers", "2", "-o", str(output)],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == code and says in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert not output.exists() and not list(tmp_path.glob("*.tmp"))


@pytest.mark.skipif(not hasattr(os, "kill") or sys.platform == "win32", reason="POSIX signals")
def test_a_command_started_ignoring_ctrl_c_goes_on_through_it(tmp_path):
    # As a script's background job is started (``cmd &``): the terminal's Ctrl+C is not its own.
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "count", "-", "-o", str(tmp_path / "c.tsv")],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    time.sleep(1.5)  # started, and waiting for its input
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(b"to be or not to be", timeout=60)
    assert process.returncode == 0 and b"Interrupted" not in err
    assert (tmp_path / "c.tsv").read_text(encoding="utf-8").splitlines()[1:3] == ["be\t2", "to\t2"]
