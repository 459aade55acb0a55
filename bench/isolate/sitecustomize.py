"""Imported at every start of a child whose ``PYTHONPATH`` holds this folder (see ``common.ENV``).

An editable install (``pip install -e``) adds an import hook that finds ``bpe_core`` and ``app``
modules in the installed checkout whenever the imported package lacks them: a child meant to
run an older checkout would then quietly run some modules of the newer one. Dropping the hook
leaves ``PYTHONPATH`` the only place the project is imported from.
"""

import sys

sys.meta_path[:] = [
    finder for finder in sys.meta_path if not getattr(finder, "__module__", "").startswith("__editable__")
]
