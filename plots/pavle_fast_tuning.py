#!/usr/bin/env python3
"""pavle.fast_tuning: gpu.fast's symbols per thread (32 or 64) at 2^28 symbols, 2.2 bits/symbol
Usage: python3 plots/pavle_fast_tuning.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.fast_tuning"
PAPER_NOTE = "ours: tuning of gpu.fast"
SWEEP_NOTE = "time vs symbols per thread (spt)"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
