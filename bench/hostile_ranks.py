"""Recovering merges from tiktoken ranks built to be slow, and from GPT-2's: before and after.

The hostile file is valid: 256 bytes, then 97 families of 511 tokens each (49,823 ranks), the
longest 512 bytes. 40 families are runs of one byte (``xx``, ``xxx``, … ``x`` × 512), 57
alternate two bytes (``xy``, ``xyx``, ``xyxy``, …); each family has
its own bytes, and the ranks go up by length across families. Every length is a valid token:
BPE with the ranks below a run's makes it of two runs (the left one the largest power of two),
and the same for alternations. Such tokens are what recovery finds hardest: every cut of them
is two tokens. A second file of such families (5 runs, 7 alternations: 49,396 ranks) goes up to
the longest token a ranks file may hold (``LONGEST``, 4,096 bytes); "before" is not run on it.

"before" is the recovery this project shipped until now (byte-level BPE of each token with the
ranks below it, the square of its length in pair look-ups), kept here to measure it; "after" is
``bpe_core.io.formats.tiktoken_ranks.merges_of``. Both give the same merges (checked). A command
given the ranks file (``encode --model hostile.tiktoken``) is timed as a whole process too.

    python bench/hostile_ranks.py [--runs 3] [--skip-before] [--keep FILE]
"""

from __future__ import annotations

import argparse
import base64
import statistics
import tempfile
import time
from pathlib import Path

from common import PYTHON, compile_sources, gpt2_ranks, measure, table

from bpe_core.encoding.encoder import Merge
from bpe_core.io.formats.recovery import LONGEST
from bpe_core.io.formats.tiktoken_ranks import merges_of, read_ranks

GPT2 = gpt2_ranks()


def hostile_ranks(
    longest: int = 512, run_families: int = 40, alternating_families: int = 57
) -> dict[bytes, int]:
    """The ranks described above: runs and alternations up to ``longest`` bytes."""
    free = iter(range(256))
    runs = [bytes([next(free)]) for _ in range(run_families)]
    pairs = [bytes([next(free), next(free)]) for _ in range(alternating_families)]
    ranks = {bytes([b]): b for b in range(256)}
    for length in range(2, longest + 1):
        for unit in runs:
            ranks[unit * length] = len(ranks)
        for pair in pairs:
            ranks[(pair * length)[:length]] = len(ranks)
    return ranks


def write(ranks: dict[bytes, int], path: Path) -> None:
    lines = (f"{base64.b64encode(token).decode()} {rank}\n" for token, rank in ranks.items())
    path.write_text("".join(lines), encoding="ascii")


def merges_before(ranks: dict[bytes, int]) -> list[Merge]:
    """The recovery as it was: each token's bytes merged by BPE with the ranks below it."""
    merges: list[Merge] = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) == 1:
            continue
        parts = [token[i : i + 1] for i in range(len(token))]
        while len(parts) > 2:
            best: tuple[int, int] | None = None
            for i in range(len(parts) - 1):
                found = ranks.get(parts[i] + parts[i + 1])
                if found is not None and found < rank and (best is None or found < best[0]):
                    best = (found, i)
            if best is None:
                break
            i = best[1]
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        if len(parts) != 2:
            raise SystemExit(f"the token of rank {rank} cannot be made from two tokens of lower rank")
        merges.append(Merge(len(merges), ranks[parts[0]], ranks[parts[1]], rank, 0))
    return merges


def timed(work, runs: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        started = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip-before", action="store_true", help="the old recovery takes minutes")
    parser.add_argument("--keep", type=Path, help="write the hostile file here too")
    args = parser.parse_args()
    compile_sources()
    with tempfile.TemporaryDirectory() as folder:
        path, longest = Path(folder) / "hostile.tiktoken", Path(folder) / "longest.tiktoken"
        write(hostile_ranks(), path)
        write(hostile_ranks(LONGEST, 5, 7), longest)
        if args.keep:
            write(hostile_ranks(), args.keep)
        rows = []
        for name, file in [
            ("hostile (49,823 ranks, up to 512 bytes)", path),
            (f"hostile (49,396 ranks, up to {LONGEST:,} bytes)", longest),
            ("GPT-2 (50,257 ranks)", GPT2),
        ]:
            ranks = read_ranks(file)
            after, (_, merges) = timed(lambda ranks=ranks: merges_of(ranks), args.runs)
            before = None
            if not args.skip_before and file is not longest:  # trying every cut: the square of 4,096
                before, old = timed(lambda ranks=ranks: merges_before(ranks), 1)
                assert old == merges, f"{name}: the recoveries differ"
            rows.append(
                [
                    name,
                    "—" if before is None else f"{before:.2f}",
                    f"{after:.2f}",
                    "—" if before is None else f"{before / after:.1f}×",
                ]
            )
        command = [PYTHON, "-m", "app", "encode", "--model", str(path), "--format", "tiktoken", "hello world"]
        whole = statistics.median(measure(command).seconds for _ in range(args.runs))
    print(f"recovering the merges in one process (after: median of {args.runs} runs)")
    print(table(["ranks", "before s", "after s", "before / after"], rows))
    print(f"`encode --model hostile.tiktoken`, one process (start-up, read, recover, encode): {whole:.2f} s")


if __name__ == "__main__":
    main()
