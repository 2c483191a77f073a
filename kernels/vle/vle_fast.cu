// PAVLE beyond the paper (ours): the one-pass encoder gpu.fast and the GPU decoder. See vle.hpp.
#include "../common/cuda_check.hpp"
#include "../common/launch.cuh"
#include "../common/nvtx.hpp"
#include "decode_step.cuh"
#include "vle_internal.hpp"

#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

#include <algorithm>
#include <array>
#include <string>

namespace parcomp::vle {

namespace detail {

namespace {

constexpr int kThreads = 256;
constexpr int kMinSymbolsPerThread = 32;  // the smallest tile sizes the scratch
static_assert(kIndexStride % 64 == 0, "index entries start at a thread's first symbol");

// Look-back state of a tile: flag in the top two bits, a bit count in the rest.
using State = unsigned long long;
constexpr State kAggregate = State{1} << 62, kInclusive = State{2} << 62, kValueMask = (State{1} << 62) - 1;

struct FastScratch {
  State* tile_state;            // per tile
  std::uint32_t* heads;         // per tile: its first word, when it shares that word with its predecessor
  unsigned long long* counter;  // dynamic tile ids
  std::int64_t tiles;
};

// Tiles of the smallest size over `count` slots of `capacity` symbols.
std::int64_t max_tiles(std::size_t count, std::size_t capacity) {
  const std::size_t tile = kThreads * kMinSymbolsPerThread;
  return static_cast<std::int64_t>(count * ((capacity + tile - 1) / tile));
}

FastScratch carve_fast(ScratchCarver& c, std::int64_t tiles) {
  FastScratch s{};
  s.tiles = tiles;
  s.tile_state = c.take<State>(static_cast<std::size_t>(s.tiles) + 1);  // +1: the counter shares the memset
  s.heads = c.take<std::uint32_t>(static_cast<std::size_t>(s.tiles));
  s.counter = reinterpret_cast<unsigned long long*>(s.tile_state) + s.tiles;
  return s;
}

__device__ __forceinline__ void store_release(State* p, State v) {
  cuda::atomic_ref<State, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_release);
}
__device__ __forceinline__ State load_acquire(State* p) {
  return cuda::atomic_ref<State, cuda::thread_scope_device>(*p).load(cuda::memory_order_acquire);
}

// Publishes a tile's aggregate as soon as it is known (a segment's first tile's is its inclusive
// prefix).
__device__ __forceinline__ void publish_aggregate(State* state, std::int64_t tile, std::int64_t floor,
                                                  std::uint64_t aggregate) {
  store_release(state + tile, (tile == floor ? kInclusive : kAggregate) | aggregate);
}

// Called by the whole first warp after publish_aggregate: sums the predecessors' values 32 at a
// time back to the nearest inclusive prefix (at the latest the segment's first tile, `floor`),
// publishes the tile's inclusive prefix and returns the exclusive one.
__device__ std::uint64_t look_back(State* state, std::int64_t tile, std::int64_t floor, std::uint64_t aggregate) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (tile == floor) return 0;
  std::uint64_t exclusive = 0;
  std::int64_t base = tile - 1;
  for (;;) {
    const std::int64_t j = base - lane;
    const State s = j >= floor ? load_acquire(state + j) : kInclusive;
    const unsigned inclusive = __ballot_sync(~0u, (s & ~kValueMask) == kInclusive);
    const unsigned waiting = __ballot_sync(~0u, (s & ~kValueMask) == 0);
    const int stop = inclusive != 0 ? __ffs(inclusive) - 1 : 31;
    const unsigned needed = stop == 31 ? ~0u : (2u << stop) - 1u;
    if ((waiting & needed) != 0) {
      __nanosleep(20);
      continue;
    }
    std::uint64_t v = lane <= stop ? (s & kValueMask) : 0;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(~0u, v, o);
    exclusive += v;
    if (inclusive != 0) break;
    base -= 32;
  }
  if (lane == 0) store_release(state + tile, kInclusive | (exclusive + aggregate));
  return exclusive;
}

// Pass 1: the thread's Spt codewords, Group at a time concatenated into aggregates of at most 32
// bits (Group * max length <= 32), kept in registers with their lengths; past the input, length 0.
// The lengths (at most 32 each) are kept as bytes, four to a register.
template <int Spt, int Group, bool Full>
__device__ __forceinline__ std::uint32_t make_aggregates(const std::uint32_t (&w)[Spt / 4], int valid,
                                                         const std::uint32_t* table, std::uint32_t (&agg)[Spt / Group],
                                                         std::uint32_t (&len)[Spt / Group / 4]) {
  std::uint32_t bits = 0;
#pragma unroll
  for (int g = 0; g < Spt / Group; ++g) {
    std::uint32_t a = 0, l = 0;
#pragma unroll
    for (int j = 0; j < Group; ++j) {
      const int k = g * Group + j;
      if (Full || k < valid) {
        const std::uint32_t e = table[(w[k / 4] >> (8 * (k % 4))) & 0xFFu];
        a = (a << (e & 0xFFu)) | (e >> 8);
        l += e & 0xFFu;
      }
    }
    agg[g] = a;
    if (g % 4 == 0) len[g / 4] = 0;
    len[g / 4] |= l << (8 * (g % 4));
    bits += l;
  }
  return bits;
}

// Pass 2: the aggregates through a 64-bit accumulator into the tile buffer at bit `local`, one
// word out per aggregate at most. Whole words are stored, words shared with neighbouring threads
// OR-ed in.
template <int G>
__device__ __forceinline__ void pack_aggregates(const std::uint32_t (&agg)[G], const std::uint32_t (&len)[G / 4],
                                                std::uint32_t* buffer, std::uint32_t local) {
  std::uint32_t word = local >> 5;
  int fill = static_cast<int>(local & 31u);
  bool or_next = fill != 0;  // the first word may hold the previous thread's bits
  std::uint64_t acc = 0;
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const std::uint32_t length = (len[g / 4] >> (8 * (g % 4))) & 0xFFu;
    acc = (acc << length) | agg[g];
    fill += static_cast<int>(length);
    if (fill >= 32) {
      fill -= 32;
      const auto out = static_cast<std::uint32_t>(acc >> fill);
      if (or_next) atomicOr(buffer + word, out);
      else buffer[word] = out;
      or_next = false;
      ++word;
    }
  }
  if (fill > 0) atomicOr(buffer + word, static_cast<std::uint32_t>(acc << (32 - fill)));
}

}  // namespace

