// BWT, ours: forward by prefix doubling with CUB radix sorts over all blocks at once; reverse by
// a stable counting sort and sampled walks. See bwt.hpp.
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "../common/scratch.hpp"
#include "bwt_internal.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <bit>
#include <span>
#include <string>

namespace parcomp::bwt::detail {

namespace {

constexpr int kThreads = 256;

unsigned grid_for(std::size_t items) {
  return static_cast<unsigned>(std::max<std::size_t>(1, (items + kThreads - 1) / kThreads));
}

// Where position i of the input lies: its block's start and length, its offset in the block, and
// the block's number. Blocks of `block` bytes (the last shorter), or, with `offsets` (count + 1
// entries on the device, offsets[0] = 0, offsets[count] = n, strictly increasing), blocks of any
// sizes (the forward transform of .bz2's blocks).
struct Blocks {
  std::uint64_t n, block;
  const std::uint64_t* offsets = nullptr;
  std::uint64_t count = 0;
  __device__ void locate(std::uint64_t i, std::uint64_t& start, std::uint32_t& len, std::uint32_t& off, std::uint64_t& b) const {
    if (offsets == nullptr) {
      b = i / block;
      start = b * block;
      len = static_cast<std::uint32_t>(min(block, n - start));
    } else {
      std::uint64_t lo = 0, hi = count;  // offsets[lo] <= i < offsets[hi]
      while (hi - lo > 1) {
        const std::uint64_t mid = (lo + hi) / 2;
        if (offsets[mid] <= i)
          lo = mid;
        else
          hi = mid;
      }
      b = lo;
      start = offsets[lo];
      len = static_cast<std::uint32_t>(offsets[lo + 1] - start);
    }
    off = static_cast<std::uint32_t>(i - start);
  }
  __device__ void locate(std::uint64_t i, std::uint64_t& start, std::uint32_t& len, std::uint32_t& off) const {
    std::uint64_t b;
    locate(i, start, len, off, b);
  }
};

struct Max {
  __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a > b ? a : b; }
};

// ---- forward ------------------------------------------------------------------------------

struct Forward {
  std::uint64_t* keys[2];
  std::uint32_t* vals[2];
  std::uint32_t* sa;       // sorted rotations (global starts), SA positions block-major
  std::uint32_t* rank;     // per start: the SA position of its group's first member
  std::uint32_t* slots[2]; // SA positions still tied (ascending)
  std::uint8_t* tied;      // per sorted item: 1 if its group has more than one member
  std::uint32_t* count;    // selected items
  void* temp;
  std::size_t temp_bytes;
};

std::size_t cub_temp_bytes(std::size_t n) {
  std::size_t sort = 0, scan = 0, select = 0;
  cub::DoubleBuffer<std::uint64_t> k(nullptr, nullptr);
  cub::DoubleBuffer<std::uint32_t> v(nullptr, nullptr);
  PARCOMP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort, k, v, static_cast<std::int64_t>(n)));
  PARCOMP_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, scan, static_cast<std::uint32_t*>(nullptr),
                                                    static_cast<std::uint32_t*>(nullptr), Max{},
                                                    static_cast<std::int64_t>(n)));
  PARCOMP_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, select, static_cast<std::uint32_t*>(nullptr),
                                                static_cast<std::uint8_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                                static_cast<std::uint32_t*>(nullptr), static_cast<std::int64_t>(n)));
  return std::max({sort, scan, select});
}

Forward carve_forward(ScratchCarver& c, std::size_t n) {
  Forward f{};
  for (int j = 0; j < 2; ++j) {
    f.keys[j] = c.take<std::uint64_t>(n);
    f.vals[j] = c.take<std::uint32_t>(n);
    f.slots[j] = c.take<std::uint32_t>(n);
  }
  f.sa = c.take<std::uint32_t>(n);
  f.rank = c.take<std::uint32_t>(n);
  f.tied = c.take<std::uint8_t>(n);
  f.count = c.take<std::uint32_t>(1);
  f.temp_bytes = cub_temp_bytes(n);
  f.temp = c.take_bytes(f.temp_bytes);
  return f;
}

