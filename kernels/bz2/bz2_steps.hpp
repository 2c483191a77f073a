// The GPU .bz2 decoder's kernels, one element each: what a thread of each kernel does (host and
// device code). bz2_decode.cu runs each step in a grid-stride loop, one kernel after the other;
// decode_batch_host (bz2_decode.hpp) runs the same steps one after the other on the host, so that
// the CPU tests check the batch's layout and the steps' order without a GPU.
#pragma once

#include "bz2_decode.hpp"
#include "core/bz2_block.hpp"

#include <cstddef>
#include <cstdint>

namespace parcomp::bz2gpu::steps {

// A block's MTF items are cut into chunks of kItemChunk (the inverse MTF of each chunk on its own
// thread: small chunks, many threads; their lists are chained a place per thread), its bytes into chunks of kLinkChunk (the links' counting sort, a thread each).
inline constexpr std::uint32_t kItemChunk = 1024, kLinkChunk = 4096;
PARCOMP_HD constexpr std::uint32_t item_chunks(std::uint32_t limit) { return (limit + kItemChunk - 1) / kItemChunk; }
PARCOMP_HD constexpr std::uint32_t link_chunks(std::uint32_t limit) { return (limit + kLinkChunk - 1) / kLinkChunk; }
// A block's Huffman symbols (at most limit before the end-of-block symbol, and that one) are cut
// into chunks of kSymbolChunk for the zero runs (a thread each).
inline constexpr std::uint32_t kSymbolChunk = 1024;
PARCOMP_HD constexpr std::uint32_t symbol_slots(std::uint32_t limit) { return limit + 1; }
PARCOMP_HD constexpr std::uint32_t symbol_chunks(std::uint32_t limit) { return (limit + kSymbolChunk - 1) / kSymbolChunk; }
// DecodeWork::path: where a block is after group_starts.
inline constexpr std::uint32_t kPathDone = 0;      // decoded by the serial fallback, or damaged in its header
inline constexpr std::uint32_t kPathParallel = 1;  // its groups' starts are known: the parallel steps decode it

// Where each array of a batch lives in the scratch (offsets in bytes).
struct Layout {
  std::size_t work, tt, chunk_at, lists, hist, link_totals, succ, dist, start, cycle, group_bit, symbols, symbol_counts, total;
};
constexpr std::size_t align_up(std::size_t x) { return (x + 255) / 256 * 256; }
inline Layout layout(std::size_t count, std::uint32_t limit) {
  Layout l{};
  const std::size_t slots = bz2::ruler_slots(limit);
  std::size_t at = 0;
  l.work = at;
  at += align_up(count * sizeof(bz2::DecodeWork));
  l.tt = at;
  at += align_up(count * limit * sizeof(std::uint32_t));
  l.chunk_at = at;
  at += align_up(count * item_chunks(limit) * sizeof(std::uint32_t));
  l.lists = at;
  at += align_up(count * item_chunks(limit) * 256);
  l.hist = at;
  at += align_up(count * link_chunks(limit) * 256 * sizeof(std::uint32_t));
  l.link_totals = at;
  at += align_up(count * 256 * sizeof(std::uint32_t));
  l.succ = at;
  at += align_up(count * slots * sizeof(std::uint32_t));
  l.dist = at;
  at += align_up(count * slots * sizeof(std::uint32_t));
  l.start = at;
  at += align_up(count * slots * sizeof(std::uint32_t));
  l.cycle = at;
  at += align_up(count * sizeof(std::uint32_t));
  l.group_bit = at;
  at += align_up(count * bz2::kMaxSelectors * sizeof(std::uint32_t));
  l.symbols = at;
  at += align_up(count * symbol_slots(limit) * sizeof(std::uint16_t));
  l.symbol_counts = at;
  at += align_up(count * symbol_chunks(limit) * 2 * sizeof(std::uint32_t));
  l.total = at;
  return l;
}

struct Batch {
  const BatchBlock* blocks;
  std::size_t count;
  std::uint32_t limit;
  bz2::DecodeWork* work;
  std::uint32_t* tt;        // a block's MTF items, then its rows' links (tt)
  std::uint32_t* chunk_at;  // item chunk c's first byte (item_chunks(limit) a block)
  std::uint8_t* lists;      // item chunk c's MTF list: its moves, then the list at its start (256 each)
  std::uint32_t* hist;      // link chunk h's byte counts, then its bytes' first rows (256 each)
  std::uint32_t* link_totals;  // each byte value's rows in its block (256 a block)
  std::uint32_t *succ, *dist, *start, *cycle;
  std::uint32_t* group_bit;      // where each group of 50 symbols starts, from the block's magic (kMaxSelectors a block)
  std::uint16_t* symbols;        // the Huffman symbols, the end-of-block symbol last (symbol_slots(limit) a block)
  std::uint32_t* symbol_counts;  // symbol chunk c's items and bytes, then its first item and byte (2 each)
  bz2::BlockSymbols* info;
  std::uint8_t* out;
  PARCOMP_HD std::size_t slots() const { return bz2::ruler_slots(limit); }
  PARCOMP_HD std::size_t chunks() const { return item_chunks(limit); }
  PARCOMP_HD std::size_t links() const { return link_chunks(limit); }
  PARCOMP_HD std::size_t symbol_chunk_count() const { return symbol_chunks(limit); }
};
inline Batch batch(const BatchBlock* blocks, std::size_t count, std::uint32_t limit, bz2::BlockSymbols* info, std::uint8_t* out, void* scratch) {
  const Layout l = layout(count, limit);
  auto* base = static_cast<std::uint8_t*>(scratch);
  return {blocks,
          count,
          limit,
          reinterpret_cast<bz2::DecodeWork*>(base + l.work),
          reinterpret_cast<std::uint32_t*>(base + l.tt),
          reinterpret_cast<std::uint32_t*>(base + l.chunk_at),
          base + l.lists,
          reinterpret_cast<std::uint32_t*>(base + l.hist),
          reinterpret_cast<std::uint32_t*>(base + l.link_totals),
          reinterpret_cast<std::uint32_t*>(base + l.succ),
          reinterpret_cast<std::uint32_t*>(base + l.dist),
          reinterpret_cast<std::uint32_t*>(base + l.start),
          reinterpret_cast<std::uint32_t*>(base + l.cycle),
          reinterpret_cast<std::uint32_t*>(base + l.group_bit),
          reinterpret_cast<std::uint16_t*>(base + l.symbols),
          reinterpret_cast<std::uint32_t*>(base + l.symbol_counts),
          info,
          out};
}

// ---- a block's symbols: its rows' bytes (in out until the inverse BWT writes there) ----------------
// The Huffman codes are a serial chain: one thread a block reads the header and walks the codes,
// each code's length only, to find where every group of 50 symbols starts (group_starts); then
// every group decodes its symbols at once (group_symbols), and chunks of symbols turn the RUNA/RUNB
// digits into zero runs (item_count, item_scan, item_write: the MTF items). A block whose walk or
// runs meet damage is decoded by the serial decoder instead (huff: decode_items, the CPU reader's
// lines), so that every verdict is the CPU reader's. The inverse MTF and the links, the work per
// byte, run on many threads: each item chunk moves a list of its own (mtf_local), a CTA a
// block chains the chunks' lists, a list place per thread (mtf_compose_place), every byte finds its value (mtf_bytes); the links
// are a stable counting sort by chunks of bytes (link_hist, link_total, link_scan, link_scatter:
// each byte value of a block scans the chunks' counts on a thread of its own), the same next rows
// as bz2::link_next.

// The items of decode_items, kept: a zero run of r as r << 1 | 1, MTF position j as j << 1; and
// every kItemChunk-th item's first byte.
struct ItemSink {
  std::uint32_t* items;
  std::uint32_t* chunk_at;
  bz2::DecodeWork* w;
  std::uint32_t n = 0;
  PARCOMP_HD void begin(const std::uint8_t* from_seq, int n_in_use) {
    for (int i = 0; i < 256; ++i) w->from_seq[i] = i < n_in_use ? from_seq[i] : 0;
  }
  PARCOMP_HD void put(std::uint32_t at, std::uint32_t item) {
    if (n % kItemChunk == 0) chunk_at[n / kItemChunk] = at;
    items[n++] = item;
  }
  PARCOMP_HD void run(std::uint32_t at, std::uint32_t r) { put(at, r << 1 | 1u); }
  PARCOMP_HD void index(std::uint32_t at, int j) { put(at, static_cast<std::uint32_t>(j) << 1); }
};

// Block b, serially: its header, tables and Huffman codes into items (the fallback).
PARCOMP_HD PARCOMP_COLD inline void huff(const Batch& a, std::size_t b) {
  const BatchBlock blk = a.blocks[b];
  ItemSink sink{a.tt + b * a.limit, a.chunk_at + b * a.chunks(), a.work + b};
  const bz2::BlockSymbols s = bz2::decode_items(blk.window, blk.window_bytes, blk.bit, a.limit, a.work[b], sink);
  a.work[b].path = kPathDone;
  a.work[b].items = s.error == bz2::BlockError::none ? sink.n : 0;
  a.info[b] = s;
}

// The walk's lookup table (ours): for each kWalkBits-bit window of a table, the codes that lie
// whole in it, at most kWalkMaxCodes (6), up to the end-of-block symbol: the bits of all of them
// (bits 0..4: the walk's common step, where the group goes on past them, moves the window by
// these five bits as they are), their count (bits 5..7) and the bits of the first 1..6 of them (4
// bits each, bits 8..31). Count 0 (the end-of-block symbol first, a longer code, or bits that are
// no codeword) sends the walk to one code at a time; such an entry is 0.
// kWalkBits is the default; 11 (half the shared memory, twice the walks an SM) is a choice of
// decode_batch's WalkConfig.
inline constexpr int kWalkBits = 12, kWalkMaxCodes = 6;
inline constexpr std::uint32_t kWalkEntries = 1u << kWalkBits;
template <int Bits = kWalkBits>
inline constexpr std::uint32_t walk_entries = 1u << Bits;
template <int Bits = kWalkBits>
PARCOMP_HD inline std::uint32_t walk_entry(const bz2::TableDecoder& t, std::uint32_t v, int eob) {
  std::uint32_t e = 0;
  int used = 0, count = 0;
  while (count < kWalkMaxCodes) {
    int length = 0;
    const int sym = t.decode(static_cast<std::uint64_t>(v) << (64 - Bits + used), length);
    if (sym < 0 || sym == eob || length > Bits - used) break;
    used += length;
    e |= static_cast<std::uint32_t>(used) << (8 + 4 * count);
    ++count;
  }
  return e | static_cast<std::uint32_t>(count) << 5 | static_cast<std::uint32_t>(used);
}
PARCOMP_HD constexpr int walk_count(std::uint32_t e) { return static_cast<int>(e >> 5 & 7u); }

// Block b's header (its tables and selectors into work[b]); the count of its tables, 0 when the
// header is damaged (info[b] says how).
PARCOMP_HD PARCOMP_COLD inline int open_block(const Batch& a, std::size_t b, bz2::BlockHeader& h) {
  const BatchBlock blk = a.blocks[b];
  bz2::DecodeWork& w = a.work[b];
  const bz2::BlockSymbols s = bz2::decode_header(blk.window, blk.window_bytes, blk.bit, w, h);
  w.path = kPathDone;
  w.items = 0;
  w.symbols = 0;
  a.info[b] = s;
  return s.error != bz2::BlockError::none ? 0 : h.n_tables;
}

// One table of the walk's lookup: on the GPU in shared memory, read by its 32-bit shared address
// (computed once a group: the generic address's conversion, left to the compiler, was redone at
// every lookup, a slow read of the CTA's id on the walk's chain). at(w): the entry of the window's
// first Bits bits; on the GPU a shift and a multiply-add to the address, in PTX, since the
// compiler's form of the same (a shift, a mask, an add) put one more instruction on the chain.
template <int Bits>
class WalkTable {
 public:
  PARCOMP_HD explicit WalkTable(const std::uint32_t* t) : t_(t) {
#if defined(__CUDA_ARCH__)
    s_ = static_cast<unsigned>(__cvta_generic_to_shared(t));
    asm("" : "+r"(s_));  // opaque: else the compiler rebuilt it from the CTA's id at every lookup
#endif
  }
  PARCOMP_HD std::uint32_t at(std::uint32_t window) const {
#if defined(__CUDA_ARCH__)
    std::uint32_t e;
    asm("{\n\t.reg .u32 i;\n\tshr.u32 i, %1, %3;\n\tmad.lo.u32 i, i, 4, %2;\n\tld.shared.u32 %0, [i];\n\t}"
        : "=r"(e)
        : "r"(window), "r"(s_), "n"(32 - Bits));
    return e;
#else
    return t_[window >> (32 - Bits)];
#endif
  }