// Where the segments are (one segment: sizes == nullptr, n symbols).
struct View {
  std::int64_t tiles_per_segment;
  std::int64_t capacity;        // symbols between segment starts
  const std::uint32_t* sizes;   // per segment, or nullptr
  std::int64_t n;
  int tables;
  const std::uint8_t* selectors;
  std::int64_t selector_stride;
  std::int64_t out_stride, index_stride;
  __device__ std::int64_t size(std::int64_t seg) const { return sizes != nullptr ? sizes[seg] : n; }
};

View view_of(const Segments& g, std::int64_t tiles_per_segment) {
  View v{};
  v.tiles_per_segment = tiles_per_segment;
  v.capacity = static_cast<std::int64_t>(g.capacity);
  v.sizes = g.d_sizes;
  v.tables = g.tables;
  v.selectors = g.d_selectors;
  v.selector_stride = static_cast<std::int64_t>(g.selector_stride);
  v.out_stride = static_cast<std::int64_t>(g.out_stride);
  v.index_stride = static_cast<std::int64_t>(g.index_stride);
  return v;
}

namespace {

template <bool Vector, int Group, int Spt>
__global__ void __launch_bounds__(kThreads)
    fast_encode_kernel(const std::uint8_t* in, View v, const std::uint32_t* table_global, std::uint32_t* out,
                       FastScratch s, std::uint64_t* index) {
  using BlockScan = cub::BlockScan<std::uint32_t, kThreads>;
  constexpr std::int64_t kTile = std::int64_t{kThreads} * Spt;
  __shared__ std::uint32_t table[kMaxSegmentTables * 256];
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ std::int64_t s_tile;
  __shared__ std::uint64_t s_prefix;
  extern __shared__ std::uint32_t buffer[];
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) s_tile = static_cast<std::int64_t>(atomicAdd(s.counter, 1ull));
  __syncthreads();
  const std::int64_t global_tile = s_tile;
  const std::int64_t seg = global_tile / v.tiles_per_segment, tile = global_tile - seg * v.tiles_per_segment;
  const std::int64_t floor = global_tile - tile;
  const std::int64_t n = v.size(seg);
  if (tile > 0 && tile * kTile >= n) return;  // past the segment's end: nobody waits for it
  for (int i = tid; i < 256 * v.tables; i += kThreads) table[i] = table_global[seg * 256 * v.tables + i];
  in += seg * v.capacity;
  out += seg * v.out_stride;
  if (index != nullptr) index += seg * v.index_stride;
  __syncthreads();
  const std::int64_t first = tile * kTile + static_cast<std::int64_t>(tid) * Spt;
  const std::int64_t left = n - first;
  const int valid = left <= 0 ? 0 : left >= Spt ? Spt : static_cast<int>(left);
  const bool full = valid == Spt;
  static_assert(kSelectorGroup % Spt == 0, "a thread's symbols share one table");
  const std::uint32_t* my_table = table;
  if (v.selectors != nullptr && valid > 0)
    my_table += 256 * min(static_cast<int>(v.selectors[seg * v.selector_stride + first / static_cast<std::int64_t>(kSelectorGroup)]),
                          v.tables - 1);

