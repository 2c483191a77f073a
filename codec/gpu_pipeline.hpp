// The GPU compression pipeline (thesis chapters 2 and 3): blocks of a file through BWT, MTF and
// Huffman on the device, data staying there between stages, and back. Two configurations:
//   paper  the thesis's kernels: bwt gpu.paper, mtf gpu.paper, huffman gpu.paper (4096-symbol
//          byte-aligned arrays); its container is bit-identical to the CPU reference pipeline's.
//   fast   ours: bwt gpu.fast (start rows every 8192 rotations for the reverse), mtf gpu.fast,
//          bzip2's zero-run stage (kernels/zrle) and multi-table Huffman code (huffman::
//          multi_choose), PAVLE's gpu.fast encoder and index-driven decoder for all blocks in one
//          launch each (vle::encode_segments / decode_segments). No host round trip in run().
// paper's per-block code is the Huffman stage's rule (huffman.hpp), built on the host from the GPU
// tree's lengths, all blocks at once (one synchronisation).
#pragma once

#include "core/container.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace parcomp::pipeline {

// Seconds per stage of the last run (CUDA events; host work between them included).
struct StageTimes {
  double bwt = 0, mtf = 0, zrle = 0, huffman = 0;  // zrle: the fast configuration's zero-run stage
};

// The device bytes a GpuCompressor (decompress false) or GpuDecompressor holds for a batch of n
// bytes in blocks of `block`, about: its sorts' scratch, its move-to-front's and 8 bytes per
// input byte for the rest (the engine sizes its GPU batches from this and the free memory).
std::uint64_t device_bytes_estimate(Config config, std::size_t n, std::size_t block, bool decompress);

// Compression with the input already on the device: upload() once, run() any number of times,
// container() downloads and assembles the file.
class GpuCompressor {
 public:
  GpuCompressor(Config config, std::size_t n, std::size_t block_bytes);
  ~GpuCompressor();
  GpuCompressor(const GpuCompressor&) = delete;
  GpuCompressor& operator=(const GpuCompressor&) = delete;

  void upload(std::span<const std::uint8_t> in, cudaStream_t stream);
  const std::uint8_t* device_input() const;
  StageTimes run(cudaStream_t stream);
  std::vector<std::uint8_t> container(cudaStream_t stream);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Decompression: load() parses and checks the container and puts its parts on the device, run()
// decodes into device memory, output() downloads and checks every block's CRC-32. Damage is a
// CorruptDataError naming the block.
class GpuDecompressor {
 public:
  explicit GpuDecompressor(std::span<const std::uint8_t> file);
  ~GpuDecompressor();
  GpuDecompressor(const GpuDecompressor&) = delete;
  GpuDecompressor& operator=(const GpuDecompressor&) = delete;

  // Another file for the same object: parsed and checked; the device buffers of the last load()
  // are kept and grow only when this file needs more.
  void reset(std::span<const std::uint8_t> file);
  // The same with the file's bytes taken from `file`, which gets the last file's buffer back (its
  // capacity, for the caller's next file: no copy, no fresh pages).
  void take(std::vector<std::uint8_t>& file);
  void load(cudaStream_t stream);
  StageTimes run(cudaStream_t stream);
  std::vector<std::uint8_t> output(cudaStream_t stream);
  // The same into `out` (resized; a vector kept from an earlier batch is not zeroed again).
  void output(cudaStream_t stream, std::vector<std::uint8_t>& out);
  std::size_t original_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
  void parse_file();  // the layout of s_->file, checked
};

// Whole-file helpers (upload, run, download).
std::vector<std::uint8_t> compress_gpu(Config config, std::span<const std::uint8_t> in, std::size_t block_bytes,
                                       StageTimes* times = nullptr);
std::vector<std::uint8_t> decompress_gpu(std::span<const std::uint8_t> file, StageTimes* times = nullptr);

}  // namespace parcomp::pipeline
