"""Open a session in the real window (offscreen) as File > Open does, and quit when it is shown.

Without a file, start the window and quit: the start-up that ``bench/session_open.py``
subtracts from the peak of opening.

    python bench/open_in_window.py [SESSION.json]
"""

from __future__ import annotations

import sys
import time

from window import bench_window


def main() -> None:
    app, window = bench_window()
    if len(sys.argv) > 1:
        window.bridge.open_file(sys.argv[1])
        while window.bridge.busy:
            app.processEvents()
            time.sleep(0.005)
        if window.bridge.path is None or str(window.bridge.path) != sys.argv[1]:
            raise SystemExit(f"the window did not open {sys.argv[1]}")
    deadline = time.perf_counter() + 0.5  # every pane repaints with what it was given
    while time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.005)
    window.bridge.dirty = False
    window.close()


if __name__ == "__main__":
    main()