  std::uint32_t w[Spt / 4] = {};
  if (Vector && full) {
    const uint4* p = reinterpret_cast<const uint4*>(in + first);
#pragma unroll
    for (int q = 0; q < Spt / 16; ++q) {
      const uint4 x = p[q];
      w[4 * q] = x.x;
      w[4 * q + 1] = x.y;
      w[4 * q + 2] = x.z;
      w[4 * q + 3] = x.w;
    }
  } else {
    for (int k = 0; k < valid; ++k) w[k / 4] |= static_cast<std::uint32_t>(in[first + k]) << (8 * (k % 4));
  }
  static_assert((Spt / Group) % 4 == 0, "lengths are packed four to a register");
  std::uint32_t agg[Spt / Group], len[Spt / Group / 4];
  const std::uint32_t bits = full ? make_aggregates<Spt, Group, true>(w, valid, my_table, agg, len)
                                  : make_aggregates<Spt, Group, false>(w, valid, my_table, agg, len);

  std::uint32_t offset, tile_bits;
  BlockScan(scan_storage).ExclusiveSum(bits, offset, tile_bits);
  if (tid == 0) publish_aggregate(s.tile_state, global_tile, floor, tile_bits);
  // The tile is packed at bit 0 of the buffer while warp 0 looks back for its offset in the
  // segment; the write-out then shifts it into place (one extra zero word at the end).
  const int local_words = static_cast<int>((tile_bits + 31u) / 32u) + 1;
  for (int i = tid; i < local_words; i += kThreads) buffer[i] = 0;
  __syncthreads();
  if (valid > 0) pack_aggregates<Spt / Group>(agg, len, buffer, offset);
  if (tid < 32) {
    const std::uint64_t prefix = look_back(s.tile_state, global_tile, floor, tile_bits);
    if (tid == 0) s_prefix = prefix;
  }
  __syncthreads();
  const std::uint64_t prefix = s_prefix;
  const int lead = static_cast<int>(prefix & 31u);
  if (index != nullptr && valid > 0 && first % static_cast<std::int64_t>(kIndexStride) == 0)
    index[first / static_cast<std::int64_t>(kIndexStride)] = prefix + offset;

  // Out with plain stores; a first word shared with the previous tile goes to the fix-up.
  const int words = static_cast<int>((static_cast<std::uint32_t>(lead) + tile_bits + 31u) / 32u);
  const std::int64_t w0 = static_cast<std::int64_t>(prefix >> 5);
  for (int i = tid; i < words; i += kThreads) {
    const std::uint32_t hi = i == 0 ? 0u : buffer[i - 1], lo = buffer[i];
    const std::uint32_t x = lead == 0 ? lo : (hi << (32 - lead)) | (lo >> lead);
    if (i == 0 && lead != 0) s.heads[global_tile] = x;
    else out[w0 + i] = x;
  }
}

