// .bz2 blocks decoded on the GPU. See bz2_decode.hpp; each kernel runs one step of bz2_steps.hpp
// per element.
#include "../common/cuda_check.hpp"
#include "../common/nvtx.hpp"
#include "bz2_decode.hpp"
#include "bz2_steps.hpp"
#include "core/errors.hpp"

#include <string>
#include <vector>

namespace parcomp::bz2gpu {

namespace {

constexpr unsigned kThreads = 256;
// The walk's reads past its span's end stay in the pad: a group of codes (the end is tested after
// each), the window and the two words ahead (32 bytes), and WordBits::refill's prefetch.
static_assert(kWindowPad >= bz2::kGroupSize * bz2::kDecodeMaxLength / 8 + 32 + WordBits::kPrefetchBytes);

// A CTA per block, so that the blocks spread over the SMs: thread 0 reads the header, all threads
// fill the walk's lookup tables in shared memory, thread 0 walks the codes.
template <int Bits>
constexpr std::size_t walk_shared = std::size_t{bz2::kMaxTables} * steps::walk_entries<Bits> * sizeof(std::uint32_t);
// (Threads, 1): without the 1, ptxas held the kernel to 64 registers and spilled around the walk.
template <int Bits, unsigned Threads>
__global__ void __launch_bounds__(Threads, 1) group_starts_kernel(steps::Batch a) {
  extern __shared__ std::uint32_t lut[];
  __shared__ int tables, eob;
  bz2::BlockHeader h;  // thread 0's
  const std::size_t b = blockIdx.x;
  if (threadIdx.x == 0) {
    tables = steps::open_block(a, b, h);
    eob = h.eob;
  }
  __syncthreads();
  if (tables == 0) return;
  const bz2::DecodeWork& w = a.work[b];
  constexpr std::uint32_t entries = steps::walk_entries<Bits>;
  for (std::uint32_t i = threadIdx.x; i < static_cast<std::uint32_t>(tables) * entries; i += blockDim.x)
    lut[i] = steps::walk_entry<Bits>(w.tables[i / entries], i % entries, eob);
  __syncthreads();
  if (threadIdx.x == 0) steps::walk_groups<Bits>(a, b, h, lut);
}

template <int Bits, unsigned Threads>
void launch_walk(const steps::Batch& a, std::size_t count, cudaStream_t stream) {
  // Per call: the attribute belongs to the current device.
  PARCOMP_CUDA_CHECK(
      cudaFuncSetAttribute(group_starts_kernel<Bits, Threads>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(walk_shared<Bits>)));
  group_starts_kernel<Bits, Threads><<<static_cast<unsigned>(count), Threads, walk_shared<Bits>, stream>>>(a);
  PARCOMP_CHECK_LAUNCH();
}

void check_walk(const WalkConfig& walk, const char* what) {
  if ((walk.bits != 11 && walk.bits != 12) || (walk.threads != 64 && walk.threads != 256))
    throw ContractError(std::string(what) + ": a walk of " + std::to_string(walk.bits) + " bits and " + std::to_string(walk.threads) +
                        " threads (11 or 12 bits, 64 or 256 threads)");
}

// A CTA of 256 threads per block, a thread per list place: the chunks' MTF lists chained, the
// list in shared memory.
__global__ void __launch_bounds__(256) mtf_compose_kernel(steps::Batch a) {
  __shared__ std::uint8_t list[256];
  const std::size_t b = blockIdx.x;
  const int k = static_cast<int>(threadIdx.x);
  const std::uint32_t used = steps::mtf_used_chunks(a, b);
  list[k] = static_cast<std::uint8_t>(k);
  __syncthreads();
  for (std::uint32_t c = 0; c < used; ++c) {
    const std::uint8_t next = steps::mtf_compose_place(a, b, c, k, list);
    __syncthreads();
    list[k] = next;
    __syncthreads();
  }
}

// The links' counting sort on the GPU, a warp per link chunk (ours; the same counts and rows as
// steps::link_hist and steps::link_scatter, whose one thread per chunk walked its 4096 bytes in a
// chain of dependent local-memory updates; docs/defaults.md).
// The warp takes 128 bytes a step, a word a lane, and each of four rounds hands every lane one byte
// in the chunk's order (byte 32 * round + lane of the step); lanes holding equal bytes find each
// other (__match_any_sync): the highest of them adds their number to the byte's count, and each
// takes its row as the count before the round plus the equal bytes in lanes below it, so the
// sort stays stable. Each warp's counts are in shared memory.
constexpr unsigned kLinkWarps = 8;

template <bool Scatter>
__global__ void __launch_bounds__(kLinkWarps * 32) link_warp_kernel(steps::Batch a, std::size_t chunks) {
  __shared__ std::uint32_t counts[kLinkWarps][256];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::size_t g = std::size_t{blockIdx.x} * kLinkWarps + warp;  // the chunk, over the batch
  if (g >= chunks) return;
  const std::size_t links = a.links(), b = g / links, h = g % links;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || h * steps::kLinkChunk >= s.nblock) return;  // the warp's whole chunk
  std::uint32_t* c = counts[warp];
  std::uint32_t* hist = a.hist + g * 256;
  for (unsigned v = lane; v < 256; v += 32) c[v] = Scatter ? hist[v] : 0u;  // the chunk's first rows, or no bytes yet
  __syncwarp();
  const auto begin = static_cast<std::uint32_t>(h * steps::kLinkChunk);
  const std::uint32_t end = s.nblock - begin < steps::kLinkChunk ? s.nblock : begin + steps::kLinkChunk;
  const std::uint8_t* bytes = a.out + b * a.limit;
  std::uint32_t* next = a.tt + b * a.limit;
  const unsigned below = (1u << lane) - 1u;
  for (std::uint32_t at = begin; at < end; at += 128) {
    // Whole words below end lie in the block's limit bytes (limits are multiples of 4).
    const std::uint32_t mine = at + 4 * lane < end ? *reinterpret_cast<const std::uint32_t*>(bytes + at + 4 * lane) : 0u;
    for (unsigned round = 0; round < 4; ++round) {
      const std::uint32_t i = at + 32 * round + lane;
      const std::uint32_t word = __shfl_sync(0xffffffffu, mine, 8 * round + lane / 4);
      const unsigned v = word >> (8 * (lane % 4)) & 0xffu;
      const unsigned peers = __match_any_sync(0xffffffffu, i < end ? v : 256u + lane);
      const std::uint32_t before = c[v];
      __syncwarp();
      if (i < end) {
        if (Scatter) next[before + static_cast<std::uint32_t>(__popc(peers & below))] = i;
        if (lane == 31u - static_cast<unsigned>(__clz(peers))) c[v] = before + static_cast<std::uint32_t>(__popc(peers));
      }
      __syncwarp();
    }
  }
  if (!Scatter)
    for (unsigned v = lane; v < 256; v += 32) hist[v] = c[v];
}

void launch_links(const steps::Batch& a, std::size_t chunks, bool scatter, cudaStream_t stream) {
  const std::size_t ctas = (chunks + kLinkWarps - 1) / kLinkWarps;
  if (ctas > 0x7fffffffu) throw ContractError("bz2gpu::decode_batch: " + std::to_string(chunks) + " link chunks in one batch");
  if (ctas == 0) return;
  if (scatter) link_warp_kernel<true><<<static_cast<unsigned>(ctas), kLinkWarps * 32, 0, stream>>>(a, chunks);
  else link_warp_kernel<false><<<static_cast<unsigned>(ctas), kLinkWarps * 32, 0, stream>>>(a, chunks);
  PARCOMP_CHECK_LAUNCH();
}

// Block b's rulers ranked by a CTA (ours; the same starts and cycle as steps::rank, whose one
// thread per block chained up to 3,517 rulers one dependent load after the other). origPtr's
// cycle is cut before origPtr's ruler, and pointer
// jumping in shared memory gives every ruler the rows from it to the cut; a ruler that never
// reaches the cut (another cycle of a periodic block, or an unused slot) is off origPtr's cycle.
constexpr unsigned kRankThreads = 1024;
constexpr std::uint32_t kMaxRulerSlots = bz2::ruler_slots(static_cast<std::uint32_t>(bz2::block_limit(9)));

__global__ void __launch_bounds__(kRankThreads) rank_kernel(steps::Batch a) {
  constexpr std::uint16_t kEnd = 0xffff, kOff = 0xfffe;  // the cut; an unused slot
  static_assert(kMaxRulerSlots < kOff, "ruler slots fit 16 bits");
  __shared__ std::uint16_t next[2][kMaxRulerSlots];
  __shared__ std::uint32_t rows[2][kMaxRulerSlots];
  const std::size_t b = blockIdx.x;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none) return;
  const std::size_t stride = a.slots();
  const std::uint32_t n = s.nblock, slots = bz2::ruler_slots(n), first = bz2::ruler_of(s.orig_ptr, s.orig_ptr, n);
  const std::uint32_t* succ = a.succ + b * stride;
  const std::uint32_t* dist = a.dist + b * stride;
  for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x) {
    const std::uint32_t to = succ[i];
    next[0][i] = to == bz2::kNoRuler ? kOff : (to == first ? kEnd : static_cast<std::uint16_t>(to));
    rows[0][i] = dist[i];
  }
  __syncthreads();
  int cur = 0;
  for (std::uint32_t span = 1; span < slots; span *= 2) {
    for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x) {
      const std::uint16_t to = next[cur][i];
      const bool on = to != kEnd && to != kOff;
      next[cur ^ 1][i] = on ? next[cur][to] : to;
      rows[cur ^ 1][i] = rows[cur][i] + (on ? rows[cur][to] : 0u);  // wraps harmlessly on cycles that never reach the cut
    }
    __syncthreads();
    cur ^= 1;
  }
  const std::uint32_t c = rows[cur][first];  // origPtr's cycle: n rows, or a divisor of n
  std::uint32_t* start = a.start + b * stride;
  for (std::uint32_t i = threadIdx.x; i < slots; i += blockDim.x) start[i] = next[cur][i] == kEnd ? c - rows[cur][i] : bz2::kNoRuler;
  if (threadIdx.x == 0) a.cycle[b] = c < n ? c : n;
}

