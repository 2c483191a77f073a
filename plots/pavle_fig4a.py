#!/usr/bin/env python3
"""pavle.fig4a: PAVLE kernel time vs data size at 2.2 bits/symbol (see EXPERIMENTS).
Usage: python3 plots/pavle_fig4a.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.fig4a"
PAPER_NOTE = "paper (GTX 280, 2.2 bits/symbol): gm32 about equal to the CPU, sm32 over 10x faster; the scan dominates asymptotically"

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
