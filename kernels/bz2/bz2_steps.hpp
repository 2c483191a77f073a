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

// Where each array of a batch lives in the scratch (offsets in bytes).
struct Layout {
  std::size_t work, tt, succ, dist, start, cycle, total;
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
  std::uint32_t *tt, *succ, *dist, *start, *cycle;
  bz2::BlockSymbols* info;
  std::uint8_t* out;
  PARCOMP_HD std::size_t slots() const { return bz2::ruler_slots(limit); }
};
inline Batch batch(const BatchBlock* blocks, std::size_t count, std::uint32_t limit, bz2::BlockSymbols* info, std::uint8_t* out, void* scratch) {
  const Layout l = layout(count, limit);
  auto* base = static_cast<std::uint8_t*>(scratch);
  return {blocks,
          count,
          limit,
          reinterpret_cast<bz2::DecodeWork*>(base + l.work),
          reinterpret_cast<std::uint32_t*>(base + l.tt),
          reinterpret_cast<std::uint32_t*>(base + l.succ),
          reinterpret_cast<std::uint32_t*>(base + l.dist),
          reinterpret_cast<std::uint32_t*>(base + l.start),
          reinterpret_cast<std::uint32_t*>(base + l.cycle),
          info,
          out};
}

// Block b: its symbols (the rows' bytes, in out until the inverse BWT writes there), then each
// row's next row in tt (items: count).
PARCOMP_HD inline void symbols(const Batch& a, std::size_t b) {
  std::uint32_t counts[256];
  std::uint8_t* bytes = a.out + b * a.limit;
  const BatchBlock blk = a.blocks[b];
  const bz2::BlockSymbols s = bz2::decode_symbols(blk.window, blk.window_bytes, blk.bit, a.limit, a.work[b], counts,
                                                  [bytes](std::uint32_t i, std::uint8_t v) { bytes[i] = v; });
  if (s.error == bz2::BlockError::none) bz2::link_next(a.tt + b * a.limit, bytes, s.nblock, counts);
  a.info[b] = s;
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
