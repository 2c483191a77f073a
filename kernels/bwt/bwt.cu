// BWT, the thesis's variants (forward merge sort with 4-byte keys, reverse by pointer doubling,
// Alg. 7 and 8), and the entry points. See bwt.hpp.
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "bwt_internal.hpp"

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <span>
#include <string>

namespace parcomp::bwt {

namespace detail {

void check_status(const std::uint32_t* d_status, const char* variant, cudaStream_t stream) {
  std::uint32_t status = 0;
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(&status, d_status, sizeof status, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (status != 0)
    throw CorruptDataError(std::string("bwt::reverse ") + variant + ": block " + std::to_string(status - 1) +
                           ": primary index or start row outside the block");
}

}  // namespace detail

namespace {

constexpr int kThreads = 256;

unsigned grid_for(std::size_t items) {
  return static_cast<unsigned>(std::max<std::size_t>(1, (items + kThreads - 1) / kThreads));
}

// ---- forward, paper -------------------------------------------------------------------------

// The 4 bytes of the rotation of `s` (length n) that start at x (cyclic), big-endian: one
// unaligned 4-byte fetch from global memory (two aligned words and a funnel shift) away from the
// block's end, bytes at the wrap.
__device__ __forceinline__ std::uint32_t key4(const std::uint8_t* s, std::uint32_t n, std::uint32_t x) {
  const auto addr = reinterpret_cast<std::uintptr_t>(s + x);
  const std::uintptr_t aligned = addr & ~std::uintptr_t{3};
  if (aligned + 8 <= reinterpret_cast<std::uintptr_t>(s + n)) {
    const auto* w = reinterpret_cast<const std::uint32_t*>(aligned);
    const std::uint32_t little = __funnelshift_r(w[0], w[1], static_cast<unsigned>(addr & 3u) * 8u);
    return __byte_perm(little, 0, 0x0123);
  }
  std::uint32_t k = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    std::uint32_t p = x + static_cast<std::uint32_t>(j);
    if (p >= n) p %= n;
    k = (k << 8) | s[p];
  }
  return k;
}

// Keys: (first 4 bytes << 32) | start. Ties on the 4 bytes read 4 more bytes from global memory
// at a time; equal rotations order by descending start (as the oracle).
struct RotationLess {
  const std::uint8_t* s;
  std::uint32_t n;
  __device__ bool operator()(std::uint64_t a, std::uint64_t b) const {
    const auto ka = static_cast<std::uint32_t>(a >> 32), kb = static_cast<std::uint32_t>(b >> 32);
    if (ka != kb) return ka < kb;
    const auto ia = static_cast<std::uint32_t>(a), ib = static_cast<std::uint32_t>(b);
    if (ia == ib) return false;
    std::uint32_t xa = ia, xb = ib;
    for (std::uint32_t d = 4; d < n; d += 4) {
      xa += 4;
      xb += 4;
      if (xa >= n) xa -= n;
      if (xb >= n) xb -= n;
      const std::uint32_t ta = key4(s, n, xa), tb = key4(s, n, xb);
      if (ta != tb) return ta < tb;
    }
    return ia > ib;
  }
};

__global__ void paper_keys_kernel(const std::uint8_t* s, std::uint32_t n, std::uint64_t* keys) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = (static_cast<std::uint64_t>(key4(s, n, i)) << 32) | i;
}

__global__ void paper_last_kernel(const std::uint8_t* s, std::uint32_t n, const std::uint64_t* keys, std::uint8_t* last,
                                  std::uint32_t* primary) {
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const auto i = static_cast<std::uint32_t>(keys[p]);
  last[p] = s[i == 0 ? n - 1 : i - 1];
  if (i == 0) *primary = p;
}

struct PaperForward {
  std::uint64_t* keys;
  void* temp;
  std::size_t temp_bytes;
};

PaperForward carve_paper_forward(ScratchCarver& c, std::size_t block_bytes) {
  PaperForward f{};
  f.keys = c.take<std::uint64_t>(block_bytes);
  PARCOMP_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, f.temp_bytes, static_cast<std::uint64_t*>(nullptr),
                                                    static_cast<std::int64_t>(block_bytes), RotationLess{}));
  f.temp = c.take_bytes(f.temp_bytes);
  return f;
}

// ---- reverse, paper -------------------------------------------------------------------------

struct PaperReverse {
  std::uint8_t* f;              // F (the sorted keys)
  std::uint32_t* v0;            // 0 .. len-1
  std::uint32_t* neighbours[2]; // V1, then V1^2, V1^4, ...
  std::uint32_t* thread_indices;
  std::uint32_t* status;
  void* temp;
  std::size_t temp_bytes;
};