// The rulers' walk keeps the bytes it passes (ours): the emit step walked each stretch a second
// time, a chain of dependent loads from tt all over the block, to write the bytes that the first
// walk (steps::walk) had loaded already.
// Now the walk writes each ruler's first `cap` bytes (about 508) to a stretch buffer, and where a
// stretch is longer (a ruler every 256 rows: about one in seven) the row it stopped at; once the
// rulers are ranked, a warp per ruler copies its bytes into place, and the longer stretches walk
// on from that row. The buffer lies in the symbols' space (dead after item_write: 2 bytes a
// block's byte), the rows in the links' counts (dead after the scatter).
__host__ __device__ inline std::uint32_t stretch_cap(std::uint32_t limit) {
  return ((2 * (steps::symbol_slots(limit)) - 3) / bz2::ruler_slots(limit)) & ~3u;  // symbol_slots * 2 bytes, from a word boundary
}
__device__ inline std::uint8_t* stretch_base(const steps::Batch& a, std::size_t b) {
  const auto p = reinterpret_cast<std::uintptr_t>(a.symbols + b * steps::symbol_slots(a.limit));
  return reinterpret_cast<std::uint8_t*>((p + 3) & ~std::uintptr_t{3});
}

// steps::walk's succ and dist, and the stretch's bytes (a thread a ruler slot).
__global__ void ruler_walk_kernel(steps::Batch a, std::size_t rulers, std::uint32_t cap) {
  const std::size_t slots = a.slots();
  for (std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; g < rulers; g += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t b = g / slots;
    const auto i = static_cast<std::uint32_t>(g % slots);
    const bz2::BlockSymbols& s = a.info[b];
    if (s.error != bz2::BlockError::none || i >= bz2::ruler_slots(s.nblock)) continue;
    const std::uint32_t n = s.nblock, orig = s.orig_ptr, row = bz2::ruler_row(i, orig, n);
    std::uint32_t* succ = a.succ + b * slots;
    std::uint32_t* dist = a.dist + b * slots;
    if (row == bz2::kNoRuler) {
      succ[i] = bz2::kNoRuler;
      dist[i] = 0;
      continue;
    }
    const std::uint32_t* tt = a.tt + b * a.limit;
    auto* kept = reinterpret_cast<std::uint32_t*>(stretch_base(a, b) + std::size_t{i} * cap);
    std::uint32_t v = tt[row], d = 0, slot = bz2::kNoRuler, word = 0;
    do {  // as ruler_walk; v = tt of the row reached, whose byte is the stretch's next
      const std::uint32_t x = v >> 8;
      ++d;
      slot = bz2::ruler_of(x, orig, n);
      v = tt[x];
      if (d <= cap) {
        word |= (v & 0xffu) << (8 * ((d - 1) & 3u));
        if ((d & 3u) == 0) {
          kept[(d - 1) / 4] = word;
          word = 0;
        }
        if (d == cap) a.hist[b * a.links() * 256 + i] = x;  // where a longer stretch walks on
      }
    } while (slot == bz2::kNoRuler && d < n);
    if (d < cap && (d & 3u) != 0) kept[(d - 1) / 4] = word;
    succ[i] = slot;
    dist[i] = d;
  }
}

