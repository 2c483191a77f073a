// parcomp's C++ API: .bz2 (bzip2's format, bzip2 -9's bytes) and the parcomp format, compressed
// and decompressed on every CPU core and GPU of the host, between a source and a sink of any size
// with bounded memory. Errors are parcomp::Error and its kinds (parcomp/errors.hpp).
//
//   std::vector<std::uint8_t> packed = parcomp::compress(bytes);           // .bz2, level 9
//   std::vector<std::uint8_t> back = parcomp::decompress(packed);          // .bz2 or parcomp format
//   parcomp::FdSource in(0);  parcomp::FdSink out(1);
//   parcomp::Stats st = parcomp::decompress(in, out);                      // a pipe, both ends
//
// Calls may run at once from several threads; each call uses every hardware thread and GPU unless
// its Options say otherwise.
#pragma once

#include "parcomp/errors.hpp"
#include "parcomp/tuning.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace parcomp {

// The library's version ("0.3.0") and the commit it was built from.
const char* version() noexcept;

// Where the input comes from.
class Source {
 public:
  virtual ~Source() = default;
  // Up to `max` bytes into buf; 0 only at the end of the input. Errors: throw (IoError).
  virtual std::size_t read(std::uint8_t* buf, std::size_t max) = 0;
  // n bytes into buf, fewer only at the end; a source that can read pieces at once may use up to
  // `threads` threads. By default read() until full.
  virtual std::size_t read_full(std::uint8_t* buf, std::size_t n, unsigned threads) {
    (void)threads;
    std::size_t got = 0;
    while (got < n) {
      const std::size_t r = read(buf + got, n - got);
      if (r == 0) break;
      got += r;
    }
    return got;
  }
};
// Where the output goes: write() takes the bytes before it returns (the buffer is reused after it).
// Errors: throw (IoError).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const std::uint8_t* buf, std::size_t n) = 0;
  // A whole piece of output its writer is done with (ours): a sink that keeps output for later may
  // take the vector and leave an empty one or a spare of its own in its place, instead of copying
  // it. The default writes it.
  virtual void write_vector(std::vector<std::uint8_t>& piece) { write(piece.data(), piece.size()); }
};

// A file descriptor (a file, a pipe, a socket), not closed by these; IoError on a failed call
// (naming `name` where one is given). A regular file is read in pieces on several threads
// (read_full); a pipe is asked for a 1 MiB buffer.
class FdSource : public Source {
 public:
  explicit FdSource(int fd, std::string name = {});
  std::size_t read(std::uint8_t* buf, std::size_t max) override;
  std::size_t read_full(std::uint8_t* buf, std::size_t n, unsigned threads) override;

 private:
  [[noreturn]] void fail(const char* what, int error) const;
  int fd_;
  std::string name_;
  bool regular_ = false;
};
class FdSink : public Sink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}
  void write(const std::uint8_t* buf, std::size_t n) override;

 private:
  int fd_;
};
// Memory: bytes the caller keeps alive while the call runs, and a growing vector.
class MemorySource : public Source {
 public:
  explicit MemorySource(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    const std::size_t n = max < bytes_.size() - at_ ? max : bytes_.size() - at_;
    if (n > 0) std::memcpy(buf, bytes_.data() + at_, n);
    at_ += n;
    return n;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
};
class VectorSink : public Sink {
 public:
  void write(const std::uint8_t* buf, std::size_t n) override { bytes.insert(bytes.end(), buf, buf + n); }
  std::vector<std::uint8_t> bytes;
};
// The caller's functions: read returns 0 at the end; either may throw.
class CallbackSource : public Source {
 public:
  explicit CallbackSource(std::function<std::size_t(std::uint8_t*, std::size_t)> read) : read_(std::move(read)) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override { return read_(buf, max); }

 private:
  std::function<std::size_t(std::uint8_t*, std::size_t)> read_;
};
class CallbackSink : public Sink {
 public:
  explicit CallbackSink(std::function<void(const std::uint8_t*, std::size_t)> write) : write_(std::move(write)) {}
  void write(const std::uint8_t* buf, std::size_t n) override { write_(buf, n); }

