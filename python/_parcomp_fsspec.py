"""PARCOMP_FSSPEC=1 in the environment: fsspec's "bz2" compression through parcomp in every Python
process started with it (Dask's workers included), from the wheel's parcomp_fsspec.pth; without
fsspec installed, nothing. The parcomp package itself is imported when the first file opens."""

try:
    from fsspec.compression import register_compression
except ImportError:
    register_compression = None


def _open(infile, mode="rb", **kwargs):
    from parcomp import BZ2File

    return BZ2File(infile, mode, **kwargs)


if register_compression is not None:
    register_compression("bz2", _open, "bz2", force=True)