// steps::emit from the kept bytes, a warp a ruler slot.
constexpr unsigned kEmitWarps = 8;
__global__ void __launch_bounds__(kEmitWarps * 32) emit_warp_kernel(steps::Batch a, std::size_t rulers, std::uint32_t cap) {
  const std::size_t g = std::size_t{blockIdx.x} * kEmitWarps + threadIdx.x / 32;
  const unsigned lane = threadIdx.x % 32;
  if (g >= rulers) return;
  const std::size_t slots = a.slots(), b = g / slots;
  const auto i = static_cast<std::uint32_t>(g % slots);
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || i >= bz2::ruler_slots(s.nblock)) return;
  const std::uint32_t start = a.start[b * slots + i];
  if (start == bz2::kNoRuler) return;
  const std::uint32_t n = s.nblock, d = a.dist[b * slots + i];
  const std::uint32_t m = (d < cap ? d : cap) < n - start ? (d < cap ? d : cap) : n - start;  // ruler_emit stops at n
  const std::uint8_t* kept = stretch_base(a, b) + std::size_t{i} * cap;
  std::uint8_t* out = a.out + b * a.limit;
  for (std::uint32_t j = lane; j < m; j += 32) out[start + j] = kept[j];
  if (d > cap && lane == 0) {
    const std::uint32_t* tt = a.tt + b * a.limit;
    std::uint32_t v = tt[a.hist[b * a.links() * 256 + i]];
    for (std::uint32_t j = cap; j < d && start + j < n; ++j) {
      v = tt[v >> 8];
      out[start + j] = static_cast<std::uint8_t>(v & 0xff);
    }
  }
}