// First keys: the block number, then `chars` leading bytes of the rotation (big-endian).
__global__ void initial_keys_kernel(const std::uint8_t* in, Blocks g, int chars, std::uint64_t* keys, std::uint32_t* vals) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  std::uint64_t start, b;
  std::uint32_t len, off;
  g.locate(i, start, len, off, b);
  std::uint64_t key = b;
  for (int j = 0; j < chars; ++j) {
    std::uint32_t p = off + static_cast<std::uint32_t>(j);
    if (p >= len) p %= len;
    key = (key << 8) | in[start + p];
  }
  keys[i] = key;
  vals[i] = static_cast<std::uint32_t>(i);
}

// Keys of a round: (group rank, rank of the rotation h bytes on), or for rotations whose group is
// tied over a whole block length, (group rank, n - 1 - start): equal rotations, descending start.
__global__ void round_keys_kernel(Blocks g, std::uint64_t h, int rank_bits, const std::uint32_t* slots, std::int64_t m,
                                  const std::uint32_t* sa, const std::uint32_t* rank, std::uint64_t* keys,
                                  std::uint32_t* vals) {
  const std::int64_t a = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a >= m) return;
  const std::uint32_t i = sa[slots[a]];
  std::uint64_t start;
  std::uint32_t len, off;
  g.locate(i, start, len, off);
  std::uint64_t low;
  if (h >= len) {
    low = g.n - 1 - i;
  } else {
    const std::uint32_t p = static_cast<std::uint32_t>((off + h) % len);
    low = rank[start + p];
  }
  keys[a] = (static_cast<std::uint64_t>(rank[i]) << rank_bits) | low;
  vals[a] = i;
}

// After a sort of m items (slots == nullptr: the first sort, slot a is SA position a): write the
// order back into SA and mark group starts.
__global__ void heads_kernel(const std::uint64_t* keys, const std::uint32_t* vals, const std::uint32_t* slots,
                             std::int64_t m, std::uint32_t* sa, std::uint32_t* head) {
  const std::int64_t a = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a >= m) return;
  sa[slots ? slots[a] : static_cast<std::uint32_t>(a)] = vals[a];
  head[a] = (a == 0 || keys[a] != keys[a - 1]) ? static_cast<std::uint32_t>(a) : 0u;
}

// New ranks (the SA position of the group's first member) and which items are still tied.
__global__ void ranks_kernel(const std::uint64_t* keys, const std::uint32_t* vals, const std::uint32_t* slots,
                             std::int64_t m, const std::uint32_t* group, std::uint32_t* rank, std::uint8_t* tied) {
  const std::int64_t a = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a >= m) return;
  const std::uint32_t g = group[a];
  rank[vals[a]] = slots ? slots[g] : g;
  const bool starts = a == 0 || keys[a] != keys[a - 1];
  const bool next_starts = a + 1 == m || keys[a + 1] != keys[a];
  tied[a] = !(starts && next_starts);
}

__global__ void identity_kernel(std::uint32_t* out, std::int64_t m) {
  const std::int64_t a = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (a < m) out[a] = static_cast<std::uint32_t>(a);
}

// L, the primary indices and the samples from the final SA.
__global__ void last_column_kernel(const std::uint8_t* in, Blocks g, const std::uint32_t* sa, std::uint8_t* last,
                                   std::uint32_t* primary, std::uint32_t* samples, std::uint64_t per_block) {
  const std::uint64_t p = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= g.n) return;
  const std::uint32_t i = sa[p];
  std::uint64_t start, b;
  std::uint32_t len, off;
  g.locate(i, start, len, off, b);
  last[p] = in[start + (off == 0 ? len - 1 : off - 1)];
  const auto row = static_cast<std::uint32_t>(p - start);  // block b's rows follow its start in SA order
  if (off == 0) primary[b] = row;
  if (samples != nullptr && off % kSampleStride == 0) samples[b * per_block + off / kSampleStride] = row;
}

// ---- reverse ------------------------------------------------------------------------------

constexpr std::uint32_t kChunk = 4096;  // bytes of L per warp in the counting sort
constexpr int kWarpsPerBlock = 8;

struct Reverse {
  std::uint32_t* counts;  // [block][byte][chunk], then scanned in place to first rows
  std::uint32_t* next;    // per row: (next row << 8) | the byte it yields
  std::uint32_t* status;  // 0 = fine, else 1 + the first bad block
  void* temp;
  std::size_t temp_bytes;
  std::uint64_t chunks_per_block;
};

std::uint64_t chunks_per_block(std::size_t block_bytes) { return (block_bytes + kChunk - 1) / kChunk; }

