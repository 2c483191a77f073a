// One .bz2 block written from its BWT: bzip2 1.0.8's generateMTFValues and sendMTFValues (compress.c)
// and its Huffman code lengths (huffman.c), read, not copied. Host and device code: the CPU
// workers (codec/bz2.cpp's encode_block) and the GPU encoder (kernels/bz2) run these same lines,
// so the byte-identity tests against libbz2 check the GPU's blocks too.
#pragma once

#include "core/bz2_block.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>

namespace parcomp::bz2 {

// MSB-first bits into bytes [0, capacity); bits past the capacity are counted, not written.
class BitSink {
 public:
  PARCOMP_HD BitSink(std::uint8_t* out, std::size_t capacity) : out_(out), cap_(capacity) {}
  PARCOMP_HD void put(std::uint32_t value, int n) {  // n <= 32
    acc_ = (acc_ << n) | value;
    pending_ += n;
    total_ += static_cast<std::uint64_t>(n);
    while (pending_ >= 8) {
      pending_ -= 8;
      if (at_ < cap_) out_[at_] = static_cast<std::uint8_t>(acc_ >> pending_);
      ++at_;
    }
  }
  // Pads the last byte with zeros; returns the bits written.
  PARCOMP_HD std::uint64_t finish() {
    if (pending_ > 0) {
      if (at_ < cap_) out_[at_] = static_cast<std::uint8_t>(acc_ << (8 - pending_));
      ++at_;
    }
    pending_ = 0;
    return total_;
  }

