// Scan-based MTF and reverse MTF (thesis Alg. 2, 3, 5, 6), and the survey's naive parallel MTF.
// One translation unit: no CUB here.
#include "../common/cuda_check.hpp"
#include "../common/launch.cuh"
#include "../common/nvtx.hpp"
#include "../common/scratch.hpp"
#include "mtf.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

namespace parcomp::mtf {

namespace {

constexpr int kAlphabet = 256;

// Geometry of one scan-based launch: segments of `seg` bytes, each split into blocks of B threads
// that each own a substring of J bytes. Blocks never straddle a segment.
struct Geometry {
  std::int64_t n, seg, segments, blocks_per_seg, blocks, threads;
  int J, B, L;
};

Geometry make_geometry(std::size_t n, const Config& c, int shared_entries) {
  Geometry g{};
  g.n = static_cast<std::int64_t>(n);
  g.seg = static_cast<std::int64_t>(c.segment_bytes == 0 ? (n == 0 ? 1 : n) : c.segment_bytes);
  g.segments = (g.n + g.seg - 1) / g.seg;
  g.J = static_cast<int>(c.chars_per_thread);
  g.B = static_cast<int>(c.block_threads);
  g.L = shared_entries;
  const std::int64_t bytes_per_block = std::int64_t{g.J} * g.B;
  g.blocks_per_seg = (std::min(g.seg, std::max<std::int64_t>(g.n, 1)) + bytes_per_block - 1) / bytes_per_block;
  g.blocks = g.segments * g.blocks_per_seg;
  g.threads = g.blocks * g.B;
  return g;
}

struct Scratch {
  std::uint8_t* rows[2];     // per-thread lists (256 bytes each), double-buffered for the scan
  std::uint16_t* lens[2];    // their lengths (forward partial lists; reverse lists are full)
  std::uint8_t* block_state; // the list at the start of each block (256 bytes each)
  std::uint8_t* spill;       // working-list entries past the shared part (256 - L per thread)
};

Scratch carve(ScratchCarver& c, const Geometry& g) {
  Scratch s{};
  const auto t = static_cast<std::size_t>(g.threads);
  for (int i = 0; i < 2; ++i) {
    s.rows[i] = c.take<std::uint8_t>(t * kAlphabet);
    s.lens[i] = c.take<std::uint16_t>(t);
  }
  s.block_state = c.take<std::uint8_t>(static_cast<std::size_t>(g.blocks) * kAlphabet);
  s.spill = c.take<std::uint8_t>(t * static_cast<std::size_t>(kAlphabet - g.L));
  return s;
}

// A thread's 256-entry working list, two layouts.
//
// SplitList (paper): entries [0, L) in shared memory, each thread's contiguous; the rest in global
// memory. One byte per step when searching and shifting, as a straightforward implementation is.
struct SplitList {
  std::uint8_t* shared;  // this block's lists: thread t's entry k at t * L + k
  std::uint8_t* spill;   // this thread's spill row, indexed by k - L
  int t, L;
  __host__ __device__ static std::size_t shared_bytes(int B, int L) { return static_cast<std::size_t>(B) * static_cast<std::size_t>(L); }
  __device__ std::uint8_t get(int k) const { return k < L ? shared[t * L + k] : spill[k - L]; }
  __device__ void set(int k, std::uint8_t v) const {
    if (k < L)
      shared[t * L + k] = v;
    else
      spill[k - L] = v;
  }
  // Sequential writer of entries 0, 1, 2, ...
  struct Writer {
    const SplitList& list;
    int k = 0;
    __device__ void put(std::uint8_t v) { list.set(k++, v); }
  };
  __device__ Writer writer() const { return Writer{*this}; }
  // Forward MTF of one symbol: its position, and the symbol moved to the front (one pass).
  __device__ int encode(std::uint8_t c) const {
    std::uint8_t carry = get(0);
    if (carry == c) return 0;
    int k = 1;
    for (;; ++k) {
      const std::uint8_t here = get(k);
      set(k, carry);
      if (here == c) break;
      carry = here;
    }
    set(0, c);
    return k;
  }
  // Reverse MTF of one position: the symbol there, moved to the front.
  __device__ std::uint8_t decode(int m) const {
    const std::uint8_t c = get(m);
    for (int k = m; k > 0; --k) set(k, get(k - 1));
    set(0, c);
    return c;
  }
};

// PackedList (ours, fast): the whole list in shared memory as 64 32-bit words per thread, rows
// padded to 65 words so that the threads of a warp hit distinct banks. Searches compare four
// entries at a time (__vcmpeq4) and shifts move four entries at a time.
struct PackedList {
  static constexpr int kRowWords = kAlphabet / 4 + 1;
  std::uint32_t* row;  // this thread's 64 words
  __host__ __device__ static std::size_t shared_bytes(int B, int) { return static_cast<std::size_t>(B) * kRowWords * 4; }
  __device__ std::uint8_t get(int k) const { return static_cast<std::uint8_t>(row[k >> 2] >> (8 * (k & 3))); }
  struct Writer {
    std::uint32_t* row;
    std::uint32_t word = 0;
    int k = 0;
    __device__ void put(std::uint8_t v) {
      word |= std::uint32_t{v} << (8 * (k & 3));
      if ((++k & 3) == 0) {
        row[(k >> 2) - 1] = word;
        word = 0;
      }
    }
  };
  __device__ Writer writer() const { return Writer{row}; }
  // Removes entry 4*j+byte (its word is w) and moves entries below it up by one, c at the front.
  __device__ void move_to_front(int j, int byte, std::uint32_t w, std::uint8_t c) const {
    const std::uint32_t below = byte == 0 ? 0u : (w & ((1u << (8 * byte)) - 1u));
    const std::uint32_t above = byte == 3 ? 0u : (w & ~((1u << (8 * (byte + 1))) - 1u));
    std::uint32_t cur = above | (below << 8);
    for (int i = j; i > 0; --i) {
      const std::uint32_t lower = row[i - 1];
      row[i] = cur | (lower >> 24);
      cur = lower << 8;
    }
    row[0] = cur | c;
  }
  __device__ int encode(std::uint8_t c) const {
    const std::uint32_t pattern = 0x01010101u * c;
    int j = 0;
    std::uint32_t w, hit;
    for (;; ++j) {
      w = row[j];
      hit = __vcmpeq4(w, pattern);
      if (hit != 0) break;
    }
    const int byte = (__ffs(hit) - 1) >> 3;
    move_to_front(j, byte, w, c);
    return 4 * j + byte;
  }
  __device__ std::uint8_t decode(int m) const {
    const int j = m >> 2, byte = m & 3;
    const std::uint32_t w = row[j];
    const auto c = static_cast<std::uint8_t>(w >> (8 * byte));
    move_to_front(j, byte, w, c);
    return c;
  }
};

__device__ __forceinline__ bool test_bit(const std::uint32_t* mask, std::uint8_t c) { return (mask[c >> 5] >> (c & 31)) & 1u; }
__device__ __forceinline__ void set_bit(std::uint32_t* mask, std::uint8_t c) { mask[c >> 5] |= 1u << (c & 31); }

// Alg. 3, AppendUnique: out = cur, then the entries of prev absent from cur. out may alias cur,
// never prev. Returns the length.
__device__ int append_unique(const std::uint8_t* cur, int cur_len, const std::uint8_t* prev, int prev_len,
                             std::uint8_t* out) {
  std::uint32_t mask[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < cur_len; ++i) {
    const std::uint8_t c = cur[i];
    set_bit(mask, c);
    out[i] = c;
  }
  int len = cur_len;
  for (int i = 0; i < prev_len; ++i) {
    const std::uint8_t c = prev[i];
    if (!test_bit(mask, c)) out[len++] = c;
  }
  return len;
}

// Alg. 6, composition: out[i] = prev[cur[i]]. out may alias cur, never prev.
__device__ void compose(const std::uint8_t* cur, const std::uint8_t* prev, std::uint8_t* out) {
  for (int i = 0; i < kAlphabet; ++i) out[i] = prev[cur[i]];
}

template <Direction D>
__device__ int combine(const std::uint8_t* cur, int cur_len, const std::uint8_t* prev, int prev_len, std::uint8_t* out) {
  if constexpr (D == Direction::forward) {
    return append_unique(cur, cur_len, prev, prev_len, out);
  } else {
    compose(cur, prev, out);
    return kAlphabet;
  }
}

struct ThreadPlace {
  std::int64_t gt, block, first, last;  // global thread, global block, substring [first, last)
  int t;
};

__device__ ThreadPlace place(const Geometry& g) {
  ThreadPlace p{};
  p.t = static_cast<int>(threadIdx.x);
  p.block = blockIdx.x;
  p.gt = p.block * g.B + p.t;
  const std::int64_t segment = p.block / g.blocks_per_seg;
  const std::int64_t seg_first = segment * g.seg;
  const std::int64_t seg_last = min(g.n, seg_first + g.seg);
  p.first = min(seg_last, seg_first + ((p.block % g.blocks_per_seg) * g.B + p.t) * std::int64_t{g.J});
  p.last = min(seg_last, p.first + g.J);
  return p;
}

template <typename List>
__device__ List work_list(const Geometry& g, const ThreadPlace& p, std::uint8_t* spill) {
  extern __shared__ __align__(16) std::uint8_t shared_lists[];
  if constexpr (std::is_same_v<List, SplitList>) {
    return SplitList{shared_lists, spill + p.gt * (kAlphabet - g.L), p.t, g.L};
  } else {
    return PackedList{reinterpret_cast<std::uint32_t*>(shared_lists) + p.t * PackedList::kRowWords};
  }
}

// The local scan's lists (thesis sec. 2.2 and 4.4.3: "we store and access each thread's partial
// MTF list in shared memory", "only store partial MTF lists in shared memory"): entry k of thread
// gt's list in buffer b lies in shared memory for k < Ls (Ls = the swept partial-list size, Fig.
// 4.5), in global memory (s.rows[b]) from Ls on. The scan double-buffers (b = 0, 1).
struct ScanLists {
  std::uint8_t* shared;  // 2 buffers x B threads x Ls entries: thread t's entries at (b * B + t) * Ls
  std::uint8_t* rows[2];
  int Ls, B;
  std::int64_t first_gt;  // the block's first thread
  __device__ std::uint8_t get(int b, std::int64_t gt, int k) const {
    return k < Ls ? shared[(b * B + static_cast<int>(gt - first_gt)) * Ls + k] : rows[b][gt * kAlphabet + k];
  }
  __device__ void set(int b, std::int64_t gt, int k, std::uint8_t v) const {
    if (k < Ls)
      shared[(b * B + static_cast<int>(gt - first_gt)) * Ls + k] = v;
    else
      rows[b][gt * kAlphabet + k] = v;
  }
};

// Step 1 (Alg. 2 / Alg. 5): each thread's partial list; then an inclusive Hillis-Steele scan over
// the block's threads (log2 B rounds, AppendUnique / composition), leaving in rows[steps % 2]
// each thread's list after its block's substrings up to its own. The paper variant keeps the
// first L entries of every list in shared memory (ScanLists); the fast variant's lists are in
// global memory (its shared memory holds the packed working lists).
template <Direction D, typename List>
__global__ void local_scan_kernel(const std::uint8_t* in, Geometry g, Scratch s) {
  extern __shared__ __align__(16) std::uint8_t shared_lists[];
  const ThreadPlace p = place(g);
  constexpr bool kSplit = std::is_same_v<List, SplitList>;
  // The reverse direction's working list comes first in shared memory; the forward needs none.
  const std::size_t working = D == Direction::reverse ? List::shared_bytes(g.B, g.L) : 0;
  const ScanLists lists{shared_lists + working, {s.rows[0], s.rows[1]}, kSplit ? g.L : 0, g.B, p.block * g.B};
  if constexpr (D == Direction::forward) {
    std::uint32_t mask[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int len = 0;
    for (std::int64_t i = p.last - 1; i >= p.first; --i) {  // walk backwards: most recent first
      const std::uint8_t c = in[i];
      if (!test_bit(mask, c)) {
        set_bit(mask, c);
        lists.set(0, p.gt, len++, c);
      }
    }
    s.lens[0][p.gt] = static_cast<std::uint16_t>(len);
  } else {
    const List w = work_list<List>(g, p, s.spill);
    auto fill = w.writer();
    for (int k = 0; k < kAlphabet; ++k) fill.put(static_cast<std::uint8_t>(k));
    for (std::int64_t i = p.first; i < p.last; ++i) w.decode(in[i]);
    for (int k = 0; k < kAlphabet; ++k) lists.set(0, p.gt, k, w.get(k));
    s.lens[0][p.gt] = kAlphabet;
  }
  int src = 0;
  for (int d = 1; d < g.B; d <<= 1, src ^= 1) {
    __syncthreads();
    const int dst = src ^ 1;
    const int len = s.lens[src][p.gt];
    if (p.t >= d) {
      const std::int64_t before = p.gt - d;
      if constexpr (D == Direction::forward) {  // Alg. 3, AppendUnique: mine, then theirs absent from mine
        std::uint32_t mask[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int k = 0; k < len; ++k) {
          const std::uint8_t c = lists.get(src, p.gt, k);
          set_bit(mask, c);
          lists.set(dst, p.gt, k, c);
        }
        int out = len;
        const int theirs = s.lens[src][before];
        for (int k = 0; k < theirs; ++k) {
          const std::uint8_t c = lists.get(src, before, k);
          if (!test_bit(mask, c)) lists.set(dst, p.gt, out++, c);
        }
        s.lens[dst][p.gt] = static_cast<std::uint16_t>(out);
      } else {  // Alg. 6, composition: out[i] = theirs[mine[i]]
        for (int k = 0; k < kAlphabet; ++k) lists.set(dst, p.gt, k, lists.get(src, before, lists.get(src, p.gt, k)));
        s.lens[dst][p.gt] = kAlphabet;
      }
    } else {
      for (int k = 0; k < len; ++k) lists.set(dst, p.gt, k, lists.get(src, p.gt, k));
      s.lens[dst][p.gt] = static_cast<std::uint16_t>(len);
    }
  }
  // The scanned lists leave in global memory whole, for the block scan and the transform.
  if constexpr (kSplit) {
    const int len = s.lens[src][p.gt];
    for (int k = 0; k < min(len, g.L); ++k) s.rows[src][p.gt * kAlphabet + k] = lists.get(src, p.gt, k);
  }
}

// Step 2: per segment, the list at the start of each of its blocks (a sequential scan of the
// block aggregates, from the identity).
template <Direction D>
__global__ void block_scan_kernel(Geometry g, Scratch s, int final_buffer) {
  const std::int64_t segment = grid_thread_index();
  if (segment >= g.segments) return;
  const std::int64_t first = segment * g.blocks_per_seg;
  std::uint8_t* state = s.block_state + first * kAlphabet;
  for (int k = 0; k < kAlphabet; ++k) state[k] = static_cast<std::uint8_t>(k);
  for (std::int64_t b = first + 1; b < first + g.blocks_per_seg; ++b) {
    const std::int64_t last_thread = (b - 1) * g.B + g.B - 1;
    const std::uint8_t* aggregate = s.rows[final_buffer] + last_thread * kAlphabet;
    std::uint8_t* next = s.block_state + b * kAlphabet;
    combine<D>(aggregate, s.lens[final_buffer][last_thread], state, kAlphabet, next);
    state = next;
  }
}

// Step 3: each thread's list = its block's list advanced by the block's earlier substrings; then
// the thread transforms its substring.
template <Direction D, typename List>
__global__ void transform_kernel(const std::uint8_t* in, std::uint8_t* out, Geometry g, Scratch s, int final_buffer) {
  const ThreadPlace p = place(g);
  const List w = work_list<List>(g, p, s.spill);
  auto fill = w.writer();
  const std::uint8_t* state = s.block_state + p.block * kAlphabet;
  if (p.t == 0) {
    for (int k = 0; k < kAlphabet; ++k) fill.put(state[k]);
  } else {
    const std::uint8_t* before = s.rows[final_buffer] + (p.gt - 1) * kAlphabet;
    if constexpr (D == Direction::forward) {
      const int len = s.lens[final_buffer][p.gt - 1];
      std::uint32_t mask[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int k = 0; k < len; ++k) {
        set_bit(mask, before[k]);
        fill.put(before[k]);
      }
      for (int i = 0; i < kAlphabet; ++i)
        if (!test_bit(mask, state[i])) fill.put(state[i]);
    } else {
      for (int k = 0; k < kAlphabet; ++k) fill.put(state[before[k]]);
    }
  }
  for (std::int64_t i = p.first; i < p.last; ++i) {
    if constexpr (D == Direction::forward)
      out[i] = static_cast<std::uint8_t>(w.encode(in[i]));
    else
      out[i] = w.decode(in[i]);
  }
}

// The survey's naive parallel MTF: one block of 256 threads per segment; thread k owns list[k].
template <Direction D>
__global__ void naive_kernel(const std::uint8_t* in, std::uint8_t* out, std::int64_t n, std::int64_t seg) {
  __shared__ std::uint8_t list[kAlphabet];
  __shared__ int position;
  const int k = static_cast<int>(threadIdx.x);
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * seg;
  const std::int64_t last = min(n, first + seg);
  list[k] = static_cast<std::uint8_t>(k);
  __syncthreads();
  for (std::int64_t i = first; i < last; ++i) {
    const std::uint8_t x = in[i];
    int pos;
    std::uint8_t symbol;
    if constexpr (D == Direction::forward) {
      if (list[k] == x) position = k;  // exactly one thread matches
      __syncthreads();
      pos = position;
      symbol = x;
    } else {
      pos = x;
      symbol = list[x];
    }
    const std::uint8_t mine = list[k];
    __syncthreads();
    if (k < pos) list[k + 1] = mine;
    if (k == 0) {
      list[0] = symbol;
      out[i] = D == Direction::forward ? static_cast<std::uint8_t>(pos) : symbol;
    }
    __syncthreads();
  }
}

int shared_entries(Variant v, const Config& c) { return v == Variant::fast ? kAlphabet : static_cast<int>(c.shared_list_entries); }

void validate(Variant v, const Config& c) {
  if (v == Variant::naive) return;
  const unsigned b = c.block_threads;
  if (b == 0 || b > 1024 || (b & (b - 1)) != 0)
    throw ContractError("mtf: block_threads must be a power of two in 1..1024, got " + std::to_string(b));
  if (c.chars_per_thread == 0) throw ContractError("mtf: chars_per_thread must be >= 1");
  if (c.shared_list_entries == 0 || c.shared_list_entries > kAlphabet)
    throw ContractError("mtf: shared_list_entries must be in 1..256, got " + std::to_string(c.shared_list_entries));
}

int log2_exact(int b) {
  int steps = 0;
  while ((1 << steps) < b) ++steps;
  return steps;
}

// Shared memory of the local scan: the working list, then (paper) the scan lists' shared parts.
template <Direction D, typename List>
std::size_t local_scan_shared_bytes(const Geometry& g) {
  const std::size_t scan = std::is_same_v<List, SplitList> ? 2 * static_cast<std::size_t>(g.B) * static_cast<std::size_t>(g.L) : 0;
  return (D == Direction::reverse ? List::shared_bytes(g.B, g.L) : 0) + scan;
}

template <Direction D, typename List>
void launch_local_scan(const std::uint8_t* d_in, const Geometry& g, const Scratch& s, cudaStream_t stream) {
  const std::size_t shared = std::max<std::size_t>(local_scan_shared_bytes<D, List>(g), 16);
  auto local = local_scan_kernel<D, List>;
  ensure_dynamic_shared(local, shared);
  local<<<static_cast<unsigned>(g.blocks), g.B, shared, stream>>>(d_in, g, s);
  PARCOMP_CHECK_LAUNCH();
}

template <Direction D, typename List>
void launch_scan(const std::uint8_t* d_in, std::uint8_t* d_out, const Geometry& g, const Scratch& s,
                 cudaStream_t stream) {
  const std::size_t shared = List::shared_bytes(g.B, g.L);
  const int final_buffer = log2_exact(g.B) % 2;
  auto transform = transform_kernel<D, List>;
  ensure_dynamic_shared(transform, shared);
  launch_local_scan<D, List>(d_in, g, s, stream);
  const unsigned scan_blocks = static_cast<unsigned>((g.segments + 127) / 128);
  block_scan_kernel<D><<<scan_blocks, 128, 0, stream>>>(g, s, final_buffer);
  PARCOMP_CHECK_LAUNCH();
  transform<<<static_cast<unsigned>(g.blocks), g.B, shared, stream>>>(d_in, d_out, g, s, final_buffer);
  PARCOMP_CHECK_LAUNCH();
}

}  // namespace

std::string_view name(Variant v) {
  switch (v) {
    case Variant::paper: return "gpu.paper";
    case Variant::naive: return "gpu.naive";
    case Variant::fast: return "gpu.fast";
  }
  return "?";
}

Config default_config(Variant v, Direction d) {
  Config c;
  if (v == Variant::fast) {
    // Tuned with mtf.fast_tuning (RESULTS.md): the reverse direction's per-thread summary replays
    // every move, so it wants longer substrings than the forward one.
    c.chars_per_thread = d == Direction::forward ? 1024 : 4096;
    c.block_threads = 128;
    c.shared_list_entries = kAlphabet;
  } else {
    c.chars_per_thread = 64;
    c.block_threads = 64;
    c.shared_list_entries = d == Direction::forward ? 40 : 76;
  }
  return c;
}

std::size_t scratch_bytes(Variant v, Direction, std::size_t n, const Config& c) {
  validate(v, c);
  if (v == Variant::naive || n == 0) return 0;
  ScratchCarver sizing;
  carve(sizing, make_geometry(n, c, shared_entries(v, c)));
  return sizing.used();
}

void transform(Variant v, Direction d, const std::uint8_t* d_in, std::size_t n, std::uint8_t* d_out, void* d_scratch,
               std::size_t scratch_size, const Config& c, cudaStream_t stream) {
  validate(v, c);
  if (n == 0) return;
  if (v == Variant::naive) {
    PARCOMP_NVTX_RANGE(d == Direction::forward ? "mtf::forward.naive" : "mtf::reverse.naive");
    const std::int64_t seg = static_cast<std::int64_t>(c.segment_bytes == 0 ? n : c.segment_bytes);
    const auto segments = static_cast<unsigned>((static_cast<std::int64_t>(n) + seg - 1) / seg);
    if (d == Direction::forward)
      naive_kernel<Direction::forward><<<segments, kAlphabet, 0, stream>>>(d_in, d_out, static_cast<std::int64_t>(n), seg);
    else
      naive_kernel<Direction::reverse><<<segments, kAlphabet, 0, stream>>>(d_in, d_out, static_cast<std::int64_t>(n), seg);
    PARCOMP_CHECK_LAUNCH();
    return;
  }
  const Geometry g = make_geometry(n, c, shared_entries(v, c));
  ScratchCarver carver(d_scratch, scratch_size);
  const Scratch s = carve(carver, g);
  if (v == Variant::paper) {
    PARCOMP_NVTX_RANGE(d == Direction::forward ? "mtf::forward.paper" : "mtf::reverse.paper");
    if (d == Direction::forward) launch_scan<Direction::forward, SplitList>(d_in, d_out, g, s, stream);
    else launch_scan<Direction::reverse, SplitList>(d_in, d_out, g, s, stream);
  } else {
    PARCOMP_NVTX_RANGE(d == Direction::forward ? "mtf::forward.fast" : "mtf::reverse.fast");
    if (d == Direction::forward) launch_scan<Direction::forward, PackedList>(d_in, d_out, g, s, stream);
    else launch_scan<Direction::reverse, PackedList>(d_in, d_out, g, s, stream);
  }
}

void local_scan(Variant v, Direction d, const std::uint8_t* d_in, std::size_t n, void* d_scratch, std::size_t scratch_size,
                const Config& c, cudaStream_t stream) {
  validate(v, c);
  if (v == Variant::naive) throw ContractError("mtf::local_scan: the naive variant has no scan");
  if (n == 0) return;
  PARCOMP_NVTX_RANGE(d == Direction::forward ? "mtf::local_scan.forward" : "mtf::local_scan.reverse");
  const Geometry g = make_geometry(n, c, shared_entries(v, c));
  ScratchCarver carver(d_scratch, scratch_size);
  const Scratch s = carve(carver, g);
  if (v == Variant::paper) {
    if (d == Direction::forward) launch_local_scan<Direction::forward, SplitList>(d_in, g, s, stream);
    else launch_local_scan<Direction::reverse, SplitList>(d_in, g, s, stream);
  } else {
    if (d == Direction::forward) launch_local_scan<Direction::forward, PackedList>(d_in, g, s, stream);
    else launch_local_scan<Direction::reverse, PackedList>(d_in, g, s, stream);
  }
}

}  // namespace parcomp::mtf