 private:
  const std::uint32_t* t_;
  unsigned s_ = 0;
};

// Block b, after open_block: the bit where each group of 50 symbols starts, up to the end-of-block
// symbol, a lookup in lut (walk_entry of each table: kWalkEntries a table; in shared memory on
// the GPU) taking several codes at once. Anything decode_items would stop at on the way (bits that are no codeword, bits past the
// end, too few selectors, more symbols than bytes) hands the block to huff.
template <int Bits = kWalkBits>
PARCOMP_HD inline void walk_groups(const Batch& a, std::size_t b, const bz2::BlockHeader& h, const std::uint32_t* lut) {
  const BatchBlock blk = a.blocks[b];
  bz2::DecodeWork& w = a.work[b];
  const int eob = h.eob;
  const std::size_t n_selectors = h.n_selectors;
  const std::uint32_t limit = a.limit;
  WordBits br(blk.window, blk.window_bytes, h.symbols_bit);
  std::uint32_t* starts = a.group_bit + b * bz2::kMaxSelectors;
  int next_table = n_selectors > 0 ? w.selectors[0] : 0;  // a group ahead: no load on the walk's chain
  // Group g starts after g * kGroupSize symbols.
  for (std::size_t g = 0; g < n_selectors && g * bz2::kGroupSize <= limit; ++g) {
    starts[g] = static_cast<std::uint32_t>(br.used() - blk.bit);
    const int table = next_table;
    if (g + 1 < n_selectors) next_table = w.selectors[g + 1];
    const WalkTable<Bits> tl(lut + table * walk_entries<Bits>);
    int left = bz2::kGroupSize;
    for (;;) {
      // The walk is one thread's chain of dependent instructions (ours): where more codes are left
      // than an entry holds, the group goes on past all of an entry's codes, and the window moves by
      // the entry's low five bits as they are, so a step is the lookup, the window's funnel shift
      // and the next lookup's index; the window is refilled after every two steps (at most 24
      // bits). Four lookups a loop test. An entry of no codes (0) moves nothing, so the lookups
      // after it give 0 again and the last one's test sends the walk to one code.
      std::uint32_t e = 1;
      while (left > 4 * kWalkMaxCodes) {
        const std::uint32_t e1 = tl.at(br.peek32());
        br.take_low5(e1);
        const std::uint32_t e2 = tl.at(br.peek32());
        br.take_low5(e2);
        br.refill();
        const std::uint32_t e3 = tl.at(br.peek32());
        br.take_low5(e3);
        e = tl.at(br.peek32());
        br.take_low5(e);
        br.refill();
        left -= walk_count(e1) + walk_count(e2) + walk_count(e3) + walk_count(e);
        if (e == 0) break;
      }
      while (e != 0 && left > 2 * kWalkMaxCodes) {
        const std::uint32_t e1 = tl.at(br.peek32());
        br.take_low5(e1);
        e = tl.at(br.peek32());
        br.take_low5(e);
        br.refill();
        left -= walk_count(e1) + walk_count(e);
      }
      while (e != 0 && left > kWalkMaxCodes) {
        e = tl.at(br.peek32());
        br.take_low5(e);
        br.refill();
        left -= walk_count(e);
      }
      // The group's last codes: the first `left` of an entry's where it holds as many.
      while (e != 0 && left > 0) {
        e = tl.at(br.peek32());
        const int count = walk_count(e);
        if (count >= left) {
          br.skip_ahead(static_cast<int>(e >> (4 * left + 4) & 15u));
          left = 0;
        } else {
          br.take_low5(e);
          br.refill();
          left -= count;
        }
      }
      if (left == 0) break;
      // e == 0: one code, as decode_items reads it
      int length = 0;
      const int sym = w.tables[table].decode(br.window(), length);
      if (sym < 0) return huff(a, b);
      br.skip(length);
      if (br.past_end()) return huff(a, b);
      if (sym == eob) {
        const auto n = static_cast<std::uint32_t>(g * bz2::kGroupSize) + static_cast<std::uint32_t>(bz2::kGroupSize - left);  // symbols before it
        if (n > limit) return huff(a, b);
        for (int i = 0; i < 256; ++i) w.from_seq[i] = i < h.n_in_use ? h.from_seq[i] : 0;
        a.info[b].end_bit = br.used();
        w.symbols = n;
        w.path = kPathParallel;
        return;
      }
      if (--left == 0) break;
    }
    if (br.past_end()) return huff(a, b);  // decode_items stops at the first code past the end: its verdict
  }
  huff(a, b);
}

// Block b on one thread: open_block, the lookup tables, walk_groups (items: count).
template <int Bits = kWalkBits>
PARCOMP_HD inline void group_starts(const Batch& a, std::size_t b, std::uint32_t* lut) {
  bz2::BlockHeader h;
  const int tables = open_block(a, b, h);
  if (tables == 0) return;
  constexpr std::uint32_t entries = walk_entries<Bits>;
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(tables) * entries; ++i)
    lut[i] = walk_entry<Bits>(a.work[b].tables[i / entries], i % entries, h.eob);
  walk_groups<Bits>(a, b, h, lut);
}

