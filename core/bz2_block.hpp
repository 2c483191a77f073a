// One .bz2 block, read: its symbols into the BWT's last column, and the inverse BWT. Host and
// device code: the CPU reader (codec/bz2.cpp) and the GPU decoder (kernels/bz2) run these same
// lines, so that the CPU tests and the fuzzer check the GPU's decoding too.
//
// decode_symbols follows bzip2 1.0.8's decompress.c (read, not copied): the header, the used
// bytes, the tables and their MTF-coded selectors, the code lengths, and the symbols (a table per
// 50) through the inverse MTF and the RUNA/RUNB zero runs. Damage is a BlockError with the bit
// where it was found (codec/bz2.hpp turns it into a message).
//
// The inverse BWT from origPtr alone: link_rows makes tt[row] = next row << 8 | the row's last
// byte (bzip2's tt; link_next and pack_row make the same on the GPU); the block's bytes (before the inverse initial run-length stage) are then
// out[k] = byte of s_k, s_0 = next(origPtr), s_{k+1} = next(s_k). walk() follows the chain on one
// core. For the GPU the chain is ranked with rulers (ours; list ranking by a sparse ruling set):
// the rows 0, K, 2K, ... and origPtr are rulers; every ruler walks to the next ruler on its
// cycle (ruler_walk, all at once), one thread per block chains the rulers from origPtr's and
// gives each its first output position (ruler_rank), and every ruler writes its stretch again
// (ruler_emit). A periodic block's chain closes after c < n rows (c divides n); out[k] = out[k mod
// c] then, which is what bzip2's n steps write.
#pragma once

#include "core/bits.hpp"

#include <cstddef>
#include <cstdint>
#include <bit>
#include <cstring>

#if defined(__SSE2__) && !defined(__CUDA_ARCH__)
#include <emmintrin.h>
#endif

namespace parcomp::bz2 {

// Moves p[0..j) one place up (the MTF lists): memmove on the host, a loop on the device.
PARCOMP_HD inline void shift_up(std::uint8_t* p, int j) {
#if defined(__CUDA_ARCH__)
  for (int k = j; k > 0; --k) p[k] = p[k - 1];
#else
  std::memmove(p + 1, p, static_cast<std::size_t>(j));
#endif
}

// The same on a list of 256 bytes (the inverse MTF of the symbols): on the host the short moves
// that most MTF values make at once, within the first 16 bytes (SSE2) or the first 8 (one word),
// memmove for the rest; a memmove call per symbol was 8% of the CPU reader's time on the Linux
// tarball.
PARCOMP_HD inline void shift_up_256(std::uint8_t* p, int j) {
#if defined(__CUDA_ARCH__)
  shift_up(p, j);
#elif defined(__SSE2__)
  if (j < 16) {  // bytes 1 .. j take bytes 0 .. j-1; byte 0 and the bytes past j stay
    const __m128i old = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i place = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i keep = _mm_or_si128(_mm_cmpgt_epi8(place, _mm_set1_epi8(static_cast<char>(j))), _mm_cvtsi32_si128(0xFF));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_or_si128(_mm_and_si128(keep, old), _mm_andnot_si128(keep, _mm_slli_si128(old, 1))));
    return;
  }
  shift_up(p, j);
#else
  if (j < 8) {
    static_assert(std::endian::native == std::endian::little, "shift_up_256's word path is little-endian");
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    // Bytes 1 .. j take bytes 0 .. j-1; byte 0 and the bytes past j stay.
    const std::uint64_t through_j = j == 7 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * (j + 1))) - 1;
    const std::uint64_t mask = through_j & ~std::uint64_t{0xFF};
    w = (w & ~mask) | ((w << 8) & mask);
    std::memcpy(p, &w, 8);
    return;
  }
  shift_up(p, j);
#endif
}

