// PARLE as the blog gives it (parle-blog-run-length-encoding-in-cuda.txt), and the RLE decoder of
// the survey (eirola-lossless-compression-on-gpgpu.txt, Fig. 2). Kernels keep the blog's grid-stride
// loops and Hemi-style occupancy launches. Our choice: the blog's scan came from chag::pp; we use
// CUB's device scan, the scan a CUDA user reaches for today.
#include "../common/launch.cuh"
#include "../common/nvtx.hpp"
#include "../common/scratch.hpp"
#include "rle.hpp"
#include "rle_common.hpp"

#include <cub/device/device_scan.cuh>

namespace parcomp::rle {

namespace {

// Step 1: backwardMask[i] = 1 where a run starts.
__global__ void mask_kernel(const std::int32_t* g_in, std::int32_t* g_backward_mask, std::int64_t n) {
  for (std::int64_t i = grid_thread_index(); i < n; i += grid_stride()) {
    if (i == 0)
      g_backward_mask[i] = 1;
    else
      g_backward_mask[i] = (g_in[i] != g_in[i - 1]);
  }
}

// Step 3: compactedBackwardMask holds each run's start index, then n; totalRuns the run count.
__global__ void compact_kernel(const std::int32_t* g_scanned_backward_mask, std::int32_t* g_compacted_backward_mask,
                               std::int32_t* g_total_runs, std::int64_t n) {
  for (std::int64_t i = grid_thread_index(); i < n; i += grid_stride()) {
    if (i == n - 1) {
      g_compacted_backward_mask[g_scanned_backward_mask[i]] = static_cast<std::int32_t>(i + 1);
      *g_total_runs = g_scanned_backward_mask[i];
    }
    if (i == 0) {
      g_compacted_backward_mask[0] = 0;
    } else if (g_scanned_backward_mask[i] != g_scanned_backward_mask[i - 1]) {
      g_compacted_backward_mask[g_scanned_backward_mask[i] - 1] = static_cast<std::int32_t>(i);
    }
  }
}

// Step 4: symbols and counts from consecutive run starts.
__global__ void scatter_kernel(const std::int32_t* g_compacted_backward_mask, const std::int32_t* g_total_runs,
                               const std::int32_t* g_in, std::int32_t* g_symbols_out, std::int32_t* g_counts_out) {
  const std::int64_t runs = *g_total_runs;
  for (std::int64_t i = grid_thread_index(); i < runs; i += grid_stride()) {
    const std::int32_t a = g_compacted_backward_mask[i];
    const std::int32_t b = g_compacted_backward_mask[i + 1];
    g_symbols_out[i] = g_in[a];
    g_counts_out[i] = b - a;
  }
}

// Decode step 2: a 1 at every run start but the first (the flag array was zeroed).
__global__ void mark_run_starts_kernel(const std::int32_t* g_starts, std::int64_t runs, std::int32_t* g_flags,
                                       std::int64_t n) {
  for (std::int64_t r = grid_thread_index() + 1; r < runs; r += grid_stride()) {
    const std::int64_t start = g_starts[r];
    if (start < n) g_flags[start] = 1;  // a start past n is a corrupt stream: ignored, never written
  }
}

// Decode step 4: out[j] = symbols[run index of j].
__global__ void gather_kernel(const std::int32_t* g_run_index, const std::int32_t* g_symbols, std::int64_t runs,
                              std::int32_t* g_out, std::int64_t n) {
  for (std::int64_t j = grid_thread_index(); j < n; j += grid_stride()) {
    const std::int64_t r = g_run_index[j];
    g_out[j] = r < runs ? g_symbols[r] : 0;
  }
}

struct PaperEncodeScratch {
  std::int32_t* backward_mask;
  std::int32_t* scanned_backward_mask;
  std::int32_t* compacted_backward_mask;
  void* cub_temp;
  std::size_t cub_temp_bytes;
};

PaperEncodeScratch carve_paper_encode(ScratchCarver& carver, std::size_t n) {
  PaperEncodeScratch s{};
  s.backward_mask = carver.take<std::int32_t>(n);
  s.scanned_backward_mask = carver.take<std::int32_t>(n);
  s.compacted_backward_mask = carver.take<std::int32_t>(n + 1);
  PARCOMP_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, s.cub_temp_bytes, s.backward_mask,
                                                   s.scanned_backward_mask, static_cast<int>(n)));
  s.cub_temp = carver.take_bytes(s.cub_temp_bytes);
  return s;
}

struct PaperDecodeScratch {
  std::int32_t* starts;
  std::int32_t* flags;
  std::int32_t* run_index;
  void* cub_temp;
  std::size_t cub_temp_bytes;
};

