// The bzip2 stream format. See bz2.hpp; the steps follow bzip2 1.0.8's compress.c, huffman.c,
// bzlib.c and decompress.c (read, not copied), so that the bytes written are bzip2's.
#include "bz2.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/parallel.hpp"

#include <algorithm>
#include <optional>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace parcomp::bz2 {

namespace {

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i << 24;
    for (int k = 0; k < 8; ++k) c = (c & 0x80000000u) != 0 ? (c << 1) ^ 0x04C11DB7u : c << 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<std::uint32_t, 256> kCrcTable = make_crc_table();
// Slicing by 8 (8 bytes per step): kCrcSlices[k][i] is the register after byte i and k zero bytes.
constexpr std::array<std::array<std::uint32_t, 256>, 8> make_crc_slices() {
  std::array<std::array<std::uint32_t, 256>, 8> s{};
  s[0] = kCrcTable;
  for (std::size_t k = 1; k < 8; ++k)
    for (std::size_t i = 0; i < 256; ++i) s[k][i] = (s[k - 1][i] << 8) ^ kCrcTable[s[k - 1][i] >> 24];
  return s;
}
constexpr auto kCrcSlices = make_crc_slices();

// Bytes p + 1 .. p + 5 lie inside a magic that starts at bit 8p + s, whatever s (0..7), so each of
// the four byte pairs among them is fixed by the magic, s and where it lies: 64 pairs of 65,536, a
// bit each in an 8 KiB table. Every position has one byte p + 1 .. p + 4 on a grid of every fourth
// byte, so one lookup rejects four positions at once (a filter on byte p + 1 alone let 6% of the
// positions through, each a branch the CPU mispredicted).
constexpr std::array<std::uint64_t, 1024> make_magic_pairs() {
  std::array<std::uint64_t, 1024> f{};
  for (const std::uint64_t m : {kBlockMagic, kEndMagic})
    for (int s = 0; s < 8; ++s)
      for (int j = 0; j < 4; ++j) {  // bytes p + 1 + j, p + 2 + j: bits 8 + 8j .. 24 + 8j of the 64-bit window at p
        const auto pair = static_cast<unsigned>(((m << (16 - s)) >> (40 - 8 * j)) & 0xffff);
        f[pair >> 6] |= std::uint64_t{1} << (pair & 63);
      }
  return f;
}
constexpr std::array<std::uint64_t, 1024> kMagicPairs = make_magic_pairs();

[[noreturn]] void corrupt(const Where& where, std::uint64_t bit, const std::string& what) {
  Where w = where;
  w.bit = where.base + bit;
  throw CorruptDataError(w.text() + ": " + what);
}

}  // namespace

std::string Where::text() const {
  if (stream == 0) return "bit " + std::to_string(bit) + " of the input";
  std::string s = "stream " + std::to_string(stream);
  if (block > 0) s += ", block " + std::to_string(block);
  return s + " (bit " + std::to_string(bit) + " of the input)";
}

namespace {

// Slice-by-8 over whole words, then bytewise: crc_update's portable path and its tail.
std::uint32_t crc_tables(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    const std::uint32_t a = crc ^ (std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3]);
    crc = kCrcSlices[7][a >> 24] ^ kCrcSlices[6][(a >> 16) & 0xff] ^ kCrcSlices[5][(a >> 8) & 0xff] ^ kCrcSlices[4][a & 0xff] ^
          kCrcSlices[3][p[4]] ^ kCrcSlices[2][p[5]] ^ kCrcSlices[1][p[6]] ^ kCrcSlices[0][p[7]];
  }
  for (; n > 0; ++p, --n) crc = (crc << 8) ^ kCrcTable[(crc >> 24) ^ *p];
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// x^k mod P, bzip2's CRC polynomial (0x104C11DB7, most significant bit first).
constexpr std::uint64_t x_to_mod_p(unsigned k) {
  std::uint64_t r = 1;
  for (unsigned i = 0; i < k; ++i) {
    r <<= 1;
    if (r & (std::uint64_t{1} << 32)) r ^= 0x104C11DB7ull;
  }
  return r;
}

// Carry-less folding (Intel's "Fast CRC computation for generic polynomials using PCLMULQDQ", in
// its most-significant-bit-first form): 16-byte chunks, byte-reversed so that bit i of the 128-bit
// value is the chunk's coefficient of x^i, four accumulators 64 bytes apart, each folded forward
// as A * x^D = A_hi * (x^(D+64) mod P) + A_lo * (x^D mod P), then into one; its 16 bytes through
// the tables give the register. For n >= 64; the register goes into the first 4 bytes.
__attribute__((target("pclmul,ssse3"))) inline __m128i load_reversed(const std::uint8_t* q) {
  return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)), _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}
__attribute__((target("pclmul,ssse3"))) inline __m128i fold(__m128i a, __m128i k) {  // k: x^(D+64) mod P high, x^D mod P low
  return _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x11), _mm_clmulepi64_si128(a, k, 0x00));
}
__attribute__((target("pclmul,ssse3"))) std::uint32_t crc_folded(std::uint32_t crc, const std::uint8_t* p, std::size_t n) {
  const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const auto load = load_reversed;
  static constexpr long long kX[8] = {static_cast<long long>(x_to_mod_p(512 + 64)), static_cast<long long>(x_to_mod_p(512)),
                                      static_cast<long long>(x_to_mod_p(384 + 64)), static_cast<long long>(x_to_mod_p(384)),
                                      static_cast<long long>(x_to_mod_p(256 + 64)), static_cast<long long>(x_to_mod_p(256)),
                                      static_cast<long long>(x_to_mod_p(128 + 64)), static_cast<long long>(x_to_mod_p(128))};
  const __m128i k512 = _mm_set_epi64x(kX[0], kX[1]), k384 = _mm_set_epi64x(kX[2], kX[3]), k256 = _mm_set_epi64x(kX[4], kX[5]),
                k128 = _mm_set_epi64x(kX[6], kX[7]);
  __m128i a0 = _mm_xor_si128(load(p), _mm_set_epi32(static_cast<int>(crc), 0, 0, 0)), a1 = load(p + 16), a2 = load(p + 32), a3 = load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    a0 = _mm_xor_si128(fold(a0, k512), load(p));
    a1 = _mm_xor_si128(fold(a1, k512), load(p + 16));
    a2 = _mm_xor_si128(fold(a2, k512), load(p + 32));
    a3 = _mm_xor_si128(fold(a3, k512), load(p + 48));
  }
  __m128i v = _mm_xor_si128(_mm_xor_si128(fold(a0, k384), fold(a1, k256)), _mm_xor_si128(fold(a2, k128), a3));
  for (; n >= 16; p += 16, n -= 16) v = _mm_xor_si128(fold(v, k128), load(p));
  alignas(16) std::uint8_t last[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(last), _mm_shuffle_epi8(v, reverse));
  return crc_tables(crc_tables(0, last, 16), p, n);
}

// Asked during static initialisation, so the CPU model is initialised here first.
const bool kHaveClmul = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("ssse3");
}();
#endif

}  // namespace

std::uint32_t crc_update(std::uint32_t crc, std::span<const std::uint8_t> bytes) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (bytes.size() >= 64 && kHaveClmul) return crc_folded(crc, bytes.data(), bytes.size());
#endif
  return crc_tables(crc, bytes.data(), bytes.size());
}

// ---- the initial run-length stage ---------------------------------------------------------------

