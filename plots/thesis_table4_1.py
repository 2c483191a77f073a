#!/usr/bin/env python3
"""thesis.table4_1: forward BWT in 1 MiB blocks per dataset (the BWT column; MB/s equals Mstrings/s, one rotation per byte)
Usage: python3 plots/thesis_table4_1.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.table4_1"
PAPER_NOTE = "thesis (GTX 460): forward 1.5 to 9.8 Mstrings/s, worst on the most compressible data; 52.4 Mstrings/s on random unique keys"
BASELINE = "bwt.cpu.divbwt"
PIPELINE_NOTE = "thesis (GTX 460): Linux tarball compression 4.25 MB/s, ratio 0.24 (bzip2 9.8 MB/s, 0.18); MB/s of input, speedup over bzip2 -9 on one core"
FIGURE = common.pipeline_or_stage_figure(PIPELINE_NOTE)

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
