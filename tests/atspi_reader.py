"""Run by the system's Python (Debian's python3-pyatspi): read BPE Studio's controls through
AT-SPI as a screen reader does, and print their roles, names and states as JSON. A helper of
tests/gui/test_accessibility.py; not a test itself."""

import json
import sys
import time

import pyatspi

deadline = time.time() + 40
app = None
while time.time() < deadline and app is None:
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        child = desktop.getChildAtIndex(i)
        if child is not None and child.name == "BPE Studio":
            app = child
    if app is None:
        time.sleep(0.5)
if app is None:
    print(
        json.dumps(
            {
                "error": "no application",
                "apps": [desktop.getChildAtIndex(i).name for i in range(desktop.childCount)],
            }
        )
    )
    sys.exit(0)
out = []


def walk(node, depth=0):
    """The node and what is under it; of a table or list, only its first cells."""
    if node is None or depth > 40:
        return
    try:
        role = node.getRoleName()
        name = node.name or ""
        states = node.getState()
        showing = states.contains(pyatspi.STATE_SHOWING)
    except Exception:
        return
    out.append({"role": role, "name": name, "showing": showing, "description": node.description or ""})
    if role in ("table", "tree table", "list", "tree"):  # its cells: not every one
        for i in range(min(node.childCount, 12)):
            walk(node.getChildAtIndex(i), depth + 1)
        return
    for i in range(node.childCount):
        walk(node.getChildAtIndex(i), depth + 1)


walk(app)
print(json.dumps({"app": app.name, "nodes": out}))