namespace {
// 0x80 in each byte of x that is zero (exact: no false flags from borrows).
inline std::uint64_t zero_bytes(std::uint64_t x) {
  constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full, kHigh = 0x8080808080808080ull;
  return ~(((x & kLow7) + kLow7) | x) & kHigh;
}
inline std::uint64_t load8(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
// True when no run of four equal bytes starts at p[0 .. 7] (p[j .. j + 3] equal for no j; reads
// p[0 .. 10]): the eight-byte step of the initial run-length stage's encoder, decoder and cut.
inline bool no_run_of_four_starts_in_eight(const std::uint8_t* p) {
  const std::uint64_t w0 = load8(p), w1 = load8(p + 1), w2 = load8(p + 2), w3 = load8(p + 3);
  return (zero_bytes(w0 ^ w1) & zero_bytes(w1 ^ w2) & zero_bytes(w2 ^ w3)) == 0;
}
#if defined(__x86_64__)
// Bit j set where a run of four equal bytes starts at p[j], j < 16 (reads p[0 .. 18]; SSE2, every
// x86-64 has it): the sixteen-byte step of the stage's encoder and decoder.
inline unsigned run_starts_in_16(const std::uint8_t* p) {
  const auto at = [p](int k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k)); };
  const __m128i a0 = at(0), a1 = at(1), a2 = at(2), a3 = at(3);
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(a0, a1), _mm_cmpeq_epi8(a1, a2)), _mm_cmpeq_epi8(a2, a3))));
}
#endif
// The first position from `from` (and before `limit`) whose byte is not c: eight bytes a step, as
// zero-filled inputs have stretches of megabytes.
inline std::size_t stretch_end(const std::uint8_t* p, std::size_t from, std::size_t limit, std::uint8_t c) {
  const std::uint64_t all = 0x0101010101010101ull * c;
  std::size_t e = from;
  while (e + 32 <= limit && ((load8(p + e) ^ all) | (load8(p + e + 8) ^ all) | (load8(p + e + 16) ^ all) | (load8(p + e + 24) ^ all)) == 0) e += 32;
  while (e + 8 <= limit && load8(p + e) == all) e += 8;
  while (e < limit && p[e] == c) ++e;
  return e;
}
// The end of the initial run-length stage's run that starts at r: its stretch of equal bytes, at
// most kMaxRun of them.
inline std::size_t run_end(const std::uint8_t* p, std::size_t r, std::size_t n) {
  return stretch_end(p, r + 1, std::min(n, r + kMaxRun), p[r]);
}
}  // namespace

std::size_t cut_block(CutState& st, std::span<const std::uint8_t> in, int level, bool final) {
  // bzip2's ADD_CHAR_TO_BLOCK and add_pair_to_block, counting bytes only: a run of 1 to 3 adds
  // that many bytes, a longer one 5; the run being read is pending.
  const std::size_t fill = block_fill(level);
  std::size_t nblock = st.nblock, run_len = st.run_len;
  unsigned run_ch = st.run_ch;
  const std::uint8_t* p = in.data();
  const std::size_t n = in.size();
  for (std::size_t i = st.scanned; i < n; ++i) {
    // Eight bytes at once, as the lines below would take them one by one (in[i - 1] is the byte of
    // the run being read, run_len >= 1): where all eight continue that run and it stays within
    // 255, nothing is added; where no run reaches four bytes (the run being read with the bytes
    // that continue it, or three bytes that each equal the one before), every byte adds one once
    // its run ends, so the block gains the bytes read less the run still being read; the block
    // must not fill inside them.
    while (run_len >= 1 && i + 8 <= n) {
      const std::uint64_t now = load8(p + i), before = load8(p + i - 1);
      const std::uint64_t x = now ^ before;  // a zero byte where a byte equals the one before it
      if (x == 0) {
        // A stretch of run_ch from i, L bytes: the run being read reaches kMaxRun at byte
        // i + first, and each kMaxRun bytes after it another run starts there, the run before it
        // adding 5 bytes; the block fills at the run start whose 5 bytes reach `fill`.
        const std::size_t len = stretch_end(p, i + 8, n, static_cast<std::uint8_t>(run_ch)) - i, first = kMaxRun - run_len;
        const std::size_t starts = len > first ? (len - first - 1) / kMaxRun + 1 : 0;
        const std::size_t filling = (fill - nblock + 4) / 5 - 1;  // the run start (0: the first) at which the block fills
        if (filling < starts) {
          st = CutState{};
          return i + first + filling * kMaxRun;  // that run opens the next block
        }
        nblock += 5 * starts;
        run_len = starts == 0 ? run_len + len : len - first - (starts - 1) * kMaxRun;
        i += len;
        continue;
      }
      constexpr std::uint64_t kHigh = 0x8080808080808080ull;
      const std::uint64_t same = zero_bytes(x);     // 0x80 in each zero byte of x
      const std::uint64_t starts = ~same & kHigh;   // 0x80 in each byte that starts a run
      if ((same & (same << 8) & (same << 16)) != 0) break;              // a run of four inside
      const auto lead = static_cast<std::size_t>(std::countr_zero(starts) / 8);  // bytes continuing the run being read
      if (run_len + lead >= 4) break;
      const std::size_t last = static_cast<std::size_t>(std::countl_zero(starts) / 8) + 1;  // the run at the end
      const std::size_t added = nblock + run_len + 8 - last;
      if (added >= fill) break;
      nblock = added;
      run_len = last;
      run_ch = p[i + 7];
      i += 8;
    }
    if (i >= n) break;
    const unsigned c = p[i];
    if (c != run_ch && run_len == 1) {
      ++nblock;
      run_ch = c;
    } else if (c != run_ch || run_len == kMaxRun) {
      if (run_ch < 256) nblock += run_len < 4 ? run_len : 5;
      run_ch = c;
      run_len = 1;
    } else {
      ++run_len;
    }
    if (nblock >= fill) {
      st = CutState{};
      return i + 1 - run_len;  // the pending run opens the next block
    }
  }
  if (final) {
    st = CutState{};
    return in.size();
  }
  st.scanned = in.size();
  st.nblock = nblock;
  st.run_len = run_len;
  st.run_ch = run_ch;
  return 0;
}

std::size_t cut_block(std::span<const std::uint8_t> in, int level, bool final) {
  CutState st;
  return cut_block(st, in, level, final);
}