// steps::mtf_local with each thread's list in shared memory (ours): the list in local memory
// (256 bytes a thread, 48 MB for the tarball's 188,000 chunks) went through L1 to L2, and a move of
// j places was j byte loads and stores. Here byte k
// of thread t's list is byte k % 4 of word (k / 4) * kMtfThreads + t, so a thread's words all lie
// in its own bank (no conflicts whatever places the threads move), and a move shifts whole words.
constexpr unsigned kMtfThreads = 128;

__global__ void __launch_bounds__(kMtfThreads) mtf_local_kernel(steps::Batch a, std::size_t chunks_total) {
  __shared__ std::uint32_t lists[64 * kMtfThreads];
  std::uint32_t* const list = lists + threadIdx.x;  // word w at list[w * kMtfThreads]
  const std::size_t g = std::size_t{blockIdx.x} * kMtfThreads + threadIdx.x;
  if (g >= chunks_total) return;
  const std::size_t chunks = a.chunks(), b = g / chunks, c = g % chunks;
  const std::uint32_t items = a.work[b].items;
  if (a.info[b].error != bz2::BlockError::none || c * steps::kItemChunk >= items) return;
  for (unsigned w = 0; w < 64; ++w) list[w * kMtfThreads] = 0x03020100u + 0x04040404u * w;  // 0, 1, ..., 255
  const std::uint32_t* item = a.tt + b * a.limit;
  std::uint8_t* codes = a.out + b * a.limit;
  std::uint32_t at = a.chunk_at[b * chunks + c];
  const auto first = static_cast<std::uint32_t>(c * steps::kItemChunk);
  const std::uint32_t end = items - first < steps::kItemChunk ? items : first + steps::kItemChunk;
  for (std::uint32_t i = first; i < end; ++i) {
    const std::uint32_t it = item[i];
    if ((it & 1u) != 0) {  // a zero run: list[0] again
      const auto v = static_cast<std::uint8_t>(list[0] & 0xffu);
      for (std::uint32_t k = 0, r = it >> 1; k < r; ++k) codes[at++] = v;
      continue;
    }
    const std::uint32_t j = it >> 1, wj = j >> 2, sj = 8 * (j & 3u);
    std::uint32_t top = list[wj * kMtfThreads];
    const std::uint32_t v = top >> sj & 0xffu;
    // Bytes 0 .. j move up one place, byte j's value to place 0: in the top word its bytes up to
    // j's (a mask), below it whole words, each taking the byte its lower neighbour pushes out.
    const std::uint32_t upto = sj == 24 ? 0xffffffffu : (1u << (sj + 8)) - 1u;
    if (wj == 0) {
      list[0] = (top & ~upto) | ((top << 8) & upto) | v;
    } else {
      std::uint32_t below = list[(wj - 1) * kMtfThreads];
      list[wj * kMtfThreads] = (top & ~upto) | ((top << 8) & upto) | (below >> 24);
      for (std::uint32_t w = wj - 1; w > 0; --w) {
        const std::uint32_t lower = list[(w - 1) * kMtfThreads];
        list[w * kMtfThreads] = below << 8 | lower >> 24;
        below = lower;
      }
      list[0] = below << 8 | v;
    }
    codes[at++] = static_cast<std::uint8_t>(v);
  }
  auto* moved = reinterpret_cast<std::uint32_t*>(a.lists + g * 256);  // where each place of the list came from
  for (unsigned w = 0; w < 64; ++w) moved[w] = list[w * kMtfThreads];
}

