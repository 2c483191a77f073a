// The streaming engine: compression and decompression of any input size with bounded memory, on
// every CPU core and every GPU of the host at once (thesis future work 7: overlapping GPU
// compression with the transfers).
//
// A reader thread cuts the input into blocks (block_bytes each, read with plain read() calls);
// workers take them from the front of one queue: each CPU worker one block at a time (the CPU
// codec, codec/cpu_codec.hpp), each GPU worker up to gpu_batch_blocks consecutive blocks at a
// time (the GPU pipeline, codec/gpu_pipeline.hpp). CPU workers start at once; a GPU worker joins
// when its device's context is ready, so an input that ends before then never waits for a GPU.
// The calling thread writes the results in input order, frame_blocks blocks to a frame of the
// stream format (codec/stream_format.hpp): the output's bytes do not depend on which worker
// compressed which block. At most max_blocks_in_flight blocks are read and not
// yet written: memory is bounded by that, not by the input. Decompression is the same in
// reverse, and reads version-2 containers too. Every worker produces the same bits: the CPU codec
// and the GPU pipeline are bit-identical block for block.
//
// Errors: the first one in any thread stops every thread and is rethrown by compress() /
// decompress(): CorruptDataError for damaged input (naming the stream offset, frame and block),
// std::system_error for I/O, ContractError for bad options.
#pragma once

#include "core/container.hpp"
#include "parcomp/parcomp.hpp"

#include <cstddef>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace parcomp::engine {

// Where bytes come from and go to (files, pipes, memory): the public API's interfaces
// (include/parcomp/parcomp.hpp), and its memory source and sink.
using Source = parcomp::Source;
using Sink = parcomp::Sink;
using SpanSource = parcomp::MemorySource;
using VectorSink = parcomp::VectorSink;

struct Progress {
  std::uint64_t bytes_in = 0, bytes_out = 0;  // read from the source, written to the sink so far
  double seconds = 0;
};

// A run's timeline (parcomp --trace): what each thread did when, in seconds since the trace was
// made. Lanes: "reader 0", "cpu K" (a CPU worker: one span per block), "gpu K" (a GPU's thread: one
// span per batch, from its claim to its last block's result), "writer 0", "cuda 0" (CUDA's
// start-up, while the CPU workers already work); in .bz2 compression with GPUs also "prep K" (the
// thread that readies a GPU's batches: wait, prepare) and "stage K" (the GPU's thread: wait,
// upload+sort, encode, download, publish); in .bz2 decompression with GPUs "stage K" (upload, then
// for the batch before: wait for the GPU, download, finish on the host threads, publish).
class Trace {
 public:
  struct Span {
    std::string lane, what;
    double start = 0, end = 0;
    std::uint64_t blocks = 0;
  };
  double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  // The calling thread's lane: "<kind> <k>", k counting that kind's threads in order of first use.
  std::string lane(const std::string& kind);
  void add(std::string lane, std::string what, double start, double end, std::uint64_t blocks);
  std::vector<Span> spans() const;

 private:
  mutable std::mutex m_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::vector<Span> spans_;
  std::map<std::string, std::string> lanes_;  // by "<kind>/<thread id>"
  std::map<std::string, int> kinds_;
};

// What compress() writes: parcomp's stream (codec/stream_format.hpp) or bzip2's (codec/bz2.hpp).
enum class Format { parcomp, bz2 };