std::vector<std::size_t> cut_blocks(std::span<const std::uint8_t> in, int level, bool final, unsigned threads) {
  // A run starts where a byte differs from the one before it (a stretch starts) and every 255
  // bytes into a stretch; a run of 1 to 3 adds that many bytes to its block, a longer one 5.
  // Blocks start at runs, so the runs are the same from any block's start: with Q(r) the bytes of
  // the runs before run start r, a block from x ends at the first run start y > x with
  // Q(y) - Q(x) >= fill.
  const std::size_t n = in.size(), fill = block_fill(level);
  const std::uint8_t* p = in.data();
  std::vector<std::size_t> cuts;
  if (n == 0) return cuts;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // cut_block's eight-byte steps, block after block: faster than the tiles on one or two threads,
  // and where there is too little to share (the tail of a read, less than a block of ours).
  if (threads <= 2 || n < (std::size_t{4} << 20)) {
    for (std::size_t at = 0; at < n;) {
      const std::size_t c = cut_block(in.subspan(at), level, final);
      if (c == 0) break;
      cuts.push_back(c);
      at += c;
    }
    return cuts;
  }
  const std::size_t limit = n;  // a cut needs no byte after it: the runs before it end there
  // Tiles of 4 KiB: each cut is then found in one or two tiles walked on this thread (larger tiles
  // made that serial walk a tenth of every byte; docs/defaults.md).
  constexpr std::size_t kTile = std::size_t{1} << 12;
  const std::size_t tiles = (limit + kTile - 1) / kTile;
  auto tile_end = [&](std::size_t t) { return std::min(limit, (t + 1) * kTile); };
  // Each tile's last stretch start (n: none inside), then the stretch start of each tile's first byte.
  std::vector<std::size_t> last_start(tiles, n), first_stretch(tiles, 0);
  for_each_block(tiles, threads, [&](std::size_t t) {
    const std::size_t lo = std::max<std::size_t>(t * kTile, 1);
    std::size_t i = tile_end(t);
    if (stretch_end(p, lo, i, p[lo - 1]) == i) return;  // one stretch through the tile (a zero-filled region)
    while (i >= lo + 8 && load8(p + i - 8) == load8(p + i - 9)) i -= 8;  // eight positions a step that start none
    while (i-- > lo)
      if (p[i] != p[i - 1]) {
        last_start[t] = i;
        break;
      }
  });
  for (std::size_t t = 1; t < tiles; ++t) {
    const std::size_t a = t * kTile;
    first_stretch[t] = p[a] != p[a - 1] ? a : last_start[t - 1] != n ? last_start[t - 1] : first_stretch[t - 1];
  }
  // The runs starting in tile t, in order: walk(t, f) calls f(r, ones, bytes): `ones` (8) runs of
  // one byte each from r where eight bytes each differ from the next, else one run from r that adds
  // `bytes` (ones = 0). A run's end is the next run's start (a stretch's end, or 255 bytes on).
  // The first run start in tile t: its first byte, or where a run from before it ends (the
  // stretch's end, or 255 bytes into it).
  auto first_run = [&](std::size_t t) {
    const std::size_t a = t * kTile, ss = first_stretch[t];
    return (a - ss) % kMaxRun == 0 ? a : stretch_end(p, a, std::min(n, ss + ((a - ss) / kMaxRun + 1) * kMaxRun), p[ss]);
  };
  auto walk = [&](std::size_t t, auto&& f) {
    const std::size_t b = tile_end(t);
    std::size_t r = first_run(t);
    while (r < b) {
      if (r + 9 <= n && r + 8 <= b && zero_bytes(load8(p + r) ^ load8(p + r + 1)) == 0) {
        f(r, std::size_t{8}, std::size_t{8});
        r += 8;
        continue;
      }
      const std::size_t e = run_end(p, r, n);
      const std::size_t len = e - r;
      f(r, std::size_t{0}, len < 4 ? len : std::size_t{5});
      r = e;
    }
  };
  // The bytes of the runs starting in tile t, as walk(t) sums them, faster: eight bytes at once
  // wherever no run of four or more starts among them (rle1_encode's test), each then adding one
  // byte whatever runs of one to three it belongs to; the position after them is taken as a run
  // start (a short run reaching it from before adds as many bytes either way). No such step within
  // 10 bytes of the tile's end, so that a short run crossing it is counted whole, as walk counts it.
  // Text has pairs of equal bytes in most eight-byte windows, which sent walk's steps to its
  // byte-by-byte path.
  auto tile_bytes = [&](std::size_t t) {
    const std::size_t b = tile_end(t);
    std::size_t r = first_run(t);
    std::uint64_t sum = 0;
    while (r < b) {
      while (r + 11 <= b) {
        if (!no_run_of_four_starts_in_eight(p + r)) break;
        sum += 8;
        r += 8;
      }
      if (r >= b) break;
      std::size_t e = run_end(p, r, n);
      if (e - r == kMaxRun) {
        // A stretch longer than a run: its runs of 255 starting in the tile add 5 bytes each, found
        // in one scan of the stretch (to 255 bytes past the tile) instead of one per run.
        const std::size_t se = stretch_end(p, e, std::min(n, b + kMaxRun), p[r]);
        const std::size_t full = (std::min(se, b) - r - 1) / kMaxRun;  // the runs before the last one starting in the tile
        sum += 5 * full;
        r += full * kMaxRun;
        e = std::min(se, r + kMaxRun);
      }
      const std::size_t len = e - r;
      sum += len < 4 ? len : 5;
      r = e;
    }
    return sum;
  };
  std::vector<std::uint64_t> q(tiles + 1, 0);  // bytes of the runs starting in each tile, then before each tile
  for_each_block(tiles, threads, [&](std::size_t t) { q[t + 1] = tile_bytes(t); });
  for (std::size_t t = 0; t < tiles; ++t) q[t + 1] += q[t];
  std::size_t x = 0, t = 0;
  std::uint64_t qx = 0;
  for (;;) {
    const std::uint64_t target = qx + fill;
    while (t < tiles && q[t + 1] < target) ++t;  // the first tile whose runs reach the target
    std::size_t y = n;
    std::uint64_t qy = 0;
    for (; t < tiles && y == n; ++t) {
      std::uint64_t at = q[t];
      walk(t, [&](std::size_t r, std::size_t ones, std::size_t bytes) {
        if (y == n) {
          for (std::size_t k = 0; k < (ones == 0 ? 1 : ones); ++k)  // run starts r + k, at + k bytes before them
            if (r + k > x && at + k >= target) {
              y = r + k;
              qy = at + k;
              break;
            }
        }
        at += bytes;
      });
      if (y != n) break;
    }
    if (y == n) break;
    cuts.push_back(y - x);
    x = y;
    qx = qy;
  }
  if (final && x < n) cuts.push_back(n - x);
  return cuts;
}

template <typename Bytes>
std::size_t rle1_encode(std::span<const std::uint8_t> in, Bytes& out) {
  const std::size_t before = out.size();
  const std::size_t n = in.size();
  out.resize(before + n + n / 4 + 8);  // a run of 4 or more takes 5 bytes at most per 4
  const std::uint8_t* p = in.data();
  std::uint8_t* o = out.data() + before;
  std::size_t i = 0;  // always where a run starts
  while (i < n) {
#if defined(__x86_64__)
    // Sixteen bytes a step: copied whole, kept up to the first run of four that starts among them
    // (a start: the first four equal bytes after a start begin at one), which then goes out.
    while (i + 19 <= n) {
      const unsigned starts = run_starts_in_16(p + i);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)));
      if (starts != 0) {
        const auto j = static_cast<std::size_t>(std::countr_zero(starts));
        o += j;
        i += j;
        break;
      }
      o += 16;
      i += 16;
    }
#endif
    // Eight bytes at once where no run of four starts among them (p[j .. j + 3] equal for no j in
    // i .. i + 7): every run that starts there is shorter than four and goes out as it is, and the
    // run at i + 8, if one reaches it from before, is as short (so i + 8 may be taken as a start).
    while (i + 11 <= n) {
      if (!no_run_of_four_starts_in_eight(p + i)) break;
      std::memcpy(o, p + i, 8);
      o += 8;
      i += 8;
    }
    if (i >= n) break;
    const std::uint8_t c = p[i];
    const std::size_t j = run_end(p, i, n);
    const std::size_t len = j - i;
    if (len < 4) {
      for (std::size_t k = 0; k < len; ++k) *o++ = c;
    } else {
      o[0] = o[1] = o[2] = o[3] = c;
      o[4] = static_cast<std::uint8_t>(len - 4);
      o += 5;
    }
    i = j;
  }
  out.resize(static_cast<std::size_t>(o - out.data()));
  return out.size() - before;
}
template std::size_t rle1_encode(std::span<const std::uint8_t>, std::vector<std::uint8_t>&);
template std::size_t rle1_encode(std::span<const std::uint8_t>, RawBytes&);

bool rle1_decode(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out) { return rle1_decode(in, out, out.size()); }

namespace {
// The initial run-length stage's pieces of [p, stop), p a start (the first byte, the byte after a
// count, or a byte that differs from the one before it, where the count of equal bytes begins at
// one), in order: eight() for eight plain bytes at p, plain(c, k) for one to three plain bytes,
// run(c, len) for four equal bytes and their count (len = 4 + count). Each is called before p
// moves past its bytes. False where four equal bytes end the input without their count.
template <typename Eight, typename Plain, typename Run>
bool walk_rle1(const std::uint8_t*& p, const std::uint8_t* stop, Eight&& eight, Plain&& plain, Run&& run) {
  while (p < stop) {
    // Eight bytes at once where no four equal bytes begin among them: all eight are plain bytes,
    // and p + 8 may be taken as a start (a run that reaches it from before stays shorter than four
    // either way), as in rle1_encode.
    while (stop - p >= 11 && no_run_of_four_starts_in_eight(p)) {
      eight();
      p += 8;
    }
    if (p >= stop) break;
    const std::uint8_t c = *p;
    const std::uint8_t* q = p + 1;
    while (q < stop && *q == c && q - p < 4) ++q;
    if (q - p < 4) {  // one to three plain bytes; q is a start
      plain(c, static_cast<std::size_t>(q - p));
      p = q;
      continue;
    }
    if (q == stop) return false;
    run(c, 4 + std::size_t{*q});
    p = q + 1;  // after a count: a start, even if its byte equals c
  }
  return true;
}
}  // namespace

