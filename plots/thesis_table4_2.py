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
PIPELINE_NOTE = "thesis (GTX 460): Linux tarball decompression 24.0 MB/s vs bzip2 23.5; MB/s of output, speedup over bzip2 -9 on one core"
FIGURE = common.pipeline_or_stage_figure(PIPELINE_NOTE)

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
