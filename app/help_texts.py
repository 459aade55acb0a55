"""What the Help menu says: the keys that are not menu commands, and About (version, licences,
where the manual is)."""

from __future__ import annotations

import html
import sys
from pathlib import Path

import numpy
import pyqtgraph
import PySide6
import regex
from PySide6.QtCore import QUrl, qVersion

import bpe_core

README = Path(__file__).resolve().parents[1] / "README.md"

# Keys that belong to a pane or to moving between panes rather than to a menu command.
PANE_KEYS = (
    ("Alt+M", "the Samples menu: a corpus to begin with"),
    ("Tab / Shift+Tab", "from pane to pane"),
    ("Ctrl+1 … Ctrl+7", "to a pane, in front (Corpus, Pairs, Encode, Merges, Vocabulary, Plots, History)"),
    ("Space on a button or a box", "press or tick it"),
    ("Esc in a text field", "back to the last table"),
    ("Menu key or Shift+F10 in a table", "sort Corpus or Vocabulary by a column"),
    ("Enter or double-click in Pairs", "merge the selected pair"),
    ("Enter or click in Merges", "go to that step"),
    ("Shift+F1 in Encode", "how the token at the cursor was merged"),
    ("↑ ↓ in History (Ctrl+H)", "to the branch above or below"),
    ("Home / End in History", "the first or last step of the branch"),
    ("F2 or double-click in History", "rename the branch"),
    # Two lines, not one: the keys of one line are kept whole and this was wider than its column
    ("Right-click in History", "go to, rename or delete a branch"),
    ("Menu key or Shift+F10 in History", "the same, by keys"),
    ("← → in History or the plots", "undo and step, as anywhere"),
    ("Menu key or Shift+F10 in the plots", "export a plot"),
    ("Ctrl+1 … Ctrl+7 in a side view", "back to the window, at that pane"),
)

# The libraries shipped with the window, and their licences.
LIBRARIES = (
    ("Qt", qVersion(), "LGPLv3", "https://www.qt.io/licensing/open-source-lgpl-obligations"),
    ("PySide6", PySide6.__version__, "LGPLv3", "https://pypi.org/project/PySide6/"),
    ("pyqtgraph", pyqtgraph.__version__, "MIT", "https://www.pyqtgraph.org/"),
    ("numpy", numpy.__version__, "BSD", "https://numpy.org/"),
    ("regex", getattr(regex, "__version__", ""), "Apache-2.0", "https://pypi.org/project/regex/"),
)


def shortcuts_html(commands: list[str], columns: int = 2) -> str:
    """The commands' keys (one ``Name: keys`` line each) beside the keys of the panes, in two
    columns (one column was taller than a small screen), or under them where two columns are
    wider than the screen (zoomed in: a line kept whole was broken inside its keys)."""
    left = "<br>".join(f"<nobr>{html.escape(line)}</nobr>" for line in commands)
    # The keys kept whole, what they do wrapped between words: on a narrow screen a line kept
    # whole was broken inside a word.
    right = "<br>".join(f"<nobr>{html.escape(keys)}:</nobr> {what}" for keys, what in PANE_KEYS)
    if columns == 1:
        return f"<p>{left}</p><p><b>In the panes</b><br>{right}</p>"
    return (
        f'<table><tr><td valign="top">{left}</td><td width="24"></td>'
        f'<td valign="top"><b>In the panes</b><br>{right}</td></tr></table>'
    )


def manual_html() -> str:
    """Where the manual (the README) is: a link to the file beside the program, or its name when
    the program was installed without it."""
    if README.is_file():
        url = QUrl.fromLocalFile(str(README)).toString()
        return f'<a href="{url}">README.md</a> ({html.escape(str(README))})'
    return "README.md of the source distribution"


def about_html() -> str:
    rows = "".join(
        f'<li><a href="{url}">{name}</a> {html.escape(version)} — {licence}</li>'
        for name, version, licence, url in LIBRARIES
    )
    python = ".".join(map(str, sys.version_info[:3]))
    return (
        f"<h3>BPE Studio {bpe_core.__version__}</h3>"
        "<p>Explore Byte Pair Encoding: step, undo, jump, choose among tied pairs and encode live.</p>"
        "<p>Licence: MIT.</p>"
        f"<p>The manual is the {manual_html()}; F1 lists the keys.</p>"
        f"<p>Built with Python {python} and:</p><ul>{rows}</ul>"
        "<p>GPT-2's ranks (Samples → GPT-2's real tokenizer) are OpenAI's, under the MIT licence "
        "(resources/tokenizers/gpt2.tiktoken.LICENSE).</p>"
    )
