"""Splittable .bz2 on Dask (ours): one file becomes many partitions.

A partition is a range of the file's compressed bytes. It decodes the blocks whose magic starts in
its range (the first one confirmed by decoding it and its CRC, so that a magic inside compressed
data never starts a split), following the chain across stream ends (pbzip2's, lbzip2's and
concatenated files). With a delimiter, a partition gives the records that start in its blocks'
output: it drops the bytes up to and including the first delimiter (they end a record that an
earlier partition gives) and goes on into the next blocks up to the first delimiter there. Every
record so belongs to exactly one partition, whatever the block and range boundaries.
"""

import io

import dask
import fsspec
from dask.utils import parse_bytes
from fsspec.core import get_fs_token_paths

from . import _parcomp
from ._api import BZ2File

# Bytes past a range that its last block may reach: the longest block (18,400,000 bits,
# 2.3 MB), an end marker and the next stream's header.
_MARGIN = 2_300_000 + 64
_FIRST_BLOCK_BIT = 32  # after the file's "BZh9" header


def _range(f, start, length, size, max_blocks=None, from_bit=0, threads=1):
    """decode_range over the file's bytes [start, start + length) and a margin (more where a block
    runs past it); the range's blocks on `threads` threads (0: every hardware thread)."""
    read = length + _MARGIN
    while True:
        f.seek(start)
        data = f.read(read)
        ends = start + len(data) >= size
        to_bit = from_bit + length * 8 if max_blocks is None else from_bit + 1
        r = _parcomp.decode_range(data, from_bit, to_bit, ends, (1 << 64) - 1 if max_blocks is None else max_blocks, threads)
        if not r.need_input or ends:
            return r
        read *= 2


def _partition(fs, path, start, length, size, delimiter, threads=1):
    return _partition_with_start(fs, path, start, length, size, delimiter, threads)[1]


def _partition_with_start(fs, path, start, length, size, delimiter, threads=1):
    """(whether the partition holds the file's first block, its bytes)."""
    with fs.open(path, "rb") as f:
        r = _range(f, start, length, size, threads=threads)
        text = r.bytes
        first = r.blocks > 0 and start * 8 + r.first_bit == _FIRST_BLOCK_BIT
        if delimiter is None or r.blocks == 0:
            return first, text
        if not first:
            at = text.find(delimiter)
            if at < 0:
                return False, b""  # inside a record that an earlier partition gives
            text = text[at + len(delimiter):]
        more = bytearray()
        bit, go_on = start * 8 + r.next_bit, r.more
        while go_on:
            byte = bit // 8
            n = _range(f, byte, 1, size, max_blocks=1, from_bit=bit - byte * 8)
            if n.blocks == 0:
                break
            seen = max(0, len(more) - len(delimiter) + 1)
            more += n.bytes
            at = more.find(delimiter, seen)
            if at >= 0:
                del more[at + len(delimiter):]
                break
            bit, go_on = byte * 8 + n.next_bit, n.more
        return first, text + bytes(more)


def _tasks(fs, paths, blocksize, delimiter, fn, threads):
    """fn's delayed call for each partition of each file: a list per file."""
    out = []
    for path in paths:
        size = fs.info(path)["size"]
        starts = [0] if blocksize is None else list(range(0, max(size, 1), blocksize))
        out.append([
            dask.delayed(fn, pure=True)(fs, path, s, (size - s) if blocksize is None else min(blocksize, size - s), size, delimiter, threads,
                                        dask_key_name=f"parcomp-{fn.__name__.strip('_')}-{fs.ukey(path)}-{s}-{threads}")
            for s in starts
        ])
    return out


def read_bytes(urlpath, delimiter=None, not_zero=False, blocksize="128 MiB", sample="10 kiB", include_path=False, threads=1,
               **storage_options):
    """dask.bytes.read_bytes for .bz2 files, split: ``(sample, blocks)`` (and ``paths`` with
    ``include_path``), ``blocks`` a list per file of delayed partitions' bytes; ``blocksize`` is in
    compressed bytes (None: one partition per file); ``threads``: each partition's blocks decode
    on that many threads (1, as a Dask task usually runs; 0: every hardware thread). ``not_zero``
    is accepted for dask's signature."""
    fs, _, paths = get_fs_token_paths(urlpath, mode="rb", storage_options=storage_options)
    if not paths:
        raise OSError(f"{urlpath} resolved to no files")
    if isinstance(blocksize, str):
        blocksize = parse_bytes(blocksize)
    if blocksize is not None and blocksize <= 0:
        raise ValueError("blocksize must be positive")
    if isinstance(delimiter, str):
        delimiter = delimiter.encode()
    out = _tasks(fs, paths, blocksize, delimiter, _partition, threads)
    sample_bytes = b""
    if sample:
        if isinstance(sample, str):
            sample = parse_bytes(sample)
        with fs.open(paths[0], "rb") as raw, BZ2File(raw) as f:
            sample_bytes = f.read(sample)
            if delimiter:
                while True:
                    more = f.read(sample)
                    if not more:
                        break
                    at = more.find(delimiter)
                    if at >= 0:
                        sample_bytes += more[:at + len(delimiter)]
                        break
                    sample_bytes += more
    if include_path:
        return sample_bytes, out, paths
    return sample_bytes, out


def read_text(urlpath, blocksize="128 MiB", encoding="utf-8", errors="strict", linedelimiter="\n", threads=1, **storage_options):
    """A dask.bag of the lines of .bz2 text files, many partitions per file."""
    import dask.bag as db

    _, blocks = read_bytes(urlpath, delimiter=linedelimiter.encode(encoding), blocksize=blocksize, sample=False, threads=threads,
                           **storage_options)

    def lines(b):
        return b.decode(encoding, errors).splitlines(keepends=True)

    return db.from_delayed([dask.delayed(lines)(b) for per_file in blocks for b in per_file])


def read_csv(urlpath, blocksize="128 MiB", sample="256 kiB", threads=1, **kwargs):
    """A dask DataFrame of .bz2 CSV files, many partitions per file (pandas.read_csv's arguments;
    with a header row, the first line of each file, as dask.dataframe.read_csv reads it)."""
    import dask.dataframe as dd
    import pandas as pd

    if kwargs.pop("compression", "bz2") not in ("bz2", "infer"):
        raise ValueError("parcomp.dask.read_csv reads .bz2 files")
    if isinstance(blocksize, str):
        blocksize = parse_bytes(blocksize)
    first, _ = read_bytes(urlpath, delimiter=b"\n", blocksize=blocksize, sample=sample)
    has_header = kwargs.get("header", "infer") is not None and "names" not in kwargs
    head = first.split(b"\n", 1)[0] + b"\n" if has_header else b""
    meta = pd.read_csv(io.BytesIO(first), **kwargs).head(0)
    fs, _, paths = get_fs_token_paths(urlpath, mode="rb")

    def parse(part):
        holds_header, b = part
        if not b or (holds_header and b == head):
            return meta
        return pd.read_csv(io.BytesIO(b if holds_header else head + b), **kwargs)

    parts = [dask.delayed(parse)(p) for per_file in _tasks(fs, paths, blocksize, b"\n", _partition_with_start, threads) for p in per_file]
    return dd.from_delayed(parts, meta=meta)
