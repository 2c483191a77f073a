"""parcomp: .bz2 on every CPU core and GPU of a host, with the face of Python's bz2 module.

``compress``/``decompress`` for whole buffers, ``BZ2Compressor``/``BZ2Decompressor`` for pieces,
``BZ2File``/``open`` for files (a path, a file descriptor's file or any Python file object),
``register_fsspec`` so that fsspec (and Dask, pandas through it) reads .bz2 through parcomp
(or PARCOMP_FSSPEC=1 in the environment, for every Python process started with it),
``decompress_to_device`` for the output in a GPU's memory (CuPy, PyTorch),
and ``parcomp.dask`` (imported on its own) for one .bz2 file as many Dask partitions.
Every call takes ``threads`` (CPU workers: None for every hardware thread, 0 for none) and
``devices`` (the GPUs to use: None for every GPU, [] for none); the GIL is released while the
library works.
"""

from ._parcomp import CorruptDataError, GpuError, set_gpu_memory_limit
from ._parcomp import version as _version
from ._api import (
    BZ2Compressor,
    BZ2Decompressor,
    BZ2File,
    DeviceBuffer,
    compress,
    decompress,
    decompress_to_device,
    open,
    register_fsspec,
)

__version__ = _version().split(" ")[0]

if __import__("os").environ.get("PARCOMP_FSSPEC", "") not in ("", "0"):
    try:  # as parcomp_fsspec.pth does at start-up, where it did not run (python -S, PYTHONPATH)
        register_fsspec()
    except ImportError:
        pass

__all__ = [
    "BZ2Compressor",
    "BZ2Decompressor",
    "BZ2File",
    "CorruptDataError",
    "DeviceBuffer",
    "GpuError",
    "compress",
    "decompress",
    "decompress_to_device",
    "open",
    "register_fsspec",
    "set_gpu_memory_limit",
]