template <void (*Step)(const steps::Batch&, std::size_t)>
__global__ void each_kernel(steps::Batch a, std::size_t items) {
  for (std::size_t g = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; g < items; g += std::size_t{gridDim.x} * blockDim.x) Step(a, g);
}

unsigned grid_for(std::size_t items) {
  const std::size_t blocks = (items + kThreads - 1) / kThreads;
  constexpr std::size_t kMaxGrid = std::size_t{1} << 20;  // grid-stride beyond
  return static_cast<unsigned>(blocks == 0 ? 1 : (blocks < kMaxGrid ? blocks : kMaxGrid));
}

void check(std::size_t count, std::uint32_t limit, std::size_t scratch_bytes, const char* what) {
  if (limit == 0 || limit > bz2::block_limit(9)) throw ContractError(std::string(what) + ": block limit " + std::to_string(limit));
  const std::size_t need = steps::layout(count, limit).total;
  if (scratch_bytes < need)
    throw ContractError(std::string(what) + ": scratch of " + std::to_string(scratch_bytes) + " bytes, needs " + std::to_string(need));
}

}  // namespace

std::size_t decode_scratch_bytes(std::size_t count, std::uint32_t limit) { return steps::layout(count, limit).total; }

void decode_batch(const BatchBlock* blocks, std::size_t count, std::uint32_t limit, bz2::BlockSymbols* info, std::uint8_t* out, void* scratch,
                  std::size_t scratch_bytes, cudaStream_t stream, WalkConfig walk) {
  PARCOMP_NVTX_RANGE("bz2gpu::decode_batch");
  check_walk(walk, "bz2gpu::decode_batch");
  if (count == 0) return;
  check(count, limit, scratch_bytes, "bz2gpu::decode_batch");
  if (count > 0x7fffffffu) throw ContractError("bz2gpu::decode_batch: " + std::to_string(count) + " blocks in one batch");
  const steps::Batch a = steps::batch(blocks, count, limit, info, out, scratch);
  const std::size_t rulers = count * a.slots(), bytes = count * limit, chunks = count * a.chunks(), links = count * a.links();
  const std::size_t groups = count * bz2::kMaxSelectors, symbol_chunks = count * a.symbol_chunk_count();
  if (walk.bits == 12 && walk.threads == 256) launch_walk<12, 256>(a, count, stream);
  else if (walk.bits == 12) launch_walk<12, 64>(a, count, stream);
  else if (walk.threads == 256) launch_walk<11, 256>(a, count, stream);
  else launch_walk<11, 64>(a, count, stream);
  each_kernel<steps::group_symbols><<<grid_for(groups), kThreads, 0, stream>>>(a, groups);
  PARCOMP_CHECK_LAUNCH();
  each_kernel<steps::item_count><<<grid_for(symbol_chunks), kThreads, 0, stream>>>(a, symbol_chunks);
  PARCOMP_CHECK_LAUNCH();
  each_kernel<steps::item_scan><<<grid_for(count), kThreads, 0, stream>>>(a, count);
  PARCOMP_CHECK_LAUNCH();
  each_kernel<steps::item_write><<<grid_for(symbol_chunks), kThreads, 0, stream>>>(a, symbol_chunks);
  PARCOMP_CHECK_LAUNCH();
  if (chunks > std::size_t{0x7fffffff} * kMtfThreads) throw ContractError("bz2gpu::decode_batch: " + std::to_string(chunks) + " item chunks in one batch");
  mtf_local_kernel<<<static_cast<unsigned>((chunks + kMtfThreads - 1) / kMtfThreads), kMtfThreads, 0, stream>>>(a, chunks);  // steps::mtf_local
  PARCOMP_CHECK_LAUNCH();
  mtf_compose_kernel<<<static_cast<unsigned>(count), 256, 0, stream>>>(a);
  PARCOMP_CHECK_LAUNCH();
  each_kernel<steps::mtf_bytes><<<grid_for(bytes), kThreads, 0, stream>>>(a, bytes);
  PARCOMP_CHECK_LAUNCH();
  launch_links(a, links, false, stream);  // steps::link_hist, a warp a chunk
  each_kernel<steps::link_total><<<grid_for(count * 256), kThreads, 0, stream>>>(a, count * 256);
  PARCOMP_CHECK_LAUNCH();
  each_kernel<steps::link_scan><<<grid_for(count * 256), kThreads, 0, stream>>>(a, count * 256);
  PARCOMP_CHECK_LAUNCH();
  launch_links(a, links, true, stream);  // steps::link_scatter, a warp a chunk
  each_kernel<steps::pack><<<grid_for(bytes), kThreads, 0, stream>>>(a, bytes);
  PARCOMP_CHECK_LAUNCH();
  const std::uint32_t cap = stretch_cap(limit);
  ruler_walk_kernel<<<grid_for(rulers), kThreads, 0, stream>>>(a, rulers, cap);  // steps::walk, keeping the bytes
  PARCOMP_CHECK_LAUNCH();
  rank_kernel<<<static_cast<unsigned>(count), kRankThreads, 0, stream>>>(a);  // steps::rank, a CTA a block
  PARCOMP_CHECK_LAUNCH();
  if (rulers > std::size_t{0x7fffffff} * kEmitWarps) throw ContractError("bz2gpu::decode_batch: " + std::to_string(rulers) + " rulers in one batch");
  emit_warp_kernel<<<static_cast<unsigned>((rulers + kEmitWarps - 1) / kEmitWarps), kEmitWarps * 32, 0, stream>>>(a, rulers, cap);  // steps::emit
  PARCOMP_CHECK_LAUNCH();
  each_kernel<steps::repeat><<<grid_for(bytes), kThreads, 0, stream>>>(a, bytes);
  PARCOMP_CHECK_LAUNCH();
}

