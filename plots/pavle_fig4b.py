#!/usr/bin/env python3
"""pavle.fig4b: PAVLE kernel time vs data size at 2.2 bits/symbol (see EXPERIMENTS).
Usage: python3 plots/pavle_fig4b.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.fig4b"
PAPER_NOTE = "paper (GTX 280): the codeword table in shared memory gives about +20% to GM kernels, up to +55% to SM kernels"

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
