#!/usr/bin/env python3
"""thesis.huffman_rates: Huffman encode-only and decode-only rates per dataset (MB/s of
uncompressed data), GPU kernels against the serial CPU encoder.
Usage: python3 plots/thesis_huffman_rates.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.huffman_rates"
PAPER_NOTE = "thesis (GTX 460): encode-only 1052 MB/s, decode-only 85.62 MB/s (one thread per 4096-symbol block)"
BASELINE = "cpu.serial.encode"
FIGURE = common.per_dataset_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