void decode_batch_host(const BatchBlock* blocks, std::size_t count, std::uint32_t limit, bz2::BlockSymbols* info, std::uint8_t* out,
                       void* scratch, std::size_t scratch_bytes, WalkConfig walk) {
  check_walk(walk, "bz2gpu::decode_batch_host");
  if (count == 0) return;
  check(count, limit, scratch_bytes, "bz2gpu::decode_batch_host");
  const steps::Batch a = steps::batch(blocks, count, limit, info, out, scratch);
  const std::size_t rulers = count * a.slots(), bytes = count * limit, chunks = count * a.chunks(), links = count * a.links();
  const std::size_t groups = count * bz2::kMaxSelectors, symbol_chunks = count * a.symbol_chunk_count();
  std::vector<std::uint32_t> lut(std::size_t{bz2::kMaxTables} * steps::kWalkEntries);
  for (std::size_t b = 0; b < count; ++b) {
    if (walk.bits == 12) steps::group_starts<12>(a, b, lut.data());
    else steps::group_starts<11>(a, b, lut.data());
  }
  for (std::size_t g = 0; g < groups; ++g) steps::group_symbols(a, g);
  for (std::size_t g = 0; g < symbol_chunks; ++g) steps::item_count(a, g);
  for (std::size_t b = 0; b < count; ++b) steps::item_scan(a, b);
  for (std::size_t g = 0; g < symbol_chunks; ++g) steps::item_write(a, g);
  for (std::size_t g = 0; g < chunks; ++g) steps::mtf_local(a, g);
  for (std::size_t b = 0; b < count; ++b) steps::mtf_compose(a, b);
  for (std::size_t g = 0; g < bytes; ++g) steps::mtf_bytes(a, g);
  for (std::size_t g = 0; g < links; ++g) steps::link_hist(a, g);
  for (std::size_t g = 0; g < count * 256; ++g) steps::link_total(a, g);
  for (std::size_t g = 0; g < count * 256; ++g) steps::link_scan(a, g);
  for (std::size_t g = 0; g < links; ++g) steps::link_scatter(a, g);
  for (std::size_t g = 0; g < bytes; ++g) steps::pack(a, g);
  for (std::size_t g = 0; g < rulers; ++g) steps::walk(a, g);
  for (std::size_t b = 0; b < count; ++b) steps::rank(a, b);
  for (std::size_t g = 0; g < rulers; ++g) steps::emit(a, g);
  for (std::size_t g = 0; g < bytes; ++g) steps::repeat(a, g);
}

}  // namespace parcomp::bz2gpu
