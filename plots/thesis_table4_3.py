#!/usr/bin/env python3
"""thesis.table4_3: reverse BWT gpu.paper (Alg. 7/8) against the total thread count
Usage: python3 plots/thesis_table4_3.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.table4_3"
PAPER_NOTE = "thesis (GTX 460): best at 4096 threads, 59.7 MB/s (1024: 50.1, 8192: 52.7, 16384: 50.2)"
SWEEP_NOTE = "time vs total threads of the pointer doubling (Alg. 7/8), whole dataset in 1 MiB blocks"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
