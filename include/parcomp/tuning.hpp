// parcomp's tuning knobs (ours): settings for measuring and for hosts unlike those the defaults
// were measured on. A program sets Options::tuning to one of these; every 0 (or -1) takes the
// library's default, which docs/tool.md and docs/field.md explain with their measurements.
#pragma once

#include <cstddef>
#include <cstdint>

namespace parcomp {

struct Tuning {
  // The parcomp format: bytes per block (1 .. 16 MiB; 0: 1 MiB, 512 KiB for an input that ends
  // within 16 MiB) and blocks per frame.
  std::size_t block_bytes = 0;
  std::size_t frame_blocks = 0;
  // Blocks the GPUs take at a time, split among them: the parcomp format's and .bz2's batches.
  std::size_t gpu_batch_blocks = 0;
  std::size_t bz2_gpu_batch_blocks = 0;
  // Lanes per GPU (batches at once, each with its stream and buffers): .bz2 compression's and the
  // parcomp format's.
  unsigned bz2_gpu_lanes = 0;
  unsigned gpu_lanes = 0;
  // Blocks read and not yet written, at most (memory).
  std::size_t max_blocks_in_flight = 0;
  // Inputs of this size or more go to the GPUs alone (.bz2: compression, decompression of the
  // compressed size; the parcomp format likewise); smaller ones to the CPU workers.
  std::uint64_t bz2_gpu_from_bytes = 0;
  std::uint64_t bz2_gpu_decompress_from_bytes = 0;
  std::uint64_t gpu_from_bytes = 0;
  std::uint64_t gpu_decompress_from_bytes = 0;
  // The parcomp format: CPU workers that keep taking blocks once a GPU works (-1: the default).
  int cpu_beside_gpus = -1;
  // .bz2 decompression on the GPU: the walk's lookup bits (11 or 12) and threads (64 or 256), and
  // the decoded bytes each GPU slot brings back at a time.
  int bz2_gpu_walk_bits = 0;
  unsigned bz2_gpu_walk_threads = 0;
  std::size_t bz2_gpu_host_piece = 0;
  // .bz2 decompression: decoded bytes waiting for a slower writer, at most (memory).
  std::uint64_t bz2_decoded_in_flight = 0;
};

}  // namespace parcomp
