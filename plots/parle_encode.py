#!/usr/bin/env python3
"""parle.encode: PARLE encode vs the serial CPU RLE, time vs size, random and runs data.
Usage: python3 plots/parle_encode.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "parle.encode"
PAPER_NOTE = "paper: up to 5x over one CPU core on a GTX 960 (Balevic: 35x with shared-memory atomics)"
PAPER_SPEEDUP = 5  # GTX 960 vs one CPU core, the blog's best

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
