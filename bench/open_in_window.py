"""Open a session in the real window (offscreen) as File > Open does, and quit when it is shown.

Without a file, start the window and quit: the start-up that ``bench/session_open.py``
subtracts from the peak of opening. With one, also print the memory the window keeps once it
has settled (its labels made, its encoder built), above what it held before opening:
``kept_mb=<MB>``.

    python bench/open_in_window.py [SESSION.json]
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

from window import bench_window


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("no VmRSS in /proc/self/status")


def main() -> None:
    app, window = bench_window()
    gc.collect()
    before = resident_mb()
    if len(sys.argv) > 1:
        window.bridge.open_file(sys.argv[1])
        while window.bridge.busy:
            app.processEvents()
            time.sleep(0.005)
        if window.bridge.path is None or str(window.bridge.path) != sys.argv[1]:
            raise SystemExit(f"the window did not open {sys.argv[1]}")
    deadline = time.perf_counter() + 1.0  # every pane repaints with what it was given
    while time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.005)
    if len(sys.argv) > 1:
        gc.collect()
        print(f"kept_mb={resident_mb() - before:.1f}")
    window.bridge.dirty = False
    window.close()


if __name__ == "__main__":
    main()