PaperDecodeScratch carve_paper_decode(ScratchCarver& carver, std::size_t runs, std::size_t n) {
  PaperDecodeScratch s{};
  s.starts = carver.take<std::int32_t>(runs);
  s.flags = carver.take<std::int32_t>(n);
  s.run_index = carver.take<std::int32_t>(n);
  std::size_t bytes_counts = 0, bytes_flags = 0;
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes_counts, s.starts, s.starts, static_cast<int>(runs)));
  PARCOMP_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes_flags, s.flags, s.run_index, static_cast<int>(n)));
  s.cub_temp_bytes = bytes_counts > bytes_flags ? bytes_counts : bytes_flags;
  s.cub_temp = carver.take_bytes(s.cub_temp_bytes);
  return s;
}

}  // namespace

namespace detail {

std::size_t paper_encode_scratch_bytes(std::size_t n) {
  ScratchCarver sizing;
  carve_paper_encode(sizing, n);
  return sizing.used();
}

void paper_encode(const std::int32_t* d_in, std::size_t n, std::int32_t* d_symbols, std::int32_t* d_counts,
                  std::int32_t* d_num_runs, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("rle::encode.paper");
  ScratchCarver carver(d_scratch, scratch_bytes);
  const PaperEncodeScratch s = carve_paper_encode(carver, n);
  const auto n64 = static_cast<std::int64_t>(n);

  const LaunchConfig mask_cfg = occupancy_launch_config(mask_kernel);
  mask_kernel<<<mask_cfg.grid, mask_cfg.block, 0, stream>>>(d_in, s.backward_mask, n64);
  PARCOMP_CHECK_LAUNCH();

  std::size_t temp_bytes = s.cub_temp_bytes;
  PARCOMP_CUDA_CHECK(cub::DeviceScan::InclusiveSum(s.cub_temp, temp_bytes, s.backward_mask, s.scanned_backward_mask,
                                                   static_cast<int>(n), stream));

  const LaunchConfig compact_cfg = occupancy_launch_config(compact_kernel);
  compact_kernel<<<compact_cfg.grid, compact_cfg.block, 0, stream>>>(s.scanned_backward_mask,
                                                                      s.compacted_backward_mask, d_num_runs, n64);
  PARCOMP_CHECK_LAUNCH();

  const LaunchConfig scatter_cfg = occupancy_launch_config(scatter_kernel);
  scatter_kernel<<<scatter_cfg.grid, scatter_cfg.block, 0, stream>>>(s.compacted_backward_mask, d_num_runs, d_in,
                                                                      d_symbols, d_counts);
  PARCOMP_CHECK_LAUNCH();
}

std::size_t paper_decode_scratch_bytes(std::size_t runs, std::size_t n) {
  ScratchCarver sizing;
  carve_paper_decode(sizing, runs, n);
  return sizing.used();
}

void paper_decode(const std::int32_t* d_symbols, const std::int32_t* d_counts, std::size_t runs, std::size_t n,
                  std::int32_t* d_out, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("rle::decode.paper");
  ScratchCarver carver(d_scratch, scratch_bytes);
  const PaperDecodeScratch s = carve_paper_decode(carver, runs, n);

  // Step 1: run start positions = exclusive scan of counts.
  std::size_t temp_bytes = s.cub_temp_bytes;
  PARCOMP_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(s.cub_temp, temp_bytes, d_counts, s.starts, static_cast<int>(runs), stream));
  // Step 2: flags at run starts.
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(s.flags, 0, n * sizeof(std::int32_t), stream));
  const LaunchConfig mark_cfg = occupancy_launch_config(mark_run_starts_kernel);
  mark_run_starts_kernel<<<mark_cfg.grid, mark_cfg.block, 0, stream>>>(s.starts, static_cast<std::int64_t>(runs),
                                                                        s.flags, static_cast<std::int64_t>(n));
  PARCOMP_CHECK_LAUNCH();
  // Step 3: run index of every output element = inclusive scan of the flags.
  temp_bytes = s.cub_temp_bytes;
  PARCOMP_CUDA_CHECK(
      cub::DeviceScan::InclusiveSum(s.cub_temp, temp_bytes, s.flags, s.run_index, static_cast<int>(n), stream));
  // Step 4: gather.
  const LaunchConfig gather_cfg = occupancy_launch_config(gather_kernel);
  gather_kernel<<<gather_cfg.grid, gather_cfg.block, 0, stream>>>(s.run_index, d_symbols,
                                                                   static_cast<std::int64_t>(runs), d_out,
                                                                   static_cast<std::int64_t>(n));
  PARCOMP_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace parcomp::rle