// Group g % kMaxSelectors of block g / kMaxSelectors: its symbols (items: count * kMaxSelectors).
PARCOMP_HD inline void group_symbols(const Batch& a, std::size_t g) {
  const std::size_t b = g / bz2::kMaxSelectors;
  const auto first = static_cast<std::uint32_t>(g % bz2::kMaxSelectors) * bz2::kGroupSize;
  const bz2::DecodeWork& w = a.work[b];
  if (w.path != kPathParallel || first > w.symbols) return;
  const BatchBlock blk = a.blocks[b];
  BitReader br(blk.window, blk.window_bytes, blk.bit + a.group_bit[g]);
  const bz2::TableDecoder& t = w.tables[w.selectors[g % bz2::kMaxSelectors]];
  std::uint16_t* out = a.symbols + b * symbol_slots(a.limit);
  const std::uint32_t end = w.symbols + 1 - first < bz2::kGroupSize ? w.symbols + 1 : first + bz2::kGroupSize;
  for (std::uint32_t k = first; k < end; ++k) {
    int length = 0;
    out[k] = static_cast<std::uint16_t>(t.decode(br.window(), length));
    br.skip(length);
  }
}

// The items of symbol chunk c of a block's symbols[0..n) (symbols[n] is the end-of-block symbol):
// emit(item, bytes) for each, in order (decode_items's items). A zero run belongs to the chunk of
// its first digit, which reads on past its end to the run's last digit. False for a run of more
// digits than any block holds (decode_items: zero_run_too_long).
template <typename Emit>
PARCOMP_HD bool chunk_items(const std::uint16_t* symbols, std::uint32_t n, std::uint32_t c, Emit emit) {
  std::uint32_t i = c * kSymbolChunk;
  const std::uint32_t end = n - i < kSymbolChunk ? n : i + kSymbolChunk;
  if (i >= n) return true;
  if (i > 0 && symbols[i - 1] <= bz2::kRunB)
    while (i < end && symbols[i] <= bz2::kRunB) ++i;  // the end of a run an earlier chunk owns
  while (i < end) {
    const std::uint16_t sym = symbols[i];
    if (sym > bz2::kRunB) {
      emit(static_cast<std::uint32_t>(sym - 1) << 1, 1u);
      ++i;
      continue;
    }
    std::uint32_t run = 0, weight = 1;
    for (; symbols[i] <= bz2::kRunB; ++i) {
      if (weight >= (std::uint32_t{2} << 20)) return false;
      run += weight * (symbols[i] == bz2::kRunA ? 1u : 2u);
      weight <<= 1;
    }
    emit(run << 1 | 1u, run);
  }
  return true;
}

