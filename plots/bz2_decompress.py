#!/usr/bin/env python3
""".bz2 decompression (ours): one panel per dataset, MB/s of uncompressed data per program reading
the files bzip2 -9 and lbzip2 -9 wrote (<program>.<maker>-made), wall time of the whole program,
input in the page cache, output written; bar labels: the file's compressed/original. gpu.kernels is
the GPU decoder's stages alone on bzip2 -9's file (symbols and inverse BWT of every block,
device-resident, CUDA events): a different measure, drawn hatched.
Usage: python3 plots/bz2_decompress.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import bz2_compress  # noqa: E402

EXPERIMENT = "bz2.decompress"
PAPER_NOTE = "ours: wall time of whole programs reading bzip2 -9's and lbzip2 -9's files (hatched: the GPU decoder's stages alone, device-resident); bar labels: compressed/original"
FIGURE = bz2_compress.figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
