"""The ``bpe-studio`` entry point: headless commands go to ``bpe_core.cli`` (no Qt import, so
scripts start fast); anything else opens the desktop window."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and (args[0] in ("train", "encode", "decode") or args[0] in ("-h", "--help")):
        from bpe_core.cli import main as cli_main

        code = cli_main(args)
        # A short-lived command: skip tearing down the (possibly huge) engine object by object.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    from app.gui import run  # imports Qt

    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