// Merges each tile's shared first word into its predecessor's last one; writes each segment's bit
// count.
__global__ void fast_fixup_kernel(FastScratch s, View v, std::int64_t tile_symbols, std::uint32_t* out,
                                  std::uint64_t* bits) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= s.tiles) return;
  const std::int64_t seg = t / v.tiles_per_segment, k = t - seg * v.tiles_per_segment;
  const std::int64_t n = v.size(seg);
  const std::int64_t last = n == 0 ? 0 : (n - 1) / tile_symbols;
  if (k > last) return;
  if (k == last) bits[seg] = s.tile_state[t] & kValueMask;
  if (k == 0) return;
  const std::uint64_t start = s.tile_state[t - 1] & kValueMask;
  if ((start & 31u) != 0) out[seg * v.out_stride + static_cast<std::int64_t>(start >> 5)] |= s.heads[t];
}

}  // namespace

std::size_t fast_scratch_bytes(std::size_t count, std::size_t capacity) {
  ScratchCarver sizing;
  carve_fast(sizing, max_tiles(count, capacity));
  return sizing.used();
}

void encode_fast(const Segments& g, const std::uint8_t* d_in, const std::uint32_t* d_table, int max_length,
                 std::uint32_t* d_out, std::uint64_t* d_bits, ScratchCarver& scratch, cudaStream_t stream,
                 std::uint64_t* d_index, unsigned symbols_per_thread, std::size_t n) {
  FastScratch s = carve_fast(scratch, max_tiles(g.count, g.capacity));
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(s.tile_state, 0, (static_cast<std::size_t>(s.tiles) + 1) * sizeof(State), stream));
  // Codewords per aggregate: as many as surely fit 32 bits; symbols per thread: 64 with four
  // codewords per aggregate (16 aggregates in registers), else 32.
  const bool vector = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0 && (g.count == 1 || g.capacity % 16 == 0);
  const int group = max_length <= 8 ? 4 : max_length <= 16 ? 2 : 1;
  const int spt = symbols_per_thread != 0 ? symbols_per_thread : group == 4 ? 64 : 32;
  using Kernel = void (*)(const std::uint8_t*, View, const std::uint32_t*, std::uint32_t*, FastScratch, std::uint64_t*);
  Kernel kernel = nullptr;
  if (spt == 32) {
    kernel = group == 4   ? (vector ? fast_encode_kernel<true, 4, 32> : fast_encode_kernel<false, 4, 32>)
             : group == 2 ? (vector ? fast_encode_kernel<true, 2, 32> : fast_encode_kernel<false, 2, 32>)
                          : (vector ? fast_encode_kernel<true, 1, 32> : fast_encode_kernel<false, 1, 32>);
  } else if (spt == 64 && group == 4) {
    kernel = vector ? fast_encode_kernel<true, 4, 64> : fast_encode_kernel<false, 4, 64>;
  } else {
    throw ContractError("vle gpu.fast: " + std::to_string(spt) + " symbols per thread with " +
                        std::to_string(group) + " codewords per aggregate is not built (32, or 64 for codes <= 8 bits)");
  }
  const std::int64_t tile = std::int64_t{kThreads} * spt;
  View v = view_of(g, std::max<std::int64_t>(1, (static_cast<std::int64_t>(g.capacity) + tile - 1) / tile));
  v.n = static_cast<std::int64_t>(n);
  s.tiles = static_cast<std::int64_t>(g.count) * v.tiles_per_segment;
  // The tile's bits after a lead of up to 31 bits, plus one word.
  const int buffer_words = static_cast<int>((31 + tile * max_length + 31) / 32 + 1);
  const std::size_t shared = static_cast<std::size_t>(buffer_words) * sizeof(std::uint32_t);
  ensure_dynamic_shared(kernel, shared);
  kernel<<<static_cast<unsigned>(s.tiles), kThreads, shared, stream>>>(d_in, v, d_table, d_out, s, d_index);
  PARCOMP_CHECK_LAUNCH();
  fast_fixup_kernel<<<static_cast<unsigned>((s.tiles + 255) / 256), 256, 0, stream>>>(s, v, tile, d_out, d_bits);
  PARCOMP_CHECK_LAUNCH();
}

}  // namespace detail

// ---- Decoder --------------------------------------------------------------------------------

