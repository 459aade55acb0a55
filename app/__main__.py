"""``python -m app``: the same entry point as the ``bpe-studio`` command."""

from app.launcher import main

raise SystemExit(main())
