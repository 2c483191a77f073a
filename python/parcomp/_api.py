"""The bz2 module's functions and classes over parcomp's library (see __init__)."""

import builtins
import io
import json
import os

from . import _parcomp

_MODE_CLOSED, _MODE_READ, _MODE_WRITE = 0, 1, 2
_TRUNCATED = "Compressed file ended before the end-of-stream marker was reached"


def _work(threads, devices):
    """The library's worker options: threads (-1: every hardware thread), GPUs on or off, which."""
    t = -1 if threads is None else int(threads)
    if devices is None:
        return t, True, []
    devices = [int(d) for d in devices]
    return t, bool(devices), devices


def _check_level(level):
    if not 1 <= level <= 9:
        raise ValueError("compresslevel must be between 1 and 9")


def compress(data, compresslevel=9, *, format="bz2", threads=None, devices=None):
    """Compress ``data`` (bytes-like) in one call: bzip2's bytes for ``compresslevel`` 1 to 9."""
    _check_level(compresslevel)
    return _parcomp.compress(data, compresslevel, format, *_work(threads, devices))


def decompress(data, *, threads=None, devices=None):
    """Every stream of ``data`` (.bz2, several streams too, or the parcomp format), as bz2.decompress."""
    try:
        return _parcomp.decompress(data, *_work(threads, devices))
    except _parcomp.CorruptDataError as e:
        if "truncated" in str(e):
            raise ValueError("Compressed data ended before the end-of-stream marker was reached") from e
        raise


class BZ2Compressor:
    """Incremental compression, as bz2.BZ2Compressor: ``compress`` returns what is ready (often
    nothing: the blocks are made on the library's threads), ``flush`` ends the stream."""

    def __init__(self, compresslevel=9, *, format="bz2", threads=None, devices=None):
        _check_level(compresslevel)
        self._c = _parcomp.Compressor(format, compresslevel, *_work(threads, devices))

    def compress(self, data):
        return self._c.compress(data)

    def flush(self):
        return self._c.flush()

    def __reduce__(self):
        raise TypeError(f"cannot pickle {type(self).__name__!r} object")


class BZ2Decompressor:
    """One .bz2 stream as it arrives, as bz2.BZ2Decompressor: ``decompress(data, max_length=-1)``,
    ``eof``, ``unused_data``, ``needs_input``."""

    def __init__(self):
        self._d = _parcomp.Bz2Decompressor()

    def decompress(self, data, max_length=-1):
        try:
            return self._d.decompress(data, max_length)
        except _parcomp.CorruptDataError as e:
            raise OSError("Invalid data stream: " + str(e)) from e

    @property
    def eof(self):
        return self._d.eof

    @property
    def unused_data(self):
        return self._d.unused_data

    @property
    def needs_input(self):
        return self._d.needs_input

    def __reduce__(self):
        raise TypeError(f"cannot pickle {type(self).__name__!r} object")


