#!/usr/bin/env python3
"""parle.decode: RLE decode (the survey's four steps) vs the serial CPU decoder, time vs size.
Usage: python3 plots/parle_decode.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "parle.decode"
PAPER_NOTE = "survey (Eirola, Fig. 2) describes the decoder; no number given"

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