namespace {
struct OverLimit {};
enum class Rle1 { whole, cut, over };
// rle1_decode, or `over` (out back to `from` bytes) where the bytes would pass `limit`: known only
// where runs expand the block past its first guess, when the rest's size is counted anyway.
Rle1 rle1_decode_upto(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::size_t from, std::size_t limit) {
  if (from > out.size()) throw ContractError("bz2::rle1_decode: writing at " + std::to_string(from) + " past " + std::to_string(out.size()) + " bytes");
  const std::size_t before = from, n = in.size();
  // Grown below where runs expand further; never shrunk here: what lies past `before` is room.
  out.resize(std::max(out.size(), before + n + n / 8 + 512));
  const std::uint8_t* p = in.data();
  std::uint8_t* o = out.data() + before;
  std::uint8_t* end = out.data() + out.size();
  const std::uint8_t* const stop = in.data() + n;
  bool sized = false;
  auto room = [&](std::size_t need) {  // at least `need` bytes writable at o
    if (static_cast<std::size_t>(end - o) >= need) return;
    const std::size_t at = static_cast<std::size_t>(o - out.data());
    if (!sized) {
      // Once, to the rest's decoded size (a block of long runs decodes to up to 45.9 MB, which
      // doubling reached in six copies, each zero-filled first).
      sized = true;
      const std::optional<Rle1Measure> rest = rle1_measure({p, static_cast<std::size_t>(stop - p)});  // nullopt: the walk below fails
      if (rest && at - before + rest->bytes > limit) throw OverLimit{};
      out.resize(at + std::max(need, rest ? rest->bytes : need));
    } else {
      // This block's part doubles, not the whole vector (out may hold many blocks before it).
      out.resize(std::max(at + (at - before) + need, at + need + (n - static_cast<std::size_t>(p - in.data())) + 512));
    }
    o = out.data() + at;
    end = out.data() + out.size();
  };
  bool whole = false;
  try {
#if defined(__x86_64__)
    // Sixteen bytes a step: copied whole, then kept up to the first run that starts among them (a
    // start, as the first four equal bytes after a start begin at one), whose count follows; p is
    // a start after each step. About three times walk_rle1's rate on text; the last bytes are its.
    while (stop - p >= 20) {  // a run's count at p[j + 4], j < 16
      room(16 + 4 + 255);
      const unsigned starts = run_starts_in_16(p);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
      if (starts == 0) {
        o += 16;
        p += 16;
        continue;
      }
      const auto j = static_cast<unsigned>(std::countr_zero(starts));
      o += j;
      p += j;
      const std::size_t len = 4 + std::size_t{p[4]};
      std::memset(o, *p, len);
      o += len;
      p += 5;
    }
#endif
    whole = walk_rle1(
        p, stop,
        [&] {
          room(8);
          std::memcpy(o, p, 8);
          o += 8;
        },
        [&](std::uint8_t c, std::size_t k) {
          room(3);
          for (std::size_t i = 0; i < k; ++i) *o++ = c;
        },
        [&](std::uint8_t c, std::size_t len) {
          room(len);
          std::memset(o, c, len);
          o += len;
        });
  } catch (const OverLimit&) {
    out.resize(before);
    return Rle1::over;
  }
  out.resize(static_cast<std::size_t>(o - out.data()));
  return whole ? Rle1::whole : Rle1::cut;
}
}  // namespace

bool rle1_decode(std::span<const std::uint8_t> in, std::vector<std::uint8_t>& out, std::size_t from) {
  return rle1_decode_upto(in, out, from, std::numeric_limits<std::size_t>::max()) == Rle1::whole;
}

std::optional<Rle1Measure> rle1_measure(std::span<const std::uint8_t> in) {
  Rle1Measure m;
  bool same = !in.empty();
  const std::uint8_t c = same ? in[0] : 0;
  const std::uint8_t* p = in.data();
  const bool whole = walk_rle1(
      p, in.data() + in.size(),
      [&] {
        m.bytes += 8;
        same = false;  // eight plain bytes hold two values at least
      },
      [&](std::uint8_t b, std::size_t k) {
        m.bytes += k;
        same = same && b == c;
      },
      [&](std::uint8_t b, std::size_t len) {
        m.bytes += len;
        same = same && b == c;
      });
  if (!whole) return std::nullopt;
  if (same) m.single = c;
  return m;
}

bool rle1_decode_pieces(std::span<const std::uint8_t> in, std::span<std::uint8_t> room,
                        const std::function<void(std::span<const std::uint8_t>)>& emit) {
  constexpr std::size_t kMost = 4 + 255;  // the most one step makes
  if (room.size() < 512) throw ContractError("bz2::rle1_decode_pieces: room of " + std::to_string(room.size()) + " bytes, not 512 or more");
  std::uint8_t* const start = room.data();
  if (const std::optional<Rle1Measure> m = rle1_measure(in); m && m->single) {  // one byte throughout (a zero-filled region): one piece, again
    std::size_t left = m->bytes;
    std::memset(start, *m->single, std::min(left, room.size()));
    for (; left > 0;) {
      const std::size_t k = std::min(left, room.size());
      emit({start, k});
      left -= k;
    }
    return true;
  }
  std::uint8_t* const full = room.data() + room.size() - kMost;  // past it, the next step may not fit
  std::uint8_t* o = start;
  auto hand_on = [&] {
    if (o >= full) {
      emit({start, static_cast<std::size_t>(o - start)});
      o = start;
    }
  };
  const std::uint8_t* p = in.data();
  const bool whole = walk_rle1(
      p, in.data() + in.size(),
      [&] {
        std::memcpy(o, p, 8);
        o += 8;
        hand_on();
      },
      [&](std::uint8_t c, std::size_t k) {
        for (std::size_t i = 0; i < k; ++i) *o++ = c;
        hand_on();
      },
      [&](std::uint8_t c, std::size_t len) {
        std::memset(o, c, len);
        o += len;
        hand_on();
      });
  if (o != start) emit({start, static_cast<std::size_t>(o - start)});
  return whole;
}

// ---- writing a block (compress.c, huffman.c; the lines in common/bz2_encode.hpp) ----------------------