inline constexpr std::uint64_t kBlockMagic = 0x314159265359ull, kEndMagic = 0x177245385090ull;
inline constexpr int kGroupSize = 50, kMinTables = 2, kMaxTables = 6, kIterations = 4;
inline constexpr int kMaxAlphabet = 258;        // 256 MTF values + RUNA/RUNB - 1 + EOB
inline constexpr int kEncodeMaxLength = 17;     // what bzip2 >= 1.0.3 writes
inline constexpr int kDecodeMaxLength = 20;     // what every bzip2 decoder accepts
inline constexpr std::size_t kMaxSelectors = 18002;  // 2 + 900000 / 50; more are read and ignored
inline constexpr std::uint16_t kRunA = 0, kRunB = 1;
inline constexpr std::size_t kHeaderBytes = 4, kMaxRun = 255;
// A bound on a block's bits from its magic to its last symbol, for any encoder: 900001 symbols of
// at most 20 bits, 32767 selectors, six tables of 258 lengths that do not wander, the headers.
inline constexpr std::uint64_t kMaxBlockBits = 18'400'000;

// Largest block, in bytes after the initial run-length stage, a level's decoder accepts.
PARCOMP_HD constexpr std::size_t block_limit(int level) { return 100000u * static_cast<std::size_t>(level); }
// bzip2's encoder closes a block once it holds this many bytes (the last run may add 4 more).
PARCOMP_HD constexpr std::size_t block_fill(int level) { return block_limit(level) - 19; }

enum class BlockError : std::uint8_t {
  none,
  no_magic,             // no block magic at the bit asked for
  past_end,             // bits past the input's end were needed
  no_bytes,             // the used-bytes bitmap is empty
  table_count,          // detail: the count read (2 to 6 allowed)
  no_selectors,         // a selector count of 0
  selector_range,       // a selector past the table count
  code_length,          // a code length outside 1 to 20
  no_codeword,          // bits that are no codeword of the table
  zero_run_too_long,    // RUNA/RUNB digits past any block's size
  too_many_bytes,       // more bytes than the limit given
  selectors_exhausted,  // more symbols than the selectors cover
  orig_ptr,             // detail: origPtr, detail2: the block's bytes
};

struct BlockSymbols {
  BlockError error = BlockError::none;
  std::uint64_t error_bit = 0;         // where the damage was found (bit of the input given)
  std::uint64_t detail = 0, detail2 = 0;
  std::uint32_t stored_crc = 0, orig_ptr = 0, nblock = 0;
  std::uint64_t end_bit = 0;  // the bit after the block's last symbol
  bool randomised = false;    // bzip2 0.9.0's randomised block (bz2::derandomise before the last stage)
};

// One table's decoder: bzip2's limit / base / perm (BZ2_hbCreateDecodeTables), so that any set of
// lengths decodes exactly as libbz2 decodes it, plus a lookup table of kLut-bit prefixes.
struct TableDecoder {
  static constexpr int kLut = 10;
  static constexpr std::uint16_t kSlow = 0xffff, kBad = 0xfffe;
  std::int32_t limit[kDecodeMaxLength + 3], base[kDecodeMaxLength + 3];
  std::uint16_t perm[kMaxAlphabet];
  int min_len = 0, count = 0;
  std::uint16_t lut[1 << kLut];  // symbol << 5 | length, or kSlow / kBad

  PARCOMP_HD void build(const std::uint8_t* length, int alpha) {
    min_len = 32;
    int max_len = 0;
    for (int i = 0; i < alpha; ++i) {
      if (length[i] < min_len) min_len = length[i];
      if (length[i] > max_len) max_len = length[i];
    }
    count = 0;
    for (int l = min_len; l <= max_len; ++l)
      for (int j = 0; j < alpha; ++j)
        if (length[j] == l) perm[count++] = static_cast<std::uint16_t>(j);
    for (int i = 0; i < kDecodeMaxLength + 3; ++i) base[i] = limit[i] = 0;
    for (int i = 0; i < alpha; ++i) ++base[length[i] + 1];
    for (int i = 1; i < kDecodeMaxLength + 3; ++i) base[i] += base[i - 1];
    std::int32_t vec = 0;
    for (int l = min_len; l <= max_len; ++l) {
      vec += base[l + 1] - base[l];
      limit[l] = vec - 1;
      vec <<= 1;
    }
    for (int l = min_len + 1; l <= max_len; ++l) base[l] = ((limit[l - 1] + 1) << 1) - base[l];
    for (std::uint32_t v = 0; v < (1u << kLut); ++v) {
      std::uint16_t e = kSlow;
      for (int zn = min_len; zn <= kLut; ++zn) {
        const auto zvec = static_cast<std::int32_t>(v >> (kLut - zn));
        if (zvec <= limit[zn]) {
          const std::int32_t k = zvec - base[zn];
          e = k < 0 || k >= count ? kBad : static_cast<std::uint16_t>(perm[k] << 5 | zn);
          break;
        }
      }
      lut[v] = e;
    }
  }
  // The symbol at the front of a left-aligned window and its length; -1 for bits libbz2 rejects.
  PARCOMP_HD int decode(std::uint64_t window, int& length) const {
    const std::uint16_t e = lut[window >> (64 - kLut)];
    if (e < kBad) {
      length = e & 31;
      return e >> 5;
    }
    if (e == kBad) return -1;
    for (int zn = min_len > kLut + 1 ? min_len : kLut + 1; zn <= kDecodeMaxLength; ++zn) {
      const auto zvec = static_cast<std::int32_t>(window >> (64 - zn));
      if (zvec <= limit[zn]) {
        const std::int32_t k = zvec - base[zn];
        if (k < 0 || k >= count) return -1;
        length = zn;
        return perm[k];
      }
    }
    return -1;
  }
};