 private:
  std::function<void(const std::uint8_t*, std::size_t)> write_;
};

// The compressed side's format: .bz2, or parcomp's own (the thesis's pipeline; only parcomp reads it).
enum class Format { bz2, parcomp };

struct Options {
  Format format = Format::bz2;  // what compress() writes; decompress() reads both
  int level = 9;                // .bz2: bzip2's 1 .. 9 (blocks of 100k .. 900k)
  int threads = -1;             // CPU workers: -1 every hardware thread, 0 none (GPUs alone)
  bool use_gpus = true;         // GPUs where the input is large enough to pay for them
  bool require_gpu = false;     // the GPUs alone, and an error when none can work (parcomp --gpu)
  std::vector<int> devices;     // the GPUs to use (empty: every GPU)
  // The input's size when known (0: unknown, as from a pipe): the GPUs start on large inputs only.
  std::uint64_t input_size = 0;
  // Called about 4 times a second with the bytes read and written so far (from a worker thread).
  std::function<void(std::uint64_t bytes_in, std::uint64_t bytes_out)> on_progress;
  // What the engine decided (a GPU joined, left, was refused memory), in words.
  std::function<void(const std::string&)> on_note;
  // .bz2 decompression: fill Stats::block_offsets.
  bool collect_block_offsets = false;
  // Knobs for measuring (parcomp/tuning.hpp), read during the call; none: the defaults.
  const Tuning* tuning = nullptr;
};

struct Stats {
  std::uint64_t original_bytes = 0, compressed_bytes = 0;
  std::uint64_t blocks = 0, gpu_blocks = 0;  // all blocks, and those a GPU did
  unsigned cpu_workers = 0;
  std::vector<int> gpus;                     // the GPUs that did work
  std::uint64_t peak_device_bytes = 0;       // the most this call held on a GPU
  double seconds = 0;
  Format format = Format::bz2;               // of the compressed side
  std::uint64_t streams = 0;                 // .bz2 streams read (pbzip2 writes several)
  std::uint64_t trailing_bytes = 0;          // after the last .bz2 stream, ignored (as bzip2)
  // With Options::collect_block_offsets: (input bit, output byte) where each .bz2 block and each
  // stream's end marker starts, in order (indexed_bzip2's block_offsets(), as pairs).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> block_offsets;
};

Stats compress(Source& in, Sink& out, const Options& options = {});
// .bz2 (every bzip2, lbzip2 and pbzip2 file, randomised blocks too) and the parcomp format, told
// apart by their first bytes. CorruptDataError for damaged input: nothing of a damaged block is
// written, but the blocks before it may have been.
Stats decompress(Source& in, Sink& out, const Options& options = {});
std::vector<std::uint8_t> compress(std::span<const std::uint8_t> bytes, const Options& options = {});
std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> bytes, const Options& options = {});

// Incremental work, in the shape of bzlib's BZ2_bzCompress and Python's bz2.BZ2Compressor: push()
// hands input over and returns the output ready by then (often none: blocks are made on the
// library's threads meanwhile); finish() ends the input and returns the rest. The input waits in
// at most 16 MiB (push() waits for room); the output waits until it is taken. The work's error is
// thrown by the push() or finish() after it. Destroying a Stream before finish() abandons the work.
class Stream {
 public:
  enum class Direction { compress, decompress };
  explicit Stream(Direction direction, const Options& options = {});
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  std::vector<std::uint8_t> push(std::span<const std::uint8_t> bytes);
  std::vector<std::uint8_t> finish();
  // After finish(): the work's statistics.
  const Stats& stats() const;

 private:
  struct State;
  State* s_;
};

// Output pulled by the caller (ours; what a file object reading a .bz2 needs): the work runs on the
// library's threads over `in`, and read() takes the output as it comes. At most 64 MiB of output
// waits for read() (the work pauses there), so memory stays bounded at any input size. `in` must
// outlive the Reader; its read() is called from a library thread. Destroying a Reader before its
// end abandons the work.
class Reader {
 public:
  Reader(Source& in, Stream::Direction direction, const Options& options = {});
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  // Up to n bytes of the output, waiting until there are some; 0 at the end. The work's error is
  // thrown here, after the output written before it.
  std::size_t read(std::uint8_t* buf, std::size_t n);
  // After read() returned 0: the work's statistics.
  const Stats& stats() const;

 private:
  struct State;
  State* s_;
};

// One .bz2 stream decompressed as it arrives, as Python's bz2.BZ2Decompressor does (ours, on the
// caller's thread): decompress() takes more input and returns up to max_length bytes of the output
// it makes possible (the rest waits for the next call); after the stream's end marker eof() is true
// and unused_data() holds the input after it. CorruptDataError for damaged input; ContractError
// for input after the end.
class Bz2Decompressor {
 public:
  Bz2Decompressor();
  ~Bz2Decompressor();
  Bz2Decompressor(const Bz2Decompressor&) = delete;
  Bz2Decompressor& operator=(const Bz2Decompressor&) = delete;
  std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> data, std::size_t max_length = SIZE_MAX);
  bool eof() const;
  // False while output made from the input so far still waits to be returned.
  bool needs_input() const;
  const std::vector<std::uint8_t>& unused_data() const;

 private:
  struct State;
  State* s_;
};