Reverse carve_reverse(ScratchCarver& c, std::size_t n, std::size_t block_bytes) {
  Reverse r{};
  r.chunks_per_block = chunks_per_block(block_bytes);
  const std::size_t entries = block_count(n, block_bytes) * 256 * r.chunks_per_block;
  r.counts = c.take<std::uint32_t>(entries);
  r.next = c.take<std::uint32_t>(n);
  r.status = c.take<std::uint32_t>(1);
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, r.temp_bytes, r.counts, r.counts,
                                                   static_cast<std::int64_t>(entries)));
  r.temp = c.take_bytes(r.temp_bytes);
  return r;
}

// Per chunk, the count of each byte value (one warp per chunk).
__global__ void chunk_histogram_kernel(const std::uint8_t* last, Blocks g, std::uint64_t cpb, std::uint64_t chunks,
                                       std::uint32_t* counts) {
  __shared__ std::uint32_t hist[kWarpsPerBlock][256];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const std::uint64_t chunk = static_cast<std::uint64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  for (int c = lane; c < 256; c += 32) hist[warp][c] = 0;
  __syncwarp();
  if (chunk < chunks) {
    const std::uint64_t b = chunk / cpb, k = chunk % cpb;
    const std::uint64_t start = b * g.block;
    const std::uint64_t len = min(g.block, g.n - start);
    const std::uint64_t lo = k * kChunk, hi = min(len, lo + kChunk);
    for (std::uint64_t i = lo + lane; i < hi; i += 32) atomicAdd(&hist[warp][last[start + i]], 1u);
    __syncwarp();
    for (int c = lane; c < 256; c += 32) counts[(b * 256 + c) * cpb + k] = hist[warp][c];
  }
}

// The stable counting sort's scatter: each warp walks its chunk in order, 32 bytes at a time,
// ranking equal bytes among the lanes with __match_any_sync. Row r of block b receives the
// position of its byte in L and the byte: F[r] = L[next], and next is the row that follows r.
__global__ void scatter_kernel(const std::uint8_t* last, Blocks g, std::uint64_t cpb, std::uint64_t chunks,
                               const std::uint32_t* first_rows, std::uint32_t* next) {
  __shared__ std::uint32_t running[kWarpsPerBlock][256];
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
  const std::uint64_t chunk = static_cast<std::uint64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (chunk >= chunks) return;
  const std::uint64_t b = chunk / cpb, k = chunk % cpb;
  const std::uint64_t start = b * g.block;
  const std::uint64_t len = min(g.block, g.n - start);
  for (int c = lane; c < 256; c += 32) running[warp][c] = first_rows[(b * 256 + c) * cpb + k] - static_cast<std::uint32_t>(start);
  __syncwarp();
  const std::uint64_t lo = k * kChunk, hi = min(len, lo + kChunk);
  const unsigned below = (1u << lane) - 1u;
  for (std::uint64_t base = lo; base < hi; base += 32) {
    const std::uint64_t i = base + lane;
    const bool live = i < hi;
    const unsigned active = __ballot_sync(~0u, live);
    const std::uint32_t c = live ? last[start + i] : 256u + static_cast<std::uint32_t>(lane);
    const unsigned same = __match_any_sync(~0u, c) & active;
    std::uint32_t row = 0;
    if (live) row = running[warp][c] + static_cast<std::uint32_t>(__popc(same & below));
    __syncwarp();
    if (live && (same & below) == 0) running[warp][c] += static_cast<std::uint32_t>(__popc(same));
    __syncwarp();
    if (live) next[start + row] = (static_cast<std::uint32_t>(i) << 8) | c;
  }
}

