"""The Python package (python/parcomp) against Python's bz2 module and indexed_bzip2 (the oracles):
the module's functions, the incremental classes, BZ2File method for method, text mode, seeks,
file objects, threads reading at once, damaged and truncated files, fsspec's registry. CPU
workers only unless a GPU is there; the package is built by the project's build
(<PARCOMP_BUILD>/python)."""

import bz2
import hashlib
import io
import os
import random
import subprocess
import sys
import threading
from pathlib import Path

import pytest

BUILD = Path(os.environ.get("PARCOMP_BUILD", Path(__file__).resolve().parents[2] / "build"))
if not list((BUILD / "python" / "parcomp").glob("_parcomp*.so")):
    pytest.skip(f"the Python extension is not built in {BUILD} (pip install nanobind, then build)", allow_module_level=True)
sys.path.insert(0, str(BUILD / "python"))

import parcomp  # noqa: E402

SEED = int(os.environ.get("PARCOMP_TEST_SEED", random.SystemRandom().randrange(1 << 62)))


@pytest.fixture
def rng():
    print(f"seed {SEED}")
    return random.Random(SEED)


def damaged(z, at, bit):
    """z with a bit flipped at `at` or further on, where the bz2 module rejects it (a flip in a
    table or selector that no symbol uses goes unseen by any reader)."""
    bad = bytearray(z)
    while True:
        assert at < len(bad)
        bad[at] ^= bit
        try:
            bz2.decompress(bytes(bad))
        except (OSError, ValueError):
            return bytes(bad)
        bad[at] ^= bit
        at += 97


def text(rng, n):
    words = [b"the", b"bzip2", b"block", b"gpu", b"stream", b"\n", b"parcomp", b"0123456789"]
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words) + (b" " if rng.random() < 0.8 else b"\n")
    return bytes(out[:n])


def samples(rng):
    # Whole runs of 255 make blocks whose rotations are not all distinct (bzip2's origPtr among equals).
    return [b"", b"x", b"a" * (250_000 + rng.randrange(1000)), b"a" * (255 * 984), bytes(255 * rng.randrange(2000, 30000)),
            text(rng, 1 + rng.randrange(2_500_000)), rng.randbytes(300_001)]


def test_whole_buffers_are_bz2s_bytes(rng):
    for data in samples(rng):
        for level in (1, 9):
            z = parcomp.compress(data, level)
            assert z == bz2.compress(data, level)
            assert parcomp.decompress(z) == data
    two = bz2.compress(b"first") + bz2.compress(b"second") + b"\0\0trailing"
    assert parcomp.decompress(two) == bz2.decompress(two[:-10]) == b"firstsecond"
    assert parcomp.decompress(memoryview(bytearray(bz2.compress(b"view")))) == b"view"
    with pytest.raises(ValueError):
        parcomp.compress(b"x", 10)