// Symbol chunk g % chunks of block g / chunks: its items and bytes (items: count * chunks).
PARCOMP_HD inline void item_count(const Batch& a, std::size_t g) {
  const std::size_t chunks = a.symbol_chunk_count(), b = g / chunks;
  const bz2::DecodeWork& w = a.work[b];
  if (w.path != kPathParallel) return;
  std::uint32_t items = 0;
  std::uint64_t bytes = 0;
  const bool ok = chunk_items(a.symbols + b * symbol_slots(a.limit), w.symbols, static_cast<std::uint32_t>(g % chunks),
                              [&](std::uint32_t, std::uint32_t n) {
                                ++items;
                                bytes += n;
                              });
  a.symbol_counts[g * 2] = items;
  a.symbol_counts[g * 2 + 1] = ok && bytes < 0xffffffffu ? static_cast<std::uint32_t>(bytes) : 0xffffffffu;
}

// Block b: each symbol chunk's first item and byte; its byte count, or huff for too many bytes or
// too long a run (items: count).
PARCOMP_HD inline void item_scan(const Batch& a, std::size_t b) {
  bz2::DecodeWork& w = a.work[b];
  if (w.path != kPathParallel) return;
  std::uint32_t* counts = a.symbol_counts + b * a.symbol_chunk_count() * 2;
  const std::uint32_t used = (w.symbols + kSymbolChunk - 1) / kSymbolChunk;
  std::uint32_t items = 0;
  std::uint64_t bytes = 0;
  for (std::uint32_t c = 0; c < used; ++c) {
    const std::uint32_t n_items = counts[c * 2], n_bytes = counts[c * 2 + 1];
    if (n_bytes == 0xffffffffu || bytes + n_bytes > a.limit) return huff(a, b);
    counts[c * 2] = items;
    counts[c * 2 + 1] = static_cast<std::uint32_t>(bytes);
    items += n_items;
    bytes += n_bytes;
  }
  w.items = items;
  bz2::BlockSymbols& s = a.info[b];
  s.nblock = static_cast<std::uint32_t>(bytes);
  if (s.orig_ptr >= s.nblock) {  // decode_items's last check
    s.error = bz2::BlockError::orig_ptr;
    s.error_bit = s.end_bit;
    s.detail = s.orig_ptr;
    s.detail2 = s.nblock;
    w.items = 0;
  }
}