// The tables and selectors of one block being decoded (about 35 KB: reused from block to block on
// the CPU, one per block of a batch on the GPU), and the used bytes (from_seq: the byte of each
// MTF value) with the GPU decoder's counts: its MTF items, its symbols before the end-of-block
// symbol, and the path the block takes (bz2_steps.hpp).
struct DecodeWork {
  TableDecoder tables[kMaxTables];
  std::uint8_t selectors[kMaxSelectors];
  std::uint8_t from_seq[256];
  std::uint32_t items = 0, symbols = 0;
  std::uint32_t path = 0;
};

// A block's header as decode_header reads it: where its symbols start and what they need.
struct BlockHeader {
  std::uint64_t symbols_bit = 0;  // the first symbol's bit
  std::size_t n_selectors = 0;    // at most kMaxSelectors (more are read and ignored)
  int n_in_use = 0, eob = 0;      // the used bytes' count; the end-of-block symbol
  int n_tables = 0;
  std::uint8_t from_seq[256];     // the byte of each MTF value (n_in_use of them)
};

// Reads the header of the block whose magic starts at bit `bit` of in[0..size): the magic, CRC,
// origPtr, used bytes, selectors (into w.selectors) and tables (into w.tables). The result's error
// is none when the header is whole; h then says where the symbols start.
PARCOMP_HD inline BlockSymbols decode_header(const std::uint8_t* in, std::size_t size, std::uint64_t bit, DecodeWork& w, BlockHeader& h) {
  BitReader br(in, size, bit);
  BlockSymbols r;
  auto fail = [&](BlockError e, std::uint64_t at, std::uint64_t detail = 0) {
    r.error = e;
    r.error_bit = at;
    r.detail = detail;
    return r;
  };
  const std::uint64_t end_bits = static_cast<std::uint64_t>(size) * 8;
  const std::uint64_t magic = static_cast<std::uint64_t>(br.take(24)) << 24 | br.take(24);
  if (magic != kBlockMagic) return fail(BlockError::no_magic, bit);
  r.stored_crc = br.take(32);
  r.randomised = br.take(1) != 0;
  r.orig_ptr = br.take(24);
  const std::uint32_t ranges = br.take(16);
  int n_in_use = 0;
  for (int i = 0; i < 16; ++i) {
    if ((ranges >> (15 - i) & 1u) == 0) continue;
    const std::uint32_t bits = br.take(16);
    for (int j = 0; j < 16; ++j)
      if ((bits >> (15 - j) & 1u) != 0) h.from_seq[n_in_use++] = static_cast<std::uint8_t>(i * 16 + j);
  }
  if (br.past_end()) return fail(BlockError::past_end, end_bits);
  if (n_in_use == 0) return fail(BlockError::no_bytes, br.used());
  const int alpha = n_in_use + 2;
  h.n_in_use = n_in_use;
  h.eob = n_in_use + 1;
  const int groups = static_cast<int>(br.take(3));
  if (groups < kMinTables || groups > kMaxTables) return fail(BlockError::table_count, br.used(), static_cast<std::uint64_t>(groups));
  std::size_t n_selectors = br.take(15);
  if (n_selectors == 0) return fail(BlockError::no_selectors, br.used());
  {
    std::uint8_t pos[kMaxTables];
    for (int i = 0; i < groups; ++i) pos[i] = static_cast<std::uint8_t>(i);
    for (std::size_t s = 0; s < n_selectors; ++s) {
      int j = 0;
      while (br.take(1) != 0) {
        if (++j >= groups) return fail(BlockError::selector_range, br.used());
      }
      if ((s & 1023) == 0 && br.past_end()) return fail(BlockError::past_end, end_bits);
      if (s >= kMaxSelectors) continue;  // libbz2 reads and ignores them
      const std::uint8_t v = pos[j];
      shift_up(pos, j);
      pos[0] = v;
      w.selectors[s] = v;
    }
    if (n_selectors > kMaxSelectors) n_selectors = kMaxSelectors;
  }
  h.n_selectors = n_selectors;
  h.n_tables = groups;
  if (br.past_end()) return fail(BlockError::past_end, end_bits);
  for (int t = 0; t < groups; ++t) {
    std::uint8_t length[kMaxAlphabet];
    int curr = static_cast<int>(br.take(5));
    for (int i = 0; i < alpha; ++i) {
      while (true) {
        if (curr < 1 || curr > kDecodeMaxLength) return fail(BlockError::code_length, br.used());
        if (br.take(1) == 0) break;
        curr += br.take(1) == 0 ? 1 : -1;
      }
      length[i] = static_cast<std::uint8_t>(curr);
    }
    if (br.past_end()) return fail(BlockError::past_end, end_bits);
    w.tables[t].build(length, alpha);
  }
  h.symbols_bit = br.used();
  return r;
}