class _Reader(io.RawIOBase):
    """The decompressed bytes of a file, read through parcomp.Reader (the library's threads and
    GPUs). It learns a .bz2 file's block index (where each block starts, in input bits and output
    bytes) as it reads to the end, or from block_offsets()/set_block_offsets(); a parcomp-format
    file's frames come from the index at its end. With an index, a seek starts at the block (or
    frame) that holds the position and the blocks from there are decoded on every core
    (bz2_decode_blocks, parcomp_decode_frame); without one, a backward seek starts again from the
    file's start."""

    _GROUP = 64  # blocks decoded at once after an indexed seek

    def __init__(self, fp, own_fd, work):
        self._fp = fp
        self._own_fd = own_fd  # the file is ours: its descriptor is read directly, without the GIL
        self._work = work
        self._pos = 0
        self._size = -1
        self._start = fp.tell() if fp.seekable() else 0
        self._index = None    # [(input bit, output byte)] of every block and end marker
        self._blocks = None   # the index's blocks: [(bit, byte, end bit)]
        self._next = None     # indexed reading: the next block to decode (None: the engine reads)
        self._pending = memoryview(b"")
        self._frames_header = None  # the parcomp format: its stream header (16 bytes), when indexed
        if self.seekable():
            self._read_frame_index()  # before the reader, which shares the file's position
        self._reader = self._new_reader()

    def _read_at(self, offset, n):
        """n bytes from the file's `offset`; our own descriptor is read without moving its position,
        which the library's reader uses."""
        if self._own_fd:
            return os.pread(self._fp.fileno(), n, self._start + offset)
        self._fp.seek(self._start + offset)
        return self._fp.read(n)

    def _read_frame_index(self):
        """The parcomp format's own index (from the file's end): its frames become the blocks."""
        fp = self._fp
        here = fp.tell()
        read_at = self._read_at
        try:
            head = read_at(0, 16)
            if len(head) < 16 or head[:4] != b"PCMS":
                return
            size = (os.fstat(fp.fileno()).st_size if self._own_fd else fp.seek(0, io.SEEK_END)) - self._start
            if size < 16 + 36:
                return
            try:
                frames, total, at = _parcomp.parcomp_stream_end(read_at(size - 36, 36))
                if at == 0 or at >= size - 36:
                    return
                pairs = _parcomp.parcomp_stream_index(read_at(at, size - 36 - at), at)
            except _parcomp.CorruptDataError:
                return  # the stream reader names the damage when it gets there
            if len(pairs) != frames:
                return
            self._frames_header = head
            self._set_index([(off * 8, byte) for off, byte in pairs] + [(at * 8, total)])
        finally:
            if not self._own_fd:
                fp.seek(here)

    def _new_reader(self):
        if self._own_fd:
            fd = self._fp.fileno()
            st = os.fstat(fd)
            size = st.st_size if os.path.stat.S_ISREG(st.st_mode) else 0
            return _parcomp.Reader(fd, False, "bz2", 9, *self._work, size, True)
        return _parcomp.Reader(self._fp, False, "bz2", 9, *self._work, 0, True)

    def readable(self):
        return True

    def seekable(self):
        return self._fp.seekable()

    def readinto(self, b):
        if self._next is not None:
            n = self._readinto_indexed(b)
        else:
            try:
                n = self._reader.readinto(b)
            except _parcomp.CorruptDataError as e:
                if self._reader.bytes_read == 0 or "truncated" in str(e):  # an empty file too, as bz2 reads it
                    raise EOFError(_TRUNCATED) from e
                raise OSError("Invalid data stream: " + str(e)) from e
            if n == 0 and self._index is None and self._reader.block_offsets():  # .bz2's (the parcomp format has its own)
                self._set_index(self._reader.block_offsets())
        if n == 0:
            self._size = self._pos
        self._pos += n
        return n

    # ---- the block index

    def _set_index(self, pairs):
        pairs = sorted((int(bit), int(byte)) for bit, byte in pairs)
        self._index = pairs
        # A block's entry is followed by one at a larger output byte (blocks are never empty); an
        # end marker's by the next stream's first block at the same byte, or by nothing.
        self._blocks = [(bit, byte, pairs[k + 1][0]) for k, (bit, byte) in enumerate(pairs[:-1]) if pairs[k + 1][1] > byte]
        if pairs:
            self._size = pairs[-1][1]

    def block_offsets(self):
        if self._index is None:
            if not self.seekable():
                raise io.UnsupportedOperation("block_offsets() needs a seekable file")
            # One pass of the engine from the file's start to its end (the file's reader, which
            # shares its position, stopped first); then the index takes the reading back to where
            # it was.
            keep_pos = self._pos
            self._reader.close()
            self._fp.seek(self._start)
            self._reader = self._new_reader()
            buf = bytearray(1 << 22)
            while self._reader.readinto(buf):
                pass
            self._set_index(self._reader.block_offsets())
            self._seek_indexed(keep_pos)
        return dict(self._index)

    def set_block_offsets(self, offsets):
        self._set_index(offsets.items() if isinstance(offsets, dict) else offsets)

    def _seek_indexed(self, offset):
        """Reads next from output byte `offset` through the index."""
        blocks = self._blocks
        lo, hi = 0, len(blocks)
        while lo < hi:  # the last block whose output starts at or before offset
            mid = (lo + hi) // 2
            if blocks[mid][1] <= offset:
                lo = mid + 1
            else:
                hi = mid
        k = max(lo - 1, 0)
        self._next = k
        self._pending = memoryview(b"")
        self._pos = blocks[k][1] if blocks else 0
        skip = offset - self._pos
        while skip > 0:
            if not self._pending and not self._decode_group():
                break
            n = min(skip, len(self._pending))
            self._pending = self._pending[n:]
            self._pos += n
            skip -= n

    def _decode_group(self):
        blocks = self._blocks
        if self._next >= len(blocks):
            return False
        if self._frames_header is not None:  # the parcomp format: a frame at a time
            bit, _, end_bit = blocks[self._next]
            try:
                frame = self._read_at(bit // 8, end_bit // 8 - bit // 8)
                out = _parcomp.parcomp_decode_frame(self._frames_header, frame, bit // 8, max(self._work[0], 0))
            except _parcomp.CorruptDataError as e:
                raise OSError("Invalid data stream: " + str(e)) from e
            self._next += 1
            self._pending = memoryview(out)
            return True
        group = blocks[self._next:self._next + self._GROUP]
        lo = group[0][0] // 8
        hi = (group[-1][2] + 48 + 7) // 8 + 8  # the last block's end and its successor's magic
        data = self._read_at(lo, hi - lo)
        try:
            out = _parcomp.decode_blocks(data, [bit - lo * 8 for bit, _, _ in group], max(self._work[0], 0))
        except _parcomp.CorruptDataError as e:
            raise OSError("Invalid data stream: " + str(e)) from e
        self._next += len(group)
        self._pending = memoryview(out)
        return True

    def _readinto_indexed(self, b):
        if not self._pending and not self._decode_group():
            return 0
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _rewind(self):
        self._reader.close()
        self._fp.seek(self._start)
        self._pos = 0
        self._next = None
        self._pending = memoryview(b"")
        self._reader = self._new_reader()

    def seek(self, offset, whence=io.SEEK_SET):
        if whence == io.SEEK_SET:
            pass
        elif whence == io.SEEK_CUR:
            offset = self._pos + offset
        elif whence == io.SEEK_END:
            if self._size < 0:
                while self.read(1 << 20):
                    pass
            offset = self._size + offset
        else:
            raise ValueError(f"Invalid value for whence: {whence}")
        offset = max(offset, 0)
        if self._blocks is not None and self.seekable() and (offset < self._pos or offset - self._pos > (8 << 20)):
            self._seek_indexed(offset)
            return self._pos
        if offset < self._pos:
            self._rewind()
        else:
            offset -= self._pos
        while offset > 0:
            data = self.read(min(1 << 20, offset))
            if not data:
                break
            offset -= len(data)
        return self._pos

    def tell(self):
        return self._pos

    def close(self):
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        super().close()


class BZ2File(io.BufferedIOBase):
    """A .bz2 file, as bz2.BZ2File: mode "r", "w", "x" or "a" (binary), over a path or a file
    object; reading decodes on every CPU core and GPU, writing writes bzip2's bytes."""

    def __init__(self, filename, mode="r", *, compresslevel=9, threads=None, devices=None, format="bz2"):
        self._fp = None
        self._closefp = False
        self._mode = _MODE_CLOSED
        _check_level(compresslevel)
        if mode in ("", "r", "rb"):
            mode, mode_code = "rb", _MODE_READ
        elif mode in ("w", "wb"):
            mode, mode_code = "wb", _MODE_WRITE
        elif mode in ("x", "xb"):
            mode, mode_code = "xb", _MODE_WRITE
        elif mode in ("a", "ab"):
            mode, mode_code = "ab", _MODE_WRITE
        else:
            raise ValueError(f"Invalid mode: {mode!r}")
        work = _work(threads, devices)
        if isinstance(filename, (str, bytes, os.PathLike)):
            self._fp = builtins.open(filename, mode)
            self._closefp = True
        elif isinstance(filename, int) and not isinstance(filename, bool):  # a descriptor: read or written as it is, left open
            self._fp = builtins.open(filename, mode, closefd=False)
            self._closefp = True
        elif hasattr(filename, "read") or hasattr(filename, "write"):
            self._fp = filename
        else:
            raise TypeError("filename must be a str, bytes, file descriptor, file or PathLike object")
        self._mode = mode_code
        if mode_code == _MODE_READ:
            self._buffer = io.BufferedReader(_Reader(self._fp, self._closefp, work), 1 << 20)
        else:
            self._compressor = _parcomp.Compressor(format, compresslevel, *work)
            self._pos = 0

    def close(self):
        if self.closed:
            return
        try:
            if self._mode == _MODE_READ:
                self._buffer.close()
            elif self._mode == _MODE_WRITE:
                self._fp.write(self._compressor.flush())
                self._compressor = None
        finally:
            try:
                if self._closefp:
                    self._fp.close()
            finally:
                self._fp = None
                self._closefp = False
                self._mode = _MODE_CLOSED
                self._buffer = None

    @property
    def closed(self):
        return self._mode == _MODE_CLOSED

    def fileno(self):
        self._check_not_closed()
        return self._fp.fileno()

    def seekable(self):
        return self.readable() and self._buffer.seekable()

    def readable(self):
        self._check_not_closed()
        return self._mode == _MODE_READ

    def writable(self):
        self._check_not_closed()
        return self._mode == _MODE_WRITE

    @property
    def name(self):
        self._check_not_closed()
        return self._fp.name

    @property
    def mode(self):
        return "wb" if self._mode == _MODE_WRITE else "rb"

    def block_offsets(self):
        """{input bit: output byte} of every block and stream end marker, as indexed_bzip2's
        block_offsets(): known once the file was read to its end, else found by reading it
        (the position is kept)."""
        self._check_can_read()
        return self._buffer.raw.block_offsets()

    def set_block_offsets(self, offsets):
        """An index from block_offsets() (this file's, or indexed_bzip2's): seeks then start at
        the block that holds the position."""
        self._check_can_read()
        self._buffer.raw.set_block_offsets(offsets)

    def export_index(self, file):
        """Writes the block index (block_offsets()) to ``file``, a path or a text file object:
        JSON, {"parcomp_bz2_index": 1, "compressed_size": N, "offsets": [[bit, byte], ...]}."""
        offsets = sorted(self.block_offsets().items())
        doc = {"parcomp_bz2_index": 1, "compressed_size": self._compressed_size(), "offsets": [list(p) for p in offsets]}
        if isinstance(file, (str, bytes, os.PathLike)):
            with builtins.open(file, "w", encoding="utf-8") as f:
                json.dump(doc, f)
        else:
            json.dump(doc, file)

    def import_index(self, file):
        """Reads an index that export_index() wrote (a path or a text file object); ValueError if
        it is not one, or is another file's (its compressed size differs)."""
        if isinstance(file, (str, bytes, os.PathLike)):
            with builtins.open(file, encoding="utf-8") as f:
                doc = json.load(f)
        else:
            doc = json.load(file)
        if not isinstance(doc, dict) or doc.get("parcomp_bz2_index") != 1 or not isinstance(doc.get("offsets"), list):
            raise ValueError("not a parcomp .bz2 index")
        size = self._compressed_size()
        if size is not None and doc.get("compressed_size") not in (None, size):
            raise ValueError(f"the index is of a file of {doc.get('compressed_size')} bytes, this one has {size}")
        self.set_block_offsets([(int(bit), int(byte)) for bit, byte in doc["offsets"]])

    def _compressed_size(self):
        self._check_can_read()
        raw = self._buffer.raw
        try:
            if raw._own_fd:
                return os.fstat(self._fp.fileno()).st_size - raw._start
            if self._fp.seekable():
                here = self._fp.tell()
                end = self._fp.seek(0, io.SEEK_END)
                self._fp.seek(here)
                return end - raw._start
        except (OSError, ValueError):
            pass
        return None

    def peek(self, n=0):
        self._check_can_read()
        return self._buffer.peek(n)

    def read(self, size=-1):
        self._check_can_read()
        return self._buffer.read(size)

    def read1(self, size=-1):
        self._check_can_read()
        if size < 0:
            size = io.DEFAULT_BUFFER_SIZE
        return self._buffer.read1(size)

    def readinto(self, b):
        self._check_can_read()
        return self._buffer.readinto(b)

    def readline(self, size=-1):
        if not isinstance(size, int):
            if not hasattr(size, "__index__"):
                raise TypeError("Integer argument expected")
            size = size.__index__()
        self._check_can_read()
        return self._buffer.readline(size)

    def readlines(self, size=-1):
        if not isinstance(size, int):
            if not hasattr(size, "__index__"):
                raise TypeError("Integer argument expected")
            size = size.__index__()
        self._check_can_read()
        return self._buffer.readlines(size)

    def write(self, data):
        self._check_can_write()
        if isinstance(data, (bytes, bytearray)):
            length = len(data)
        else:
            data = memoryview(data)
            length = data.nbytes
        out = self._compressor.compress(data)
        if out:
            self._fp.write(out)
        self._pos += length
        return length

    def writelines(self, seq):
        return io.BufferedIOBase.writelines(self, seq)

    def seek(self, offset, whence=io.SEEK_SET):
        self._check_can_seek()
        return self._buffer.seek(offset, whence)

    def tell(self):
        self._check_not_closed()
        if self._mode == _MODE_READ:
            return self._buffer.tell()
        return self._pos

    def _check_not_closed(self):
        if self.closed:
            raise ValueError("I/O operation on closed file")

    def _check_can_read(self):
        if self._mode != _MODE_READ:
            self._check_not_closed()
            raise io.UnsupportedOperation("File not open for reading")

    def _check_can_write(self):
        if self._mode != _MODE_WRITE:
            self._check_not_closed()
            raise io.UnsupportedOperation("File not open for writing")

    def _check_can_seek(self):
        if self._mode != _MODE_READ:
            self._check_not_closed()
            raise io.UnsupportedOperation("Seeking is only supported on files open for reading")
        if not self._buffer.seekable():
            raise io.UnsupportedOperation("The underlying file object does not support seeking")


def open(filename, mode="rb", compresslevel=9, encoding=None, errors=None, newline=None, **kwargs):
    """A .bz2 file in binary or text mode, as bz2.open (``kwargs``: threads, devices, format)."""
    if "t" in mode:
        if "b" in mode:
            raise ValueError(f"Invalid mode: {mode!r}")
    else:
        if encoding is not None:
            raise ValueError("Argument 'encoding' not supported in binary mode")
        if errors is not None:
            raise ValueError("Argument 'errors' not supported in binary mode")
        if newline is not None:
            raise ValueError("Argument 'newline' not supported in binary mode")
    binary_file = BZ2File(filename, mode.replace("t", ""), compresslevel=compresslevel, **kwargs)
    if "t" in mode:
        encoding = io.text_encoding(encoding)
        return io.TextIOWrapper(binary_file, encoding, errors, newline)
    return binary_file


def register_fsspec(**kwargs):
    """fsspec's "bz2" compression (and so Dask's and pandas' readers through fsspec) through parcomp;
    ``kwargs`` (threads, devices) go to every file it opens."""
    from fsspec.compression import register_compression

    def opener(infile, mode="rb", **kw):
        return BZ2File(infile, mode, **{**kwargs, **kw})

    register_compression("bz2", opener, "bz2", force=True)


class DeviceBuffer:
    """Decompressed bytes in a GPU's memory, freed when the last reference goes. CuPy and Numba take
    them through ``__cuda_array_interface__``, PyTorch, CuPy and JAX through ``__dlpack__``; neither
    copies them to the host. ``to_bytes()`` does."""

    def __init__(self, out):
        self._out = out  # the library's DeviceOutput: the memory is freed when the last holder goes
        self.ptr, self.nbytes, self.device = out.ptr, out.nbytes, out.device

    def __len__(self):
        return self.nbytes

    def __repr__(self):
        return f"<parcomp.DeviceBuffer of {self.nbytes} bytes on GPU {self.device}>"

    @property
    def __cuda_array_interface__(self):
        # Every copy has landed before the buffer is made: no stream to wait for.
        return {"shape": (self.nbytes,), "typestr": "|u1", "data": (self.ptr, False), "version": 3, "strides": None, "stream": None}

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("parcomp.DeviceBuffer: __dlpack__(copy=True) is not supported")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"parcomp.DeviceBuffer: the bytes are on {self.__dlpack_device__()}, not {tuple(dl_device)}")
        t = self._out.dlpack()  # a fresh tensor that holds the memory
        if hasattr(t, "__dlpack__"):
            return t.__dlpack__() if max_version is None else t.__dlpack__(max_version=max_version)
        return t  # nanobind gave the DLPack capsule itself

    def __dlpack_device__(self):
        return (2, self.device)  # kDLCUDA

    def to_bytes(self):
        """The bytes, copied back to the host."""
        return _parcomp.device_to_bytes(self.ptr, self.nbytes)


def decompress_to_device(data, device=0, *, threads=None, devices=None):
    """Decompress ``data`` (bytes-like, a path, a file descriptor or a file object; .bz2 or the
    parcomp format) into GPU ``device``'s memory: a DeviceBuffer. The work is ``decompress``'s;
    the bytes reach the GPU through pinned host memory as they are made."""
    work = _work(threads, devices)
    if isinstance(data, (str, os.PathLike)):
        with builtins.open(data, "rb") as f:
            return DeviceBuffer(_parcomp.decompress_to_device(f.fileno(), device, *work, os.fstat(f.fileno()).st_size))
    return DeviceBuffer(_parcomp.decompress_to_device(data, device, *work))