 private:
  std::uint8_t* out_;
  std::size_t cap_, at_ = 0;
  std::uint64_t acc_ = 0, total_ = 0;
  int pending_ = 0;
};

// bzip2's Huffman code lengths (BZ2_hbMakeCodeLengths): a zero frequency counts as 1; ties by the
// heap's order with subtree depth in the weight's low byte; while a length exceeds max_length, every
// frequency f becomes 1 + f / 2 and the tree is rebuilt.
PARCOMP_HD inline void make_code_lengths(const std::int32_t* freq, int alphabet, int max_length, std::uint8_t* lengths) {
  // Weights carry the subtree depth in their low byte, so that equal frequencies prefer the
  // shallower subtree; the heap compares whole weights (UPHEAP / DOWNHEAP).
  std::int32_t heap[kMaxAlphabet + 2];
  std::int32_t weight[kMaxAlphabet * 2];
  std::int32_t parent[kMaxAlphabet * 2];
  for (int i = 0; i < alphabet; ++i) weight[i + 1] = (freq[i] == 0 ? 1 : freq[i]) << 8;
  auto add_weights = [](std::int32_t a, std::int32_t b) {
    const std::int32_t depth = 1 + ((a & 0xff) > (b & 0xff) ? (a & 0xff) : (b & 0xff));
    return static_cast<std::int32_t>((a & static_cast<std::int32_t>(0xffffff00)) + (b & static_cast<std::int32_t>(0xffffff00))) | depth;
  };
  while (true) {
    int nodes = alphabet, n_heap = 0;
    heap[0] = 0;
    weight[0] = 0;
    parent[0] = -2;
    auto up = [&](int z) {
      const std::int32_t tmp = heap[z];
      while (weight[tmp] < weight[heap[z >> 1]]) {
        heap[z] = heap[z >> 1];
        z >>= 1;
      }
      heap[z] = tmp;
    };
    auto down = [&](int z) {
      const std::int32_t tmp = heap[z];
      while (true) {
        int y = z << 1;
        if (y > n_heap) break;
        if (y < n_heap && weight[heap[y + 1]] < weight[heap[y]]) ++y;
        if (weight[tmp] < weight[heap[y]]) break;
        heap[z] = heap[y];
        z = y;
      }
      heap[z] = tmp;
    };
    for (int i = 1; i <= alphabet; ++i) {
      parent[i] = -1;
      heap[++n_heap] = i;
      up(n_heap);
    }
    while (n_heap > 1) {
      const std::int32_t n1 = heap[1];
      heap[1] = heap[n_heap--];
      down(1);
      const std::int32_t n2 = heap[1];
      heap[1] = heap[n_heap--];
      down(1);
      ++nodes;
      parent[n1] = parent[n2] = nodes;
      weight[nodes] = add_weights(weight[n1], weight[n2]);
      parent[nodes] = -1;
      heap[++n_heap] = nodes;
      up(n_heap);
    }
    bool too_long = false;
    for (int i = 1; i <= alphabet; ++i) {
      int depth = 0;
      for (int k = i; parent[k] >= 0; k = parent[k]) ++depth;
      lengths[i - 1] = static_cast<std::uint8_t>(depth);
      if (depth > max_length) too_long = true;
    }
    if (!too_long) return;
    for (int i = 1; i <= alphabet; ++i) weight[i] = (1 + (weight[i] >> 8) / 2) << 8;
  }
}

// MTF symbols of a block: at most one per byte, and EOB.
inline constexpr std::size_t kMaxMtfSymbols = 900000 + 1;

// The small tables of one block being written (about 15 KB: in a GPU CTA's shared memory).
struct EncodeTables {
  std::int32_t mtf_freq[kMaxAlphabet];
  std::uint8_t len[kMaxTables][kMaxAlphabet];
  std::int32_t rfreq[kMaxTables][kMaxAlphabet];
  std::uint32_t cost[kMaxTables / 2][kMaxAlphabet];  // len of tables 2p and 2p + 1 as 16-bit halves (a round's, encode_pack_costs)
  std::uint32_t code[kMaxTables][kMaxAlphabet];
  bool in_use[256];
  std::uint8_t to_seq[256];  // a used byte's place among the used bytes
  std::uint32_t n_mtf, n_selectors;
  int groups, alpha;
};

// The working memory of one block being written (about 1.8 MB: reused from block to block on the
// CPU, one per block of a batch on the GPU, whose CTA keeps the tables in shared memory instead).
inline constexpr int kMtfChunks = 512;  // the most MTF chunks a block takes on the GPU (a thread each)

struct EncodeWork {
  std::uint16_t mtfv[kMaxMtfSymbols];
  std::uint8_t mtf_index[kMaxMtfSymbols];  // each byte's MTF position (0: the front)
  std::uint8_t selectors[kMaxSelectors];
  std::uint64_t group_bit[kMaxSelectors + 1];         // the GPU's: where each group's codes start
  std::uint8_t chunk_state[kMtfChunks][256];          // the GPU's: the MTF list at each chunk's start
  EncodeTables t;
};

// Bytes enough for the bits of a block of n bytes (n <= 900000).
PARCOMP_HD constexpr std::size_t encoded_bytes_bound(std::size_t n) {
  const std::size_t symbols = n + 1, selectors = (symbols + kGroupSize - 1) / kGroupSize;
  const std::size_t bits = 48 + 32 + 1 + 24 + 16 + 16 * 16 + 3 + 15 + selectors * kMaxTables +
                           kMaxTables * (5 + kMaxAlphabet * (1 + 2 * kDecodeMaxLength)) + symbols * kEncodeMaxLength;
  return bits / 8 + 8;
}

// A block is written in phases (encode_block_bits runs them in order; the GPU's CTA runs the
// per-group and per-table ones on several threads):
//   encode_mtf                      once: MTF, zero runs, the table count and starting tables
//   4 rounds of:  rfreq = 0, encode_pack_costs for every symbol, encode_choose for every group,
//                 make_code_lengths for every table
//   encode_codes                    for every table
//   encode_write                    once: the bits

// generateMTFValues, in pieces that also run on chunks of a block at once (the GPU's CTA):
//   encode_used_bits, encode_set_used              the used bytes (the GPU's CTA marks them in a
//                                                  shared array instead, then gathers the words)
//   mtf_chunk_list per chunk, mtf_next_state       each chunk's MTF list at its start
//   mtf_chunk_indices per chunk                    each byte's MTF position, from its chunk's list
//   mtf_chunk_emit per chunk                       zero runs as RUNA/RUNB, the other positions + 1
//                                                  (a zero run belongs to the chunk where it ends)
//   encode_end_mtf                                 EOB, then sendMTFValues' starting tables
// encode_mtf runs them on the whole block as one chunk (the CPU's writer).

// The bytes of last[a, b) as a bitmap (bits[v / 32] bit v % 32): marked byte by byte with plain
// stores (an OR into the bitmap per byte waits for the one before), then gathered.
PARCOMP_HD inline void encode_used_bits(const std::uint8_t* last, std::size_t a, std::size_t b, std::uint32_t* bits) {
  std::uint8_t seen[256];
  for (int v = 0; v < 256; ++v) seen[v] = 0;
  for (std::size_t i = a; i < b; ++i) seen[last[i]] = 1;
  for (int v = 0; v < 256; ++v)
    if (seen[v] != 0) bits[v >> 5] |= 1u << (v & 31);
}
PARCOMP_HD inline void encode_set_used(EncodeTables& t, const std::uint32_t* bits) {
  int n_in_use = 0;
  for (int i = 0; i < 256; ++i) {
    t.in_use[i] = (bits[i >> 5] >> (i & 31) & 1u) != 0;
    t.to_seq[i] = t.in_use[i] ? static_cast<std::uint8_t>(n_in_use++) : 0;
  }
  t.alpha = n_in_use + 2;
  for (int i = 0; i < kMaxAlphabet; ++i) t.mtf_freq[i] = 0;
}

// The distinct used-byte places of last[a, b), the most recent first (a chunk's MTF list moves
// these to the front in this order); returns how many.
PARCOMP_HD inline int mtf_chunk_list(const std::uint8_t* last, const std::uint8_t* to_seq, std::size_t a, std::size_t b, std::uint8_t* list) {
  bool seen[256];
  for (int i = 0; i < 256; ++i) seen[i] = false;
  int count = 0;
  for (std::size_t i = b; i-- > a;) {
    const std::uint8_t v = to_seq[last[i]];
    if (!seen[v]) {
      seen[v] = true;
      list[count++] = v;
    }
  }
  return count;
}
// The MTF list after a chunk: its list, then the list before it without those.
PARCOMP_HD inline void mtf_next_state(const std::uint8_t* before, int n_in_use, const std::uint8_t* list, int count, std::uint8_t* after) {
  bool moved[256];
  for (int i = 0; i < 256; ++i) moved[i] = false;
  for (int k = 0; k < count; ++k) {
    moved[list[k]] = true;
    after[k] = list[k];
  }
  int o = count;
  for (int k = 0; k < n_in_use; ++k)
    if (!moved[before[k]]) after[o++] = before[k];
}

// A chunk's zero positions at its end, and whether it has nothing else.
struct MtfTail {
  std::uint64_t zeros = 0;
  bool all_zero = true;
};
// An MTF list as words (ours): place p in bits 8 (p % 8) .. 8 (p % 8) + 7 of word p / 8, so that
// a move looks at and shifts 8 places a step. The first n places from list[0, n), the rest zero
// (never reached: a byte's place is found among the first n).
inline constexpr int kMtfWords = 32;
PARCOMP_HD inline void mtf_list_words(const std::uint8_t* list, int n, std::uint64_t* words) {
  for (int k = 0; k < kMtfWords; ++k) words[k] = 0;
  for (int p = 0; p < n; ++p) words[p >> 3] |= static_cast<std::uint64_t>(list[p]) << (8 * (p & 7));
}
// v to the front of the list (it is there): returns its place before. The places before it move
// one back, 8 at a time: a word's first zero byte of (word ^ v v ... v) is v's place in it (the
// lowest byte flagged by (x - 0x01..) & ~x & 0x80.. is exact), then that word's bytes below it
// shift up one with the byte carried in from the word before. The list's first word is `front`
// (a register in the GPU encoder: most moves end in it), the others yy[1..].
PARCOMP_HD inline int mtf_move(std::uint64_t& front, std::uint64_t* yy, std::uint8_t v) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  const std::uint64_t pat = kOnes * v;
  std::uint64_t carry = v, w = front;
  for (int k = 0;; w = yy[++k]) {
    const std::uint64_t x = w ^ pat, z = (x - kOnes) & ~x & kHighs;
    if (z != 0) {
#if defined(__CUDA_ARCH__)
      const int t = (__ffsll(static_cast<long long>(z)) - 1) >> 3;
#else
      const int t = std::countr_zero(z) >> 3;
#endif
      const std::uint64_t below = (std::uint64_t{1} << (8 * t)) - 1;  // bytes 0 .. t - 1
      const std::uint64_t moved = (w & ~(below << 8 | 0xffu)) | (w & below) << 8 | carry;
      if (k == 0) {
        front = moved;
      } else {
        yy[k] = moved;
      }
      return 8 * k + t;
    }
    if (k == 0) {
      front = w << 8 | carry;
    } else {
      yy[k] = w << 8 | carry;
    }
    carry = w >> 56;
  }
}
PARCOMP_HD inline int mtf_move(std::uint64_t* yy, std::uint8_t v) {
  std::uint64_t front = yy[0];
  const int j = mtf_move(front, yy, v);
  yy[0] = front;
  return j;
}
// The MTF positions of last[a, b) into index[a, b), from the list yy (words, moved as bzip2 moves
// its list).
PARCOMP_HD inline MtfTail mtf_chunk_indices(const std::uint8_t* last, const std::uint8_t* to_seq, std::size_t a, std::size_t b, std::uint64_t* yy,
                                            std::uint8_t* index) {
  MtfTail tail;
  std::uint64_t front = yy[0];
  for (std::size_t i = a; i < b; ++i) {
    const std::uint8_t v = to_seq[last[i]];
    if ((front & 0xffu) == v) {
      index[i] = 0;
      ++tail.zeros;
      continue;
    }
    index[i] = static_cast<std::uint8_t>(mtf_move(front, yy, v));
    tail.zeros = 0;
    tail.all_zero = false;
  }
  yy[0] = front;
  return tail;
}
// The zero run coming into the chunk after one whose run coming in was `run`, of `bytes` bytes.
PARCOMP_HD inline std::uint64_t mtf_run_after(std::uint64_t run, std::uint64_t bytes, const MtfTail& tail) {
  return tail.all_zero ? run + bytes : tail.zeros;
}
// The symbols of index[a, b): put(symbol) for each; `run` zeros come in from before the chunk; the
// last chunk also ends its own run.
// A zero run of `run` (>= 1) as RUNA/RUNB digits, put(symbol) for each.
template <typename Put>
PARCOMP_HD inline void mtf_put_run(std::uint64_t run, Put& put) {
  --run;
  while (true) {
    put((run & 1) != 0 ? kRunB : kRunA);
    if (run < 2) break;
    run = (run - 2) / 2;
  }
}
template <typename Put>
PARCOMP_HD inline void mtf_chunk_emit(const std::uint8_t* index, std::size_t a, std::size_t b, std::uint64_t run, bool last_chunk, Put put) {
  for (std::size_t i = a; i < b; ++i) {
    if (index[i] == 0) {
      ++run;
      continue;
    }
    if (run != 0) mtf_put_run(run, put);
    run = 0;
    put(static_cast<std::uint16_t>(index[i] + 1));
  }
  if (last_chunk && run != 0) mtf_put_run(run, put);
}