PaperReverse carve_paper_reverse(ScratchCarver& c, std::size_t block_bytes, unsigned threads) {
  PaperReverse r{};
  r.f = c.take<std::uint8_t>(block_bytes);
  r.v0 = c.take<std::uint32_t>(block_bytes);
  r.neighbours[0] = c.take<std::uint32_t>(block_bytes);
  r.neighbours[1] = c.take<std::uint32_t>(block_bytes);
  r.thread_indices = c.take<std::uint32_t>(threads);
  r.status = c.take<std::uint32_t>(1);
  PARCOMP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, r.temp_bytes, static_cast<const std::uint8_t*>(nullptr),
                                                     static_cast<std::uint8_t*>(nullptr),
                                                     static_cast<const std::uint32_t*>(nullptr),
                                                     static_cast<std::uint32_t*>(nullptr),
                                                     static_cast<std::int64_t>(block_bytes)));
  r.temp = c.take_bytes(r.temp_bytes);
  return r;
}

__global__ void iota_kernel(std::uint32_t* v, std::uint32_t n) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i;
}

__global__ void check_primary_kernel(const std::uint32_t* primary, std::uint32_t n, std::uint32_t block,
                                     std::uint32_t* status) {
  if (*primary >= n) atomicCAS(status, 0u, block + 1u);
}

// Alg. 7: threads below step_id decode one byte each; all threads compute the next neighbour set
// (cur composed with itself).
__global__ void doubling_step_kernel(const std::uint8_t* last, std::uint32_t n, const std::uint32_t* primary,
                                     std::uint32_t step_id, std::uint32_t total_threads, const std::uint32_t* cur,
                                     std::uint32_t* next, std::uint32_t* thread_indices, std::uint8_t* out) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total_threads) return;
  const std::uint32_t p0 = *primary;
  if (p0 >= n) return;  // reported by check_primary_kernel
  if (t < step_id && t + step_id - 1 < n) {
    const std::uint32_t my_index = t == 0 ? p0 : thread_indices[t - 1];
    const std::uint32_t v = cur[my_index];
    out[t + step_id - 1] = last[v];
    thread_indices[t + step_id - 1] = v;
  }
  for (std::uint32_t i = t; i < n; i += total_threads) next[i] = cur[cur[i]];
}

// Alg. 8: all threads active, each walks total_threads ahead at a time.
__global__ void doubling_final_kernel(const std::uint8_t* last, std::uint32_t n, const std::uint32_t* primary,
                                      std::uint32_t total_threads, const std::uint32_t* ahead,
                                      const std::uint32_t* thread_indices, std::uint8_t* out) {
  const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total_threads) return;
  const std::uint32_t p0 = *primary;
  if (p0 >= n) return;
  if (t + total_threads - 1 >= n) return;
  std::uint32_t my_index = t == 0 ? p0 : thread_indices[t - 1];
  for (std::uint64_t i = t + total_threads - 1; i < n; i += total_threads) {
    const std::uint32_t next_index = ahead[my_index];
    out[i] = last[next_index];
    my_index = next_index;
  }
}

void validate(std::size_t n, std::size_t block_bytes) {
  if (block_bytes == 0 || block_bytes > kMaxBlockBytes)
    throw ContractError("bwt: block_bytes must be in 1 .. " + std::to_string(kMaxBlockBytes) + ", got " +
                        std::to_string(block_bytes));
  if (n >= (std::uint64_t{1} << 32)) throw ContractError("bwt: inputs of 2^32 bytes or more are not supported");
}

void validate_segments(std::span<const std::uint64_t> offsets) {
  if (offsets.empty() || offsets.front() != 0) throw ContractError("bwt::forward_segments: offsets must start at 0");
  for (std::size_t b = 0; b + 1 < offsets.size(); ++b) {
    const std::uint64_t len = offsets[b + 1] - offsets[b];
    if (offsets[b + 1] <= offsets[b] || len > kMaxBlockBytes)
      throw ContractError("bwt::forward_segments: block " + std::to_string(b) + " has " +
                          std::to_string(static_cast<std::int64_t>(offsets[b + 1] - offsets[b])) + " bytes (1 .. " +
                          std::to_string(kMaxBlockBytes) + ")");
  }
  if (offsets.back() >= (std::uint64_t{1} << 32)) throw ContractError("bwt: inputs of 2^32 bytes or more are not supported");
}

}  // namespace

std::string name(Variant v) { return v == Variant::paper ? "gpu.paper" : "gpu.fast"; }

std::size_t forward_segments_scratch_bytes(std::size_t n, std::size_t count) {
  return n == 0 ? 0 : detail::fast_forward_segments_scratch_bytes(n, count);
}

void forward_segments(const std::uint8_t* d_in, std::span<const std::uint64_t> offsets, std::uint8_t* d_last,
                      std::uint32_t* d_primary, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  validate_segments(offsets);
  PARCOMP_NVTX_RANGE("bwt::forward_segments");
  if (offsets.size() == 1) return;  // no block
  ScratchCarver carver(d_scratch, scratch_bytes);
  detail::fast_forward_segments(d_in, offsets, d_last, d_primary, carver, stream);
}

std::size_t forward_scratch_bytes(Variant v, std::size_t n, std::size_t block_bytes) {
  validate(n, block_bytes);
  if (n == 0) return 0;
  if (v == Variant::fast) return detail::fast_forward_scratch_bytes(n);
  ScratchCarver sizing;
  carve_paper_forward(sizing, std::min(n, block_bytes));
  return sizing.used();
}

