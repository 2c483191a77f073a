// The zero-run stage on the GPU. See zrle.hpp.
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "../vle/decode_step.cuh"  // report_damage
#include "core/stages.hpp"
#include "zrle.hpp"

#include <cub/block/block_scan.cuh>

#include <string>

namespace parcomp::zrle {

namespace {

constexpr int kThreads = 512, kChunk = 16;
constexpr std::int64_t kTile = std::int64_t{kThreads} * kChunk;
using stages::kRunA;
using stages::kZrleEscape;

// A run (of zeros, or of RUNA/RUNB digits) through a scan: `all` when the elements so far are all
// members, `count` the members at the end.
struct Run {
  std::uint32_t all;
  std::uint32_t count;
};
struct RunOp {
  __device__ Run operator()(const Run& a, const Run& b) const { return b.all != 0 ? Run{a.all, a.count + b.count} : b; }
};

// 16 bytes from p[0..valid); the rest read as `fill`.
__device__ __forceinline__ void load_chunk(const std::uint8_t* p, int valid, std::uint8_t fill, std::uint8_t (&c)[kChunk]) {
  if (valid == kChunk) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < kChunk; ++k) c[k] = static_cast<std::uint8_t>(w[k / 4] >> (8 * (k % 4)));
  } else {
#pragma unroll
    for (int k = 0; k < kChunk; ++k) c[k] = k < valid ? p[k] : fill;
  }
}

// The run summary of a chunk whose members are flagged in `member` (valid elements only).
__device__ __forceinline__ Run summarise(const bool (&member)[kChunk], int valid) {
  if (valid == 0) return Run{1, 0};
  int trail = 0;
  bool all = true;
#pragma unroll
  for (int k = 0; k < kChunk; ++k) {
    if (k >= valid) break;
    trail = member[k] ? trail + 1 : 0;
    all = all && member[k];
  }
  return all ? Run{1, static_cast<std::uint32_t>(valid)} : Run{0, static_cast<std::uint32_t>(trail)};
}

__device__ __forceinline__ int run_digits(std::uint32_t r) { return 31 - __clz(r + 1); }  // floor(log2(r + 1))

template <bool Write>
__device__ __forceinline__ std::uint32_t emit_chunk(const std::uint8_t (&c)[kChunk], int valid, std::uint32_t run,
                                                    bool ends_block, std::uint8_t* out) {
  std::uint32_t count = 0;
  auto flush = [&]() {
    for (; run > 0; run = (run - 1) / 2) {
      if (Write) out[count] = (run & 1u) != 0 ? kRunA : stages::kRunB;
      ++count;
    }
  };
  for (int k = 0; k < valid; ++k) {
    const std::uint8_t x = c[k];
    if (x == 0) {
      ++run;
      continue;
    }
    if (!Write) {
      count += static_cast<std::uint32_t>(run_digits(run)) + (x >= 254 ? 2u : 1u);
      run = 0;
      continue;
    }
    flush();
    if (x <= 253) {
      out[count++] = static_cast<std::uint8_t>(x + 1);
    } else {
      out[count++] = kZrleEscape;
      out[count++] = static_cast<std::uint8_t>(x - 254);
    }
  }
  if (ends_block && run > 0) {
    if (!Write) count += static_cast<std::uint32_t>(run_digits(run));
    else flush();
  }
  return count;
}

__global__ void __launch_bounds__(kThreads)
    encode_kernel(const std::uint8_t* in, std::int64_t n, std::int64_t block, std::int64_t cap, std::uint8_t* symbols,
                  std::uint32_t* counts) {
  using RunScan = cub::BlockScan<Run, kThreads>;
  using SumScan = cub::BlockScan<std::uint32_t, kThreads>;
  __shared__ typename RunScan::TempStorage run_storage;
  __shared__ typename SumScan::TempStorage sum_storage;
  const std::int64_t b = blockIdx.x, start = b * block, len = min(block, n - start);
  const std::uint8_t* src = in + start;
  std::uint8_t* dst = symbols + b * cap;
  Run carry{1, 0};
  std::uint32_t base = 0;
  for (std::int64_t t0 = 0; t0 < len; t0 += kTile) {
    const std::int64_t first = t0 + static_cast<std::int64_t>(threadIdx.x) * kChunk;
    const int valid = static_cast<int>(max(std::int64_t{0}, min(std::int64_t{kChunk}, len - first)));
    std::uint8_t c[kChunk];
    load_chunk(src + first, valid, 0, c);
    bool zero[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) zero[k] = c[k] == 0;
    Run entering, tile;
    RunScan(run_storage).ExclusiveScan(summarise(zero, valid), entering, carry, RunOp(), tile);
    const bool ends_block = valid > 0 && first + valid == len;
    const std::uint32_t mine = emit_chunk<false>(c, valid, entering.count, ends_block, nullptr);
    std::uint32_t offset, total;
    SumScan(sum_storage).ExclusiveSum(mine, offset, total);
    emit_chunk<true>(c, valid, entering.count, ends_block, dst + base + offset);
    base += total;
    carry = RunOp()(carry, tile);
    __syncthreads();  // the scans' storage is reused
  }
  if (threadIdx.x == 0) counts[b] = base;
}

