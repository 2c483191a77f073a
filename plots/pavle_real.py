#!/usr/bin/env python3
"""pavle.real: encoders on the real datasets with a 16-bit code limit (sm64huff, gpu.fast)
Usage: python3 plots/pavle_real.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.real"
PAPER_NOTE = "ours: the paper used synthetic data only"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
