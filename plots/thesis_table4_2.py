#!/usr/bin/env python3
"""thesis.table4_2: reverse BWT in 1 MiB blocks per dataset (the reverse-BWT column)
Usage: python3 plots/thesis_table4_2.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.table4_2"
PAPER_NOTE = "thesis (GTX 460): reverse BWT 50 to 60 MB/s"
BASELINE = "rbwt.cpu.serial"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