void forward(Variant v, const std::uint8_t* d_in, std::size_t n, std::size_t block_bytes, std::uint8_t* d_last,
             std::uint32_t* d_primary, std::uint32_t* d_samples, void* d_scratch, std::size_t scratch_bytes,
             cudaStream_t stream) {
  validate(n, block_bytes);
  PARCOMP_NVTX_RANGE("bwt::forward");
  if (n == 0) return;
  ScratchCarver carver(d_scratch, scratch_bytes);
  if (v == Variant::fast) {
    detail::fast_forward(d_in, n, block_bytes, d_last, d_primary, d_samples, carver, stream);
    return;
  }
  if (d_samples != nullptr) throw ContractError("bwt::forward gpu.paper writes no samples (the fast reverse's start rows)");
  PaperForward f = carve_paper_forward(carver, std::min(n, block_bytes));
  for (std::size_t b = 0; b < block_count(n, block_bytes); ++b) {
    const std::uint8_t* s = d_in + b * block_bytes;
    const auto len = static_cast<std::uint32_t>(std::min(block_bytes, n - b * block_bytes));
    paper_keys_kernel<<<grid_for(len), kThreads, 0, stream>>>(s, len, f.keys);
    PARCOMP_CHECK_LAUNCH();
    PARCOMP_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(f.temp, f.temp_bytes, f.keys, static_cast<std::int64_t>(len),
                                                      RotationLess{s, len}, stream));
    paper_last_kernel<<<grid_for(len), kThreads, 0, stream>>>(s, len, f.keys, d_last + b * block_bytes, d_primary + b);
    PARCOMP_CHECK_LAUNCH();
  }
}

std::size_t reverse_scratch_bytes(const ReverseConfig& c, std::size_t n, std::size_t block_bytes) {
  validate(n, block_bytes);
  if (n == 0) return 0;
  if (c.variant == Variant::fast) return detail::fast_reverse_scratch_bytes(n, block_bytes);
  ScratchCarver sizing;
  carve_paper_reverse(sizing, std::min(n, block_bytes), c.total_threads);
  return sizing.used();
}

void reverse(const ReverseConfig& c, const std::uint8_t* d_last, std::size_t n, std::size_t block_bytes,
             const std::uint32_t* d_primary, const std::uint32_t* d_samples, std::uint8_t* d_out, void* d_scratch,
             std::size_t scratch_bytes, cudaStream_t stream) {
  validate(n, block_bytes);
  PARCOMP_NVTX_RANGE("bwt::reverse");
  if (n == 0) return;
  ScratchCarver carver(d_scratch, scratch_bytes);
  if (c.variant == Variant::fast) {
    if (d_samples == nullptr) throw ContractError("bwt::reverse gpu.fast needs the start rows (samples) of forward()");
    if (c.sample_stride == 0 || c.sample_stride % kSampleStride != 0)
      throw ContractError("bwt::reverse gpu.fast: the sample stride must be a multiple of " + std::to_string(kSampleStride));
    detail::fast_reverse(d_last, n, block_bytes, d_primary, d_samples, c.sample_stride, d_out, carver, stream);
    return;
  }
  const unsigned threads = c.total_threads;
  if (threads == 0 || (threads & (threads - 1)) != 0)
    throw ContractError("bwt::reverse gpu.paper: total_threads must be a power of two, got " + std::to_string(threads));
  PaperReverse r = carve_paper_reverse(carver, std::min(n, block_bytes), threads);
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(r.status, 0, sizeof(std::uint32_t), stream));
  const unsigned block = std::min(threads, 256u), grid = threads / block;
  for (std::size_t b = 0; b < block_count(n, block_bytes); ++b) {
    const std::uint8_t* last = d_last + b * block_bytes;
    std::uint8_t* out = d_out + b * block_bytes;
    const std::uint32_t* primary = d_primary + b;
    const auto len = static_cast<std::uint32_t>(std::min(block_bytes, n - b * block_bytes));
    check_primary_kernel<<<1, 1, 0, stream>>>(primary, len, static_cast<std::uint32_t>(b), r.status);
    PARCOMP_CHECK_LAUNCH();
    iota_kernel<<<grid_for(len), kThreads, 0, stream>>>(r.v0, len);
    PARCOMP_CHECK_LAUNCH();
    // Key-value sort of L with 0..len-1: F and V1 (the next pointers).
    PARCOMP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(r.temp, r.temp_bytes, last, r.f, r.v0, r.neighbours[0],
                                                       static_cast<std::int64_t>(len), 0, 8, stream));
    int cur = 0;
    for (std::uint32_t step = 1; step < threads; step *= 2) {
      doubling_step_kernel<<<grid, block, 0, stream>>>(last, len, primary, step, threads, r.neighbours[cur],
                                                       r.neighbours[1 - cur], r.thread_indices, out);
      PARCOMP_CHECK_LAUNCH();
      cur = 1 - cur;
    }
    doubling_final_kernel<<<grid, block, 0, stream>>>(last, len, primary, threads, r.neighbours[cur], r.thread_indices, out);
    PARCOMP_CHECK_LAUNCH();
  }
  detail::check_status(r.status, "gpu.paper", stream);
}

}  // namespace parcomp::bwt