namespace {

constexpr int kDecodeThreads = 128;

// One thread per kIndexStride symbols of a segment (blockIdx.y); damage is reported per
// subsequence for one segment, per segment for several.
__global__ void __launch_bounds__(kDecodeThreads)
    decode_kernel(const std::uint32_t* words, std::int64_t nwords, const std::uint64_t* d_bits,
                  const std::uint64_t* index, detail::View v, const DecodeTable* tables_global, std::uint8_t* out,
                  std::uint32_t* status) {
  __shared__ DecodeTable tables[kMaxSegmentTables];
  const std::int64_t seg = blockIdx.y;
  load_decode_table(tables_global + seg * v.tables, tables[0], v.tables);
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * kDecodeThreads + threadIdx.x;
  const std::int64_t n = v.size(seg);
  const std::int64_t subsequences = (n + static_cast<std::int64_t>(kIndexStride) - 1) / static_cast<std::int64_t>(kIndexStride);
  if (k >= subsequences) return;
  const std::int64_t unit = v.sizes != nullptr ? seg : k;
  words += seg * v.out_stride;
  index += seg * v.index_stride;
  out += seg * v.capacity;
  const std::uint64_t total = d_bits[seg];
  const std::uint64_t begin = index[k], end = k + 1 < subsequences ? index[k + 1] : total;
  const std::int64_t first = k * static_cast<std::int64_t>(kIndexStride);
  const int count = static_cast<int>(min(static_cast<std::int64_t>(kIndexStride), n - first));
  if (begin > end || end > total || static_cast<std::int64_t>((total + 31) / 32) > nwords) {
    report_damage(status, kBadLength, unit);
    return;
  }
  // Bit reader: `buf` holds the next `avail` bits left-aligned. Only the stream's own words are
  // read (ceil(total / 32), checked against nwords above): the buffer past them was never written
  // by the encoder, so words past the stream read as 0 without a load.
  const std::int64_t stream_words = static_cast<std::int64_t>((total + 31) / 32);
  std::int64_t next = static_cast<std::int64_t>(begin >> 5);
  const int skip = static_cast<int>(begin & 31u);
  std::uint64_t buf = (static_cast<std::uint64_t>(next < stream_words ? __ldg(words + next) : 0u) << 32) << skip;
  int avail = 32 - skip;
  ++next;
  std::uint64_t used = 0;
  std::uint32_t pack = 0, p0 = 0, p1 = 0, p2 = 0;  // 16 bytes leave together
  std::uint8_t* dst = out + first;
  const std::uint8_t* selectors = v.selectors != nullptr ? v.selectors + seg * v.selector_stride + first / static_cast<std::int64_t>(kSelectorGroup) : nullptr;
  const DecodeTable* t = &tables[0];
  for (int i = 0; i < count; ++i) {
    if (selectors != nullptr && i % static_cast<int>(kSelectorGroup) == 0)
      t = &tables[min(static_cast<int>(selectors[i / static_cast<int>(kSelectorGroup)]), v.tables - 1)];
    if (avail <= 32) {
      const std::uint32_t w = next < stream_words ? __ldg(words + next) : 0u;
      buf |= static_cast<std::uint64_t>(w) << (32 - avail);
      avail += 32;
      ++next;
    }
    std::uint32_t symbol;
    if (!decode_next(*t, buf, avail, used, symbol)) {
      report_damage(status, kBadCode, unit);
      return;
    }
    pack |= symbol << (8 * (i & 3));
    if ((i & 3) == 3) {
      if ((i & 15) == 15) reinterpret_cast<uint4*>(dst)[i >> 4] = make_uint4(p0, p1, p2, pack);
      p0 = p1;
      p1 = p2;
      p2 = pack;
      pack = 0;
    }
  }
  // The tail: the words not yet stored (after the last multiple of 16), then the bytes.
  const int whole = count & ~15, words_left = (count & 15) / 4;
  const std::uint32_t left[3] = {words_left == 3 ? p0 : words_left == 2 ? p1 : p2, words_left == 3 ? p1 : p2, p2};
  for (int q = 0; q < words_left; ++q) reinterpret_cast<std::uint32_t*>(dst + whole)[q] = left[q];
  for (int i = count & ~3; i < count; ++i) dst[i] = static_cast<std::uint8_t>(pack >> (8 * (i & 3)));
  if (used != end - begin) report_damage(status, kBadLength, unit);
}

void launch_decode(const detail::View& v, std::size_t count, std::size_t max_symbols, const std::uint32_t* d_words,
                   std::size_t words, const std::uint64_t* d_bits, const std::uint64_t* d_index,
                   const DecodeTable* d_tables, std::uint8_t* d_out, std::uint32_t* d_status, cudaStream_t stream) {
  if (reinterpret_cast<std::uintptr_t>(d_out) % 16 != 0 || v.capacity % 16 != 0 || reinterpret_cast<std::uintptr_t>(d_tables) % 4 != 0)
    throw ContractError("vle::decode: the output (and each segment's slot) must be 16-byte aligned, the tables 4-byte aligned");
  if (count > 65535) throw ContractError("vle::decode_segments: at most 65535 segments");
  const std::uint32_t init[kDecodeStatusWords] = {0u, 0xFFFFFFFFu};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(d_status, init, sizeof init, cudaMemcpyHostToDevice, stream));
  if (count == 0 || max_symbols == 0) return;
  const dim3 grid(static_cast<unsigned>((index_entries(max_symbols) + kDecodeThreads - 1) / kDecodeThreads),
                  static_cast<unsigned>(count));
  decode_kernel<<<grid, kDecodeThreads, 0, stream>>>(d_words, static_cast<std::int64_t>(words), d_bits, d_index, v,
                                                     d_tables, d_out, d_status);
  PARCOMP_CHECK_LAUNCH();
}