__global__ void __launch_bounds__(kThreads)
    decode_kernel(const std::uint8_t* symbols, const std::uint32_t* counts, std::int64_t n, std::int64_t block,
                  std::int64_t cap, std::uint8_t* out, std::uint32_t* status) {
  using RunScan = cub::BlockScan<Run, kThreads>;
  using SumScan = cub::BlockScan<unsigned long long, kThreads>;
  __shared__ typename RunScan::TempStorage run_storage;
  __shared__ typename SumScan::TempStorage sum_storage;
  const std::int64_t b = blockIdx.x, start = b * block, len = min(block, n - start);
  const std::int64_t m = counts[b];
  const std::uint8_t* src = symbols + b * cap;
  std::uint8_t* dst = out + start;
  if (m > cap) {
    if (threadIdx.x == 0) vle::report_damage(status, vle::kBadLength, b);
    return;
  }
  Run carry{1, 0};
  unsigned long long base = 0;
  bool bad = false;
  for (std::int64_t t0 = 0; t0 < m; t0 += kTile) {
    const std::int64_t first = t0 + static_cast<std::int64_t>(threadIdx.x) * kChunk;
    const int valid = static_cast<int>(max(std::int64_t{0}, min(std::int64_t{kChunk}, m - first)));
    std::uint8_t c[kChunk];
    load_chunk(src + first, valid, 2, c);
    const std::uint8_t before = valid > 0 && first > 0 ? src[first - 1] : 0;
    bool digit[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const bool suffix = (k == 0 ? before : c[k - 1]) == kZrleEscape;
      digit[k] = c[k] <= 1 && !suffix;
    }
    Run entering, tile;
    RunScan(run_storage).ExclusiveScan(summarise(digit, valid), entering, carry, RunOp(), tile);
    // Pass 1: the bytes each symbol stands for; pass 2: store the nonzero values.
    unsigned long long bytes = 0;
    std::uint32_t position = entering.count;
    for (int k = 0; k < valid; ++k) {
      if (digit[k]) {
        if (position >= 40) bad = true;
        else bytes += static_cast<unsigned long long>(c[k] == kRunA ? 1 : 2) << position;
        ++position;
        continue;
      }
      position = 0;
      const bool suffix = (k == 0 ? before : c[k - 1]) == kZrleEscape;
      if (suffix && c[k] > 1) bad = true;
      if (c[k] == kZrleEscape && first + k == m - 1) bad = true;  // an escape without its second symbol
      bytes += c[k] == kZrleEscape ? 0 : 1;
    }
    unsigned long long offset, total;
    SumScan(sum_storage).ExclusiveSum(bytes, offset, total);
    unsigned long long at = base + offset;
    position = entering.count;
    for (int k = 0; k < valid; ++k) {
      if (digit[k]) {
        if (position < 40) at += static_cast<unsigned long long>(c[k] == kRunA ? 1 : 2) << position;
        ++position;
        continue;
      }
      position = 0;
      if (c[k] == kZrleEscape) continue;
      const bool suffix = (k == 0 ? before : c[k - 1]) == kZrleEscape;
      const std::uint8_t value = suffix ? static_cast<std::uint8_t>(254 + c[k]) : static_cast<std::uint8_t>(c[k] - 1);
      if (at < static_cast<unsigned long long>(len)) dst[at] = value;
      else bad = true;
      ++at;
    }
    base += total;
    carry = RunOp()(carry, tile);
    __syncthreads();
  }
  if (bad || (threadIdx.x == 0 && base != static_cast<unsigned long long>(len))) vle::report_damage(status, vle::kBadLength, b);
}

}  // namespace

void encode(const std::uint8_t* d_in, std::size_t n, std::size_t block_bytes, std::uint8_t* d_symbols,
            std::uint32_t* d_counts, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("zrle::encode");
  if (block_bytes == 0 || block_bytes % 16 != 0 || reinterpret_cast<std::uintptr_t>(d_in) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(d_symbols) % 16 != 0)
    throw ContractError("zrle::encode: blocks of a multiple of 16 bytes, 16-byte aligned buffers");
  if (n == 0) return;
  const std::size_t blocks = (n + block_bytes - 1) / block_bytes;
  encode_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(d_in, static_cast<std::int64_t>(n),
                                                                        static_cast<std::int64_t>(block_bytes),
                                                                        static_cast<std::int64_t>(capacity(block_bytes)), d_symbols, d_counts);
  PARCOMP_CHECK_LAUNCH();
}

void decode(const std::uint8_t* d_symbols, const std::uint32_t* d_counts, std::size_t n, std::size_t block_bytes,
            std::uint8_t* d_out, std::uint32_t* d_status, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("zrle::decode");
  if (block_bytes == 0 || block_bytes % 16 != 0 || reinterpret_cast<std::uintptr_t>(d_symbols) % 16 != 0)
    throw ContractError("zrle::decode: blocks of a multiple of 16 bytes, 16-byte aligned symbols");
  const std::uint32_t init[kDecodeStatusWords] = {0u, 0xFFFFFFFFu};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(d_status, init, sizeof init, cudaMemcpyHostToDevice, stream));
  if (n == 0) return;
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(d_out, 0, n, stream));
  const std::size_t blocks = (n + block_bytes - 1) / block_bytes;
  decode_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      d_symbols, d_counts, static_cast<std::int64_t>(n), static_cast<std::int64_t>(block_bytes),
      static_cast<std::int64_t>(capacity(block_bytes)), d_out, d_status);
  PARCOMP_CHECK_LAUNCH();
}

void check_decode_status(const std::uint32_t* d_status, cudaStream_t stream) {
  std::uint32_t s[kDecodeStatusWords] = {};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s, d_status, sizeof s, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (s[0] != 0)
    throw CorruptDataError("block " + std::to_string(s[1]) + ": the zero-run symbols do not decode to the block's size");
}

}  // namespace parcomp::zrle
