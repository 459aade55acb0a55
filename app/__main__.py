"""``python -m app``: the same entry point as the ``bpe-studio`` command."""

from app.launcher import main

if __name__ == "__main__":  # not when a counting worker process is started from this module
    raise SystemExit(main())