// .bz2 blocks found by where they start (ours; what splitting one file among workers needs): the
// first block whose magic starts at a bit in [from_bit, to_bit) of `in`, a candidate confirmed by
// decoding it (its CRC), then the blocks that follow it on the chain (across stream ends and
// headers: pbzip2's and lbzip2's files, concatenations) while they start before to_bit and at most
// max_blocks of them. `in` is a piece of a file; a block that runs past its end is not decoded
// (need_input says so; give a longer piece) unless input_ends_here, where it is an error.
struct Bz2Range {
  std::vector<std::uint8_t> bytes;  // the blocks' output, in order
  std::uint64_t blocks = 0;
  std::uint64_t first_bit = 0;      // the first block's bit in `in` (when blocks > 0)
  std::uint64_t next_bit = 0;       // where the chain goes on: the next block's bit in `in`
  bool more = false;                // a block follows at next_bit (false: the file's streams ended)
  bool need_input = false;          // the next block (or the first) runs past the end of `in`
};
// The .bz2 blocks whose magics start at `bits` of `in` (known starts: an index's), decoded on
// `threads` threads (0: every hardware thread), each block's output in the order given.
// CorruptDataError names the first that fails.
std::vector<std::vector<std::uint8_t>> bz2_decode_blocks(std::span<const std::uint8_t> in, std::span<const std::uint64_t> bits, unsigned threads = 0);

// With threads other than 1 (0: every hardware thread), the range's blocks decode at once.
Bz2Range bz2_decode_range(std::span<const std::uint8_t> in, std::uint64_t from_bit, std::uint64_t to_bit, bool input_ends_here,
                          std::uint64_t max_blocks = UINT64_MAX, unsigned threads = 1);

// Decompressed bytes left in one GPU's memory (ours): decompress_to_device's result, freed when it
// goes. data() is a device pointer on device(), valid while this object lives; no copy is pending
// when it is returned.
class DeviceOutput {
 public:
  DeviceOutput();
  ~DeviceOutput();
  DeviceOutput(DeviceOutput&& other) noexcept;
  DeviceOutput& operator=(DeviceOutput&& other) noexcept;
  DeviceOutput(const DeviceOutput&) = delete;
  DeviceOutput& operator=(const DeviceOutput&) = delete;
  void* data() const noexcept;
  std::size_t size() const noexcept;      // the decompressed bytes
  std::size_t capacity() const noexcept;  // the allocation (the output grows it by doubling)
  int device() const noexcept;

 private:
  friend DeviceOutput decompress_to_device(Source&, int, const Options&, Stats*);
  struct State;
  State* s_;
};

// The parcomp format by frames (ours; what random access needs). A stream ends with its end
// marker, its last 36 bytes; parcomp writes an index of the frames before it (index_offset).
struct ParcompEnd {
  std::uint64_t frames = 0, original_bytes = 0;
  std::uint64_t index_offset = 0;  // where the index starts in the stream (0: none)
};
ParcompEnd parcomp_stream_end(std::span<const std::uint8_t> end_marker);
// The index's (frame's offset in the stream, its first uncompressed byte), in order: `index` is the
// stream from index_offset up to the end marker.
std::vector<std::pair<std::uint64_t, std::uint64_t>> parcomp_stream_index(std::span<const std::uint8_t> index, std::uint64_t index_offset);
// One frame decoded on `threads` threads (0: every hardware thread), every block's CRC-32 checked:
// `header` is the stream's first 16 bytes, `frame` the stream from the frame's offset on (its
// header and body; more may follow). CorruptDataError names the offset for damage.
std::vector<std::uint8_t> parcomp_decode_frame(std::span<const std::uint8_t> header, std::span<const std::uint8_t> frame,
                                               std::uint64_t frame_offset, unsigned threads = 0);

// decompress() with the output in GPU `device`'s memory (ours): the work is decompress()'s, with
// its Options; the bytes reach the GPU through pinned host memory as they are written (the last
// stage of .bz2 decoding, the inverse initial run-length stage and the CRC, runs on the host).
// GpuError where that GPU cannot be used, DeviceMemoryError where the output does not fit.
DeviceOutput decompress_to_device(Source& in, int device = 0, const Options& options = {}, Stats* stats = nullptr);
// n bytes of device memory (a DeviceOutput's, for one) into host memory; GpuError where CUDA fails.
void copy_to_host(void* host, const void* device_bytes, std::size_t n);

// The most device memory this process holds on each GPU (0: no cap; the environment's
// PARCOMP_GPU_MEMORY_LIMIT by default). Process-wide: it applies to every call at once.
void set_gpu_memory_limit(std::uint64_t bytes_per_device);

}  // namespace parcomp