struct Options {
  Format format = Format::parcomp;
  int level = 9;               // .bz2: bzip2's -1 .. -9 (blocks of 100k .. 900k)
  pipeline::Config config = pipeline::Config::fast;
  std::size_t block_bytes = std::size_t{1} << 20;
  // The parcomp format's fast configuration: an input that ends within its first small_input_bytes
  // (input_bytes says, or a pipe's are read ahead: the same bytes) is cut into blocks of
  // small_block_bytes where those are smaller than block_bytes: a small file's blocks then keep
  // more of the host threads busy, at a few percent of size (docs/defaults.md). 0: always
  // block_bytes (an asked-for block size).
  std::size_t small_input_bytes = std::size_t{16} << 20;
  std::size_t small_block_bytes = std::size_t{512} << 10;
  int cpu_threads = -1;        // CPU workers: -1 = every hardware thread, 0 = none
  bool use_gpus = true;        // GPU workers on `devices` (empty: every device)
  std::vector<int> devices;
  bool require_gpu = false;    // fail when no GPU worker could start (--gpu)
  std::size_t gpu_batch_blocks = 64;  // blocks the GPUs take at a time, split among them (each a G-th: detail::gpu_batch_per_device)
  // .bz2's GPU batches: a GPU thread decodes or writes a whole block, so a batch needs many blocks
  // to fill a GPU (256 of 900k in decompression: 230 MB); 0 takes that default.
  std::size_t bz2_gpu_batch_blocks = 0;
  // .bz2 compression's lanes per GPU: batches sorted and encoded at once, each with its own stream
  // and buffers (so that one batch's host waits overlap another's kernels); 0 takes the default, 3.
  unsigned bz2_gpu_lanes = 0;
  // .bz2 decompression's lanes per GPU: threads that each hold two batches (one on the GPU, one
  // being ended on the host); 0 takes the default, kBz2GpuDecompressLanes.
  unsigned bz2_gpu_decode_lanes = 0;
  // The parcomp format's lanes per GPU, both ways: threads that each take a batch with their own
  // stream and GPU pipeline, so that one lane's host work (the batch's copy, CRC-32s, pageable
  // copies, the container's assembly and parsing) overlaps another's kernels; 0 takes the default,
  // kGpuLanes, 4 (docs/defaults.md). Each lane holds its own device buffers.
  unsigned gpu_lanes = 0;
  // A .bz2 job on the GPUs by its size (decompression: where cpu_beside_gpus keeps some): CPU
  // workers on every hardware thread while CUDA starts, at the lowest scheduling priority (host time no other thread wants), leaving once
  // a GPU has taken its first batch.
  bool cpu_while_cuda_starts = true;
  // CPU workers that keep taking blocks once a GPU has taken its first batch (.bz2: at SCHED_IDLE)
  // (the others leave after the block they hold); -1 takes the default, kCpuBesideGpus (0).
  int cpu_beside_gpus = -1;
  // .bz2 decompression's walk to each group's start on the GPU (bz2gpu::WalkConfig): its lookup's
  // bits (12 or 11) and CTA threads (256 or 64); 0 takes the default, 12 and 256. For measuring.
  int bz2_gpu_walk_bits = 0;
  unsigned bz2_gpu_walk_threads = 0;
  // .bz2 decompression: the decoded bytes each GPU slot brings back and ends at a time, in its kept
  // pinned memory (bz2::GpuBlockDecoder::set_host_piece); 0 takes the default, 32 MiB.
  std::size_t bz2_gpu_host_piece = 0;
  // .bz2 decompression: decoded blocks waiting for the writer hold at most this many bytes
  // (Job::result_bytes_cap); 0 takes the default, 512 MiB.
  std::uint64_t bz2_decoded_in_flight = 0;
  std::size_t frame_blocks = 64;  // blocks per frame of the stream (the last may have fewer)
  // .bz2 without --gpu or --cpu (use_gpus, require_gpu false, cpu_threads -1): an input of
  // bz2_gpu_from_bytes or more (bz2_gpu_decompress_from_bytes in decompression; input_bytes: its
  // size when known, 0 when not, as from a pipe) goes to the GPUs alone, and to CPU workers on every
  // hardware thread if no GPU starts; a smaller one to the CPU workers; one of unknown size to the
  // CPU workers and, once a 32nd of the threshold is read, to the GPUs. The measurements behind
  // both thresholds are in docs/field.md.
  std::uint64_t input_bytes = 0;
  std::uint64_t bz2_gpu_from_bytes = std::uint64_t{128} << 20;
  std::uint64_t bz2_gpu_decompress_from_bytes = std::uint64_t{64} << 20;
  // The parcomp format without --gpu: an input of known size below gpu_from_bytes (compression)
  // or gpu_decompress_from_bytes (decompression, the compressed size) goes to the CPU workers
  // alone and CUDA is not started, whose start-up outweighs a small file's work (docs/tool.md).
  std::uint64_t gpu_from_bytes = std::uint64_t{32} << 20;
  std::uint64_t gpu_decompress_from_bytes = std::uint64_t{64} << 20;
  std::size_t max_blocks_in_flight = 0;  // 0: 4 blocks per CPU worker, and 3 batches per GPU that joins (.bz2
                                         // compression: its lanes + 2; .bz2 decompression: 4), one GPU's from the
                                         // start with --gpu (parcomp --blocks-in-flight)
  std::function<void(const Progress&)> on_progress;  // called by the writer, about 4 times a second
  std::function<void(const std::string&)> on_note;   // what the engine decided (GPUs joining, ...)
  // .bz2 decompression: where each block and each stream's end marker starts (input bit) and the
  // output's byte there, in order, as indexed_bzip2's block_offsets() gives them; none when null.
  std::vector<std::pair<std::uint64_t, std::uint64_t>>* block_offsets = nullptr;
  Trace* trace = nullptr;  // records the run's timeline when set (parcomp --trace)
  // The caller's process exits after this job (the parcomp program's last input): .bz2
  // decompression leaves its kept host buffers and the GPUs' buffers to the exit, which releases
  // them at once, instead of freeing them piece by piece first (docs/defaults.md). A library caller
  // that goes on leaves it false.
  bool leave_to_exit = false;
};