// One thread per `stride` output bytes: walk from the sampled row.
__global__ void walk_kernel(Blocks g, const std::uint32_t* next, const std::uint32_t* samples, std::uint64_t stride,
                            std::uint64_t per_block,
                            const std::uint32_t* primary, std::uint64_t walkers, std::uint8_t* out,
                            std::uint32_t* status) {
  const std::uint64_t w = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= walkers) return;
  const std::uint64_t b = w / per_block, k = w % per_block;
  const std::uint64_t start = b * g.block;
  const std::uint64_t len = min(g.block, g.n - start);
  const std::uint64_t first = k * stride;
  if (first >= len) return;
  std::uint32_t row = samples[w];
  if (row >= len || (k == 0 && row != primary[b])) {
    atomicCAS(status, 0u, static_cast<std::uint32_t>(b) + 1u);
    return;
  }
  const std::uint32_t* rows = next + start;
  std::uint8_t* dst = out + start + first;
  const int count = static_cast<int>(min(stride, len - first));
  std::uint32_t word = 0;
  for (int j = 0; j < count; ++j) {
    const std::uint32_t e = rows[row];
    row = e >> 8;
    word |= (e & 0xFFu) << (8 * (j & 3));
    if ((j & 3) == 3) {
      if (((start + first) & 3u) == 0) reinterpret_cast<std::uint32_t*>(dst)[j >> 2] = word;
      else for (int q = 0; q < 4; ++q) dst[j - 3 + q] = static_cast<std::uint8_t>(word >> (8 * q));
      word = 0;
    }
  }
  for (int j = count & ~3; j < count; ++j) dst[j] = static_cast<std::uint8_t>(word >> (8 * (j & 3)));
}

int bits_for(std::uint64_t values) {  // bits to hold 0 .. values - 1 (at least 1)
  return values <= 1 ? 1 : static_cast<int>(std::bit_width(values - 1));
}

}  // namespace

std::size_t fast_forward_scratch_bytes(std::size_t n) {
  ScratchCarver sizing;
  carve_forward(sizing, n);
  return sizing.used();
}

namespace {
void forward_blocks(const std::uint8_t* d_in, const Blocks& g, std::uint64_t blocks, std::uint8_t* d_last, std::uint32_t* d_primary,
                    std::uint32_t* d_samples, std::uint64_t samples_per_block, Forward& f, cudaStream_t stream) {
  const std::size_t n = g.n;
  const int block_bits = blocks <= 1 ? 0 : bits_for(blocks);
  const int chars = std::min(8, (64 - block_bits) / 8);
  const auto m0 = static_cast<std::int64_t>(n);

  initial_keys_kernel<<<grid_for(n), kThreads, 0, stream>>>(d_in, g, chars, f.keys[0], f.vals[0]);
  PARCOMP_CHECK_LAUNCH();
  cub::DoubleBuffer<std::uint64_t> keys(f.keys[0], f.keys[1]);
  cub::DoubleBuffer<std::uint32_t> vals(f.vals[0], f.vals[1]);
  PARCOMP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(f.temp, f.temp_bytes, keys, vals, m0, 0, block_bits + 8 * chars, stream));

  const int rank_bits = bits_for(n);
  const std::uint32_t* slots = nullptr;
  int slot_buffer = 0;
  std::int64_t m = m0;
  std::uint64_t h = static_cast<std::uint64_t>(chars);
  for (int round = 0;; ++round) {
    // Per sorted item, its index where it starts a group (head), and head's max-scan (group): both
    // in the sort's other key buffer, free until the next sort (8 bytes an item it saves).
    auto* head = reinterpret_cast<std::uint32_t*>(keys.Alternate());
    std::uint32_t* group = head + n;
    heads_kernel<<<grid_for(m), kThreads, 0, stream>>>(keys.Current(), vals.Current(), slots, m, f.sa, head);
    PARCOMP_CHECK_LAUNCH();
    PARCOMP_CUDA_CHECK(cub::DeviceScan::InclusiveScan(f.temp, f.temp_bytes, head, group, Max{}, m, stream));
    ranks_kernel<<<grid_for(m), kThreads, 0, stream>>>(keys.Current(), vals.Current(), slots, m, group, f.rank, f.tied);
    PARCOMP_CHECK_LAUNCH();
    // The tied items' SA positions, for the next round.
    std::uint32_t* next_slots = f.slots[slot_buffer];
    if (slots == nullptr) {
      identity_kernel<<<grid_for(m), kThreads, 0, stream>>>(f.slots[1 - slot_buffer], m);
      PARCOMP_CHECK_LAUNCH();
      slots = f.slots[1 - slot_buffer];
    }
    PARCOMP_CUDA_CHECK(cub::DeviceSelect::Flagged(f.temp, f.temp_bytes, slots, f.tied, next_slots, f.count, m, stream));
    std::uint32_t tied = 0;
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(&tied, f.count, sizeof tied, cudaMemcpyDeviceToHost, stream));
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (tied == 0) break;
    if (round > 64) throw std::logic_error("bwt gpu.fast: prefix doubling did not converge");
    slots = next_slots;
    slot_buffer = 1 - slot_buffer;
    m = tied;
    round_keys_kernel<<<grid_for(m), kThreads, 0, stream>>>(g, h, rank_bits, slots, m, f.sa, f.rank, keys.Current(),
                                                            vals.Current());
    PARCOMP_CHECK_LAUNCH();
    PARCOMP_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(f.temp, f.temp_bytes, keys, vals, m, 0, 2 * rank_bits, stream));
    h = std::min<std::uint64_t>(2 * h, std::uint64_t{1} << 40);
  }
  last_column_kernel<<<grid_for(n), kThreads, 0, stream>>>(d_in, g, f.sa, d_last, d_primary, d_samples, samples_per_block);
  PARCOMP_CHECK_LAUNCH();
}
}  // namespace

