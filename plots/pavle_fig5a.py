#!/usr/bin/env python3
"""pavle.fig5a: PAVLE kernel time vs data size at 2.2 bits/symbol (see EXPERIMENTS).
Usage: python3 plots/pavle_fig5a.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.fig5a"
PAPER_NOTE = "paper (GTX 280): DPT = 4 gives 35x over one 2.66 GHz core, about 4 GB/s; scan over original and reduced counts"

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
