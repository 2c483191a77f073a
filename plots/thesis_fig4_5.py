#!/usr/bin/env python3
"""thesis.fig4_5: forward MTF (gpu.paper) time vs the partial-list size kept in shared memory.
Usage: python3 plots/thesis_fig4_5.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.fig4_5"
PAPER_NOTE = "thesis (GTX 460): the optimum settles near 40 entries per list for all datasets"
SWEEP_NOTE = "gpu.paper forward: the local scan alone (dashed, the thesis's measurement) and the whole transform; the thesis's optimum: 40"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