// After the symbols (n_symbols of them in mtfv, counted in t.mtf_freq): EOB, then sendMTFValues'
// table count and starting tables.
PARCOMP_HD inline void encode_end_mtf(std::uint16_t* mtfv, std::size_t n_symbols, EncodeTables& t) {
  const int alpha = t.alpha, eob = alpha - 1;
  mtfv[n_symbols] = static_cast<std::uint16_t>(eob);
  ++t.mtf_freq[eob];
  const std::size_t n_mtf = n_symbols + 1;
  const std::int32_t* mtf_freq = t.mtf_freq;
  t.n_mtf = static_cast<std::uint32_t>(n_mtf);
  t.n_selectors = static_cast<std::uint32_t>((n_mtf + kGroupSize - 1) / kGroupSize);
  const int groups = n_mtf < 200 ? 2 : n_mtf < 600 ? 3 : n_mtf < 1200 ? 4 : n_mtf < 2400 ? 5 : 6;
  t.groups = groups;
  auto& len = t.len;
  for (int k = 0; k < kMaxTables; ++k)
    for (int v = 0; v < kMaxAlphabet; ++v) len[k][v] = 15;
  int parts = groups;
  std::int64_t rem = static_cast<std::int64_t>(n_mtf);
  int gs = 0;
  while (parts > 0) {
    const std::int64_t target = rem / parts;
    int ge = gs - 1;
    std::int64_t a = 0;
    while (a < target && ge < alpha - 1) a += mtf_freq[++ge];
    if (ge > gs && parts != groups && parts != 1 && (groups - parts) % 2 == 1) a -= mtf_freq[ge--];
    for (int v = 0; v < alpha; ++v) len[parts - 1][v] = v >= gs && v <= ge ? 0 : 15;
    --parts;
    gs = ge + 1;
    rem -= a;
  }
}