// Symbol chunk g % chunks of block g / chunks: its items, and the first byte of every item chunk
// that starts among them (items: count * chunks).
PARCOMP_HD inline void item_write(const Batch& a, std::size_t g) {
  const std::size_t chunks = a.symbol_chunk_count(), b = g / chunks;
  const bz2::DecodeWork& w = a.work[b];
  if (w.path != kPathParallel || a.info[b].error != bz2::BlockError::none) return;
  const auto c = static_cast<std::uint32_t>(g % chunks);
  if (c * kSymbolChunk >= w.symbols) return;
  std::uint32_t n = a.symbol_counts[g * 2], at = a.symbol_counts[g * 2 + 1];
  std::uint32_t* items = a.tt + b * a.limit;
  std::uint32_t* chunk_at = a.chunk_at + b * a.chunks();
  chunk_items(a.symbols + b * symbol_slots(a.limit), w.symbols, c, [&](std::uint32_t item, std::uint32_t bytes) {
    if (n % kItemChunk == 0) chunk_at[n / kItemChunk] = at;
    items[n++] = item;
    at += bytes;
  });
}

// Item chunk g % chunks of block g / chunks: the inverse MTF from a list of its own (0, 1, ..., 255:
// the places of the list at the chunk's start), each byte as the place its value had there; then
// where each place of the list came from (items: count * chunks).
PARCOMP_HD inline void mtf_local(const Batch& a, std::size_t g) {
  const std::size_t chunks = a.chunks(), b = g / chunks, c = g % chunks;
  const std::uint32_t items = a.work[b].items;
  if (a.info[b].error != bz2::BlockError::none || c * kItemChunk >= items) return;
  const std::uint32_t* item = a.tt + b * a.limit;
  std::uint8_t* codes = a.out + b * a.limit;
  std::uint8_t list[256];
  PARCOMP_NO_UNROLL
  for (int k = 0; k < 256; ++k) list[k] = static_cast<std::uint8_t>(k);
  std::uint32_t at = a.chunk_at[b * chunks + c];
  const std::uint32_t end = items - c * kItemChunk < kItemChunk ? items : static_cast<std::uint32_t>((c + 1) * kItemChunk);
  for (std::uint32_t i = static_cast<std::uint32_t>(c * kItemChunk); i < end; ++i) {
    const std::uint32_t it = item[i];
    if ((it & 1u) != 0) {
      const std::uint8_t v = list[0];
      for (std::uint32_t k = 0, r = it >> 1; k < r; ++k) codes[at++] = v;
    } else {
      const int j = static_cast<int>(it >> 1);
      const std::uint8_t v = list[j];
      bz2::shift_up(list, j);
      list[0] = v;
      codes[at++] = v;
    }
  }
  std::uint8_t* moved = a.lists + (b * chunks + c) * 256;
  PARCOMP_NO_UNROLL
  for (int k = 0; k < 256; ++k) moved[k] = list[k];
}

