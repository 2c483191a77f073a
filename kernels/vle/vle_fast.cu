// PAVLE beyond the paper (ours): the one-pass encoder gpu.fast and the GPU decoder. See vle.hpp.
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "decode_step.cuh"
#include "vle_internal.hpp"

#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

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

FastScratch carve_fast(ScratchCarver& c, std::size_t n) {
  FastScratch s{};
  const std::size_t tile = kThreads * kMinSymbolsPerThread;
  s.tiles = static_cast<std::int64_t>((n + tile - 1) / tile);
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

// Publishes a tile's aggregate as soon as it is known (tile 0's is its inclusive prefix).
__device__ __forceinline__ void publish_aggregate(State* state, std::int64_t tile, std::uint64_t aggregate) {
  store_release(state + tile, (tile == 0 ? kInclusive : kAggregate) | aggregate);
}

// Called by the whole first warp after publish_aggregate: sums the predecessors' values 32 at a
// time back to the nearest inclusive prefix, publishes the tile's inclusive prefix and returns the
// exclusive one.
__device__ std::uint64_t look_back(State* state, std::int64_t tile, std::uint64_t aggregate) {
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (tile == 0) return 0;
  std::uint64_t exclusive = 0;
  std::int64_t base = tile - 1;
  for (;;) {
    const std::int64_t j = base - lane;
    const State s = j >= 0 ? load_acquire(state + j) : kInclusive;
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

template <bool Vector, int Group, int Spt>
__global__ void __launch_bounds__(kThreads)
    fast_encode_kernel(const std::uint8_t* in, std::int64_t n, const std::uint32_t* table_global, std::uint32_t* out,
                       FastScratch s, std::uint64_t* index) {
  using BlockScan = cub::BlockScan<std::uint32_t, kThreads>;
  constexpr std::int64_t kTile = std::int64_t{kThreads} * Spt;
  __shared__ std::uint32_t table[256];
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ std::int64_t s_tile;
  __shared__ std::uint64_t s_prefix;
  extern __shared__ std::uint32_t buffer[];
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) s_tile = static_cast<std::int64_t>(atomicAdd(s.counter, 1ull));
  table[tid] = table_global[tid];
  __syncthreads();
  const std::int64_t tile = s_tile;
  const std::int64_t first = tile * kTile + static_cast<std::int64_t>(tid) * Spt;
  const std::int64_t left = n - first;
  const int valid = left <= 0 ? 0 : left >= Spt ? Spt : static_cast<int>(left);
  const bool full = valid == Spt;

  std::uint32_t w[Spt / 4] = {};
  if (Vector && full) {
    const uint4* p = reinterpret_cast<const uint4*>(in + first);
#pragma unroll
    for (int q = 0; q < Spt / 16; ++q) {
      const uint4 v = p[q];
      w[4 * q] = v.x;
      w[4 * q + 1] = v.y;
      w[4 * q + 2] = v.z;
      w[4 * q + 3] = v.w;
    }
  } else {
    for (int k = 0; k < valid; ++k) w[k / 4] |= static_cast<std::uint32_t>(in[first + k]) << (8 * (k % 4));
  }
  static_assert((Spt / Group) % 4 == 0, "lengths are packed four to a register");
  std::uint32_t agg[Spt / Group], len[Spt / Group / 4];
  const std::uint32_t bits = full ? make_aggregates<Spt, Group, true>(w, valid, table, agg, len)
                                  : make_aggregates<Spt, Group, false>(w, valid, table, agg, len);

  std::uint32_t offset, tile_bits;
  BlockScan(scan_storage).ExclusiveSum(bits, offset, tile_bits);
  if (tid == 0) publish_aggregate(s.tile_state, tile, tile_bits);
  // The tile is packed at bit 0 of the buffer while warp 0 looks back for its global offset; the
  // write-out then shifts it into place (one extra zero word at the end).
  const int local_words = static_cast<int>((tile_bits + 31u) / 32u) + 1;
  for (int i = tid; i < local_words; i += kThreads) buffer[i] = 0;
  __syncthreads();
  if (valid > 0) pack_aggregates<Spt / Group>(agg, len, buffer, offset);
  if (tid < 32) {
    const std::uint64_t prefix = look_back(s.tile_state, tile, tile_bits);
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
    const std::uint32_t v = lead == 0 ? lo : (hi << (32 - lead)) | (lo >> lead);
    if (i == 0 && lead != 0) s.heads[tile] = v;
    else out[w0 + i] = v;
  }
}

// Merges each tile's shared first word into its predecessor's last one; writes the bit count.
__global__ void fast_fixup_kernel(FastScratch s, std::uint32_t* out, std::uint64_t* bits) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= s.tiles) return;
  if (t == s.tiles - 1) *bits = s.tile_state[t] & kValueMask;
  if (t == 0) return;
  const std::uint64_t start = s.tile_state[t - 1] & kValueMask;
  if ((start & 31u) != 0) out[start >> 5] |= s.heads[t];
}

}  // namespace

std::size_t fast_scratch_bytes(std::size_t n) {
  ScratchCarver sizing;
  carve_fast(sizing, n);
  return sizing.used();
}