// Decodes the header and the Huffman codes of the block whose magic starts at bit `bit` of
// in[0..size), at most `limit` bytes, into a sink of MTF items in block order:
//   sink.begin(from_seq, n_in_use)  the used bytes, before the first item;
//   sink.run(at, r)                 a zero run: r bytes (r >= 1) at bytes[at..at + r), each the
//                                   byte at the front of the MTF list;
//   sink.index(at, j)               MTF position j >= 1 (move to front) gives bytes[at].
// decode_symbols's sink does the inverse MTF at once (the CPU reader); the GPU decoder keeps the
// items (bz2_steps.hpp: its fallback for damaged blocks, and the check of its parallel path).
template <typename Sink>
PARCOMP_HD BlockSymbols decode_items(const std::uint8_t* in, std::size_t size, std::uint64_t bit, std::uint32_t limit, DecodeWork& w,
                                     Sink& sink) {
  BlockHeader h;
  BlockSymbols r = decode_header(in, size, bit, w, h);
  if (r.error != BlockError::none) return r;
  auto fail = [&](BlockError e, std::uint64_t at, std::uint64_t detail = 0, std::uint64_t detail2 = 0) {
    r.error = e;
    r.error_bit = at;
    r.detail = detail;
    r.detail2 = detail2;
    return r;
  };
  const std::uint64_t end_bits = static_cast<std::uint64_t>(size) * 8;
  const std::size_t n_selectors = h.n_selectors;
  const int eob = h.eob;
  BitReader br(in, size, h.symbols_bit);

  // The symbols: MTF values with zero runs.
  sink.begin(h.from_seq, h.n_in_use);
  std::uint32_t nblock = 0;
  std::size_t group = 0;
  int group_left = 0;
  const TableDecoder* table = nullptr;
  std::uint64_t run = 0, run_weight = 1;  // RUNA/RUNB digits so far, and the next digit's weight
  bool in_run = false;
  while (true) {
    if (group_left == 0) {
      if (group >= n_selectors) return fail(BlockError::selectors_exhausted, br.used());
      table = &w.tables[w.selectors[group++]];
      group_left = kGroupSize;
    }
    --group_left;
    int length = 0;
    const int sym = table->decode(br.window(), length);
    if (sym < 0) return fail(BlockError::no_codeword, br.used());
    br.skip(length);
    if (br.past_end()) return fail(BlockError::past_end, end_bits);
    if (sym == kRunA || sym == kRunB) {
      if (run_weight >= (std::uint64_t{2} << 20)) return fail(BlockError::zero_run_too_long, br.used());
      run += run_weight * (sym == kRunA ? 1u : 2u);
      run_weight <<= 1;
      in_run = true;
      continue;
    }
    if (in_run) {
      if (run > limit - nblock) return fail(BlockError::too_many_bytes, br.used());
      sink.run(nblock, static_cast<std::uint32_t>(run));
      nblock += static_cast<std::uint32_t>(run);
      run = 0;
      run_weight = 1;
      in_run = false;
    }
    if (sym == eob) break;
    if (nblock >= limit) return fail(BlockError::too_many_bytes, br.used());
    sink.index(nblock++, sym - 1);
  }
  r.end_bit = br.used();
  r.nblock = nblock;
  if (r.orig_ptr >= nblock) return fail(BlockError::orig_ptr, br.used(), r.orig_ptr, nblock);
  return r;
}

