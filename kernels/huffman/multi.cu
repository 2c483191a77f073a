// The multi-table code on the GPU (the pipeline's fast configuration). See huffman.hpp, and
// reference/multi_huffman.hpp (the oracle, which describes every step).
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "../common/scratch.hpp"
#include "../vle/vle.hpp"
#include "huffman.hpp"
#include "core/codes.hpp"
#include "core/stages.hpp"
#include "tree.cuh"

#include <algorithm>

namespace parcomp::huffman {

static_assert(kMaxTables == stages::kMaxTables && kMaxTables == vle::kMaxSegmentTables, "one table limit");
static_assert(stages::kGroupSymbols == vle::kSelectorGroup, "one group size");

namespace {

using namespace detail;
constexpr int kTableBytes = kMaxTables * 256;
constexpr int kThreads = 256;
constexpr std::int64_t kHistChunk = std::int64_t{kThreads} * 32;
constexpr int kGroup = static_cast<int>(stages::kGroupSymbols);

struct MultiScratch {
  std::uint64_t* used;    // per segment: the block histogram
  std::uint64_t* counts;  // per segment and table: the round's symbol counts
};

MultiScratch carve(ScratchCarver& c, std::size_t count) {
  MultiScratch s{};
  s.used = c.take<std::uint64_t>(count * 256);
  s.counts = c.take<std::uint64_t>(count * kTableBytes);
  return s;
}

__global__ void __launch_bounds__(kThreads)
    histogram_kernel(const std::uint8_t* symbols, std::int64_t capacity, const std::uint32_t* sizes, std::uint64_t* used) {
  __shared__ std::uint32_t hist[256];
  const std::int64_t seg = blockIdx.y, size = sizes[seg], lo = static_cast<std::int64_t>(blockIdx.x) * kHistChunk;
  if (lo >= size) return;
  hist[threadIdx.x] = 0;
  __syncthreads();
  const std::uint8_t* p = symbols + seg * capacity;
  const std::int64_t hi = min(size, lo + kHistChunk);
  for (std::int64_t i = lo + threadIdx.x; i < hi; i += kThreads) atomicAdd(&hist[p[i]], 1u);
  __syncthreads();
  if (hist[threadIdx.x] != 0) atomicAdd(reinterpret_cast<unsigned long long*>(used + seg * 256 + threadIdx.x), hist[threadIdx.x]);
}

// bzip2's starting cost tables (the oracle's multi_initial_costs), one thread per segment.
__global__ void initial_kernel(const std::uint32_t* sizes, const std::uint64_t* used, std::size_t count,
                               std::uint32_t* tables_out, std::uint8_t* lengths) {
  const std::size_t seg = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (seg >= count) return;
  const std::uint64_t size = sizes[seg];
  const int tables = size < 200 ? 2 : size < 600 ? 3 : size < 1200 ? 4 : size < 2400 ? 5 : 6;
  tables_out[seg] = static_cast<std::uint32_t>(tables);
  const std::uint64_t* hist = used + seg * 256;
  std::uint8_t* out = lengths + seg * kTableBytes;
  std::uint64_t remaining = size;
  int lo = 0;
  for (int part = tables; part > 0; --part) {
    const std::uint64_t target = remaining / static_cast<std::uint64_t>(part);
    std::uint64_t got = 0;
    int hi = lo - 1;
    while (got < target && hi < 255) got += hist[++hi];
    if (hi > lo && part != tables && part != 1 && (tables - part) % 2 == 1) got -= hist[hi--];
    for (int c = 0; c < 256; ++c)
      out[(part - 1) * 256 + c] = c >= lo && c <= hi ? stages::kCheapCost : stages::kDearCost;
    lo = hi + 1;
    remaining -= got;
  }
  for (int i = tables * 256; i < kTableBytes; ++i) out[i] = 0;
}

// One thread per group: the table of least cost (ties to the lower), its symbols counted.
__global__ void __launch_bounds__(kThreads)
    select_kernel(const std::uint8_t* symbols, std::int64_t capacity, const std::uint32_t* sizes,
                  const std::uint32_t* tables_in, const std::uint8_t* lengths, std::uint8_t* selectors,
                  std::int64_t selector_stride, std::uint64_t* counts) {
  __shared__ std::uint8_t cost[kTableBytes];
  __shared__ std::uint32_t hist[kTableBytes];
  const std::int64_t seg = blockIdx.y, size = sizes[seg];
  const std::int64_t g = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (static_cast<std::int64_t>(blockIdx.x) * kThreads * kGroup >= size) return;
  const int tables = static_cast<int>(tables_in[seg]);
  for (int i = static_cast<int>(threadIdx.x); i < kTableBytes; i += kThreads) {
    cost[i] = lengths[seg * kTableBytes + i];
    hist[i] = 0;
  }
  __syncthreads();
  const std::int64_t first = g * kGroup;
  if (first < size) {
    const int valid = static_cast<int>(min(std::int64_t{kGroup}, size - first));
    const std::uint8_t* p = symbols + seg * capacity + first;
    std::uint32_t words[kGroup / 4];
    if (valid == kGroup) {
#pragma unroll
      for (int q = 0; q < kGroup / 16; ++q) {
        const uint4 v = reinterpret_cast<const uint4*>(p)[q];
        words[4 * q] = v.x;
        words[4 * q + 1] = v.y;
        words[4 * q + 2] = v.z;
        words[4 * q + 3] = v.w;
      }
    } else {
#pragma unroll
      for (int q = 0; q < kGroup / 4; ++q) words[q] = 0;
      for (int k = 0; k < valid; ++k) words[k / 4] |= static_cast<std::uint32_t>(p[k]) << (8 * (k % 4));
    }
    std::uint32_t sum[kMaxTables] = {};
    for (int k = 0; k < valid; ++k) {
      const std::uint32_t c = (words[k / 4] >> (8 * (k % 4))) & 0xFFu;
#pragma unroll
      for (int t = 0; t < kMaxTables; ++t) sum[t] += cost[t * 256 + c];
    }
    int pick = 0;
    for (int t = 1; t < tables; ++t)
      if (sum[t] < sum[pick]) pick = t;
    selectors[seg * selector_stride + g] = static_cast<std::uint8_t>(pick);
    for (int k = 0; k < valid; ++k) atomicAdd(&hist[pick * 256 + ((words[k / 4] >> (8 * (k % 4))) & 0xFFu)], 1u);
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < tables * 256; i += kThreads)
    if (hist[i] != 0) atomicAdd(reinterpret_cast<unsigned long long*>(counts + seg * kTableBytes + i), hist[i]);
}

// One thread block per (table, segment): the tree of the round's counts (every used symbol at
// least 1), counts halved until it fits kMultiMaxLength bits.
__global__ void __launch_bounds__(256)
    tree_kernel(const std::uint32_t* tables_in, const std::uint64_t* used, const std::uint64_t* counts, std::uint8_t* lengths) {
  __shared__ TreeShared s;
  __shared__ TreeQueues q;
  __shared__ std::uint64_t h[256];
  __shared__ std::uint8_t l[256];
  __shared__ std::uint32_t depth;
  const std::int64_t t = blockIdx.x, seg = blockIdx.y;
  if (t >= static_cast<std::int64_t>(tables_in[seg])) return;
  const int c = static_cast<int>(threadIdx.x);
  const std::uint64_t f = counts[seg * kTableBytes + t * 256 + c];
  h[c] = used[seg * 256 + c] == 0 ? 0 : f == 0 ? 1 : f;
  for (;;) {
    if (c == 0) depth = 0;
    __syncthreads();
    tree_init(h, s);
    tree_queues(s, q);
    tree_lengths(s, l, &depth);
    __syncthreads();
    // Every thread reads the round's depth before thread 0 may reset it for the next round: the
    // barrier keeps a slow warp from reading the reset value and leaving the loop alone.
    const std::uint32_t deepest = depth;
    __syncthreads();
    if (deepest <= static_cast<std::uint32_t>(stages::kMultiMaxLength)) break;
    if (h[c] != 0) h[c] = 1 + h[c] / 2;
  }
  lengths[seg * kTableBytes + t * 256 + c] = l[c];
}

// Canonical codewords (codes::canonical_codes), packed as vle's tables: (code << 8) | length.
__global__ void __launch_bounds__(256) canonical_kernel(const std::uint8_t* lengths, std::uint32_t* packed) {
  __shared__ std::uint8_t l[256];
  __shared__ std::uint32_t count[33], first[33];
  const std::int64_t table = static_cast<std::int64_t>(blockIdx.y) * kMaxTables + blockIdx.x;
  const int c = static_cast<int>(threadIdx.x);
  l[c] = lengths[table * 256 + c];
  if (c < 33) count[c] = 0;
  __syncthreads();
  if (l[c] != 0) atomicAdd(&count[l[c]], 1u);
  __syncthreads();
  if (c == 0) {
    std::uint32_t code = 0;
    for (int len = 1; len <= 32; ++len) {
      first[len] = code;
      code = (code + count[len]) << 1;
    }
  }
  __syncthreads();
  std::uint32_t rank = 0;
  for (int i = 0; i < c; ++i) rank += l[i] == l[c] ? 1u : 0u;
  packed[table * 256 + c] = l[c] == 0 ? 0u : ((first[l[c]] + rank) << 8) | l[c];
}

}  // namespace

std::size_t multi_scratch_bytes(std::size_t count) {
  ScratchCarver sizing;
  carve(sizing, count);
  return sizing.used();
}

void multi_choose(const std::uint8_t* d_symbols, std::size_t capacity, const std::uint32_t* d_sizes, std::size_t count,
                  std::uint32_t* d_tables, std::uint8_t* d_lengths, std::uint8_t* d_selectors, std::size_t selector_stride,
                  std::uint32_t* d_packed, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("huffman::multi_choose");
  if (count == 0) return;
  if (capacity % 16 != 0 || reinterpret_cast<std::uintptr_t>(d_symbols) % 16 != 0 || count > 65535 ||
      selector_stride < stages::multi_groups(capacity))
    throw ContractError("huffman::multi_choose: 16-byte aligned slots, at most 65535 segments, a selector per group");
  ScratchCarver carver(d_scratch, scratch_bytes);
  const MultiScratch s = carve(carver, count);
  const auto cap = static_cast<std::int64_t>(capacity);
  const auto segments = static_cast<unsigned>(count);
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(s.used, 0, count * 256 * sizeof(std::uint64_t), stream));
  histogram_kernel<<<dim3(static_cast<unsigned>((cap + kHistChunk - 1) / kHistChunk), segments), kThreads, 0, stream>>>(
      d_symbols, cap, d_sizes, s.used);
  PARCOMP_CHECK_LAUNCH();
  initial_kernel<<<static_cast<unsigned>((count + 127) / 128), 128, 0, stream>>>(d_sizes, s.used, count, d_tables, d_lengths);
  PARCOMP_CHECK_LAUNCH();
  const auto group_blocks = static_cast<unsigned>((stages::multi_groups(capacity) + kThreads - 1) / kThreads);
  for (int it = 0; it < stages::kTableIterations; ++it) {
    PARCOMP_CUDA_CHECK(cudaMemsetAsync(s.counts, 0, count * kTableBytes * sizeof(std::uint64_t), stream));
    select_kernel<<<dim3(group_blocks, segments), kThreads, 0, stream>>>(d_symbols, cap, d_sizes, d_tables, d_lengths,
                                                                         d_selectors, static_cast<std::int64_t>(selector_stride),
                                                                         s.counts);
    PARCOMP_CHECK_LAUNCH();
    tree_kernel<<<dim3(kMaxTables, segments), 256, 0, stream>>>(d_tables, s.used, s.counts, d_lengths);
    PARCOMP_CHECK_LAUNCH();
  }
  canonical_kernel<<<dim3(kMaxTables, segments), 256, 0, stream>>>(d_lengths, d_packed);
  PARCOMP_CHECK_LAUNCH();
}

}  // namespace parcomp::huffman