// Block b's item chunks whose lists mtf_compose chains (0 for a damaged block).
PARCOMP_HD inline std::uint32_t mtf_used_chunks(const Batch& a, std::size_t b) {
  return a.info[b].error != bz2::BlockError::none ? 0u : (a.work[b].items + kItemChunk - 1) / kItemChunk;
}

// Place k of item chunk c of block b, given the list at the chunk's start (list): that list's
// place k goes to the chunk's slot, in place of the chunk's own move there, and the list at the
// next chunk's start has list[move] at place k. Every place of a block at once, chunk after chunk
// (the GPU: a CTA of 256 threads per block, the list in shared memory).
PARCOMP_HD inline std::uint8_t mtf_compose_place(const Batch& a, std::size_t b, std::uint32_t c, int k, const std::uint8_t* list) {
  std::uint8_t* slot = a.lists + (b * a.chunks() + c) * 256;
  const std::uint8_t moved = slot[k];
  slot[k] = list[k];
  return list[moved];
}

// Block b on one thread: the MTF list at each item chunk's start (bzip2's list 0, 1, ..., 255 at
// the first), over the chunks' moves, by mtf_compose_place (items: count).
PARCOMP_HD inline void mtf_compose(const Batch& a, std::size_t b) {
  const std::uint32_t used = mtf_used_chunks(a, b);
  std::uint8_t list[256], next[256];
  for (int k = 0; k < 256; ++k) list[k] = static_cast<std::uint8_t>(k);
  for (std::uint32_t c = 0; c < used; ++c) {
    for (int k = 0; k < 256; ++k) next[k] = mtf_compose_place(a, b, c, k, list);
    for (int k = 0; k < 256; ++k) list[k] = next[k];
  }
}