void fast_forward(const std::uint8_t* d_in, std::size_t n, std::size_t block_bytes, std::uint8_t* d_last,
                  std::uint32_t* d_primary, std::uint32_t* d_samples, ScratchCarver& scratch, cudaStream_t stream) {
  Forward f = carve_forward(scratch, n);
  forward_blocks(d_in, Blocks{n, block_bytes}, block_count(n, block_bytes), d_last, d_primary, d_samples,
                 samples_per_block(block_bytes), f, stream);
}

std::size_t fast_forward_segments_scratch_bytes(std::size_t n, std::size_t count) {
  ScratchCarver sizing;
  carve_forward(sizing, n);
  sizing.take<std::uint64_t>(count + 1);
  return sizing.used();
}

void fast_forward_segments(const std::uint8_t* d_in, std::span<const std::uint64_t> offsets, std::uint8_t* d_last,
                           std::uint32_t* d_primary, ScratchCarver& scratch, cudaStream_t stream) {
  const std::size_t n = offsets.back();
  Forward f = carve_forward(scratch, n);
  auto* d_offsets = scratch.take<std::uint64_t>(offsets.size());
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(d_offsets, offsets.data(), offsets.size_bytes(), cudaMemcpyHostToDevice, stream));
  Blocks g{n, n};
  g.offsets = d_offsets;
  g.count = offsets.size() - 1;
  forward_blocks(d_in, g, g.count, d_last, d_primary, nullptr, 0, f, stream);
}

std::size_t fast_reverse_scratch_bytes(std::size_t n, std::size_t block_bytes) {
  ScratchCarver sizing;
  carve_reverse(sizing, n, block_bytes);
  return sizing.used();
}

void fast_reverse(const std::uint8_t* d_last, std::size_t n, std::size_t block_bytes, const std::uint32_t* d_primary,
                  const std::uint32_t* d_samples, std::size_t sample_stride, std::uint8_t* d_out, ScratchCarver& scratch,
                  cudaStream_t stream) {
  Reverse r = carve_reverse(scratch, n, block_bytes);
  const Blocks g{n, block_bytes};
  const std::uint64_t blocks = block_count(n, block_bytes);
  const std::uint64_t chunks = blocks * r.chunks_per_block;
  const auto entries = static_cast<std::int64_t>(blocks * 256 * r.chunks_per_block);
  const unsigned chunk_grid = static_cast<unsigned>((chunks + kWarpsPerBlock - 1) / kWarpsPerBlock);
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(r.status, 0, sizeof(std::uint32_t), stream));
  chunk_histogram_kernel<<<chunk_grid, 32 * kWarpsPerBlock, 0, stream>>>(d_last, g, r.chunks_per_block, chunks, r.counts);
  PARCOMP_CHECK_LAUNCH();
  // Blocks before b are full, so the scan's running total there is b * block_bytes: first_rows
  // are global rows.
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(r.temp, r.temp_bytes, r.counts, r.counts, entries, stream));
  scatter_kernel<<<chunk_grid, 32 * kWarpsPerBlock, 0, stream>>>(d_last, g, r.chunks_per_block, chunks, r.counts, r.next);
  PARCOMP_CHECK_LAUNCH();
  const std::uint64_t per_block = samples_per_block(block_bytes, sample_stride);
  const std::uint64_t walkers = blocks * per_block;
  walk_kernel<<<grid_for(walkers), kThreads, 0, stream>>>(g, r.next, d_samples, sample_stride, per_block, d_primary, walkers, d_out,
                                                          r.status);
  PARCOMP_CHECK_LAUNCH();
  check_status(r.status, "gpu.fast", stream);
}

}  // namespace parcomp::bwt::detail