namespace {

// encode_block_bits on up to `threads` threads (ours): generateMTFValues in chunks, each from its
// list at the chunk's start (the chunks before it moved their bytes to the front, most recent
// first: mtf_chunk_list, mtf_next_state), a zero run emitted in the chunk where it ends; each
// round's choices in pieces of groups, each piece counting its own frequencies, summed in order.
// Sums of counts do not depend on the split, so the bits are encode_block_bits'.
std::uint64_t encode_block_bits_threads(const std::uint8_t* last, std::uint32_t n, std::uint32_t orig_ptr, std::uint32_t crc,
                                        EncodeScratch& scratch, std::uint8_t* out, std::size_t capacity, unsigned threads) {
  constexpr std::size_t kMinChunk = std::size_t{32} << 10;  // smaller chunks cost more than they spread
  EncodeWork& w = *scratch.work;
  EncodeTables& t = w.t;
  const unsigned chunks = static_cast<unsigned>(std::clamp<std::size_t>(n / kMinChunk, 1, std::min<std::size_t>(threads, kMtfChunks)));
  const auto at = [&](unsigned c) { return std::size_t{n} * c / chunks; };
  std::vector<std::array<std::uint32_t, 8>> used(chunks);
  std::vector<std::array<std::uint8_t, 256>> lists(chunks);
  std::vector<int> counts(chunks);
  for_each_block(chunks, threads, [&](std::size_t c) {
    used[c].fill(0);
    encode_used_bits(last, at(c), at(c + 1), used[c].data());
  });
  std::uint32_t bits[8] = {};
  for (const auto& u : used)
    for (int k = 0; k < 8; ++k) bits[k] |= u[k];
  encode_set_used(t, bits);
  const int n_in_use = t.alpha - 2;
  for_each_block(chunks, threads, [&](std::size_t c) {
    counts[c] = mtf_chunk_list(last, t.to_seq, at(c), at(c + 1), lists[c].data());
  });
  for (int k = 0; k < n_in_use; ++k) w.chunk_state[0][k] = static_cast<std::uint8_t>(k);
  for (unsigned c = 1; c < chunks; ++c) mtf_next_state(w.chunk_state[c - 1], n_in_use, lists[c - 1].data(), counts[c - 1], w.chunk_state[c]);
  std::vector<MtfTail> tails(chunks);
  for_each_block(chunks, threads, [&](std::size_t c) {
    std::uint64_t yy[kMtfWords];
    mtf_list_words(w.chunk_state[c], n_in_use, yy);
    tails[c] = mtf_chunk_indices(last, t.to_seq, at(c), at(c + 1), yy, w.mtf_index);
  });
  std::vector<std::uint64_t> run_in(chunks, 0);
  for (unsigned c = 1; c < chunks; ++c) run_in[c] = mtf_run_after(run_in[c - 1], at(c) - at(c - 1), tails[c - 1]);
  scratch.chunk_symbols.resize(std::max<std::size_t>(scratch.chunk_symbols.size(), chunks));
  scratch.chunk_freq.resize(std::max<std::size_t>(scratch.chunk_freq.size(), chunks));
  for_each_block(chunks, threads, [&](std::size_t c) {
    auto& sym = scratch.chunk_symbols[c];
    auto& freq = scratch.chunk_freq[c];
    sym.clear();
    freq.fill(0);
    mtf_chunk_emit(w.mtf_index, at(c), at(c + 1), run_in[c], c + 1 == chunks, [&](std::uint16_t v) {
      sym.push_back(v);
      ++freq[v];
    });
  });
  std::size_t wr = 0;
  for (unsigned c = 0; c < chunks; ++c) {
    const auto& sym = scratch.chunk_symbols[c];
    std::memcpy(w.mtfv + wr, sym.data(), sym.size() * sizeof(std::uint16_t));
    wr += sym.size();
    for (int v = 0; v < t.alpha; ++v) t.mtf_freq[v] += scratch.chunk_freq[c][static_cast<std::size_t>(v)];
  }
  encode_end_mtf(w.mtfv, wr, t);
  // The rounds: each piece of groups chooses its tables and counts its symbols; the counts summed.
  const std::size_t groups = t.n_selectors;
  const unsigned pieces = static_cast<unsigned>(std::clamp<std::size_t>(groups / 256, 1, threads));
  scratch.piece_rfreq.resize(std::max<std::size_t>(scratch.piece_rfreq.size(), pieces));
  for (int iter = 0; iter < kIterations; ++iter) {
    for (int v = 0; v < t.alpha; ++v) encode_pack_costs(t, v);
    for_each_block(pieces, threads, [&](std::size_t p) {
      auto& rf = scratch.piece_rfreq[p];
      for (int k = 0; k < t.groups; ++k) std::fill_n(rf[static_cast<std::size_t>(k)].begin(), t.alpha, 0);
      for (std::size_t g = groups * p / pieces; g < groups * (p + 1) / pieces; ++g)
        encode_choose(w.mtfv, g, t, w.selectors, [&rf](int k, std::uint16_t v) { ++rf[static_cast<std::size_t>(k)][v]; });
    });
    for (int k = 0; k < t.groups; ++k) {
      for (int v = 0; v < t.alpha; ++v) {
        std::int32_t sum = 0;
        for (unsigned p = 0; p < pieces; ++p) sum += scratch.piece_rfreq[p][static_cast<std::size_t>(k)][static_cast<std::size_t>(v)];
        t.rfreq[k][v] = sum;
      }
      make_code_lengths(t.rfreq[k], t.alpha, kEncodeMaxLength, t.len[k]);
    }
  }
  for (int k = 0; k < t.groups; ++k) encode_codes(t, k);
  // The bits: the head on this thread, then each piece of groups from its first bit (the prefix sum
  // of the groups' lengths) into zeroed words, ORed atomically (two pieces share a word at their
  // edge), as the GPU's writer does.
  BitSink head(out, capacity);
  encode_write_head(w.selectors, t, orig_ptr, crc, head);
  const std::uint64_t head_bits = head.finish();
  std::vector<std::uint64_t> piece_bits(pieces + 1, 0);
  std::vector<std::uint32_t>& group_bits = scratch.group_bits;
  group_bits.resize(groups);
  for_each_block(pieces, threads, [&](std::size_t p) {
    std::uint64_t bits = 0;
    for (std::size_t g = groups * p / pieces; g < groups * (p + 1) / pieces; ++g) {
      std::uint32_t b = 0;
      encode_group_codes(w.mtfv, w.selectors, t, g, [&b](std::uint32_t, int length) { b += static_cast<std::uint32_t>(length); });
      group_bits[g] = b;
      bits += b;
    }
    piece_bits[p + 1] = bits;
  });
  for (unsigned p = 0; p < pieces; ++p) piece_bits[p + 1] += piece_bits[p];
  const std::uint64_t total = head_bits + piece_bits[pieces];
  if ((total + 7) / 8 > capacity) throw ContractError("bz2::encode_block: the output bound is too small");
  std::vector<std::uint32_t>& words = scratch.words;
  words.assign((total + 31) / 32, 0);
  std::memcpy(words.data(), out, (head_bits + 7) / 8);
  for_each_block(pieces, threads, [&](std::size_t p) {
    std::uint64_t at = head_bits + piece_bits[p];
    for (std::size_t g = groups * p / pieces; g < groups * (p + 1) / pieces; ++g) {
      encode_group_words(w.mtfv, w.selectors, t, g, at, [&words](std::uint64_t i, std::uint32_t v) {
        std::atomic_ref<std::uint32_t>(words[i]).fetch_or(v, std::memory_order_relaxed);
      });
      at += group_bits[g];
    }
  });
  std::memcpy(out, words.data(), (total + 7) / 8);
  return total;
}

}  // namespace

void set_orig_ptr(BlockBits& block, std::uint32_t orig_ptr) {
  if (block.bits < 105 || orig_ptr >= (1u << 24)) throw ContractError("bz2::set_orig_ptr: not a block's bits, or origPtr past 24 bits");
  for (int k = 0; k < 24; ++k) {
    const std::uint64_t bit = 81 + static_cast<std::uint64_t>(k);
    const auto mask = static_cast<std::uint8_t>(0x80u >> (bit & 7));
    std::uint8_t& byte = block.bytes[bit >> 3];
    byte = static_cast<std::uint8_t>(((orig_ptr >> (23 - k)) & 1u) != 0 ? byte | mask : byte & ~mask);
  }
}

void encode_block(std::span<const std::uint8_t> last, std::uint32_t orig_ptr, std::uint32_t crc, BlockBits& out,
                  EncodeScratch& scratch, unsigned threads) {
  const std::size_t n = last.size();
  if (n == 0) throw ContractError("bz2::encode_block: an empty block (bzip2 writes none)");
  if (n > kMaxMtfSymbols - 1) throw ContractError("bz2::encode_block: a block larger than bzip2's 900k");
  if (!scratch.work) scratch.work = std::make_unique_for_overwrite<EncodeWork>();
  // Into the worker's scratch (grown, never zeroed), then the used bytes out: a fresh output sized
  // to the bound was zeroed every block (2 MB at -9) and kept that capacity while in flight.
  if (scratch.bits.size() < encoded_bytes_bound(n)) scratch.bits.resize(encoded_bytes_bound(n));
  out.bits = threads > 1 ? encode_block_bits_threads(last.data(), static_cast<std::uint32_t>(n), orig_ptr, crc, scratch, scratch.bits.data(),
                                                     scratch.bits.size(), threads)
                         : encode_block_bits(last.data(), static_cast<std::uint32_t>(n), orig_ptr, crc, *scratch.work, scratch.bits.data(),
                                             scratch.bits.size());
  out.bytes.assign(scratch.bits.data(), scratch.bits.data() + (out.bits + 7) / 8);
  out.crc = crc;
}

// ---- the stream ------------------------------------------------------------------------------------

StreamWriter::StreamWriter(int level) : level_(level) {
  if (level < 1 || level > 9) throw ContractError("bz2: the level is 1 to 9, not " + std::to_string(level));
}

void StreamWriter::put_bits(std::uint64_t value, int n, std::vector<std::uint8_t>& out) {
  for (int k = n - 1; k >= 0; --k) {
    partial_ = (partial_ << 1) | static_cast<std::uint32_t>((value >> k) & 1u);
    if (++partial_bits_ == 8) {
      out.push_back(static_cast<std::uint8_t>(partial_));
      partial_ = 0;
      partial_bits_ = 0;
    }
  }
}

