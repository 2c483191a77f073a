#!/usr/bin/env python3
"""thesis.fig4_6: reverse MTF, serial vs parallel per dataset, and gpu.paper vs the list size.
Usage: python3 plots/thesis_fig4_6.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.fig4_6"
PAPER_NOTE = "thesis (GTX 460 vs one i5 core): parallel reverse MTF 3x slower on average; optimum near 76 entries"
SWEEP_NOTE = "gpu.paper reverse, whole transform timed; the thesis's optimum: 76"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
