"""``python -m bpe_core.cli``: the command line without the launcher (the benchmarks run it so)."""

from bpe_core.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