std::string damage_text(std::uint32_t what) {
  return std::string((what & kBadCode) != 0 ? "no codeword matches" : "") +
         ((what & kBadCode) != 0 && (what & kBadLength) != 0 ? "; " : "") +
         ((what & kBadLength) != 0 ? "its bits do not end where the next subsequence starts" : "");
}

std::array<std::uint32_t, kDecodeStatusWords> read_status(const std::uint32_t* d_status, cudaStream_t stream) {
  std::array<std::uint32_t, kDecodeStatusWords> s{};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.data(), d_status, sizeof s, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return s;
}

}  // namespace

void decode(const std::uint32_t* d_words, std::size_t words, const std::uint64_t* d_bits, const std::uint64_t* d_index,
            std::size_t n, const DecodeTable* d_table, std::uint8_t* d_out, std::uint32_t* d_status,
            cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("vle::decode");
  detail::View v{};
  v.n = static_cast<std::int64_t>(n);
  v.tables = 1;
  v.capacity = 0;
  launch_decode(v, 1, n, d_words, words, d_bits, d_index, d_table, d_out, d_status, stream);
}

void decode_segments(const Segments& g, std::size_t max_symbols, const std::uint32_t* d_words, const std::uint64_t* d_bits,
                     const std::uint64_t* d_index, const DecodeTable* d_tables, std::uint8_t* d_out,
                     std::uint32_t* d_status, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("vle::decode_segments");
  if (g.tables < 1 || g.tables > kMaxSegmentTables || g.d_sizes == nullptr || max_symbols > g.capacity)
    throw ContractError("vle::decode_segments: 1 to 6 tables, sizes on the device, segments within their slots");
  detail::View v = detail::view_of(g, 0);
  launch_decode(v, g.count, max_symbols, d_words, g.out_stride, d_bits, d_index, d_tables, d_out, d_status, stream);
}

void check_decode_status(const std::uint32_t* d_status, cudaStream_t stream) {
  const auto s = read_status(d_status, stream);
  if (s[0] == 0) return;
  const std::uint64_t k = s[1];
  throw CorruptDataError("vle::decode: corrupt stream in subsequence " + std::to_string(k) + " (symbols " +
                         std::to_string(k * kIndexStride) + ".." + std::to_string((k + 1) * kIndexStride - 1) + "): " +
                         damage_text(s[0]));
}

void check_segments_status(const std::uint32_t* d_status, cudaStream_t stream, const std::string& unit) {
  const auto s = read_status(d_status, stream);
  if (s[0] == 0) return;
  throw CorruptDataError(unit + " " + std::to_string(s[1]) + ": corrupt Huffman stream: " + damage_text(s[0]));
}

}  // namespace parcomp::vle