// The inverse MTF as the items come (bzip2's): put(i, byte) for i = 0, 1, ..., counts[256] the
// bytes' counts.
template <typename Put>
struct MtfSink {
  PARCOMP_HD MtfSink(std::uint32_t* c, Put p) : counts(c), put(p) {}
  std::uint32_t* counts;
  Put put;
  const std::uint8_t* from_seq = nullptr;
  std::uint8_t yy[256];  // set by begin()
  PARCOMP_HD void begin(const std::uint8_t* seq, int) {
    from_seq = seq;
    for (int i = 0; i < 256; ++i) counts[i] = 0;
    for (int i = 0; i < 256; ++i) yy[i] = static_cast<std::uint8_t>(i);
  }
  PARCOMP_HD void run(std::uint32_t at, std::uint32_t r) {
    const std::uint8_t b = from_seq[yy[0]];
    counts[b] += r;
    for (std::uint32_t k = 0; k < r; ++k) put(at + k, b);
  }
  PARCOMP_HD void index(std::uint32_t at, int j) {
    const std::uint8_t v = yy[j];
    shift_up_256(yy, j);
    yy[0] = v;
    const std::uint8_t b = from_seq[v];
    ++counts[b];
    put(at, b);
  }
};

// Decodes the symbols of the block whose magic starts at bit `bit` of in[0..size): put(i, byte)
// for i = 0, 1, ... (the BWT's last column), counts[256] the bytes' counts; at most `limit` bytes.
template <typename Put>
PARCOMP_HD BlockSymbols decode_symbols(const std::uint8_t* in, std::size_t size, std::uint64_t bit, std::uint32_t limit,
                                       DecodeWork& w, std::uint32_t* counts, Put put) {
  MtfSink<Put> sink(counts, put);
  return decode_items(in, size, bit, limit, w, sink);
}

// tt[0..n) holds each row's byte (the low 8 bits); adds each row's next row (tt[row] |= next << 8)
// by a stable counting sort of the bytes (counts: each byte's count in the block).
PARCOMP_HD inline void link_rows(std::uint32_t* tt, std::uint32_t n, const std::uint32_t* counts) {
  std::uint32_t start[256];
  for (std::uint32_t c = 0, sum = 0; c < 256; ++c) {
    start[c] = sum;
    sum += counts[c];
  }
  for (std::uint32_t i = 0; i < n; ++i) tt[start[tt[i] & 0xff]++] |= i << 8;
}

// The same links for one GPU thread: next[row] = next row (stores only: a read-modify-write of
// tt would wait for every read), the rows' bytes in their own array; pack_row joins them into tt.
PARCOMP_HD inline void link_next(std::uint32_t* next, const std::uint8_t* bytes, std::uint32_t n, const std::uint32_t* counts) {
  std::uint32_t start[256];
  for (std::uint32_t c = 0, sum = 0; c < 256; ++c) {
    start[c] = sum;
    sum += counts[c];
  }
  for (std::uint32_t i = 0; i < n; ++i) next[start[bytes[i]]++] = i;
}
PARCOMP_HD inline void pack_row(std::uint32_t* tt, const std::uint8_t* bytes, std::uint32_t row) { tt[row] = tt[row] << 8 | bytes[row]; }

// One step of the walk (bzip2's BZ_GET_FAST): the byte of the row after pos; pos moves there.
// Start with pos = tt[orig_ptr] >> 8.
PARCOMP_HD inline std::uint8_t walk_step(const std::uint32_t* tt, std::uint32_t& pos) {
  pos = tt[pos];
  const auto c = static_cast<std::uint8_t>(pos & 0xff);
  pos >>= 8;
  return c;
}

// The block's n bytes from its linked rows, on one core.
PARCOMP_HD inline void walk(const std::uint32_t* tt, std::uint32_t n, std::uint32_t orig_ptr, std::uint8_t* out) {
  std::uint32_t pos = tt[orig_ptr] >> 8;
  for (std::uint32_t i = 0; i < n; ++i) out[i] = walk_step(tt, pos);
}