// Byte g % limit of block g / limit: its value, from its chunk's list at the chunk's start, as a
// byte (items: count * limit).
PARCOMP_HD inline void mtf_bytes(const Batch& a, std::size_t g) {
  const std::size_t b = g / a.limit;
  const auto i = static_cast<std::uint32_t>(g % a.limit);
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || i >= s.nblock) return;
  const std::size_t chunks = a.chunks();
  const std::uint32_t* at = a.chunk_at + b * chunks;
  std::uint32_t lo = 0, hi = (a.work[b].items + kItemChunk - 1) / kItemChunk;  // the last chunk whose first byte is <= i
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (at[mid] <= i) lo = mid;
    else hi = mid;
  }
  std::uint8_t* bytes = a.out + b * a.limit;
  bytes[i] = a.work[b].from_seq[a.lists[(b * chunks + lo) * 256 + bytes[i]]];
}

// Link chunk g % links of block g / links: its bytes' counts (items: count * links).
PARCOMP_HD inline void link_hist(const Batch& a, std::size_t g) {
  const std::size_t links = a.links(), b = g / links, h = g % links;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || h * kLinkChunk >= s.nblock) return;
  std::uint32_t counts[256];
  for (int v = 0; v < 256; ++v) counts[v] = 0;
  const std::uint8_t* bytes = a.out + b * a.limit;
  const std::uint32_t end = s.nblock - h * kLinkChunk < kLinkChunk ? s.nblock : static_cast<std::uint32_t>((h + 1) * kLinkChunk);
  for (std::uint32_t i = static_cast<std::uint32_t>(h * kLinkChunk); i < end; ++i) ++counts[bytes[i]];
  std::uint32_t* hist = a.hist + (b * links + h) * 256;
  for (int v = 0; v < 256; ++v) hist[v] = counts[v];
}

// Byte value g % 256 of block g / 256: its rows in the whole block (items: count * 256).
PARCOMP_HD inline void link_total(const Batch& a, std::size_t g) {
  const std::size_t b = g / 256, v = g % 256;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none) return;
  const std::size_t links = a.links();
  const std::uint32_t used = (s.nblock + kLinkChunk - 1) / kLinkChunk;
  const std::uint32_t* hist = a.hist + b * links * 256;
  std::uint32_t n = 0;
  for (std::uint32_t h = 0; h < used; ++h) n += hist[h * 256 + v];
  a.link_totals[g] = n;
}

