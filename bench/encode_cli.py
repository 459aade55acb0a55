"""``bpe-studio encode --file`` with GPT-2's ranks, as a whole process, against the encoder it
drives and against tiktoken, on texts of every shape.

Each program runs as its own process, measured the same way (wall time and peak RSS):

- the CLI: ``bpe-studio encode --model gpt2.tiktoken --file TEXT`` (tokens, ids and count
  written to /dev/null), and with ``--json`` (tokens, ids and spans);
- ours in-process: the same model read the same way, then ``Encoder.encode_ids(text)`` on the
  whole text (a fresh encoder, so its word cache starts empty); the call alone is timed;
- tiktoken: an ``Encoding`` from the same ranks and GPT-2's pattern, ``encode_ordinary(text)``
  on the whole text (its single-text call; one thread); the call alone is timed.

The texts: ``english_10mb.txt`` as it is, and 20 MB made from it: its lines (many short ones),
one line (its line breaks made spaces), and no whitespace at all. The CLI's ids are checked
equal to tiktoken's. Ratios are the CLI's whole process over the encoding call alone.

    python bench/encode_cli.py [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ENV, PYTHON, REPO, compile_sources, find_corpus, gpt2_ranks, measure, table

RANKS = gpt2_ranks()
PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
SIZE = 20_000_000


def child(kind: str, path: str, cli_output: str | None = None) -> None:
    """Run in a child process: encode ``path`` with ``kind`` and print the call's seconds."""
    sys.path.insert(0, str(REPO))
    from bpe_core.io.formats import read_tokenizer
    from bpe_core.io.formats.tiktoken_ranks import read_ranks

    text = Path(path).read_text(encoding="utf-8")
    if kind == "ours":
        encoder = read_tokenizer(str(RANKS), None, "gpt2", []).encoder
        started = time.perf_counter()
        ids = encoder.encode_ids(text)
        seconds = time.perf_counter() - started
        print(json.dumps({"seconds": seconds, "tokens": len(ids)}))
        return
    import tiktoken

    encoding = tiktoken.Encoding(
        "gpt2", pat_str=PATTERN, mergeable_ranks=read_ranks(RANKS), special_tokens={}
    )
    started = time.perf_counter()
    ids = encoding.encode_ordinary(text)
    seconds = time.perf_counter() - started
    result: dict = {"seconds": seconds, "tokens": len(ids)}
    if cli_output:  # a check, not a measure: its memory is not the peer's
        with open(cli_output, encoding="utf-8") as stream:
            stream.readline()  # the tokens
            result["identical"] = list(map(int, stream.readline().split())) == ids
    print(json.dumps(result))


def timed_child(kind: str, path: Path, cli_output: Path | None = None) -> tuple[dict, float]:
    """The child's report, and its peak RSS in MB."""
    argv = [PYTHON, __file__, "--child", kind, str(path), *([str(cli_output)] if cli_output else [])]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, env=ENV)
    out = process.stdout.read() if process.stdout else b""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{kind} failed on {path}")
    return json.loads(out), usage.ru_maxrss / 1024


SHAPES = ("english_10mb.txt", "20 MB, many short lines", "20 MB, one line", "20 MB, no whitespace")


def write_texts(folder: str) -> None:
    """Run in a child process: write the texts into ``folder`` (text0.txt, ...). Not in this
    process: a child's peak memory counts the highest this process's ever was, as it shares
    this process's pages until it starts its program."""
    english = find_corpus("english_10mb.txt").read_text(encoding="utf-8")
    twice = (english + english)[:SIZE]
    shapes = [english, twice, twice.replace("\n", " "), re.sub(r"\s+", "", english * 3)[:SIZE]]
    for number, text in enumerate(shapes):
        (Path(folder) / f"text{number}.txt").write_text(text, encoding="utf-8", newline="")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    compile_sources()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([PYTHON, __file__, "--texts", folder], check=True, env=ENV)
        for number, name in enumerate(SHAPES):
            path = Path(folder) / f"text{number}.txt"
            output = Path(folder) / "out.txt"
            cli = [PYTHON, "-m", "app", "encode", "--model", str(RANKS), "--file", str(path)]
            runs: dict[str, list] = {"cli": [], "json": [], "ours": [], "tiktoken": []}
            for _ in range(args.runs):  # alternate, so all see the same machine moments
                runs["cli"].append(measure(cli, output))
                runs["json"].append(measure([*cli, "--json"]))
                runs["ours"].append(timed_child("ours", path))
                runs["tiktoken"].append(timed_child("tiktoken", path))
            if not timed_child("tiktoken", path, output)[0]["identical"]:
                raise SystemExit(f"the CLI's ids differ from tiktoken's on {name}")
            median = statistics.median
            cli_s, json_s = median(m.seconds for m in runs["cli"]), median(m.seconds for m in runs["json"])
            ours_s = median(r["seconds"] for r, _ in runs["ours"])
            tk_s = median(r["seconds"] for r, _ in runs["tiktoken"])
            rows.append(
                [
                    name,
                    f"{path.stat().st_size / 2**20:.1f}",
                    f"{cli_s:.2f} / {median(m.peak_mb for m in runs['cli']):.0f}",
                    f"{json_s:.2f} / {median(m.peak_mb for m in runs['json']):.0f}",
                    f"{ours_s:.2f} / {median(p for _, p in runs['ours']):.0f}",
                    f"{tk_s:.2f} / {median(p for _, p in runs['tiktoken']):.0f}",
                    f"{cli_s / ours_s:.2f}",
                    f"{cli_s / tk_s:.2f}",
                ]
            )
    print(f"GPT-2's ranks, one thread, median of {args.runs} run(s); the CLI's ids equal tiktoken's")
    header = [
        "text",
        "MB",
        "CLI s / peak MB",
        "CLI --json",
        "encode_ids (call) / MB",
        "tiktoken (call) / MB",
        "CLI × encode_ids",
        "CLI × tiktoken",
    ]
    print(table(header, rows))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:])
    elif sys.argv[1:2] == ["--texts"]:
        write_texts(sys.argv[2])
    else:
        main()