void StreamWriter::header(std::vector<std::uint8_t>& out) {
  out.insert(out.end(), {'B', 'Z', 'h', static_cast<std::uint8_t>('0' + level_)});
}

void StreamWriter::add(const BlockBits& block, std::vector<std::uint8_t>& out) {
  combined_ = combine_crc(combined_, block.crc);
  ++blocks_;
  const std::size_t whole = static_cast<std::size_t>(block.bits / 8);
  const int pb = partial_bits_;
  if (pb == 0) {
    out.insert(out.end(), block.bytes.begin(), block.bytes.begin() + static_cast<std::ptrdiff_t>(whole));
  } else {
    const std::size_t at = out.size();
    out.resize(at + whole);
    std::uint8_t* o = out.data() + at;
    const std::uint8_t* in = block.bytes.data();
    std::uint32_t carry = partial_;  // the pb bits not yet written, in the low bits
    std::size_t i = 0;
    // Eight bytes at a time, as big-endian words: the carry's bits, then the word's first 64 - pb
    // (byte by byte, this loop was most of the writer's time).
    for (; i + 8 <= whole; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, in + i, 8);
      w = __builtin_bswap64(w);
      const std::uint64_t v = __builtin_bswap64((std::uint64_t{carry} << (64 - pb)) | (w >> pb));
      std::memcpy(o + i, &v, 8);
      carry = static_cast<std::uint32_t>(w & ((std::uint64_t{1} << pb) - 1));
    }
    for (; i < whole; ++i) {
      const std::uint32_t b = in[i];
      o[i] = static_cast<std::uint8_t>((carry << (8 - pb)) | (b >> pb));
      carry = b & ((1u << pb) - 1);
    }
    partial_ = carry;
  }
  const int tail = static_cast<int>(block.bits % 8);
  if (tail > 0) put_bits(block.bytes[whole] >> (8 - tail), tail, out);
}

void StreamWriter::finish(std::vector<std::uint8_t>& out) {
  put_bits(kEndMagic, 48, out);
  put_bits(combined_, 32, out);
  if (partial_bits_ > 0) put_bits(0, 8 - partial_bits_, out);
}

// ---- reading a block (decompress.c; the symbols in common/bz2_block.hpp) ---------------------------

[[noreturn]] void throw_block_error(const BlockSymbols& s, const Where& where, bool input_ends_here) {
  std::string what;
  switch (s.error) {
    case BlockError::none: throw ContractError("bz2::throw_block_error: no error");
    case BlockError::no_magic: what = "no block magic"; break;
    case BlockError::past_end:
      what = input_ends_here ? "the input ends inside the block (truncated)"
                             : "the block runs on past " + std::to_string(kMaxBlockBits) + " bits, longer than any bzip2 block";
      break;
    case BlockError::no_bytes: what = "the block uses no byte"; break;
    case BlockError::table_count: what = "table count " + std::to_string(s.detail) + " (2 to 6)"; break;
    case BlockError::no_selectors: what = "no selectors"; break;
    case BlockError::selector_range: what = "a selector past the table count"; break;
    case BlockError::code_length: what = "a code length outside 1 to 20"; break;
    case BlockError::no_codeword: what = "bits that are no codeword"; break;
    case BlockError::zero_run_too_long: what = "a zero run longer than any block"; break;
    case BlockError::too_many_bytes: what = "more bytes than the level's block size"; break;
    case BlockError::selectors_exhausted: what = "more symbols than the selectors cover"; break;
    case BlockError::orig_ptr:
      what = "origPtr " + std::to_string(s.detail) + " outside the block's " + std::to_string(s.detail2) + " bytes";
      break;
  }
  corrupt(where, s.error_bit, what);
}

namespace {
// bzip2's table for randomised blocks (randtable.c's BZ2_rNums, which libbz2 exports; the tests
// check this copy against it).
constexpr std::uint16_t kRandomNumbers[512] = {
    619, 720, 127, 481, 931, 816, 813, 233, 566, 247, 985, 724, 205, 454, 863, 491,
    741, 242, 949, 214, 733, 859, 335, 708, 621, 574, 73, 654, 730, 472, 419, 436,
    278, 496, 867, 210, 399, 680, 480, 51, 878, 465, 811, 169, 869, 675, 611, 697,
    867, 561, 862, 687, 507, 283, 482, 129, 807, 591, 733, 623, 150, 238, 59, 379,
    684, 877, 625, 169, 643, 105, 170, 607, 520, 932, 727, 476, 693, 425, 174, 647,
    73, 122, 335, 530, 442, 853, 695, 249, 445, 515, 909, 545, 703, 919, 874, 474,
    882, 500, 594, 612, 641, 801, 220, 162, 819, 984, 589, 513, 495, 799, 161, 604,
    958, 533, 221, 400, 386, 867, 600, 782, 382, 596, 414, 171, 516, 375, 682, 485,
    911, 276, 98, 553, 163, 354, 666, 933, 424, 341, 533, 870, 227, 730, 475, 186,
    263, 647, 537, 686, 600, 224, 469, 68, 770, 919, 190, 373, 294, 822, 808, 206,
    184, 943, 795, 384, 383, 461, 404, 758, 839, 887, 715, 67, 618, 276, 204, 918,
    873, 777, 604, 560, 951, 160, 578, 722, 79, 804, 96, 409, 713, 940, 652, 934,
    970, 447, 318, 353, 859, 672, 112, 785, 645, 863, 803, 350, 139, 93, 354, 99,
    820, 908, 609, 772, 154, 274, 580, 184, 79, 626, 630, 742, 653, 282, 762, 623,
    680, 81, 927, 626, 789, 125, 411, 521, 938, 300, 821, 78, 343, 175, 128, 250,
    170, 774, 972, 275, 999, 639, 495, 78, 352, 126, 857, 956, 358, 619, 580, 124,
    737, 594, 701, 612, 669, 112, 134, 694, 363, 992, 809, 743, 168, 974, 944, 375,
    748, 52, 600, 747, 642, 182, 862, 81, 344, 805, 988, 739, 511, 655, 814, 334,
    249, 515, 897, 955, 664, 981, 649, 113, 974, 459, 893, 228, 433, 837, 553, 268,
    926, 240, 102, 654, 459, 51, 686, 754, 806, 760, 493, 403, 415, 394, 687, 700,
    946, 670, 656, 610, 738, 392, 760, 799, 887, 653, 978, 321, 576, 617, 626, 502,
    894, 679, 243, 440, 680, 879, 194, 572, 640, 724, 926, 56, 204, 700, 707, 151,
    457, 449, 797, 195, 791, 558, 945, 679, 297, 59, 87, 824, 713, 663, 412, 693,
    342, 606, 134, 108, 571, 364, 631, 212, 174, 643, 304, 329, 343, 97, 430, 751,
    497, 314, 983, 374, 822, 928, 140, 206, 73, 263, 980, 736, 876, 478, 430, 305,
    170, 514, 364, 692, 829, 82, 855, 953, 676, 246, 369, 970, 294, 750, 807, 827,
    150, 790, 288, 923, 804, 378, 215, 828, 592, 281, 565, 555, 710, 82, 896, 831,
    547, 261, 524, 462, 293, 465, 502, 56, 661, 821, 976, 991, 658, 869, 905, 758,
    745, 193, 768, 550, 608, 933, 378, 286, 215, 979, 792, 961, 61, 688, 793, 644,
    986, 403, 106, 366, 905, 644, 372, 567, 466, 434, 645, 210, 389, 550, 919, 135,
    780, 773, 635, 389, 707, 100, 626, 958, 165, 504, 920, 176, 193, 713, 857, 265,
    203, 50, 668, 108, 645, 990, 626, 197, 510, 357, 358, 850, 858, 364, 936, 638
};
}  // namespace

void derandomise(std::span<std::uint8_t> bytes) {
  std::uint32_t to_go = 0, at = 0;
  for (std::uint8_t& b : bytes) {
    if (to_go == 0) {
      to_go = kRandomNumbers[at];
      at = (at + 1) % 512;
    }
    --to_go;
    if (to_go == 1) b ^= 1;
  }
}