// ---- the ruler ranking (GPU) -------------------------------------------------------------------

inline constexpr std::uint32_t kRulerStride = 256;  // K: a ruler every K rows (a power of two)
inline constexpr std::uint32_t kNoRuler = 0xffffffffu;

// Ruler slots of a block of n rows: rows 0, K, 2K, ... and one for origPtr (unused when origPtr is
// a multiple of K).
PARCOMP_HD constexpr std::uint32_t ruler_slots(std::uint32_t n) { return (n + kRulerStride - 1) / kRulerStride + 1; }
PARCOMP_HD inline std::uint32_t ruler_of(std::uint32_t row, std::uint32_t orig_ptr, std::uint32_t n) {
  if (row % kRulerStride == 0) return row / kRulerStride;
  return row == orig_ptr ? ruler_slots(n) - 1 : kNoRuler;
}
// The row of ruler slot i, kNoRuler for an unused slot.
PARCOMP_HD inline std::uint32_t ruler_row(std::uint32_t i, std::uint32_t orig_ptr, std::uint32_t n) {
  if (i + 1 == ruler_slots(n)) return orig_ptr % kRulerStride != 0 ? orig_ptr : kNoRuler;
  return i * kRulerStride < n ? i * kRulerStride : kNoRuler;
}

// Ruler i walks to the next ruler on its cycle: succ[i] its slot, dist[i] the rows stepped.
PARCOMP_HD inline void ruler_walk(const std::uint32_t* tt, std::uint32_t n, std::uint32_t orig_ptr, std::uint32_t i, std::uint32_t* succ,
                                  std::uint32_t* dist) {
  const std::uint32_t row = ruler_row(i, orig_ptr, n);
  if (row == kNoRuler) {
    succ[i] = kNoRuler;
    dist[i] = 0;
    return;
  }
  std::uint32_t x = row, d = 0, slot = kNoRuler;
  do {  // tt is a permutation's links: the walk meets a ruler (at the latest itself) within n steps
    x = tt[x] >> 8;
    ++d;
    slot = ruler_of(x, orig_ptr, n);
  } while (slot == kNoRuler && d < n);
  succ[i] = slot;
  dist[i] = d;
}

// One thread per block: the rulers on origPtr's cycle from origPtr's, each with its first output
// position (start[i]; kNoRuler for rulers off the cycle). Returns the cycle's length c (n, or a
// divisor of n for a periodic block).
PARCOMP_HD inline std::uint32_t ruler_rank(const std::uint32_t* succ, const std::uint32_t* dist, std::uint32_t n, std::uint32_t orig_ptr,
                                           std::uint32_t* start) {
  const std::uint32_t slots = ruler_slots(n);
  for (std::uint32_t i = 0; i < slots; ++i) start[i] = kNoRuler;
  const std::uint32_t first = ruler_of(orig_ptr, orig_ptr, n);
  std::uint32_t i = first, p = 0;
  do {
    start[i] = p;
    p += dist[i];
    i = succ[i];
  } while (i != first && i != kNoRuler && p < n);
  return p < n ? p : n;
}

// Ruler i writes its stretch: out[start[i] .. start[i] + dist[i]) (nothing off origPtr's cycle).
PARCOMP_HD inline void ruler_emit(const std::uint32_t* tt, std::uint32_t n, std::uint32_t orig_ptr, std::uint32_t i, const std::uint32_t* dist,
                                  const std::uint32_t* start, std::uint8_t* out) {
  const std::uint32_t s = start[i];
  if (s == kNoRuler) return;
  std::uint32_t v = tt[ruler_row(i, orig_ptr, n)];
  for (std::uint32_t j = 0, d = dist[i]; j < d && s + j < n; ++j) {
    v = tt[v >> 8];
    out[s + j] = static_cast<std::uint8_t>(v & 0xff);
  }
}

// Byte k of a block whose chain closed after c rows: the first cycle again (k >= c), as bzip2's
// n steps write it.
PARCOMP_HD inline void ruler_repeat(std::uint8_t* out, std::uint32_t n, std::uint32_t c, std::uint32_t k) {
  if (k >= c && k < n) out[k] = out[k % c];
}

}  // namespace parcomp::bz2
