// The GPU .bz2 decoder's kernels, one element each: what a thread of each kernel does (host and
// device code). bz2_decode.cu runs each step in a grid-stride loop, one kernel after the other;
// decode_batch_host (bz2_decode.hpp) runs the same steps one after the other on the host, so that
// the CPU tests check the batch's layout and the steps' order without a GPU.
#pragma once

#include "bz2_decode.hpp"
#include "codec/common/bz2_block.hpp"

#include <cstddef>
#include <cstdint>

namespace parcomp::bz2gpu::steps {

// A block's MTF items are cut into chunks of kItemChunk (the inverse MTF of each chunk on its own
// thread), its bytes into chunks of kLinkChunk (the links' counting sort, a thread each).
inline constexpr std::uint32_t kItemChunk = 4096, kLinkChunk = 4096;
PARCOMP_HD constexpr std::uint32_t item_chunks(std::uint32_t limit) { return (limit + kItemChunk - 1) / kItemChunk; }
PARCOMP_HD constexpr std::uint32_t link_chunks(std::uint32_t limit) { return (limit + kLinkChunk - 1) / kLinkChunk; }

// Where each array of a batch lives in the scratch (offsets in bytes).
struct Layout {
  std::size_t work, tt, chunk_at, lists, hist, succ, dist, start, cycle, total;
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
  l.succ = at;
  at += align_up(count * slots * sizeof(std::uint32_t));
  l.dist = at;
  at += align_up(count * slots * sizeof(std::uint32_t));
  l.start = at;
  at += align_up(count * slots * sizeof(std::uint32_t));
  l.cycle = at;
  at += align_up(count * sizeof(std::uint32_t));
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
  std::uint32_t *succ, *dist, *start, *cycle;
  bz2::BlockSymbols* info;
  std::uint8_t* out;
  PARCOMP_HD std::size_t slots() const { return bz2::ruler_slots(limit); }
  PARCOMP_HD std::size_t chunks() const { return item_chunks(limit); }
  PARCOMP_HD std::size_t links() const { return link_chunks(limit); }
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
          reinterpret_cast<std::uint32_t*>(base + l.succ),
          reinterpret_cast<std::uint32_t*>(base + l.dist),
          reinterpret_cast<std::uint32_t*>(base + l.start),
          reinterpret_cast<std::uint32_t*>(base + l.cycle),
          info,
          out};
}

// ---- a block's symbols: its rows' bytes (in out until the inverse BWT writes there) ----------------
// The Huffman codes are a serial chain, one thread a block (huff); the inverse MTF and the links,
// the work per byte, run on many threads: each item chunk moves a list of its own (mtf_local),
// one thread a block chains the chunks' lists (mtf_compose), every byte finds its value
// (mtf_bytes); the links are a stable counting sort by chunks of bytes (link_hist, link_scan,
// link_scatter), the same next rows as bz2::link_next.

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

// Block b: its header, tables and Huffman codes into items (items: count).
PARCOMP_HD inline void huff(const Batch& a, std::size_t b) {
  const BatchBlock blk = a.blocks[b];
  ItemSink sink{a.tt + b * a.limit, a.chunk_at + b * a.chunks(), a.work + b};
  const bz2::BlockSymbols s = bz2::decode_items(blk.window, blk.window_bytes, blk.bit, a.limit, a.work[b], sink);
  a.work[b].items = s.error == bz2::BlockError::none ? sink.n : 0;
  a.info[b] = s;
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
  for (int k = 0; k < 256; ++k) moved[k] = list[k];
}

// Block b: the MTF list at each item chunk's start (bzip2's list 0, 1, ..., 255 at the first),
// over the chunk's moves (items: count).
PARCOMP_HD inline void mtf_compose(const Batch& a, std::size_t b) {
  if (a.info[b].error != bz2::BlockError::none) return;
  const std::size_t chunks = a.chunks();
  const std::uint32_t used = (a.work[b].items + kItemChunk - 1) / kItemChunk;
  std::uint8_t list[256], moved[256];
  for (int k = 0; k < 256; ++k) list[k] = static_cast<std::uint8_t>(k);
  for (std::uint32_t c = 0; c < used; ++c) {
    std::uint8_t* slot = a.lists + (b * chunks + c) * 256;
    for (int k = 0; k < 256; ++k) moved[k] = slot[k];
    for (int k = 0; k < 256; ++k) slot[k] = list[k];
    for (int k = 0; k < 256; ++k) moved[k] = list[moved[k]];
    for (int k = 0; k < 256; ++k) list[k] = moved[k];
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

// Block b: each link chunk's first row for each byte value: the rows of smaller bytes, then those
// of this byte in the chunks before (items: count).
PARCOMP_HD inline void link_scan(const Batch& a, std::size_t b) {
  const bz2::BlockSymbols& s = a.info[b];
  if (s.error != bz2::BlockError::none) return;
  const std::size_t links = a.links();
  const std::uint32_t used = (s.nblock + kLinkChunk - 1) / kLinkChunk;
  std::uint32_t* hist = a.hist + b * links * 256;
  std::uint32_t row = 0;
  for (int v = 0; v < 256; ++v)
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
