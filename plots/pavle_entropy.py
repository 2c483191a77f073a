#!/usr/bin/env python3
"""pavle.entropy: encoder throughput vs entropy (0.5 to 8 bits/symbol), every variant.
Usage: python3 plots/pavle_entropy.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.entropy"
PAPER_NOTE = "paper: low entropy means more atomics on one word"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