// Byte value g % 256 of block g / 256: its first row in each link chunk, the rows of smaller bytes,
// then those of this byte in the chunks before (items: count * 256).
PARCOMP_HD inline void link_scan(const Batch& a, std::size_t g) {
  const std::size_t b = g / 256, v = g % 256;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none) return;
  const std::size_t links = a.links();
  const std::uint32_t used = (s.nblock + kLinkChunk - 1) / kLinkChunk;
  std::uint32_t* hist = a.hist + b * links * 256;
  std::uint32_t row = 0;
  for (std::size_t u = 0; u < v; ++u) row += a.link_totals[b * 256 + u];
  for (std::uint32_t h = 0; h < used; ++h) {
    const std::uint32_t n = hist[h * 256 + v];
    hist[h * 256 + v] = row;
    row += n;
  }
}

// Link chunk g % links of block g / links: each of its rows is the next row of the row its byte
// sorts to (items: count * links).
PARCOMP_HD inline void link_scatter(const Batch& a, std::size_t g) {
  const std::size_t links = a.links(), b = g / links, h = g % links;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || h * kLinkChunk >= s.nblock) return;
  std::uint32_t row[256];
  const std::uint32_t* first = a.hist + (b * links + h) * 256;
  for (int v = 0; v < 256; ++v) row[v] = first[v];
  const std::uint8_t* bytes = a.out + b * a.limit;
  std::uint32_t* next = a.tt + b * a.limit;
  const std::uint32_t end = s.nblock - h * kLinkChunk < kLinkChunk ? s.nblock : static_cast<std::uint32_t>((h + 1) * kLinkChunk);
  for (std::uint32_t i = static_cast<std::uint32_t>(h * kLinkChunk); i < end; ++i) next[row[bytes[i]]++] = i;
}

// Row g % limit of block g / limit: tt = next row << 8 | byte (items: count * limit).
PARCOMP_HD inline void pack(const Batch& a, std::size_t g) {
  const std::size_t b = g / a.limit;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || g % a.limit >= s.nblock) return;
  bz2::pack_row(a.tt + b * a.limit, a.out + b * a.limit, static_cast<std::uint32_t>(g % a.limit));
}

// Ruler slot g % slots of block g / slots walks to the next ruler (items: count * slots).
PARCOMP_HD inline void walk(const Batch& a, std::size_t g) {
  const std::size_t slots = a.slots(), b = g / slots;
  const auto i = static_cast<std::uint32_t>(g % slots);
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || i >= bz2::ruler_slots(s.nblock)) return;
  bz2::ruler_walk(a.tt + b * a.limit, s.nblock, s.orig_ptr, i, a.succ + b * slots, a.dist + b * slots);
}

// Block b's rulers chained from origPtr's (items: count).
PARCOMP_HD inline void rank(const Batch& a, std::size_t b) {
  const std::size_t slots = a.slots();
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none) return;
  a.cycle[b] = bz2::ruler_rank(a.succ + b * slots, a.dist + b * slots, s.nblock, s.orig_ptr, a.start + b * slots);
}

// A ruler writes its stretch (items: count * slots).
PARCOMP_HD inline void emit(const Batch& a, std::size_t g) {
  const std::size_t slots = a.slots(), b = g / slots;
  const auto i = static_cast<std::uint32_t>(g % slots);
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none || i >= bz2::ruler_slots(s.nblock)) return;
  bz2::ruler_emit(a.tt + b * a.limit, s.nblock, s.orig_ptr, i, a.dist + b * slots, a.start + b * slots, a.out + b * a.limit);
}

// Byte g % limit of block g / limit: a periodic block's first cycle again (items: count * limit).
PARCOMP_HD inline void repeat(const Batch& a, std::size_t g) {
  const std::size_t b = g / a.limit;
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none) return;
  bz2::ruler_repeat(a.out + b * a.limit, s.nblock, a.cycle[b], static_cast<std::uint32_t>(g % a.limit));
}

}  // namespace parcomp::bz2gpu::steps