std::span<const std::uint16_t, 512> random_numbers() { return kRandomNumbers; }

BlockResult finish_block(std::span<const std::uint8_t> bwt_bytes, const BlockSymbols& s, std::uint64_t bit, std::vector<std::uint8_t>& out,
                         const Where& where, bool overwrite, std::size_t compact_over) {
  if (bwt_bytes.size() != s.nblock) throw ContractError("bz2::finish_block: " + std::to_string(bwt_bytes.size()) + " bytes for a block of " + std::to_string(s.nblock));
  std::vector<std::uint8_t> plain;  // a randomised block's bytes, derandomised (such blocks are rare: old files)
  if (s.randomised) {
    plain.assign(bwt_bytes.begin(), bwt_bytes.end());
    derandomise(plain);
    bwt_bytes = plain;
  }
  const std::size_t first = overwrite ? 0 : out.size();
  const Rle1 done =
      rle1_decode_upto(bwt_bytes, out, first, compact_over != 0 && overwrite ? compact_over : std::numeric_limits<std::size_t>::max());
  if (done == Rle1::over) {
    // Checked through a piece of room, then kept as it is (a tenth to a fiftieth of its bytes).
    thread_local std::vector<std::uint8_t> room(std::size_t{256} << 10);
    std::uint32_t crc = 0xFFFFFFFFu;
    std::size_t size = 0;
    if (rle1_decode_pieces(bwt_bytes, room, [&](std::span<const std::uint8_t> piece) {
          crc = crc_update(crc, piece);
          size += piece.size();
        })) {
      crc = ~crc;
      if (crc != s.stored_crc)
        corrupt(where, bit, "block CRC " + std::to_string(crc) + " differs from the stored " + std::to_string(s.stored_crc));
      out.assign(bwt_bytes.begin(), bwt_bytes.end());
      BlockResult r;
      r.stored_crc = s.stored_crc;
      r.end_bit = s.end_bit;
      r.nblock = s.nblock;
      r.bytes = size;
      r.compact = true;
      return r;
    }
  }
  if (done != Rle1::whole) {
    out.resize(first);
    corrupt(where, s.end_bit, "the block ends inside a run (four equal bytes without their count)");
  }
  BlockResult r;
  r.stored_crc = s.stored_crc;
  r.end_bit = s.end_bit;
  r.nblock = s.nblock;
  r.bytes = out.size() - first;
  const std::uint32_t crc = block_crc(std::span<const std::uint8_t>(out).subspan(first));
  if (crc != r.stored_crc) {
    out.resize(first);
    corrupt(where, bit, "block CRC " + std::to_string(crc) + " differs from the stored " + std::to_string(r.stored_crc));
  }
  return r;
}

namespace {
// decode_block's work; a block that runs past in's end is returned as nullopt when `whole_or_none`.
std::optional<BlockResult> decode_block_impl(std::span<const std::uint8_t> in, std::uint64_t bit, int level, std::vector<std::uint8_t>& out,
                                             DecodeScratch& scratch, const Where& where, bool input_ends_here, bool whole_or_none,
                                             bool overwrite, std::size_t compact_over) {
  if (!scratch.work) scratch.work = std::make_unique<DecodeWork>();
  const auto limit = static_cast<std::uint32_t>(block_limit(level));
  auto& tt = scratch.tt;
  if (tt.size() < limit) tt.resize(limit);
  std::uint32_t counts[256];
  std::uint32_t* t = tt.data();
  const BlockSymbols s =
      decode_symbols(in.data(), in.size(), bit, limit, *scratch.work, counts, [t](std::uint32_t i, std::uint8_t b) { t[i] = b; });
  // Bits past the end read as zeros: damage found within the last word may be the missing bits'.
  if (whole_or_none && s.error != BlockError::none &&
      (s.error == BlockError::past_end || s.error_bit + 64 >= static_cast<std::uint64_t>(in.size()) * 8))
    return std::nullopt;
  if (s.error != BlockError::none) throw_block_error(s, where, input_ends_here);
  // The inverse BWT (tt[row] = next row << 8 | byte), its bytes then through the last steps.
  link_rows(t, s.nblock, counts);
  scratch.bytes.resize(s.nblock);
  walk_rulers(t, s.nblock, s.orig_ptr, scratch.bytes.data(), scratch.rulers);
  return finish_block(scratch.bytes, s, bit, out, where, overwrite, compact_over);
}
}  // namespace

BlockResult decode_block(std::span<const std::uint8_t> in, std::uint64_t bit, int level, std::vector<std::uint8_t>& out,
                         DecodeScratch& scratch, const Where& where, bool input_ends_here, bool overwrite, std::size_t compact_over) {
  return *decode_block_impl(in, bit, level, out, scratch, where, input_ends_here, false, overwrite, compact_over);
}

std::optional<BlockResult> decode_block_if_whole(std::span<const std::uint8_t> in, std::uint64_t bit, int level, std::vector<std::uint8_t>& out,
                                                 DecodeScratch& scratch, const Where& where) {
  return decode_block_impl(in, bit, level, out, scratch, where, false, true, false, 0);
}

namespace {

// kRulerLanes independent walks at once on one core: take(lane) starts the next walk (false: none
// left), step(lane) moves a walk one row (true: it has ended). A lane whose walk ends takes the
// next, or the last busy lane takes its place.
template <typename Lane, typename Take, typename Step>
void in_lanes(Take take, Step step) {
  Lane lane[kRulerLanes];
  int m = 0;
  while (m < kRulerLanes && take(lane[m])) ++m;
  while (m > 0)
    for (int l = 0; l < m;) {
      if (!step(lane[l]) || take(lane[l]))
        ++l;
      else
        lane[l] = lane[--m];
    }
}

}  // namespace

std::uint32_t walk_rulers(const std::uint32_t* tt, std::uint32_t n, std::uint32_t orig_ptr, std::uint8_t* out, RulerScratch& rs) {
  if (n == 0) return 0;
  const std::uint32_t slots = ruler_slots(n);
  rs.succ.resize(slots);
  rs.dist.resize(slots);
  rs.start.resize(slots);
  rs.resume.resize(slots);
  rs.kept.resize(std::size_t{slots} * kRulerKept);
  std::uint32_t *succ = rs.succ.data(), *dist = rs.dist.data(), *start = rs.start.data(), *resume = rs.resume.data();
  std::uint8_t* kept = rs.kept.data();
  // Every ruler walks to the next ruler on its cycle (ruler_walk's steps). Step k loads
  // v_k = tt[x_k] (x_0 the ruler's row, x_{k+1} = v_k >> 8): the stretch's k-th byte is v_k's low
  // byte (ruler_emit's), kept for k = 1 .. kRulerKept; resume holds v_m, m = min(d - 1, kRulerKept),
  // from which the emit walks the bytes after the kept ones (at least the stretch's last, v_d's).
  struct Walk {
    std::uint32_t slot, x, d, v;
    std::uint8_t* keep;
  };
  std::uint32_t next = 0;
  in_lanes<Walk>(
      [&](Walk& w) {
        while (next < slots) {
          const std::uint32_t i = next++;
          const std::uint32_t row = ruler_row(i, orig_ptr, n);
          if (row == kNoRuler) {
            succ[i] = kNoRuler;
            dist[i] = 0;
            continue;
          }
          w = {i, row, 0, 0, kept + std::size_t{i} * kRulerKept};
          return true;
        }
        return false;
      },
      [&](Walk& w) {
        const std::uint32_t v = tt[w.x];
        if (w.d <= kRulerKept) {
          if (w.d >= 1) w.keep[w.d - 1] = static_cast<std::uint8_t>(v & 0xff);
          w.v = v;
        }
        w.x = v >> 8;
        ++w.d;
        const std::uint32_t arrived = ruler_of(w.x, orig_ptr, n);
        if (arrived == kNoRuler && w.d < n) return false;
        succ[w.slot] = arrived;
        dist[w.slot] = w.d;
        resume[w.slot] = w.v;
        return true;
      });
  const std::uint32_t cycle = ruler_rank(succ, dist, n, orig_ptr, start);
  // Every ruler on origPtr's cycle copies its kept bytes into place and walks the rest.
  struct Emit {
    std::uint32_t v, at, end;
  };
  next = 0;
  in_lanes<Emit>(
      [&](Emit& e) {
        while (next < slots) {
          const std::uint32_t i = next++;
          if (start[i] == kNoRuler) continue;
          const std::uint32_t end = std::min(start[i] + dist[i], n);
          if (start[i] >= end) continue;
          const std::uint32_t copied = std::min(std::min(dist[i] - 1, kRulerKept), end - start[i]);
          std::memcpy(out + start[i], kept + std::size_t{i} * kRulerKept, copied);
          e = {resume[i], start[i] + copied, end};
          if (e.at < e.end) return true;
        }
        return false;
      },
      [&](Emit& e) {
        e.v = tt[e.v >> 8];
        out[e.at++] = static_cast<std::uint8_t>(e.v & 0xff);
        return e.at == e.end;
      });
  for (std::uint32_t k = cycle; k < n; ++k) out[k] = out[k % cycle];  // ruler_repeat
  return cycle;
}