void encode_fast(const std::uint8_t* d_in, std::size_t n, const std::uint32_t* d_table, int max_length,
                 std::uint32_t* d_out, std::uint64_t* d_bits, ScratchCarver& scratch, cudaStream_t stream,
                 std::uint64_t* d_index, unsigned symbols_per_thread) {
  FastScratch s = carve_fast(scratch, n);
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(s.tile_state, 0, (static_cast<std::size_t>(s.tiles) + 1) * sizeof(State), stream));
  // Codewords per aggregate: as many as surely fit 32 bits; symbols per thread: 64 with four
  // codewords per aggregate (16 aggregates in registers), else 32.
  const bool vector = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0;
  const int group = max_length <= 8 ? 4 : max_length <= 16 ? 2 : 1;
  const int spt = symbols_per_thread != 0 ? symbols_per_thread : group == 4 ? 64 : 32;
  using Kernel = void (*)(const std::uint8_t*, std::int64_t, const std::uint32_t*, std::uint32_t*, FastScratch, std::uint64_t*);
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
  s.tiles = (static_cast<std::int64_t>(n) + tile - 1) / tile;
  // The tile's bits after a lead of up to 31 bits, plus one word.
  const int buffer_words = static_cast<int>((31 + tile * max_length + 31) / 32 + 1);
  const std::size_t shared = static_cast<std::size_t>(buffer_words) * sizeof(std::uint32_t);
  PARCOMP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
  kernel<<<static_cast<unsigned>(s.tiles), kThreads, shared, stream>>>(d_in, static_cast<std::int64_t>(n), d_table,
                                                                       d_out, s, d_index);
  PARCOMP_CHECK_LAUNCH();
  fast_fixup_kernel<<<static_cast<unsigned>((s.tiles + 255) / 256), 256, 0, stream>>>(s, d_out, d_bits);
  PARCOMP_CHECK_LAUNCH();
}

}  // namespace detail

// ---- Decoder --------------------------------------------------------------------------------

namespace {

constexpr int kDecodeThreads = 128;

__global__ void __launch_bounds__(kDecodeThreads)
    decode_kernel(const std::uint32_t* words, std::int64_t nwords, const std::uint64_t* d_bits,
                  const std::uint64_t* index, std::int64_t n, const DecodeTable* table_global, std::uint8_t* out,
                  std::uint32_t* status) {
  __shared__ DecodeTable t;
  load_decode_table(table_global, t);
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * kDecodeThreads + threadIdx.x;
  const std::int64_t subsequences = (n + static_cast<std::int64_t>(kIndexStride) - 1) / static_cast<std::int64_t>(kIndexStride);
  if (k >= subsequences) return;
  const std::uint64_t total = *d_bits;
  const std::uint64_t begin = index[k], end = k + 1 < subsequences ? index[k + 1] : total;
  const std::int64_t first = k * static_cast<std::int64_t>(kIndexStride);
  const int count = static_cast<int>(min(static_cast<std::int64_t>(kIndexStride), n - first));
  if (begin > end || end > total || static_cast<std::int64_t>((total + 31) / 32) > nwords) {
    report_damage(status, kBadLength, k);
    return;
  }
  // Bit reader: `buf` holds the next `avail` bits left-aligned; words past the stream read as 0.
  std::int64_t next = static_cast<std::int64_t>(begin >> 5);
  const int skip = static_cast<int>(begin & 31u);
  std::uint64_t buf = (static_cast<std::uint64_t>(next < nwords ? __ldg(words + next) : 0u) << 32) << skip;
  int avail = 32 - skip;
  ++next;
  std::uint64_t used = 0;
  std::uint32_t pack = 0, p0 = 0, p1 = 0, p2 = 0;  // 16 bytes leave together
  std::uint8_t* dst = out + first;
  for (int i = 0; i < count; ++i) {
    if (avail <= 32) {
      const std::uint32_t w = next < nwords ? __ldg(words + next) : 0u;
      buf |= static_cast<std::uint64_t>(w) << (32 - avail);
      avail += 32;
      ++next;
    }
    std::uint32_t symbol;
    if (!decode_next(t, buf, avail, used, symbol)) {
      report_damage(status, kBadCode, k);
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
  if (used != end - begin) report_damage(status, kBadLength, k);
}

}  // namespace

void decode(const std::uint32_t* d_words, std::size_t words, const std::uint64_t* d_bits, const std::uint64_t* d_index,
            std::size_t n, const DecodeTable* d_table, std::uint8_t* d_out, std::uint32_t* d_status,
            cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("vle::decode");
  if (reinterpret_cast<std::uintptr_t>(d_out) % 4 != 0 || reinterpret_cast<std::uintptr_t>(d_table) % 4 != 0)
    throw ContractError("vle::decode: the output and the table must be 4-byte aligned");
  const std::uint32_t init[kDecodeStatusWords] = {0u, 0xFFFFFFFFu};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(d_status, init, sizeof init, cudaMemcpyHostToDevice, stream));
  if (n == 0) return;
  const std::size_t blocks = (index_entries(n) + kDecodeThreads - 1) / kDecodeThreads;
  decode_kernel<<<static_cast<unsigned>(blocks), kDecodeThreads, 0, stream>>>(
      d_words, static_cast<std::int64_t>(words), d_bits, d_index, static_cast<std::int64_t>(n), d_table, d_out, d_status);
  PARCOMP_CHECK_LAUNCH();
}

void check_decode_status(const std::uint32_t* d_status, cudaStream_t stream) {
  std::uint32_t s[kDecodeStatusWords] = {};
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s, d_status, sizeof s, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (s[0] == 0) return;
  const std::uint64_t k = s[1];
  throw CorruptDataError("vle::decode: corrupt stream in subsequence " + std::to_string(k) + " (symbols " +
                         std::to_string(k * kIndexStride) + ".." + std::to_string((k + 1) * kIndexStride - 1) + "): " +
                         ((s[0] & kBadCode) != 0 ? "no codeword matches" : "") +
                         ((s[0] & kBadCode) != 0 && (s[0] & kBadLength) != 0 ? "; " : "") +
                         ((s[0] & kBadLength) != 0 ? "its bits do not end where the next subsequence starts" : ""));
}

}  // namespace parcomp::vle
