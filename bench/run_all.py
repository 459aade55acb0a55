"""Run every benchmark in turn (what the README's performance table reports).

python bench/run_all.py
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "train_vs_hf.py",
    "single_sequence.py",
    "step_latency.py",
    "encode_vs_hf.py",
    "normalize_encode.py",
    "session_open.py",
    "long_word.py",
]

if __name__ == "__main__":
    for script in SCRIPTS:
        print(f"\n## {script}\n", flush=True)
        subprocess.run([sys.executable, str(HERE / script)], check=True)
