#!/usr/bin/env python3
"""pavle.fig5b: sm32 run time for DPT = 1, 2, 4, 8 words per thread, the codeword table cached,
and the aggregate codewords cached too. Usage: python3 plots/pavle_fig5b.py RESULT.json [--out DIR]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.fig5b"
PAPER_NOTE = "paper (GTX 280): DPT max 8 with the table cached, 4 with aggregates cached too; best DPT = 4"
SWEEP_NOTE = "time vs DPT (32-bit words per thread), 2.2 bits/symbol"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
