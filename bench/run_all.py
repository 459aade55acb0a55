"""Run every benchmark in this folder in turn (what the README's performance table reports), and
say why any is left out.

A benchmark is any script here that is not a helper; one added later runs without being listed.
Each runs as its own process with its default arguments; a failure is reported and the rest still
run. The window benchmarks run offscreen (no display needed). All of them take a while: the
whole set is tens of minutes on two cores.

    python bench/run_all.py [NAME ...]      (NAME: a script, e.g. sweep.py; default: all)
"""

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELPERS = {"common.py", "peers.py", "window.py", "open_in_window.py", "run_all.py"}
# The order the README's table was measured in; the others follow by name.
FIRST = [
    "train_vs_hf.py",
    "single_sequence.py",
    "step_latency.py",
    "encode_vs_hf.py",
    "normalize_encode.py",
    "session_open.py",
    "long_word.py",
]
ARGUMENTS = {
    # The recovery this project shipped before takes minutes on the hostile ranks.
    "hostile_ranks.py": ["--skip-before"],
}
LEFT_OUT = {
    "before_after.py": "it compares two checkouts: run it with --before DIR (e.g. a git worktree of an "
    "older commit)",
}
NEEDS = {  # the modules a benchmark imports besides the project's own
    "train_vs_hf.py": ["tokenizers"],
    "single_sequence.py": ["tokenizers"],
    "step_latency.py": ["tokenizers"],
    "encode_vs_hf.py": ["tokenizers", "tiktoken"],
    "normalize_encode.py": ["tokenizers"],
    "gpt2_encode.py": ["tokenizers", "tiktoken"],
    "encode_cli.py": ["tiktoken"],
    "sweep.py": ["tokenizers"],
    "branches.py": ["tokenizers", "PySide6", "pyqtgraph"],
    "gui_latency.py": ["PySide6", "pyqtgraph"],
    "gpt2_window.py": ["PySide6", "pyqtgraph"],
    "session_open.py": ["PySide6", "pyqtgraph"],
    "large_tokenizer.py": ["tokenizers"],
}


def benchmarks() -> list[str]:
    found = sorted(path.name for path in HERE.glob("*.py") if path.name not in HELPERS)
    return [name for name in FIRST if name in found] + [name for name in found if name not in FIRST]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="scripts to run (default: every benchmark)")
    chosen = parser.parse_args().names or benchmarks()
    failed, skipped = [], []
    for script in chosen:
        missing = [module for module in NEEDS.get(script, []) if importlib.util.find_spec(module) is None]
        reason = LEFT_OUT.get(script) or (missing and f"it needs {', '.join(missing)}, not installed")
        if reason:
            skipped.append(script)
            print(f"\n## {script}: left out, {reason}.", flush=True)
            continue
        print(f"\n## {script}\n", flush=True)
        if subprocess.run([sys.executable, str(HERE / script), *ARGUMENTS.get(script, [])]).returncode:
            failed.append(script)
    print(f"\nRan {len(chosen) - len(skipped)}, left out {len(skipped)}, failed {len(failed)}.")
    if failed:
        raise SystemExit(f"Failed: {', '.join(failed)}.")


if __name__ == "__main__":
    main()