// ---- streams ----------------------------------------------------------------------------------------

int header_level(std::span<const std::uint8_t> in, std::size_t at) {
  if (in.size() < at + kHeaderBytes || in[at] != 'B' || in[at + 1] != 'Z' || in[at + 2] != 'h') return 0;
  const int level = in[at + 3] - '0';
  return level >= 1 && level <= 9 ? level : 0;
}

bool header_cut(std::span<const std::uint8_t> in, std::size_t at) {
  static constexpr std::uint8_t kHeader[] = {'B', 'Z', 'h'};
  if (at >= in.size() || in.size() - at >= kHeaderBytes) return false;
  for (std::size_t i = at; i < in.size(); ++i)
    if (in[i] != kHeader[i - at]) return false;
  return true;
}

namespace {
// The 48 bits at `bit` (zeros past the end).
std::uint64_t bits48(std::span<const std::uint8_t> in, std::uint64_t bit) {
  BitReader br(in, bit);
  return static_cast<std::uint64_t>(br.take(24)) << 24 | br.take(24);
}
}  // namespace

std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> in, DecodeStats* stats) {
  std::vector<std::uint8_t> out;
  DecodeScratch scratch;
  DecodeStats st;
  std::size_t at = 0;
  const std::uint64_t total_bits = static_cast<std::uint64_t>(in.size()) * 8;
  while (at < in.size()) {
    const int level = header_level(in, at);
    if (level == 0) {
      if (st.streams == 0) throw CorruptDataError("not a bzip2 stream: no \"BZh1\" to \"BZh9\" header");
      if (header_cut(in, at))
        throw CorruptDataError("stream " + std::to_string(st.streams + 1) + " at byte " + std::to_string(at) +
                               ": the input ends inside a stream header (truncated)");
      st.trailing_bytes = in.size() - at;
      break;
    }
    Where where;
    where.stream = ++st.streams;
    std::uint64_t bit = (at + kHeaderBytes) * 8;
    std::uint32_t combined = 0;
    while (true) {
      where.bit = bit;
      if (bit + 48 > total_bits) corrupt(where, bit, "the input ends before the stream's end marker (truncated)");
      const std::uint64_t magic = bits48(in, bit);
      if (magic == kBlockMagic) {
        ++where.block;
        ++st.blocks;
        const BlockResult r = decode_block(in, bit, level, out, scratch, where);
        combined = combine_crc(combined, r.stored_crc);
        bit = r.end_bit;
      } else if (magic == kEndMagic) {
        if (bit + 80 > total_bits) corrupt(where, bit, "the input ends inside the end marker (truncated)");
        BitReader br(in, bit + 48);
        const std::uint32_t stored = br.take(32);
        if (stored != combined)
          corrupt(where, bit + 48, "stream CRC " + std::to_string(combined) + " differs from the stored " + std::to_string(stored));
        at = static_cast<std::size_t>((bit + 80 + 7) / 8);
        break;
      } else {
        corrupt(where, bit, "neither a block nor the end marker");
      }
    }
  }
  if (st.streams == 0) throw CorruptDataError("not a bzip2 stream: empty input");
  if (stats != nullptr) *stats = st;
  return out;
}

namespace {
// The magics that start at bits 8p .. 8p + 7 within [from_bit, to_bit): a 64-bit window at byte p;
// the 48 bits at shift s of it are (w >> (16 - s)).
void magics_at(std::span<const std::uint8_t> in, std::size_t p, std::uint64_t from_bit, std::uint64_t to_bit, std::vector<Magic>& out) {
  std::uint64_t w = 0;
  for (std::size_t k = 0; k < 8; ++k) w = w << 8 | (p + k < in.size() ? in[p + k] : 0);
  for (int s = 0; s < 8; ++s) {
    const std::uint64_t b = p * 8 + static_cast<std::uint64_t>(s);
    if (b < from_bit || b + 48 > to_bit) continue;
    const std::uint64_t v = (w >> (16 - s)) & 0xFFFFFFFFFFFFull;
    if (v == kBlockMagic) out.push_back({b, false});
    else if (v == kEndMagic) out.push_back({b, true});
  }
}

bool magic_pair(unsigned pair) { return (kMagicPairs[pair >> 6] >> (pair & 63) & 1) != 0; }

void find_magics_serial(std::span<const std::uint8_t> in, std::uint64_t from_bit, std::uint64_t to_bit, std::vector<Magic>& out) {
  to_bit = std::min<std::uint64_t>(to_bit, in.size() * std::uint64_t{8});
  if (to_bit < from_bit + 48) return;
  const std::size_t first = static_cast<std::size_t>(from_bit / 8), last = static_cast<std::size_t>((to_bit - 48) / 8);
  std::size_t p = first;
  // Positions p .. p + 7 a step: the pairs at bytes p + 4 and p + 8 (each position has one of them
  // among its bytes p + 1 .. p + 4), read from one big-endian word of bytes p + 2 .. p + 9.
  for (; p + 7 <= last && p + 10 <= in.size(); p += 8) {
    std::uint64_t x;
    std::memcpy(&x, in.data() + p + 2, 8);
    x = __builtin_bswap64(x);  // byte p + 2 first (a little-endian host, as the writer above assumes)
    if (magic_pair(static_cast<unsigned>(x >> 32) & 0xffffu) | magic_pair(static_cast<unsigned>(x) & 0xffffu))  // no branch between
      for (std::size_t q = p; q < p + 8; ++q) magics_at(in, q, from_bit, to_bit, out);
  }
  for (; p <= last; ++p) magics_at(in, p, from_bit, to_bit, out);
}
}  // namespace

void find_magics(std::span<const std::uint8_t> in, std::uint64_t from_bit, std::uint64_t to_bit, std::vector<Magic>& out, unsigned threads) {
  to_bit = std::min<std::uint64_t>(to_bit, in.size() * std::uint64_t{8});
  if (to_bit < from_bit + 48) return;
  constexpr std::uint64_t kChunkBits = std::uint64_t{2} << 20;  // 256 KiB of starts per piece at least
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t range = to_bit - from_bit;
  if (threads == 1 || range < 2 * kChunkBits) return find_magics_serial(in, from_bit, to_bit, out);
  // Pieces of the starts [from_bit, to_bit), a whole number of MiB each (about 4 per thread); each
  // reads the 47 bits after its last start too.
  const std::uint64_t piece = kChunkBits * std::max<std::uint64_t>(1, range / (4 * std::uint64_t{threads}) / kChunkBits);
  const std::size_t pieces = static_cast<std::size_t>((range + piece - 1) / piece);
  std::vector<std::vector<Magic>> found(pieces);
  for_each_block(pieces, threads, [&](std::size_t k) {
    const std::uint64_t a = from_bit + k * piece, b = std::min(to_bit, a + piece + 47);
    find_magics_serial(in, a, b, found[k]);
  });
  for (const auto& f : found) out.insert(out.end(), f.begin(), f.end());
}

}  // namespace parcomp::bz2
