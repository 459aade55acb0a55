"""bpe_core is usable without Qt: importing it (and the CLI) loads neither PySide6 nor pyqtgraph."""

import json
import subprocess
import sys


def test_bpe_core_imports_no_gui_modules():
    code = (
        "import sys, json, bpe_core, bpe_core.cli, bpe_core.io.session, bpe_core.encoding.encoder; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph', 'app', 'PyQt6', 'PyQt5'))))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []


def test_command_line_path_does_not_import_qt():
    code = (
        "import sys, runpy; sys.argv = ['bpe-studio', 'train', '--help']\n"
        "try:\n    import app.launcher as l; l.main(['train', '--help'])\n"
        "except SystemExit: pass\n"
        "print([m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"