// generateMTFValues on one core (1 <= n <= 900000), and the starting tables.
PARCOMP_HD inline void encode_mtf(const std::uint8_t* last, std::uint32_t n, EncodeWork& w) {
  EncodeTables& t = w.t;
  std::uint32_t bits[8] = {};
  encode_used_bits(last, 0, n, bits);
  encode_set_used(t, bits);
  std::uint64_t yy[kMtfWords];
  for (int k = 0; k < kMtfWords; ++k) yy[k] = 0x0706050403020100ull + 0x0808080808080808ull * static_cast<std::uint64_t>(k);  // 0, 1, ..., 255
  // bzip2's one pass (the GPU's chunks run mtf_chunk_indices and mtf_chunk_emit, two): each byte's
  // place and its symbols at once, the places not stored (one pass over the block, not three).
  std::size_t wr = 0;
  auto put = [&](std::uint16_t v) {
    w.mtfv[wr++] = v;
    ++t.mtf_freq[v];
  };
  std::uint64_t front = yy[0], run = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint8_t v = t.to_seq[last[i]];
    if ((front & 0xffu) == v) {
      ++run;
      continue;
    }
    if (run != 0) mtf_put_run(run, put);
    run = 0;
    put(static_cast<std::uint16_t>(mtf_move(front, yy, v) + 1));
  }
  if (run != 0) mtf_put_run(run, put);
  encode_end_mtf(w.mtfv, wr, t);
}

