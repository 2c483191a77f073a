#!/usr/bin/env python3
"""thesis.fig4_4: forward MTF, serial vs parallel, per dataset (BWT'd in 1 MiB blocks, and raw).
Usage: python3 plots/thesis_fig4_4.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.fig4_4"
PAPER_NOTE = "thesis (GTX 460 vs one i5 core): from a slowdown to 5x faster, worse with more distinct symbols"
PAPER_SPEEDUP = 5
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
