#!/usr/bin/env python3
"""pavle.decode: the GPU decoder (ours) vs size at 2.2 bits/symbol, and its speedup over the bit-serial CPU decoder.
Usage: python3 plots/pavle_decode.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.decode"
PAPER_NOTE = "ours: the paper has no decoder; goal 100 GB/s of output on an H100/H200"

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