// Symbol v's code lengths in the six tables as three words of two 16-bit halves (bzip2's cost01,
// cost23, cost45), for the round's choices: every v < alpha before each round.
PARCOMP_HD inline void encode_pack_costs(EncodeTables& t, int v) {
  for (int p = 0; p < kMaxTables / 2; ++p) t.cost[p][v] = static_cast<std::uint32_t>(t.len[2 * p][v]) | static_cast<std::uint32_t>(t.len[2 * p + 1][v]) << 16;
}

// One round's choice for group g (50 symbols): the table that codes it in the fewest bits (the
// first on ties), as its selector; then add(table, symbol) for each of its symbols (the round's
// frequencies: ++rfreq[table][symbol], atomically where threads share them). The costs add two
// tables a word (t.cost: at most 50 codes of 20 bits, so a half never carries into the other).
template <typename Add>
PARCOMP_HD inline void encode_choose(const std::uint16_t* mtfv, std::size_t g, const EncodeTables& t, std::uint8_t* selector, Add add) {
  const std::size_t gs = g * kGroupSize, ge = gs + kGroupSize < t.n_mtf ? gs + kGroupSize : t.n_mtf;
  const int groups = t.groups;
  std::uint32_t pairs[kMaxTables / 2] = {};
  for (std::size_t i = gs; i < ge; ++i) {
    const std::uint16_t v = mtfv[i];
    for (int p = 0; p < kMaxTables / 2; ++p) pairs[p] += t.cost[p][v];
  }
  std::uint32_t cost[kMaxTables];
  for (int k = 0; k < kMaxTables; ++k) cost[k] = pairs[k / 2] >> (16 * (k % 2)) & 0xffffu;
  int bt = 0;
  for (int k = 1; k < groups; ++k)
    if (cost[k] < cost[bt]) bt = k;
  selector[g] = static_cast<std::uint8_t>(bt);
  for (std::size_t i = gs; i < ge; ++i) add(bt, mtfv[i]);
}