def test_errors_are_the_bz2_modules(rng):
    z = bz2.compress(text(rng, 400_000))
    with pytest.raises(ValueError):
        parcomp.decompress(z[:-7])  # truncated: bz2.decompress raises ValueError too
    with pytest.raises(OSError):
        parcomp.decompress(b"not bzip2 at all")
    with pytest.raises(OSError):
        parcomp.decompress(damaged(z, len(z) // 2, 0x40))


def test_compressor_in_pieces_is_bz2s_bytes(rng):
    for data in samples(rng):
        c = parcomp.BZ2Compressor(9)
        out, at = [], 0
        while at < len(data):
            n = 1 + rng.randrange(200_000)
            out.append(c.compress(data[at:at + n]))
            at += n
        out.append(c.flush())
        assert b"".join(out) == bz2.compress(data, 9)
        with pytest.raises(ValueError):
            c.flush()
    import pickle

    for obj in (parcomp.BZ2Compressor(), parcomp.BZ2Decompressor()):
        with pytest.raises(TypeError):
            pickle.dumps(obj)


def test_decompressor_follows_bz2s_contract(rng):
    data = text(rng, 700_000 + rng.randrange(100_000))
    z = bz2.compress(data, 1) + b"BZh9 more"
    for piece in (len(z), 1 + rng.randrange(3000), 97):
        for max_length in (-1, 1 + rng.randrange(50_000)):
            ours, theirs = parcomp.BZ2Decompressor(), bz2.BZ2Decompressor()
            got, at = [], 0
            while not ours.eof:
                if ours.needs_input:
                    chunk = z[at:at + piece]
                    at += len(chunk)
                    assert chunk, "the input ended before the stream did"
                else:
                    chunk = b""
                out = ours.decompress(chunk, max_length)
                assert max_length < 0 or len(out) <= max_length
                got.append(out)
            assert b"".join(got) == data
            assert ours.unused_data + z[at:] == b"BZh9 more"
            assert not ours.needs_input
            assert theirs.decompress(z) == data and theirs.unused_data == b"BZh9 more"
            with pytest.raises(EOFError):
                ours.decompress(b"x")
    cut = parcomp.BZ2Decompressor()
    cut.decompress(z[:1000])
    assert not cut.eof and cut.needs_input
    with pytest.raises(OSError):
        parcomp.BZ2Decompressor().decompress(b"nope, not a stream")


@pytest.fixture
def bz2_file(tmp_path, rng):
    data = text(rng, 3_000_000 + rng.randrange(50_000))
    path = tmp_path / "t.bz2"
    path.write_bytes(bz2.compress(data[:1_000_000], 9) + bz2.compress(data[1_000_000:], 3))  # two streams
    return path, data


def test_bz2file_reads_as_bz2file_does(bz2_file, rng):
    path, data = bz2_file
    with parcomp.BZ2File(path) as ours, bz2.BZ2File(path) as theirs:
        assert ours.readable() and not ours.writable() and ours.seekable()
        assert ours.fileno() == ours._fp.fileno() and ours.name == str(path) and ours.mode == "rb"
        assert ours.peek(1)[:1] == theirs.peek(1)[:1]
        for step in range(120):
            if step == 60:
                ours.block_offsets()  # the index, found mid-read: the reading goes on through it
            op = rng.choice(["read", "read1", "readline", "readinto", "seek", "tell", "readlines"])
            if op == "read":
                n = rng.choice([0, 1, 7, 4096, 1 << 20, 77_777])
                assert ours.read(n) == theirs.read(n)
            elif op == "read1":
                a = ours.read1(1 + rng.randrange(100_000))
                assert a == theirs.read(len(a))
            elif op == "readline":
                n = rng.choice([-1, 5, 100])
                assert ours.readline(n) == theirs.readline(n)
            elif op == "readinto":
                a, b = bytearray(1 + rng.randrange(9000)), bytearray(0)
                n = ours.readinto(a)
                b = bytearray(n)
                assert theirs.readinto(b) == n and a[:n] == b
            elif op == "seek":
                whence = rng.choice([io.SEEK_SET, io.SEEK_CUR, io.SEEK_END])
                off = {io.SEEK_SET: rng.randrange(len(data)), io.SEEK_CUR: rng.randrange(-50_000, 50_000),
                       io.SEEK_END: -rng.randrange(1, 10_000)}[whence]
                if whence == io.SEEK_CUR and ours.tell() + off < 0:
                    off = -ours.tell()
                assert ours.seek(off, whence) == theirs.seek(off, whence)
            elif op == "tell":
                assert ours.tell() == theirs.tell()
            else:
                assert ours.readlines(1000) == theirs.readlines(1000)
        ours.seek(0)
        assert ours.read() == data
        assert list(parcomp.BZ2File(path)) == data.splitlines(keepends=True)
    assert ours.closed
    with pytest.raises(ValueError):
        ours.read()


def test_block_index_as_indexed_bzip2s(bz2_file, rng):
    path, data = bz2_file
    with parcomp.open(path) as f:
        assert f.read() == data
        index = f.block_offsets()  # learnt while reading to the end
        for _ in range(20):  # seeks through the index: any position, either way
            at = rng.randrange(len(data) + 1)
            n = rng.choice([1, 100, 1 << 20])
            assert f.seek(at) == at and f.read(n) == data[at:at + n] and f.tell() == min(at + n, len(data))
    assert sorted(index.values()) == sorted(index.values()) and max(index.values()) == len(data)
    with parcomp.open(path) as g:
        g.set_block_offsets(index)
        g.seek(len(data) // 2)
        assert g.read() == data[len(data) // 2:]
    indexed_bzip2 = pytest.importorskip("indexed_bzip2")
    with indexed_bzip2.open(str(path), parallelization=1) as theirs:
        assert theirs.block_offsets() == index
    # Its parallel reader's index leaves out stream ends and adds the file's end; either serves.
    with indexed_bzip2.open(str(path), parallelization=2) as theirs, parcomp.open(path) as g:
        g.set_block_offsets(theirs.block_offsets())
        for at in (len(data) - 1, 0, rng.randrange(len(data))):
            g.seek(at)
            assert g.read(1000) == data[at:at + 1000]
    with open(path, "rb") as raw:
        piped = parcomp.BZ2File(io.BufferedReader(_Unseekable(raw)))
        with pytest.raises(io.UnsupportedOperation):
            piped.block_offsets()


def test_block_index_exported_and_imported(bz2_file, tmp_path):
    path, data = bz2_file
    index_path = tmp_path / "t.bz2.index.json"
    with parcomp.open(path) as f:
        f.export_index(index_path)  # found by one pass: nothing read yet
        assert f.tell() == 0 and f.read(100) == data[:100]
    with parcomp.open(path) as g:
        g.import_index(index_path)
        g.seek(len(data) - 5000)
        assert g.read() == data[-5000:]
        g.seek(17)
        assert g.read(10) == data[17:27]
    other = tmp_path / "other.bz2"
    other.write_bytes(bz2.compress(b"another file"))
    with parcomp.open(other) as h:
        with pytest.raises(ValueError):
            h.import_index(index_path)
        with pytest.raises(ValueError):
            h.import_index(io.StringIO('{"something": "else"}'))


class _Unseekable(io.RawIOBase):
    def __init__(self, f):
        self._f = f

    def readable(self):
        return True

    def readinto(self, b):
        return self._f.readinto(b)


def test_files_objects_and_text_mode(bz2_file, tmp_path):
    path, data = bz2_file
    with open(path, "rb") as raw, parcomp.BZ2File(raw) as f:
        assert f.read() == data
    fd = os.open(path, os.O_RDONLY)
    try:
        with parcomp.BZ2File(fd) as f:  # a descriptor, left open
            assert f.read(1000) == data[:1000]
        os.fstat(fd)
    finally:
        os.close(fd)
    with parcomp.open(io.BytesIO(path.read_bytes())) as f:
        f.seek(2_000_000)
        assert f.read(10) == data[2_000_000:2_000_010]
    with parcomp.open(path, "rt", encoding="ascii") as ours, bz2.open(path, "rt", encoding="ascii") as theirs:
        assert ours.readline() == theirs.readline()
        assert ours.read() == theirs.read()
    with pytest.raises(ValueError):
        parcomp.open(path, "rb", encoding="utf-8")
    with pytest.raises(ValueError):
        parcomp.BZ2File(path, "rw")
    empty = tmp_path / "empty.bz2"
    empty.write_bytes(b"")
    for module in (parcomp, bz2):
        with pytest.raises(EOFError):
            module.open(empty).read()


def test_writing_is_bz2s_bytes(tmp_path, rng):
    data = text(rng, 2_000_000)
    for mode in ("wb", "xb"):
        p = tmp_path / f"w{mode}.bz2"
        with parcomp.open(p, mode, compresslevel=5) as f:
            assert f.writable() and not f.readable()
            at = 0
            while at < len(data):
                n = 1 + rng.randrange(300_000)
                assert f.write(memoryview(data)[at:at + n]) == len(data[at:at + n])
                at += n
            assert f.tell() == len(data)
            with pytest.raises(io.UnsupportedOperation):
                f.read()
        assert p.read_bytes() == bz2.compress(data, 5)
    with parcomp.open(tmp_path / "wxb.bz2", "ab") as f:
        f.writelines([b"more ", b"lines\n"])
    assert bz2.open(tmp_path / "wxb.bz2").read() == data + b"more lines\n"
    with pytest.raises(FileExistsError):
        parcomp.open(tmp_path / "wxb.bz2", "xb")
    with parcomp.open(tmp_path / "t.bz2", "wt", encoding="utf-8") as f:
        f.write("text ✓\n")
    assert bz2.open(tmp_path / "t.bz2", "rt", encoding="utf-8").read() == "text ✓\n"


def test_damaged_and_truncated_files(tmp_path, rng):
    z = bz2.compress(text(rng, 1_500_000), 9)
    cut = tmp_path / "cut.bz2"
    cut.write_bytes(z[:-20])
    with pytest.raises(EOFError):
        parcomp.open(cut).read()
    bad = tmp_path / "bad.bz2"
    bad.write_bytes(damaged(z, len(z) // 3, 0x08))
    with pytest.raises(OSError):
        parcomp.open(bad).read()


def test_threads_read_at_once(bz2_file):
    path, data = bz2_file
    results, errors = [], []

    def work(k):
        try:
            with parcomp.open(path) as f:
                f.seek(k * 1000)
                results.append(f.read() == data[k * 1000:])
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [True] * 4


def test_indexed_bzip2_reads_what_we_write(tmp_path, rng):
    indexed_bzip2 = pytest.importorskip("indexed_bzip2")
    data = text(rng, 1_800_000)
    p = tmp_path / "ours.bz2"
    with parcomp.open(p, "wb") as f:
        f.write(data)
    with indexed_bzip2.open(str(p), parallelization=2) as f:
        assert f.read() == data


def test_fsspec_reads_bz2_through_parcomp(bz2_file):
    fsspec = pytest.importorskip("fsspec")
    path, data = bz2_file
    parcomp.register_fsspec(threads=2)
    from fsspec.compression import compr

    assert compr["bz2"].__module__.startswith("parcomp")
    with fsspec.open(str(path), "rb", compression="bz2") as f:
        assert f.read() == data
    with fsspec.open(str(path), "rt", compression="infer", encoding="ascii") as f:
        assert f.readline() == data.split(b"\n")[0].decode() + "\n"


@pytest.mark.parametrize("opt_in", ["", "0", "1"])
@pytest.mark.parametrize("how", ["pth", "import"])
def test_parcomp_fsspec_in_the_environment_registers_parcomp_in_every_process(bz2_file, opt_in, how):
    """PARCOMP_FSSPEC=1: the wheel's .pth file (run here by site.addsitedir, as a site-packages
    directory's are at start-up) registers parcomp for fsspec's "bz2" without importing parcomp
    until a file opens; `import parcomp` does the same where no .pth file ran. Unset or 0: fsspec's
    own bz2."""
    pytest.importorskip("fsspec")
    path, data = bz2_file
    start = f"import site; site.addsitedir({str(Path(__file__).resolve().parents[2] / 'python')!r})" if how == "pth" else "import parcomp"
    code = f"""{start}
import hashlib, sys, fsspec
from fsspec.compression import compr
print(compr["bz2"].__module__, "parcomp" in sys.modules)
with fsspec.open({str(path)!r}, "rb", compression="bz2") as f:
    print(type(f).__module__, hashlib.sha256(f.read()).hexdigest() == {hashlib.sha256(data).hexdigest()!r})
"""
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"), PARCOMP_FSSPEC=opt_in)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.split()
    registered, imported_at_start, file_module, same = out
    assert same == "True"
    if opt_in == "1":
        assert registered.endswith("parcomp_fsspec") or registered.startswith("parcomp")
        assert file_module.startswith("parcomp")
        assert imported_at_start == ("True" if how == "import" else "False")
    else:
        assert not registered.startswith("parcomp") and not registered.endswith("parcomp_fsspec")
        assert not file_module.startswith("parcomp")


# ---- splittable .bz2 on Dask (parcomp.dask) --------------------------------------------------

def csv_bytes(rng, rows):
    out = ["id,x,word"]
    for i in range(rows):
        out.append(f"{i},{rng.random():.6f},{'w' * rng.randrange(1, 40)}")
    return ("\n".join(out) + "\n").encode()


@pytest.fixture
def split_file(tmp_path, rng):
    """A multi-stream file of lines that straddle every block boundary (level 1: 100 kB blocks)."""
    data = csv_bytes(rng, 120_000 + rng.randrange(10_000))
    cut = len(data) // 3
    path = tmp_path / "s.csv.bz2"
    path.write_bytes(bz2.compress(data[:cut], 1) + bz2.compress(data[cut:], 2))
    return path, data


def test_dask_partitions_hold_every_record_once(split_file, rng):
    dask = pytest.importorskip("dask")
    import parcomp.dask as pdask

    path, data = split_file
    size = path.stat().st_size
    for blocksize, threads in ((size // 9, 1), (size // 3, 0), (1 + rng.randrange(20_000), 1), (777, 1), (None, 2)):
        sample, blocks = pdask.read_bytes(str(path), delimiter=b"\n", blocksize=blocksize, sample="1 kiB", threads=threads)
        parts = dask.compute(*blocks[0], scheduler="sync")
        assert b"".join(parts) == data, blocksize
        assert all(p == b"" or p.endswith(b"\n") for p in parts)
        assert sample.startswith(b"id,x,word\n") and sample.endswith(b"\n")
        if blocksize is not None and 10_000 < blocksize <= size // 8:
            assert sum(1 for p in parts if p) >= 8
    # Without a delimiter the partitions are the blocks' bytes; a text with no delimiter at all is
    # one record, given by the partition that holds the first block.
    _, blocks = pdask.read_bytes(str(path), blocksize=size // 5, sample=False)
    assert b"".join(dask.compute(*blocks[0], scheduler="sync")) == data
    lone = path.parent / "lone.bz2"
    lone.write_bytes(bz2.compress(b"x" * 500_000 + b"no end", 1))
    _, blocks = pdask.read_bytes(str(lone), delimiter=b"\n", blocksize=100, sample=False)
    parts = dask.compute(*blocks[0], scheduler="sync")
    assert b"".join(parts) == b"x" * 500_000 + b"no end" and sum(1 for p in parts if p) == 1


def test_dask_reads_lbzip2s_files(tmp_path, rng):
    dask = pytest.importorskip("dask")
    import shutil
    import subprocess

    import parcomp.dask as pdask

    if shutil.which("lbzip2") is None:
        pytest.skip("lbzip2 is not installed")
    data = csv_bytes(rng, 200_000)
    path = tmp_path / "l.csv.bz2"
    path.write_bytes(subprocess.run(["lbzip2", "-n", "2", "-1", "-c"], input=data, capture_output=True, check=True).stdout)
    _, blocks = pdask.read_bytes(str(path), delimiter=b"\n", blocksize=path.stat().st_size // 7, sample=False)
    assert b"".join(dask.compute(*blocks[0], scheduler="sync")) == data


def test_dask_text_and_csv_match_the_bz2_module_and_pandas(split_file):
    pytest.importorskip("dask.dataframe")
    import pandas as pd

    import parcomp.dask as pdask

    path, data = split_file
    lines = pdask.read_text(str(path), blocksize=path.stat().st_size // 6).compute(scheduler="sync")
    assert lines == bz2.open(path, "rt").readlines()
    df = pdask.read_csv(str(path), blocksize=path.stat().st_size // 10)
    assert df.npartitions >= 8
    got = df.compute(scheduler="sync").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, pd.read_csv(path))


def test_dask_on_a_local_cluster_of_processes(split_file, monkeypatch):
    distributed = pytest.importorskip("distributed")
    import pandas as pd

    import parcomp.dask as pdask

    path, _ = split_file
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(BUILD / "python"), os.environ.get("PYTHONPATH", "")]))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        df = pdask.read_csv(str(path), blocksize=path.stat().st_size // 8)
        got = client.compute(df).result().reset_index(drop=True)
        assert len(client.scheduler_info()["workers"]) == 2
    pd.testing.assert_frame_equal(got, pd.read_csv(path))


def device_buffer_or_skip(data, **kw):
    try:
        return parcomp.decompress_to_device(data, **kw)
    except parcomp.GpuError as e:
        if "no usable GPU" not in str(e):
            raise
        pytest.skip(f"no usable GPU: {e}")


def test_decompress_to_device_leaves_the_bytes_on_the_gpu(rng, tmp_path):
    for raw in samples(rng) + [b"q" * 30_000_001]:
        z = bz2.compress(raw, 9)
        buf = device_buffer_or_skip(z, threads=2)
        assert len(buf) == buf.nbytes == len(raw)
        assert buf.to_bytes() == raw
        cai = buf.__cuda_array_interface__
        assert cai["shape"] == (len(raw),) and cai["typestr"] == "|u1" and cai["version"] == 3
        assert buf.__dlpack_device__() == (2, 0)  # kDLCUDA, GPU 0
        cupy = sys.modules.get("cupy") or _try_import("cupy")
        if cupy is not None and raw:
            assert cupy.asarray(buf).get().tobytes() == raw  # __cuda_array_interface__
            assert cupy.from_dlpack(buf).get().tobytes() == raw
        torch = _try_import("torch")
        if torch is not None and raw:
            assert torch.from_dlpack(buf).cpu().numpy().tobytes() == raw
    path = tmp_path / "f.bz2"
    path.write_bytes(bz2.compress(raw))
    assert device_buffer_or_skip(str(path)).to_bytes() == raw  # a path
    with open(path, "rb") as f:
        assert device_buffer_or_skip(f).to_bytes() == raw  # a file object
    with pytest.raises(OSError):
        device_buffer_or_skip(damaged(bz2.compress(raw), 40, 8))


def _try_import(name):
    try:
        return __import__(name)
    except Exception:
        return None


def test_parcomp_format_seeks_through_its_own_index(tmp_path, rng):
    """A parcomp-format file's frame index (at its end) gives random access at once; a seek back
    after reading to the end gives the bytes again (it once gave nothing)."""
    cli = BUILD / "codec" / "parcomp"
    if not cli.is_file():
        pytest.skip(f"the parcomp program is not built in {BUILD}")
    raw = text(rng, 1_500_000 + rng.randrange(1000)) + rng.randbytes(200_001)
    src = tmp_path / "f"
    src.write_bytes(raw)
    z = tmp_path / "f.pcmp"
    import subprocess
    subprocess.run([cli, "-q", "--cpu", "--format", "parcomp", "--block", "16K", "-c", src], stdout=z.open("wb"), check=True)  # frames of 1 MiB
    for f in (parcomp.open(z, threads=2), parcomp.open(io.BytesIO(z.read_bytes()), threads=2)):
        with f:
            offsets = f.block_offsets()
            assert len(offsets) >= 3 and sorted(offsets.values())[0] == 0 and max(offsets.values()) == len(raw)
            for _ in range(12):
                at = rng.randrange(len(raw))
                f.seek(at)
                assert f.tell() == at and f.read(5000) == raw[at:at + 5000]
            f.seek(0)
            assert f.read() == raw
            f.seek(-70_000, io.SEEK_END)
            assert f.read() == raw[-70_000:]
            f.seek(0)
            assert f.read() == raw  # again, after the end
    second = sorted(offsets)[1]  # the second frame: damage it, then seek into it
    bad = bytearray(z.read_bytes())
    bad[second // 8 + 600] ^= 0x20
    with parcomp.open(io.BytesIO(bytes(bad)), threads=2) as f, pytest.raises(OSError):
        f.seek(offsets[second] + 10)
        f.read()