struct Stats {
  std::uint64_t original_bytes = 0, compressed_bytes = 0;
  std::uint64_t blocks = 0, gpu_blocks = 0, frames = 0;
  unsigned cpu_workers = 0;
  std::vector<int> gpus;      // the devices that did work
  double first_gpu_ready_s = -1;  // seconds from the call to the first GPU's readiness (-1: none)
  std::uint64_t peak_device_bytes = 0;
  double seconds = 0;
  Format format = Format::parcomp;  // of the compressed side
  std::uint64_t streams = 0;        // .bz2 streams read (pbzip2 writes several)
  std::uint64_t trailing_bytes = 0; // after the last .bz2 stream: not a stream, ignored (as bzip2)
};

// Whether a job with these options may run on GPUs: the size rules compress() and decompress()
// follow (Options::gpu_from_bytes, gpu_decompress_from_bytes, bz2_gpu_from_bytes; input_bytes 0
// is an unknown size), for a caller that starts CUDA early (gpu_warmup) only where a GPU can be
// used. `bz2`: the compressed side is .bz2 (written, or read).
bool may_use_gpus(const Options& options, bool decompress, bool bz2);

Stats compress(Source& in, Sink& out, const Options& options);
// parcomp streams (version 3), version-2 containers and .bz2 files (bzip2, lbzip2, pbzip2 and
// ours), told apart by their first bytes; `out` may discard (testing a file).
Stats decompress(Source& in, Sink& out, const Options& options);

// .bz2 (codec/engine_bz2.cpp): blocks cut as bzip2's program cuts them, compressed by the CPU
// workers, written as one stream whose bytes are bzip2's. Decompression finds the blocks by their
// magics (every bit offset; a magic inside a block's data is told apart by decoding from the block
// before it), decodes them on the CPU workers and checks every CRC. With require_gpu (--gpu) the
// GPUs take the .bz2 work alone: they sort and write the blocks in compression (the host packs
// them), and decode batches of blocks in decompression (codec/bz2_gpu.hpp); by default they do so
// for inputs of Options::bz2_gpu_from_bytes and more. compress() and decompress() call these for .bz2.
Stats compress_bz2(Source& in, Sink& out, const Options& options);
Stats decompress_bz2(Source& in, Sink& out, const Options& options);

}  // namespace parcomp::engine