// Table k's codes (BZ2_hbAssignCodes): by length, then symbol.
PARCOMP_HD inline void encode_codes(EncodeTables& t, int k) {
  int lo = 32, hi = 0;
  for (int i = 0; i < t.alpha; ++i) {
    if (t.len[k][i] < lo) lo = t.len[k][i];
    if (t.len[k][i] > hi) hi = t.len[k][i];
  }
  std::uint32_t vec = 0;
  for (int l = lo; l <= hi; ++l) {
    for (int i = 0; i < t.alpha; ++i)
      if (t.len[k][i] == l) t.code[k][i] = vec++;
    vec <<= 1;
  }
}

// The block's bits up to its first symbol (magic, CRC, origPtr, used bytes, table count,
// selectors, code lengths) into s.
PARCOMP_HD inline void encode_write_head(const std::uint8_t* selector, const EncodeTables& t, std::uint32_t orig_ptr, std::uint32_t crc,
                                         BitSink& s) {
  const int groups = t.groups, alpha = t.alpha;
  const std::size_t n_selectors = t.n_selectors;
  const bool* in_use = t.in_use;
  s.put(static_cast<std::uint32_t>(kBlockMagic >> 24), 24);
  s.put(static_cast<std::uint32_t>(kBlockMagic & 0xffffff), 24);
  s.put(crc, 32);
  s.put(0, 1);  // not randomised
  s.put(orig_ptr, 24);
  std::uint32_t ranges = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      if (in_use[i * 16 + j]) ranges |= 1u << (15 - i);
  s.put(ranges, 16);
  for (int i = 0; i < 16; ++i) {
    if ((ranges >> (15 - i) & 1u) == 0) continue;
    std::uint32_t bits = 0;
    for (int j = 0; j < 16; ++j)
      if (in_use[i * 16 + j]) bits |= 1u << (15 - j);
    s.put(bits, 16);
  }
  s.put(static_cast<std::uint32_t>(groups), 3);
  s.put(static_cast<std::uint32_t>(n_selectors), 15);
  {
    std::uint8_t pos[kMaxTables];
    for (int i = 0; i < groups; ++i) pos[i] = static_cast<std::uint8_t>(i);
    for (std::size_t k = 0; k < n_selectors; ++k) {
      const std::uint8_t v = selector[k];
      int j = 0;
      while (pos[j] != v) ++j;
      shift_up(pos, j);
      pos[0] = v;
      for (int q = 0; q < j; ++q) s.put(1, 1);
      s.put(0, 1);
    }
  }
  for (int k = 0; k < groups; ++k) {
    int curr = t.len[k][0];
    s.put(static_cast<std::uint32_t>(curr), 5);
    for (int i = 0; i < alpha; ++i) {
      for (; curr < t.len[k][i]; ++curr) s.put(2, 2);
      for (; curr > t.len[k][i]; --curr) s.put(3, 2);
      s.put(0, 1);
    }
  }
}

// Group g's codes: put(code, length) for each of its symbols.
template <typename Put>
PARCOMP_HD inline void encode_group_codes(const std::uint16_t* mtfv, const std::uint8_t* selector, const EncodeTables& t, std::size_t g, Put put) {
  const int k = selector[g];
  const std::uint32_t* code = t.code[k];
  const std::uint8_t* len = t.len[k];
  const std::size_t gs = g * kGroupSize, ge = gs + kGroupSize < t.n_mtf ? gs + kGroupSize : t.n_mtf;
  for (std::size_t i = gs; i < ge; ++i) put(code[mtfv[i]], len[mtfv[i]]);
}

// 32 stream bits (the first in the top bit) as the word that holds them in memory on a
// little-endian machine (the GPU, x86).
PARCOMP_HD inline std::uint32_t stream_word(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, 0, 0x0123);
#else
  return __builtin_bswap32(x);
#endif
}

// Group g's codes from bit `start` of a zeroed buffer seen as little-endian 32-bit words:
// or_word(index, bits) for each word it touches. For writers whose groups run at once (the GPU's):
// two groups share the words at their ends, so or_word ORs atomically there.
template <typename Or>
PARCOMP_HD inline void encode_group_words(const std::uint16_t* mtfv, const std::uint8_t* selector, const EncodeTables& t, std::size_t g,
                                          std::uint64_t start, Or or_word) {
  std::uint64_t word = start >> 5, acc = 0;
  int pending = static_cast<int>(start & 31);  // bits in acc not yet OR'd, the oldest zeros
  encode_group_codes(mtfv, selector, t, g, [&](std::uint32_t code, int length) {
    acc = acc << length | code;
    pending += length;
    if (pending >= 32) {
      pending -= 32;
      or_word(word++, stream_word(static_cast<std::uint32_t>(acc >> pending)));
    }
  });
  if (pending > 0) or_word(word, stream_word(static_cast<std::uint32_t>(acc << (32 - pending))));
}

// The block's bits into out[0..capacity) from bit 0; returns the bits written.
PARCOMP_HD inline std::uint64_t encode_write(const std::uint16_t* mtfv, const std::uint8_t* selector, const EncodeTables& t,
                                             std::uint32_t orig_ptr, std::uint32_t crc, std::uint8_t* out, std::size_t capacity) {
  BitSink s(out, capacity);
  encode_write_head(selector, t, orig_ptr, crc, s);
  for (std::size_t g = 0; g < t.n_selectors; ++g)
    encode_group_codes(mtfv, selector, t, g, [&s](std::uint32_t code, int length) { s.put(code, length); });
  return s.finish();
}

// The block's bits from its BWT (last[0..n), the sorted rotations' last bytes of the initial
// run-length stage's output, and orig_ptr) and the CRC of its input, into out[0..capacity) from
// bit 0: bzip2's generateMTFValues and sendMTFValues, step for step (table count, starting tables,
// four rounds of choosing a table per 50 symbols and rebuilding code lengths with bzip2's Huffman
// rule, selectors, codes). Returns the bits written; 0 when n is 0 or more than 900000 (bzip2
// writes no such block).
PARCOMP_HD inline std::uint64_t encode_block_bits(const std::uint8_t* last, std::uint32_t n, std::uint32_t orig_ptr, std::uint32_t crc,
                                                  EncodeWork& w, std::uint8_t* out, std::size_t capacity) {
  if (n == 0 || n > kMaxMtfSymbols - 1) return 0;
  EncodeTables& t = w.t;
  encode_mtf(last, n, w);
  for (int iter = 0; iter < kIterations; ++iter) {
    for (int k = 0; k < t.groups; ++k)
      for (int v = 0; v < t.alpha; ++v) t.rfreq[k][v] = 0;
    for (int v = 0; v < t.alpha; ++v) encode_pack_costs(t, v);
    for (std::size_t g = 0; g < t.n_selectors; ++g)
      encode_choose(w.mtfv, g, t, w.selectors, [&t](int k, std::uint16_t v) { ++t.rfreq[k][v]; });
    for (int k = 0; k < t.groups; ++k) make_code_lengths(t.rfreq[k], t.alpha, kEncodeMaxLength, t.len[k]);
  }
  for (int k = 0; k < t.groups; ++k) encode_codes(t, k);
  return encode_write(w.mtfv, w.selectors, t, orig_ptr, crc, out, capacity);
}

}  // namespace parcomp::bz2
