// The .bz2 format (codec/bz2.hpp) against libbz2, its own library: the one-core writer
// (tests/common/bz2_writer.hpp) writes the bytes bzip2's program writes at every level (libbz2 fed as the
// program feeds it, and the installed bzip2 program itself), periodic blocks differing in origPtr
// alone; the reader gives back libbz2's output at every level, several streams, and files the other
// bzip2 programs wrote (lbzip2, pbzip2, where installed); and on damaged files it agrees with
// libbz2 file for file: the same bytes where libbz2 succeeds, a CorruptDataError where it fails
// (randomised blocks, bzip2 0.9.0's, read as libbz2 reads them).
#include "codec/bz2.hpp"
#include "codec/bz2_ties.hpp"
#include "codec/cpu_codec.hpp"
#include "codec/engine.hpp"
#include "core/errors.hpp"
#include "datasets/synthetic.hpp"
#include "common/bz2_writer.hpp"

#include "common/bz2_blocks.hpp"
#include "common/libbz2.hpp"
#include "common/mem_io.hpp"
#include "common/sample_inputs.hpp"
#include "common/seeds.hpp"

#include <bzlib.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <chrono>
#include <filesystem>
#include <future>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <string>
#include <utility>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" __attribute__((weak)) void BZ2_hbMakeCodeLengths(unsigned char* len, int* freq, int alphaSize, int maxLen);

namespace {
using parcomp::testing::MemSink;
using parcomp::testing::MemSource;
using parcomp::testing::libbz2_compress;
using parcomp::testing::libbz2_decompress;
using parcomp::testing::periodic;
using parcomp::testing::word_text;
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;

// Runs of every length around the stage's limits (3, 4, 5, 255, 256, 259, 510, ...).
Bytes runs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  static const std::size_t lengths[] = {1, 2, 3, 4, 5, 6, 254, 255, 256, 258, 259, 260, 509, 510, 511, 1000};
  Bytes out;
  while (out.size() < n) out.insert(out.end(), lengths[rng() % 16], static_cast<std::uint8_t>(rng() % 7));
  out.resize(n);
  return out;
}

// Bytes with no two equal neighbours: bzip2's block fills after exactly block_fill + 1 of them.
Bytes run_free(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<std::uint8_t>(rng());
    if (i > 0 && out[i] == out[i - 1]) out[i] ^= 1;
  }
  return out;
}

// True when a and b differ only inside the origPtr fields of a's blocks (24 bits, 81 bits after
// each block magic).
bool differ_in_orig_ptr_only(const Bytes& a, const Bytes& b) {
  if (a.size() != b.size()) return false;
  std::vector<bz2::Magic> magics;
  bz2::find_magics(a, 0, a.size() * 8, magics);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    for (int k = 0; k < 8; ++k) {
      if (((a[i] ^ b[i]) >> (7 - k) & 1) == 0) continue;
      const std::uint64_t bit = i * 8 + static_cast<std::uint64_t>(k);
      bool inside = false;
      for (const auto& m : magics) inside |= !m.end && bit >= m.bit + 81 && bit < m.bit + 105;
      if (!inside) return false;
    }
  }
  return true;
}

std::vector<std::pair<std::string, Bytes>> inputs(std::uint64_t seed) {
  return {{"empty", {}},
          {"one byte", {'q'}},
          {"two bytes", {'b', 'a'}},
          {"four equal", Bytes(4, 'x')},
          {"all equal", Bytes(100000, 'z')},
          {"runs", runs(400009, seed)},
          {"text", word_text(300007, seed)},
          {"random", datasets::bytes_with_entropy(150001, 8.0, seed)},
          {"low entropy", datasets::bytes_with_entropy(200003, 0.7, seed + 1)},
          {"skewed", datasets::bytes_with_entropy(99999, 2.0, seed + 2)},
          {"all 256 bytes", [] { Bytes b(256); for (int i = 0; i < 256; ++i) b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i); return b; }()}};
}

// The inverse MTF's list move (bz2::shift_up_256, a word for short moves on the host) against the
// plain byte loop, for every position of random lists.
TEST(Bz2, ShiftUp256MovesLikeTheByteLoop) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int j = 0; j < 256; ++j) {
    std::uint8_t got[256], want[256];
    for (int k = 0; k < 256; ++k) got[k] = want[k] = static_cast<std::uint8_t>(rng());
    bz2::shift_up_256(got, j);
    for (int k = j; k > 0; --k) want[k] = want[k - 1];
    ASSERT_TRUE(std::equal(got, got + 256, want)) << "j = " << j;
  }
}

TEST(Bz2, CodeLengthsAreLibbz2s) {
  if (BZ2_hbMakeCodeLengths == nullptr) GTEST_SKIP() << "this libbz2 does not export BZ2_hbMakeCodeLengths";
  std::mt19937_64 rng(parcomp::testing::fresh_seed());
  for (int trial = 0; trial < 2000; ++trial) {
    const int alpha = 3 + static_cast<int>(rng() % 256);
    std::vector<std::int32_t> freq(static_cast<std::size_t>(alpha));
    // Flat, Fibonacci (trees deeper than 20: the halving path), sparse, tiny. Totals stay below a
    // block's symbol count, as in bzip2 (weights are 24-bit).
    const int shape = trial % 4;
    std::int32_t fa = 1, fb = 1;
    for (int i = 0; i < alpha; ++i) {
      std::int32_t f = 0;
      if (shape == 0) f = static_cast<std::int32_t>(rng() % 1000);
      if (shape == 1) {
        f = i < 27 ? fa + static_cast<std::int32_t>(rng() % 2) : static_cast<std::int32_t>(rng() % 2);
        fa = std::exchange(fb, fa + fb);
      }
      if (shape == 2) f = rng() % 5 == 0 ? static_cast<std::int32_t>(rng() % 3000) : 0;
      if (shape == 3) f = static_cast<std::int32_t>(rng() % 3);
      freq[static_cast<std::size_t>(i)] = f;
    }
    const int max_len = trial % 2 == 0 ? 17 : 20;
    std::vector<std::uint8_t> ours(static_cast<std::size_t>(alpha)), theirs(static_cast<std::size_t>(alpha));
    bz2::make_code_lengths(freq.data(), alpha, max_len, ours.data());
    std::vector<int> f(freq.begin(), freq.end());
    BZ2_hbMakeCodeLengths(theirs.data(), f.data(), alpha, max_len);
    ASSERT_EQ(ours, theirs) << "trial " << trial << " alphabet " << alpha << " shape " << shape;
  }
}

TEST(Bz2, FindMagicsAtEveryBitOffset) {
  // Against the obvious scan (48 bits read at every bit in range), on bytes with magics planted at
  // random bits, ranges starting and ending anywhere.
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  std::mt19937_64 rng(seed);
  auto bit_at = [](const Bytes& v, std::uint64_t b) { return (v[b / 8] >> (7 - b % 8)) & 1u; };
  for (int trial = 0; trial < 3000; ++trial) {
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " seed " << seed);
    Bytes v(rng() % 80);
    for (auto& x : v) x = rng() % 4 == 0 ? 0 : static_cast<std::uint8_t>(rng());
    for (int k = 0; k < 3 && v.size() >= 6; ++k) {
      const std::uint64_t m = rng() % 2 ? bz2::kBlockMagic : bz2::kEndMagic, at = rng() % (v.size() * 8 - 47);
      for (int i = 0; i < 48; ++i) {
        const std::uint64_t b = at + static_cast<std::uint64_t>(i);
        const auto mask = static_cast<std::uint8_t>(0x80u >> (b % 8));
        v[b / 8] = static_cast<std::uint8_t>(((m >> (47 - i)) & 1) != 0 ? v[b / 8] | mask : v[b / 8] & ~mask);
      }
    }
    const std::uint64_t from = rng() % (v.size() * 8 + 1), to = from + rng() % (v.size() * 8 + 10);
    std::vector<bz2::Magic> want, got;
    for (std::uint64_t b = from; b + 48 <= std::min<std::uint64_t>(to, v.size() * 8); ++b) {
      std::uint64_t w = 0;
      for (int i = 0; i < 48; ++i) w = w << 1 | bit_at(v, b + static_cast<std::uint64_t>(i));
      if (w == bz2::kBlockMagic || w == bz2::kEndMagic) want.push_back({b, w == bz2::kEndMagic});
    }
    bz2::find_magics(v, from, to, got);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i].bit, want[i].bit);
      ASSERT_EQ(got[i].end, want[i].end);
    }
  }
}

TEST(Bz2, FindMagicsInPiecesOnManyThreadsFindsTheSame) {
  // Large ranges are scanned in pieces of whole MiB on several threads: the same magics in the
  // same order as one scan, magics planted across every MiB from the start (every edge a piece can
  // have in the scans from bit 0), ranges cut anywhere.
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes v(std::size_t{9} << 20);
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  auto plant = [&](std::uint64_t at) {
    const std::uint64_t m = rng() % 2 ? bz2::kBlockMagic : bz2::kEndMagic;
    for (int i = 0; i < 48; ++i) {
      const std::uint64_t b = at + static_cast<std::uint64_t>(i);
      const auto mask = static_cast<std::uint8_t>(0x80u >> (b % 8));
      v[b / 8] = static_cast<std::uint8_t>(((m >> (47 - i)) & 1) != 0 ? v[b / 8] | mask : v[b / 8] & ~mask);
    }
  };
  for (int k = 0; k < 400; ++k) plant(rng() % (v.size() * 8 - 48));
  const std::uint64_t before[] = {1, 24, 47};  // straddling a 1 MiB edge (47: ending one bit past it)
  for (std::uint64_t edge = std::uint64_t{8} << 20, k = 0; edge < v.size() * 8; edge += std::uint64_t{8} << 20, ++k) plant(edge - before[k % 3]);
  for (int trial = 0; trial < 6; ++trial) {
    const std::uint64_t from = trial < 3 ? 0 : rng() % (v.size() * 2), to = trial < 2 ? v.size() * 8 : v.size() * 8 - rng() % 1000;
    std::vector<bz2::Magic> one, many;
    bz2::find_magics(v, from, to, one, 1);
    bz2::find_magics(v, from, to, many, trial % 2 == 0 ? 0 : 2 + static_cast<unsigned>(trial));
    ASSERT_GT(one.size(), 100u);
    ASSERT_EQ(many.size(), one.size()) << "from " << from << " to " << to;
    for (std::size_t i = 0; i < one.size(); ++i) {
      ASSERT_EQ(many[i].bit, one[i].bit);
      ASSERT_EQ(many[i].end, one[i].end);
    }
  }
}

TEST(Bz2, AZeroRunPastTheLimitIsAnError) {
  // (abc)^200000 sorts to the last column c^k a^k b^k: three MTF zero runs of 199999, the last one
  // right before EOB. Read with a level-1 limit (100000 bytes), the first run already passes it:
  // an error, never a block of more bytes than the limit (the writes would run past the buffer).
  const Bytes file = libbz2_compress(parcomp::testing::periodic(600000, "abc"), 9);
  for (const std::uint32_t limit : {100000u, 250000u, 450000u, 599999u}) {
    SCOPED_TRACE(::testing::Message() << "limit " << limit);
    auto work = std::make_unique<bz2::DecodeWork>();
    std::uint32_t counts[256];
    std::uint32_t written = 0;
    const bz2::BlockSymbols s = bz2::decode_symbols(file.data(), file.size(), 32, limit, *work, counts,
                                                    [&](std::uint32_t i, std::uint8_t) { written = std::max(written, i + 1); });
    EXPECT_EQ(s.error, bz2::BlockError::too_many_bytes);
    EXPECT_LE(written, limit);
  }
  auto work = std::make_unique<bz2::DecodeWork>();
  std::uint32_t counts[256];
  const bz2::BlockSymbols s = bz2::decode_symbols(file.data(), file.size(), 32, 900000, *work, counts, [](std::uint32_t, std::uint8_t) {});
  EXPECT_EQ(s.error, bz2::BlockError::none);
  EXPECT_EQ(s.nblock, 600000u);
}

TEST(Bz2, CrcIsBzip2s) {
  // The CRC-32/BZIP2 check value.
  const std::string s = "123456789";
  EXPECT_EQ(bz2::block_crc({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}), 0xFC891918u);
  // Every length 0 .. 300 and offset 0 .. 7, from bzip2's start and from a random register, and
  // some long odd lengths, against the bit-by-bit definition (MSB first, 0x04C11DB7): the table
  // path below 64 bytes and the carry-less folding path (where the host has it) above.
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes v(100'008);
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  const auto bitwise = [&](std::uint32_t crc, std::size_t off, std::size_t n) {
    for (std::size_t i = off; i < off + n; ++i) {
      crc ^= std::uint32_t{v[i]} << 24;
      for (int k = 0; k < 8; ++k) crc = (crc & 0x80000000u) != 0 ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
    }
    return crc;
  };
  for (const std::uint32_t start : {0xFFFFFFFFu, static_cast<std::uint32_t>(rng())})
    for (std::size_t off = 0; off < 8; ++off)
      for (std::size_t n = 0; n <= 300; ++n)
        ASSERT_EQ(bz2::crc_update(start, std::span<const std::uint8_t>(v).subspan(off, n)), bitwise(start, off, n)) << off << " " << n;
  for (const std::size_t n : {std::size_t{4096}, std::size_t{65537}, std::size_t{100'001}}) {
    const std::size_t off = rng() % 7;
    EXPECT_EQ(bz2::crc_update(0xFFFFFFFFu, std::span<const std::uint8_t>(v).subspan(off, n)), bitwise(0xFFFFFFFFu, off, n)) << n;
  }
}

TEST(Bz2, WriterIsByteIdenticalToLibbz2) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& [label, in] : inputs(seed)) {
    for (const int level : {1, 2, 9}) {
      SCOPED_TRACE(::testing::Message() << label << " n " << in.size() << " level " << level);
      const Bytes ours = parcomp::testing::bz2_compress(in, level);
      const Bytes theirs = libbz2_compress(in, level);
      ASSERT_EQ(ours.size(), theirs.size());
      ASSERT_TRUE(ours == theirs) << "first difference at byte "
                                  << (std::mismatch(ours.begin(), ours.end(), theirs.begin()).first - ours.begin());
      EXPECT_EQ(bz2::decompress(ours), in);
    }
  }
}

// encode_block on several threads (MTF in chunks, the rounds' choices in pieces) writes one
// thread's bits: blocks of every size class (one chunk, a few, many; a zero run across chunks; one
// byte value; all 256), 2 to 16 threads.
TEST(Bz2, EncodeBlockOnThreadsIsOneThreadsBits) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<std::pair<std::string, Bytes>> blocks;
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{777}, std::size_t{65536}, std::size_t{100003},
                              std::size_t{333333}, std::size_t{899999}}) {
    Bytes random(n), skewed(n), zeros(n, 7);
    for (auto& b : random) b = static_cast<std::uint8_t>(rng());
    std::geometric_distribution<int> geo(0.3);
    for (auto& b : skewed) b = static_cast<std::uint8_t>(std::min(geo(rng), 40));
    blocks.emplace_back("random", std::move(random));
    blocks.emplace_back("skewed", std::move(skewed));
    blocks.emplace_back("one value", std::move(zeros));
  }
  Bytes runs(600000);  // long equal runs: zero runs that cross the chunks' edges
  for (std::size_t i = 0; i < runs.size();) {
    const std::size_t len = 1 + rng() % 90000;
    const auto v = static_cast<std::uint8_t>(rng() % 5);
    for (std::size_t k = 0; k < len && i < runs.size(); ++k) runs[i++] = v;
  }
  blocks.emplace_back("runs", std::move(runs));
  bz2::EncodeScratch one, many;
  for (const auto& [label, last] : blocks) {
    const auto orig_ptr = static_cast<std::uint32_t>(rng() % last.size());
    const auto crc = static_cast<std::uint32_t>(rng());
    bz2::BlockBits want, got;
    bz2::encode_block(last, orig_ptr, crc, want, one);
    for (const unsigned threads : {2u, 3u, 16u}) {
      SCOPED_TRACE(::testing::Message() << label << " n " << last.size() << " threads " << threads);
      bz2::encode_block(last, orig_ptr, crc, got, many, threads);
      ASSERT_EQ(got.bits, want.bits);
      ASSERT_TRUE(got.bytes == want.bytes);
    }
  }
}

TEST(Bz2, BlocksCutAsBzip2sProgramCutsThem) {
  // Level 1 closes a block at 99981 bytes: run-free input fills it with its 99982nd byte. At the
  // input's end the program (BZ_RUN, then BZ_FINISH) has already closed the block, so that byte
  // makes a block of its own; one byte less and it joins the first.
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  for (const std::size_t n : {std::size_t{99981}, std::size_t{99982}, std::size_t{99983}, std::size_t{199963}, std::size_t{199964}}) {
    const Bytes in = run_free(n, seed);
    SCOPED_TRACE(::testing::Message() << "n " << n << " seed " << seed);
    const Bytes ours = parcomp::testing::bz2_compress(in, 1);
    ASSERT_TRUE(ours == libbz2_compress(in, 1));
  }
  const Bytes in = run_free(99982, seed);
  EXPECT_EQ(bz2::cut_block(in, 1, true), 99981u);
  EXPECT_EQ(bz2::cut_block(std::span(in).first(99981), 1, false), 0u) << "the block has not closed yet";
  EXPECT_EQ(bz2::cut_block(std::span(in).first(99981), 1, true), 99981u);
  // A run spanning the boundary goes whole to the next block.
  Bytes with_run = run_free(99990, seed);
  std::fill(with_run.begin() + 99979, with_run.begin() + 99990, std::uint8_t{'r'});
  const std::size_t cut = bz2::cut_block(with_run, 1, false);
  EXPECT_LE(cut, 99979u);
  EXPECT_TRUE(parcomp::testing::bz2_compress(with_run, 1) == libbz2_compress(with_run, 1));
}

// bzip2's block cut, one byte at a time (the lines of cut_block without its eight-byte steps).
// n bytes of one run structure: kind 0 runs of 1 to kind0_longest bytes, 1 runs of up to 12, 2
// runs of up to 300 with noise every 1 to 64 bytes, 3 text, 4 stretches of up to 200000 bytes
// (zero-filled regions); runs of 1 to 4 values.
Bytes run_input(int kind, std::size_t n, unsigned kind0_longest, std::mt19937_64& rng, std::uint64_t text_seed) {
  if (kind == 3) return word_text(n, text_seed);
  Bytes in;
  const unsigned values = 1 + static_cast<unsigned>(rng() % 4);
  const unsigned longest = kind == 0 ? kind0_longest : kind == 1 ? 12 : kind == 4 ? 200000 : 300;
  while (in.size() < n) in.insert(in.end(), 1 + rng() % longest, static_cast<std::uint8_t>('a' + rng() % values));
  in.resize(n);
  if (kind == 2)
    for (std::size_t i = 0; i < n; i += 1 + rng() % 64) in[i] = static_cast<std::uint8_t>(rng());
  return in;
}

std::size_t cut_one_by_one(const Bytes& in, int level) {
  const std::size_t fill = bz2::block_fill(level);
  std::size_t nblock = 0, run_len = 0;
  unsigned run_ch = 256;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const unsigned c = in[i];
    if (c != run_ch && run_len == 1) {
      ++nblock;
      run_ch = c;
    } else if (c != run_ch || run_len == bz2::kMaxRun) {
      if (run_ch < 256) nblock += run_len < 4 ? run_len : 5;
      run_ch = c;
      run_len = 1;
    } else {
      ++run_len;
    }
    if (nblock >= fill) return i + 1 - run_len;
  }
  return in.size();
}

TEST(Bz2, BlockCutsInEightByteStepsAreTheOneByOneCuts) {
  // Inputs of every run structure near the cut: runs of 1 to 300 bytes of 1 to 4 values, noise,
  // text, stretches of up to 200000 bytes (a block of them is megabytes, and its cut mostly inside
  // one); the cut asked for all at once and as the input grows in pieces of random sizes.
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 75; ++k) {
    const int level = 1 + static_cast<int>(rng() % 2), kind = k % 5;
    const std::size_t n = kind == 4 ? 52 * bz2::block_fill(level) : bz2::block_fill(level) + rng() % 60000;
    const Bytes in = run_input(kind, n, 3, rng, seed + static_cast<std::uint64_t>(k));
    SCOPED_TRACE(::testing::Message() << "input " << k << ", level " << level);
    const std::size_t want = cut_one_by_one(in, level);
    ASSERT_EQ(bz2::cut_block(in, level, true), want);
    bz2::CutState st;
    std::size_t have = 0, got = 0;
    while (got == 0) {
      have = std::min(in.size(), have + 1 + rng() % (kind == 4 ? 900000 : 9000));
      got = bz2::cut_block(st, std::span(in).first(have), level, have == in.size());
    }
    ASSERT_EQ(got, want);
  }
}

// Every cut of an input at once (cut_blocks, tiles in parallel) against cut_block from each block's
// start: inputs of several blocks with runs of every length (stretches of 253 to 259 bytes and of
// up to 6 MB across tiles), noise and text, at levels 1 and 2, final or not (then every final
// cut that lies inside the part), on 1 and 3 threads.
TEST(Bz2, AllCutsAtOnceAreTheOneByOneCuts) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 24; ++k) {
    const int kind = k % 6;
    // Stretches shrink to about a fortieth in a block: inputs of them are 12 MB at level 1, so that
    // several blocks close, some inside a stretch of MBs.
    const bool long_runs = kind == 1 || kind == 3;
    const int level = long_runs ? 1 : 1 + k % 2;
    // (4 MiB and more: cut_blocks cuts less on one thread, block after block.)
    const std::size_t n = long_runs ? 12000000 + rng() % 300000 : (std::size_t{4} << 20) + bz2::block_fill(level) * (1 + rng() % 4) + rng() % 300000;
    Bytes in;
    if (kind == 5) {
      in = word_text(n, seed + static_cast<std::uint64_t>(k));
    } else {
      const unsigned values = 1 + static_cast<unsigned>(rng() % 3);
      std::uint8_t value = 'a';
      while (in.size() < n) {
        const std::uint64_t pick = rng() % 100;
        std::size_t len = kind == 0 ? 1 + rng() % 5 : kind == 1 ? 253 + rng() % 7 : kind == 2 ? 1 + rng() % 600 : 1 + rng() % 8;
        if (kind == 3 && (pick == 0 || in.empty())) len = 100000 + rng() % 6000000;  // a stretch over many tiles (one from the start)
        // kind 1: stretches of exactly 253..259 bytes (each next to a different byte), around the 255 cap
        value = kind == 1 ? static_cast<std::uint8_t>('a' + (value - 'a' + 1 + rng() % 2) % 3) : static_cast<std::uint8_t>('a' + rng() % values);
        in.insert(in.end(), len, value);
      }
      in.resize(n);
      if (kind == 4)
        for (std::size_t i = 0; i < n; i += 1 + rng() % 64) in[i] = static_cast<std::uint8_t>(rng());
    }
    SCOPED_TRACE(::testing::Message() << "input " << k << " (" << n << " bytes), level " << level);
    std::vector<std::size_t> want;
    for (std::size_t at = 0; at < in.size();) {
      const std::size_t c = bz2::cut_block(std::span(in).subspan(at), level, true);
      want.push_back(c);
      at += c;
    }
    for (const unsigned threads : {1u, 3u}) {
      ASSERT_EQ(bz2::cut_blocks(in, level, true, threads), want) << threads << " threads";
      const std::size_t part = n / 2 + rng() % (n / 2);
      const std::vector<std::size_t> got = bz2::cut_blocks(std::span(in).first(part), level, false, threads);
      ASSERT_LE(got.size(), want.size());
      std::size_t end = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "block " << i << " of a part of " << part << " bytes";
        end += got[i];
      }
      ASSERT_LE(end, part);
      // No cut left out that the part's bytes decide: the next one (if any) lies at or past its end.
      if (got.size() < want.size()) {
        ASSERT_GE(end + want[got.size()], part);
      }
    }
  }
}

// The initial run-length stage in eight-byte steps against bzip2's byte-by-byte lines (as
// compress.c's ADD_CHAR_TO_BLOCK writes them): runs of 1 to 300 bytes of 1 to 4 values, with and
// without noise, text, every short length, appended after bytes already in the output.
TEST(Bz2, RunLengthStageInEightByteStepsIsBzip2s) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  auto oracle = [](const Bytes& in) {
    Bytes out;
    for (std::size_t i = 0; i < in.size();) {
      std::size_t j = i + 1;
      while (j < in.size() && in[j] == in[i] && j - i < 255) ++j;
      const std::size_t len = j - i;
      out.insert(out.end(), len < 4 ? len : 4, in[i]);
      if (len >= 4) out.push_back(static_cast<std::uint8_t>(len - 4));
      i = j;
    }
    return out;
  };
  for (int k = 0; k < 400; ++k) {
    const std::size_t n = k < 40 ? static_cast<std::size_t>(k) : 1 + rng() % (k % 10 == 0 ? 200000 : 2000);
    const Bytes in = run_input(k % 5, n, 5, rng, seed + static_cast<std::uint64_t>(k));
    SCOPED_TRACE(::testing::Message() << "input " << k << " of " << n << " bytes");
    Bytes got = {1, 2, 3};
    const std::size_t added = bz2::rle1_encode(in, got);
    const Bytes want = oracle(in);
    ASSERT_EQ(added, want.size());
    ASSERT_EQ(got.size(), 3 + want.size());
    ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin() + 3));
  }
}

// The inverse of the stage, eight bytes a step, against bzip2's byte-at-a-time state machine
// (unRLE_obuf_to_output_FAST: after four equal bytes a count, then counting starts afresh): on the
// stage's own output (which it must give back), and on any bytes (counts in runs of equal bytes,
// runs of four right after a count, a block ending inside a run: refused).
TEST(Bz2, RunLengthDecodeInEightByteStepsIsTheStateMachine) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  auto oracle = [](const Bytes& in, Bytes& out) {
    unsigned prev = 256;
    int same = 0;
    for (const std::uint8_t c : in) {
      if (same == 4) {
        out.insert(out.end(), c, static_cast<std::uint8_t>(prev));
        same = 0;
        prev = 256;
        continue;
      }
      same = c == prev ? same + 1 : 1;
      prev = c;
      out.push_back(c);
    }
    return same != 4;
  };
  for (int k = 0; k < 600; ++k) {
    const std::size_t n = k < 40 ? static_cast<std::size_t>(k) : 1 + rng() % (k % 10 == 0 ? 200000 : 2000);
    Bytes in = run_input(k % 4, n, 9, rng, seed + static_cast<std::uint64_t>(k));
    if (k % 3 == 0) {  // the stage's own output: decoding gives the input back
      Bytes encoded;
      bz2::rle1_encode(in, encoded);
      Bytes back = {7};
      ASSERT_TRUE(bz2::rle1_decode(encoded, back)) << "input " << k;
      ASSERT_EQ(back.size(), 1 + in.size()) << "input " << k;
      ASSERT_TRUE(std::equal(in.begin(), in.end(), back.begin() + 1)) << "input " << k;
      continue;
    }
    if (k % 3 == 2 && !in.empty())  // counts of any value (up to 255) after the runs
      for (std::size_t i = 0; i + 4 < in.size(); i += 1 + rng() % 16)
        if (in[i] == in[i + 1] && in[i] == in[i + 2] && in[i] == in[i + 3]) in[i + 4] = static_cast<std::uint8_t>(rng());
    Bytes want = {1, 2}, got = {1, 2};
    const bool ok = oracle(in, want);
    SCOPED_TRACE(::testing::Message() << "input " << k << " of " << n << " bytes");
    ASSERT_EQ(bz2::rle1_decode(in, got), ok);
    if (ok) {
      ASSERT_TRUE(got == want);
    }
  }
  for (const Bytes& cut : {Bytes{5, 5, 5, 5}, Bytes{1, 2, 9, 9, 9, 9}, Bytes{3, 3, 3, 3, 0, 3, 3, 3, 3}}) {  // ends inside a run
    Bytes out;
    EXPECT_FALSE(bz2::rle1_decode(cut, out));
  }
  Bytes out;  // a count of 255, then four equal bytes start afresh right after it
  ASSERT_TRUE(bz2::rle1_decode(Bytes{7, 7, 7, 7, 255, 7, 7, 7, 7, 1, 8}, out));
  EXPECT_EQ(out.size(), 259u + 5u + 1u);
}

// In pieces through a small room: the same bytes as the whole decode, in order, each piece within
// the room; the size counted without the bytes; an input that ends inside a run: false, and the
// pieces then hold what rle1_decode keeps of it.
TEST(Bz2, RunLengthDecodeInPiecesIsTheWholeDecode) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 300; ++k) {
    const std::size_t n = k < 20 ? static_cast<std::size_t>(k) : 1 + rng() % (k % 10 == 0 ? 300000 : 3000);
    const Bytes in = run_input(k % 4, n, 9, rng, seed + static_cast<std::uint64_t>(k));
    Bytes encoded;
    bz2::rle1_encode(in, encoded);
    if (k % 7 == 6 && encoded.size() > 5) {  // cut inside a run where there is one
      for (std::size_t i = 0; i + 4 <= encoded.size(); ++i)
        if (encoded[i] == encoded[i + 1] && encoded[i] == encoded[i + 2] && encoded[i] == encoded[i + 3]) {
          encoded.resize(i + 4);
          break;
        }
    }
    Bytes want;
    const bool ok = bz2::rle1_decode(encoded, want);
    const std::size_t room_bytes = k % 3 == 0 ? 512 : k % 3 == 1 ? 513 + rng() % 3000 : std::size_t{1} << 20;
    Bytes room(room_bytes), got;
    std::size_t pieces = 0;
    SCOPED_TRACE(::testing::Message() << "input " << k << ": " << n << " bytes, room " << room_bytes);
    const bool whole = bz2::rle1_decode_pieces(encoded, room, [&](std::span<const std::uint8_t> p) {
      ASSERT_GT(p.size(), 0u);
      ASSERT_LE(p.size(), room_bytes);
      got.insert(got.end(), p.begin(), p.end());
      ++pieces;
    });
    ASSERT_EQ(whole, ok);
    ASSERT_TRUE(got == want);
    const std::optional<bz2::Rle1Measure> m = bz2::rle1_measure(encoded);
    ASSERT_EQ(m.has_value(), ok);
    if (ok) {
      EXPECT_EQ(m->bytes, want.size());
      const bool one_byte = !want.empty() && std::all_of(want.begin(), want.end(), [&](std::uint8_t b) { return b == want[0]; });
      ASSERT_EQ(m->single, one_byte ? std::optional<std::uint8_t>(want[0]) : std::nullopt);
    }
    if (ok && want.size() > 4 * room_bytes) {
      EXPECT_GE(pieces, want.size() / room_bytes);
    }
  }
  for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5}, std::size_t{259}, std::size_t{260}, std::size_t{100001}}) {
    const auto c = static_cast<std::uint8_t>(rng());
    Bytes same(n, c), encoded;
    bz2::rle1_encode(same, encoded);
    EXPECT_EQ(bz2::rle1_measure(encoded)->single, std::optional<std::uint8_t>(c)) << n << " bytes";
    same.push_back(static_cast<std::uint8_t>(c + 1));  // one other byte at the end
    encoded.clear();
    bz2::rle1_encode(same, encoded);
    EXPECT_EQ(bz2::rle1_measure(encoded)->single, std::nullopt) << n << " bytes and another";
  }
  EXPECT_EQ(bz2::rle1_measure(Bytes{})->bytes, 0u);
  EXPECT_EQ(bz2::rle1_measure(Bytes{})->single, std::nullopt);
  EXPECT_FALSE(bz2::rle1_measure(Bytes{9, 9, 9, 9}).has_value());  // ends inside a run
  EXPECT_EQ(bz2::rle1_measure(Bytes{9, 9, 9, 9, 7})->single, std::optional<std::uint8_t>(9));  // the count is no byte of the output
  EXPECT_EQ(bz2::rle1_measure(Bytes{9, 9, 9, 9, 7})->bytes, 11u);
  Bytes tiny(511);
  EXPECT_THROW(bz2::rle1_decode_pieces(Bytes{1}, tiny, [](std::span<const std::uint8_t>) {}), parcomp::ContractError);
}

// A block that decodes to more than compact_over is left before the inverse run-length stage: its
// bytes decode to the block, its CRC was checked (a wrong stored CRC is the same error), and one at
// or under it is decoded as before.
TEST(Bz2, BlocksOverTheLimitAreLeftCompactAndChecked) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes in(255 * 150000 + rng() % 1000, static_cast<std::uint8_t>(rng()));  // about 38 MB: a level-9 block of runs and more
  for (std::size_t i = 0; i < in.size(); i += 1 + rng() % 4000000) in[i] = static_cast<std::uint8_t>(rng());
  const Bytes file = libbz2_compress(in, 9);
  bz2::DecodeScratch scratch;
  const bz2::Where where;
  Bytes whole;
  const bz2::BlockResult full = bz2::decode_block(file, 32, 9, whole, scratch, where, true, true);
  ASSERT_FALSE(full.compact);
  ASSERT_GT(full.bytes, std::size_t{8} << 20);
  ASSERT_TRUE(std::equal(whole.begin(), whole.end(), in.begin()));
  Bytes compact(100, 0xEE);  // a recycled vector
  const bz2::BlockResult r = bz2::decode_block(file, 32, 9, compact, scratch, where, true, true, std::size_t{8} << 20);
  ASSERT_TRUE(r.compact);
  EXPECT_EQ(r.bytes, full.bytes);
  EXPECT_EQ(r.end_bit, full.end_bit);
  EXPECT_EQ(r.stored_crc, full.stored_crc);
  EXPECT_EQ(compact.size(), r.nblock);
  Bytes back;
  ASSERT_TRUE(bz2::rle1_decode(compact, back));
  EXPECT_TRUE(back == whole);
  Bytes same;
  EXPECT_FALSE(bz2::decode_block(file, 32, 9, same, scratch, where, true, true, full.bytes).compact);  // at the limit: whole
  EXPECT_TRUE(same == whole);
  Bytes damaged = file;  // the block CRC's last bit (after 32 bits of header and 48 of magic)
  damaged[(32 + 48 + 31) / 8] ^= static_cast<std::uint8_t>(1u << (7 - (32 + 48 + 31) % 8));
  std::string whole_error, compact_error;
  try {
    bz2::decode_block(damaged, 32, 9, same, scratch, where, true, true);
  } catch (const CorruptDataError& e) {
    whole_error = e.what();
  }
  try {
    bz2::decode_block(damaged, 32, 9, same, scratch, where, true, true, std::size_t{8} << 20);
  } catch (const CorruptDataError& e) {
    compact_error = e.what();
  }
  EXPECT_NE(whole_error.find("block CRC"), std::string::npos) << whole_error;
  EXPECT_EQ(compact_error, whole_error);
}

// Written over a recycled vector (from = 0, or after bytes it keeps): its stale bytes, fewer or
// more than the output, are room, never output; the vector ends with the decoded bytes.
TEST(Bz2, RunLengthDecodeOverARecycledVectorKeepsNoStaleByte) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 200; ++k) {
    const std::size_t n = k < 20 ? static_cast<std::size_t>(k) : 1 + rng() % (k % 10 == 0 ? 300000 : 3000);
    const Bytes in = run_input(k % 4, n, 9, rng, seed + static_cast<std::uint64_t>(k));
    Bytes encoded;
    bz2::rle1_encode(in, encoded);
    const std::size_t stale = k % 3 == 0 ? 0 : k % 3 == 1 ? n / 2 : 2 * n + 1000;  // fewer or more than the output
    const std::size_t from = k % 5 == 0 ? std::min<std::size_t>(stale, 3) : 0;
    Bytes out(stale, 0xEE);
    SCOPED_TRACE(::testing::Message() << "input " << k << ": " << n << " bytes, " << stale << " stale, from " << from);
    ASSERT_TRUE(bz2::rle1_decode(encoded, out, from));
    ASSERT_EQ(out.size(), from + in.size());
    ASSERT_TRUE(std::equal(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(from)));
  }
  Bytes out(4, 1);
  EXPECT_THROW(bz2::rle1_decode(Bytes{1}, out, 5), parcomp::ContractError);  // past the vector's end
}

// The one-core writer orders equal rotations its own way: its bytes differ from libbz2's in
// origPtr alone, and read back (the engine's are libbz2's: Bz2Engine.BlocksOfEqualRotationsAreBzip2s).
TEST(Bz2, PeriodicBlocksDifferInOrigPtrAlone) {
  for (const auto& [label, in] : std::vector<std::pair<std::string, Bytes>>{{"ab", periodic(65536, "ab")}, {"abc", periodic(300003, "abc")},
                                                                            {"one period", periodic(5000, "0123456789")}}) {
    SCOPED_TRACE(label);
    const Bytes ours = parcomp::testing::bz2_compress(in, 1);
    const Bytes theirs = libbz2_compress(in, 1);
    EXPECT_TRUE(ours == theirs || differ_in_orig_ptr_only(ours, theirs));
    EXPECT_EQ(libbz2_decompress(ours, in.size()), in);
  }
}

TEST(Bz2, ReaderReadsLibbz2AtEveryLevel) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  const Bytes in = word_text(1234567, seed);
  for (int level = 1; level <= 9; ++level) {
    SCOPED_TRACE(::testing::Message() << "level " << level << " seed " << seed);
    bz2::DecodeStats st;
    EXPECT_EQ(bz2::decompress(libbz2_compress(in, level), &st), in);
    EXPECT_EQ(st.streams, 1u);
    EXPECT_EQ(st.blocks, (in.size() + bz2::block_fill(level) - 1) / bz2::block_fill(level));
  }
}

// bzip2 0.9.0's randomised blocks (made by the tests' writer, whose files libbz2 reads back): the
// reader and the engine's CPU workers give libbz2's bytes, for inputs where the flips land in
// runs, text, random bytes, one byte and many blocks; the table is libbz2's.
TEST(Bz2, RandomisedBlocksReadAsLibbz2ReadsThem) {
  const auto ours = bz2::random_numbers();
  for (std::size_t k = 0; k < 512; ++k) ASSERT_EQ(ours[k], ::BZ2_rNums[k]) << k;
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const std::vector<std::pair<const char*, Bytes>> cases = {
      {"one byte", Bytes{'q'}},
      {"all equal", Bytes(5000 + rng() % 3000, 'z')},
      {"runs", runs(150000 + rng() % 1000, seed)},
      {"text", word_text(250000 + rng() % 1000, seed)},
      {"random", datasets::bytes_with_entropy(120000 + rng() % 1000, 8.0, seed)},
  };
  for (const auto& [name, in] : cases)
    for (const int level : {1, 9}) {
      SCOPED_TRACE(::testing::Message() << name << ", level " << level);
      const Bytes file = parcomp::testing::randomised_bz2(in, level);
      ASSERT_EQ(file[14] & 0x80, 0x80) << "the first block is marked randomised";
      const std::optional<Bytes> theirs = libbz2_decompress(file, in.size() + 1000);
      ASSERT_TRUE(theirs.has_value() && *theirs == in) << "the writer's file is not what libbz2 reads back";
      EXPECT_EQ(bz2::decompress(file), in);
      engine::Options o;
      o.use_gpus = false;
      o.cpu_threads = 3;
      MemSource src(file, seed);
      MemSink sink;
      engine::decompress(src, sink, o);
      EXPECT_EQ(sink.b, in);
      if (in.size() > 1000 && std::string(name) != "all equal") {  // where flips happened (the first at byte 618)
        Bytes bad = file;  // the randomised bit cleared: a CRC error, never other bytes
        bad[14] &= 0x7f;
        EXPECT_THROW(bz2::decompress(bad), CorruptDataError);
      }
    }
}

TEST(Bz2, SeveralStreamsAndTrailingBytes) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  const Bytes a = word_text(70001, seed), b = runs(50003, seed), c;
  Bytes file = libbz2_compress(a, 1);
  for (const Bytes& part : {libbz2_compress(c, 5), libbz2_compress(b, 9)}) file.insert(file.end(), part.begin(), part.end());
  Bytes all = a;
  all.insert(all.end(), b.begin(), b.end());
  bz2::DecodeStats st;
  EXPECT_EQ(bz2::decompress(file, &st), all);
  EXPECT_EQ(st.streams, 3u);
  EXPECT_EQ(st.trailing_bytes, 0u);
  // As bzip2's program: bytes that cannot begin a header are trailing garbage, ignored; the input
  // ending inside what could still be a header is a truncated file (bzip2 -d exits 2 on those).
  for (const std::string junk : {"x", "garbage after the streams", "BZx", "BZh0", "BZh\xff", "B Zh9"}) {
    Bytes with = file;
    with.insert(with.end(), junk.begin(), junk.end());
    EXPECT_EQ(bz2::decompress(with, &st), all) << junk;
    EXPECT_EQ(st.trailing_bytes, junk.size()) << junk;
  }
  for (const std::string cut : {"B", "BZ", "BZh", "BZh9"}) {
    Bytes with = file;
    with.insert(with.end(), cut.begin(), cut.end());
    EXPECT_THROW(bz2::decompress(with), CorruptDataError) << cut;
  }
  EXPECT_THROW(bz2::decompress(Bytes{'B', 'Z', 'h', '0'}), CorruptDataError);
  EXPECT_THROW(bz2::decompress(Bytes{}), CorruptDataError);
}

// The other bzip2 programs, where installed (apt-get install bzip2 lbzip2 pbzip2): what they write,
// the reader reads; what the writer writes, they read.
std::string program(const char* name) {
  for (const char* dir : {"/usr/bin/", "/usr/local/bin/", "/bin/"}) {
    const std::string p = std::string(dir) + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

Bytes run_program(const std::string& cmd, const Bytes& in) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto inp = dir / ("parcomp-bz2-in-" + std::to_string(::getpid()));
  const auto outp = dir / ("parcomp-bz2-out-" + std::to_string(::getpid()));
  std::ofstream(inp, std::ios::binary).write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size()));
  const int rc = std::system((cmd + " < " + inp.string() + " > " + outp.string()).c_str());
  std::ifstream f(outp, std::ios::binary);
  Bytes out((std::istreambuf_iterator<char>(f)), {});
  std::filesystem::remove(inp);
  std::filesystem::remove(outp);
  if (rc != 0) throw std::runtime_error(cmd + " failed");
  return out;
}

TEST(Bz2, OtherProgramsInterchange) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  const Bytes in = word_text(2500007, seed);
  int ran = 0;
  for (const auto& [name, compress, decompress] : std::vector<std::tuple<const char*, std::string, std::string>>{
           {"bzip2", "-9 -c", "-d -c"}, {"lbzip2", "-9 -n 2 -c", "-d -n 2 -c"}, {"pbzip2", "-9 -p2 -c", "-d -p2 -c"}}) {
    const std::string exe = program(name);
    if (exe.empty()) continue;
    SCOPED_TRACE(::testing::Message() << name << " seed " << seed);
    const Bytes theirs = run_program(exe + " " + compress, in);
    EXPECT_EQ(bz2::decompress(theirs), in);
    const Bytes ours = parcomp::testing::bz2_compress(in, 9);
    EXPECT_EQ(run_program(exe + " " + decompress, ours), in);
    if (std::string(name) == "bzip2") {
      EXPECT_TRUE(ours == theirs) << "bzip2 -9 wrote other bytes";
    }
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << "none of bzip2, lbzip2, pbzip2 is installed";
}

TEST(Bz2, DamageAgreesWithLibbz2) {
  // Every mutated file: libbz2 succeeds and the reader gives the same bytes, or libbz2 fails and
  // the reader throws CorruptDataError (never a crash, never other bytes).
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  std::mt19937_64 rng(seed);
  const std::vector<Bytes> originals = {word_text(30011, seed), runs(20011, seed), datasets::bytes_with_entropy(25000, 3.0, seed)};
  int agreed_ok = 0, agreed_bad = 0;
  for (std::size_t trial = 0; trial < parcomp::testing::sized(3000, 300); ++trial) {
    const Bytes& original = originals[trial % originals.size()];
    Bytes file = libbz2_compress(original, 1 + static_cast<int>(trial % 9));
    const auto kind = trial % 4;
    if (kind == 0) {  // one bit
      const std::size_t bit = rng() % (file.size() * 8);
      file[bit / 8] ^= static_cast<std::uint8_t>(0x80u >> (bit % 8));
    } else if (kind == 1) {  // a few bytes
      for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) file[rng() % file.size()] = static_cast<std::uint8_t>(rng());
    } else if (kind == 2) {  // truncated
      file.resize(rng() % file.size());
    } else {  // a flip in the headers, where the tables are
      const std::size_t bit = 32 + rng() % std::min<std::size_t>(file.size() * 8 - 32, 2000);
      file[bit / 8] ^= static_cast<std::uint8_t>(0x80u >> (bit % 8));
    }
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " kind " << kind << " seed " << seed);
    const std::optional<Bytes> theirs = libbz2_decompress(file, 2 * original.size() + 1000000);
    std::optional<Bytes> ours;
    std::string error;
    try {
      ours = bz2::decompress(file);
    } catch (const CorruptDataError& e) {
      error = e.what();
      ASSERT_NE(error, "");
    }
    if (theirs.has_value() && ours.has_value()) {
      ASSERT_EQ(*ours, *theirs);
      ++agreed_ok;
    } else {
      ASSERT_EQ(ours.has_value(), theirs.has_value()) << (ours ? "the reader accepted what libbz2 rejects" : "the reader rejected what libbz2 reads: " + error);
      ++agreed_bad;
    }
  }
  EXPECT_GT(agreed_bad, 0);
  RecordProperty("agreed_ok", agreed_ok);
}

TEST(Bz2, ErrorsNameTheStreamBlockAndBit) {
  const Bytes in = word_text(300000, 7);
  const Bytes good = libbz2_compress(in, 1);
  Bytes file = good;
  file[file.size() / 2] ^= 0x10;
  try {
    bz2::decompress(file);
    FAIL() << "a damaged block was read";
  } catch (const CorruptDataError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("stream 1, block "), std::string::npos) << m;
    EXPECT_NE(m.find("bit "), std::string::npos) << m;
  }
  const Bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() - 3));
  try {
    bz2::decompress(cut);
    FAIL() << "a truncated file was read";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

// ---- the engine (codec/engine_bz2.cpp): the same bytes from any number of workers -------------

engine::Options bz2_options(int level, int threads) {
  engine::Options o;
  o.format = engine::Format::bz2;
  o.level = level;
  o.cpu_threads = threads;
  o.use_gpus = false;
  return o;
}

Bytes engine_compress(const Bytes& in, const engine::Options& o, std::uint64_t seed, engine::Stats* st = nullptr) {
  MemSource src(in, seed);
  MemSink sink;
  const engine::Stats s = engine::compress(src, sink, o);
  if (st != nullptr) *st = s;
  return sink.b;
}

Bytes engine_decompress(const Bytes& file, const engine::Options& o, std::uint64_t seed, engine::Stats* st = nullptr) {
  MemSource src(file, seed);
  MemSink sink;
  const engine::Stats s = engine::decompress(src, sink, o);
  if (st != nullptr) *st = s;
  return sink.b;
}

TEST(Bz2Engine, WritesBzip2sBytesWithAnyWorkers) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::vector<std::pair<std::string, Bytes>> all = inputs(seed);
  // Blocks whose input spans many 1 MiB reads (runs of 255 make 5 bytes), and many blocks.
  all.emplace_back("long runs", Bytes(parcomp::testing::sized(12'000'000, 6'000'000), 'r'));
  all.emplace_back("many blocks", word_text(parcomp::testing::sized(1'500'007, 500'007), seed + 3));
  for (const auto& [label, in] : all) {
    for (const int level : {1, 9}) {
      // libbz2's bytes, periodic blocks (the long runs) included; the one-core writer's differ
      // there in origPtr alone (it orders equal rotations its own way).
      const Bytes theirs = libbz2_compress(in, level), reference = parcomp::testing::bz2_compress(in, level);
      ASSERT_TRUE(reference == theirs || differ_in_orig_ptr_only(reference, theirs)) << label;
      for (const int threads : {1, 3, 8}) {
        SCOPED_TRACE(::testing::Message() << label << " n " << in.size() << " level " << level << " threads " << threads);
        engine::Stats st;
        engine::Options o = bz2_options(level, threads);
        // With its size known, a file of fewer blocks than workers shares them out: each block's
        // encoder on several threads (8 workers, one or two blocks).
        if (threads == 8) o.input_bytes = in.size();
        const Bytes ours = engine_compress(in, o, seed, &st);
        ASSERT_TRUE(ours == theirs) << "first difference at byte " << (std::mismatch(ours.begin(), ours.end(), theirs.begin(), theirs.end()).first - ours.begin())
                                    << " of " << ours.size();
        EXPECT_EQ(st.original_bytes, in.size());
        EXPECT_EQ(st.compressed_bytes, ours.size());
        EXPECT_EQ(engine_decompress(ours, bz2_options(level, threads), seed + 1), in);
      }
    }
  }
}

// Blocks whose rotations tie (a shorter string repeated): bzip2 orders equal rotations its own
// way, by either of its two sorts, and the engine gives libbz2's origPtr and so its bytes. Runs of
// 255 make a block of "xxxx<251>" repeated (both sorts, by the count of runs; all 0xfb bytes take
// the first sort's radix order alone), a text twice (the second sort below 10000 bytes, the first
// sort's budget spent above), and a block cut where the input ends on a whole period.
TEST(Bz2Engine, BlocksOfEqualRotationsAreBzip2s) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const auto twice = [](Bytes half) {
    half.insert(half.end(), half.begin(), half.end());
    return half;
  };
  const std::vector<std::pair<std::string, Bytes>> cases = {
      {"a, 984 runs", Bytes(255 * 984, 'a')},
      {"a, 5 runs", Bytes(255 * 5, 'a')},
      {"zeros, a level-1 block and more", Bytes(255 * (19997 + 1 + rng() % 30000), 0)},
      {"0xfb, the count byte", Bytes(255 * 2000, 0xfb)},
      {"random twice, 12000 bytes", twice(run_free(6000, seed))},
      {"random twice, 60000 bytes", twice(run_free(30000, seed + 1))},
      {"xyz", periodic(3 * (20000 + rng() % 1000), "xyz")},
      {"ab, odd count", periodic(2 * (5001 + 2 * (rng() % 100)), "ab")},
      {"q, six level-1 blocks and more: workers on the same block at once", Bytes(255 * (6 * 19997 + rng() % 19997), 'q')}};
  for (const auto& [label, in] : cases) {
    for (const int level : {1, 9}) {
      SCOPED_TRACE(::testing::Message() << label << " (" << in.size() << " bytes), level " << level);
      const Bytes theirs = libbz2_compress(in, level);
      // Eight workers first, while no row is kept: blocks whose row another worker is asking for
      // take it as they are written.
      for (const int threads : {8, 3, 1}) {
        const Bytes ours = engine_compress(in, bz2_options(level, threads), seed);
        ASSERT_TRUE(ours == theirs) << "first difference at byte " << (std::mismatch(ours.begin(), ours.end(), theirs.begin(), theirs.end()).first - ours.begin())
                                    << " of " << ours.size();
      }
    }
  }
}

// The row asked of libbz2 from the block's run-length bytes alone (as the GPU encoder asks) and
// from its input (as the CPU workers ask) is the origPtr of libbz2's own file of that input; rows
// of short periods kept for the process come back the same.
TEST(Bz2, Bzip2PrimaryIsLibbz2sOrigPtr) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes twice = run_free(100 + rng() % 5000, seed);
  twice.insert(twice.end(), twice.begin(), twice.end());
  for (const Bytes& in : {twice, Bytes(255 * (1000 + rng() % 3000), 0), Bytes(255 * 984, 'a')}) {
    SCOPED_TRACE(::testing::Message() << in.size() << " bytes");
    Bytes rle;
    bz2::rle1_encode(in, rle);
    const std::size_t period = bz2::rotation_period(rle);
    ASSERT_LT(period, rle.size());
    const Bytes file = libbz2_compress(in, 9);
    ASSERT_GE(file.size(), 18u);
    const std::uint32_t want = ((std::uint32_t{file[14]} << 24 | std::uint32_t{file[15]} << 16 | std::uint32_t{file[16]} << 8 | file[17]) >> 7) & 0xFFFFFFu;
    EXPECT_EQ(bz2::bzip2_primary(rle, period), want);
    EXPECT_EQ(bz2::bzip2_primary(rle, period, in), want);
    EXPECT_EQ(bz2::bzip2_primary(rle, period), want);
  }
}

// Once started (bz2::start_asking, by the engine from the caller's thread), a block's ask runs on
// a thread of its own at the starter's priority: a CPU worker at SCHED_IDLE asks and the ask runs
// at SCHED_OTHER, with libbz2's row. A period over 64 bytes is asked every time (not kept).
TEST(Bz2, AsksRunOnTheAskersThreadAtTheStartersPriority) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Bytes twice = run_free(500 + seed % 1000, seed);
  twice.insert(twice.end(), twice.begin(), twice.end());
  Bytes rle;
  bz2::rle1_encode(twice, rle);
  const std::size_t period = bz2::rotation_period(rle);
  ASSERT_GT(period, 64u);
  ASSERT_LT(period, rle.size());
  const Bytes file = libbz2_compress(twice, 9);
  const std::uint32_t want = ((std::uint32_t{file[14]} << 24 | std::uint32_t{file[15]} << 16 | std::uint32_t{file[16]} << 8 | file[17]) >> 7) & 0xFFFFFFu;
  bz2::start_asking();
  const std::uint64_t before = bz2::asks_aside();
  std::thread worker([&] {
    sched_param idle{};
    ASSERT_EQ(pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle), 0);
    EXPECT_EQ(bz2::bzip2_primary(rle, period, twice), want);
  });
  worker.join();
  EXPECT_EQ(bz2::asks_aside(), before + 1) << "the ask ran on the asking thread";
  int policy = -1;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    if (name != "parcomp-ask") continue;
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string field;
    for (int k = 3; k <= 41 && rest >> field; ++k) {
    }
    policy = std::stoi(field);
  }
  EXPECT_EQ(policy, SCHED_OTHER) << "the asker's policy (field 41 of its stat)";
}

// A process forked after the asker started (a Dask or multiprocessing worker) has no asker thread:
// its asks run on the asking thread, and start_asking there starts its own. Without that the
// child's first ask waits forever (killed here by an alarm after 20 s).
TEST(Bz2, AForkedProcessAsksWithoutTheParentsAsker) {
  Bytes twice = run_free(700, 11);
  twice.insert(twice.end(), twice.begin(), twice.end());
  Bytes rle;
  bz2::rle1_encode(twice, rle);
  const std::size_t period = bz2::rotation_period(rle);
  ASSERT_GT(period, 64u);
  const Bytes file = libbz2_compress(twice, 9);
  const std::uint32_t want = ((std::uint32_t{file[14]} << 24 | std::uint32_t{file[15]} << 16 | std::uint32_t{file[16]} << 8 | file[17]) >> 7) & 0xFFFFFFu;
  bz2::start_asking();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(20);
    const bool inline_ok = bz2::bzip2_primary(rle, period, twice) == want && bz2::asks_aside() == 0;
    bz2::start_asking();
    const bool own_ok = bz2::bzip2_primary(rle, period, twice) == want && bz2::asks_aside() == 1;
    ::_exit(inline_ok && own_ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0) << "the child's rows or its asks were not as expected";
}

// A row being asked in the parent when it forks (a block of long runs, kept for the process) never
// comes to the child: the child asks it itself instead of waiting for it (killed by the alarm).
TEST(Bz2, AForkedProcessDoesNotWaitForTheParentsAskInFlight) {
  const Bytes in(255 * 120000, 'q');  // 30.6 MB of input: libbz2 takes 0.1 s and more
  Bytes rle;
  bz2::rle1_encode(in, rle);
  const std::size_t period = bz2::rotation_period(rle);
  ASSERT_LE(period, 64u);
  std::atomic<bool> asked{false};
  std::uint32_t want = 0;
  std::thread parent([&] {
    want = bz2::bzip2_primary(rle, period, in);
    asked = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(asked.load()) << "the parent's ask ended before the fork: nothing tested";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(30);
    const std::uint32_t row = bz2::bzip2_primary(rle, period, in);
    const Bytes file = libbz2_compress(in, 9);
    const std::uint32_t lib = ((std::uint32_t{file[14]} << 24 | std::uint32_t{file[15]} << 16 | std::uint32_t{file[16]} << 8 | file[17]) >> 7) & 0xFFFFFFu;
    ::_exit(row == lib ? 0 : 1);
  }
  parent.join();
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  EXPECT_EQ(bz2::bzip2_primary(rle, period, in), want);
}

// origPtr written into a block's bits: those 24 bits alone change, and writing the row back gives
// the block back.
TEST(Bz2, SetOrigPtrWritesThe24BitsAlone) {
  const Bytes in(255 * 984, 'a');
  parcomp::cpu::Workspace ws;
  bz2::BlockBits block;
  parcomp::cpu::bz2_compress_block(in, block, ws);
  const bz2::BlockBits kept = block;
  const auto orig_ptr = [](const bz2::BlockBits& b) {
    std::uint32_t v = 0;
    for (int k = 0; k < 24; ++k) v = v << 1 | ((b.bytes[(81 + k) >> 3] >> (7 - ((81 + k) & 7))) & 1u);
    return v;
  };
  EXPECT_EQ(orig_ptr(block), 327u);  // libbz2's
  for (const std::uint32_t row : {0u, 1u, 983u, 0xABCDEFu, 0xFFFFFFu}) {
    bz2::set_orig_ptr(block, row);
    EXPECT_EQ(orig_ptr(block), row);
    for (std::size_t i = 0; i < block.bytes.size(); ++i) {
      if (i < 10 || i > 13) {
        ASSERT_EQ(block.bytes[i], kept.bytes[i]) << "byte " << i;
      }
    }
  }
  bz2::set_orig_ptr(block, 327);
  EXPECT_TRUE(block.bytes == kept.bytes);
  EXPECT_THROW(bz2::set_orig_ptr(block, 1u << 24), parcomp::ContractError);
}

// The smallest period dividing the length, against the naive search.
TEST(Bz2, RotationPeriodIsTheSmallestWholePeriod) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const auto naive = [](const Bytes& t) {
    for (std::size_t p = 1; p < t.size(); ++p)
      if (t.size() % p == 0 && std::equal(t.begin() + static_cast<std::ptrdiff_t>(p), t.end(), t.begin())) return p;
    return t.size();
  };
  EXPECT_EQ(bz2::rotation_period(Bytes{}), 0u);
  EXPECT_EQ(bz2::rotation_period(Bytes{7}), 1u);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t unit = 1 + rng() % 12, times = 1 + rng() % 40;
    Bytes w(unit);
    for (auto& c : w) c = static_cast<std::uint8_t>(rng() % 3);
    Bytes t;
    for (std::size_t j = 0; j < times; ++j) t.insert(t.end(), w.begin(), w.end());
    if (rng() % 4 == 0) t[rng() % t.size()] ^= 1;  // a broken period
    ASSERT_EQ(bz2::rotation_period(t), naive(t)) << t.size() << " bytes, unit " << unit;
  }
}

// The default workers of .bz2 by the input's size (Options::input_bytes): from bz2_gpu_from_bytes
// on the GPUs alone, or, where no GPU starts (this machine in CI), CPU workers on every hardware
// thread; below it, or of unknown size, the CPU workers. The bytes are bzip2's either way.
TEST(Bz2Engine, LargeInputsGoToTheGpusOrElseToEveryCore) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(parcomp::testing::sized(2'500'003, 700'001), seed);
  const Bytes reference = libbz2_compress(in, 1);
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  for (const bool large : {true, false}) {
    for (const bool known : {true, false}) {
      SCOPED_TRACE(::testing::Message() << (large ? "at the size" : "below the size") << (known ? ", size known" : ", size unknown"));
      engine::Options o;
      o.format = engine::Format::bz2;
      o.level = 1;
      o.bz2_gpu_from_bytes = large ? in.size() : in.size() + 1;
      o.input_bytes = known ? in.size() : 0;
      engine::Stats st;
      const Bytes ours = engine_compress(in, o, seed, &st);
      ASSERT_TRUE(ours == reference);
      const bool gpus_may = large && known;
      if (!st.gpus.empty()) {
        EXPECT_TRUE(gpus_may);
        EXPECT_EQ(st.gpu_blocks, st.blocks);
        EXPECT_EQ(st.cpu_workers, 0u);
      } else {
        EXPECT_EQ(st.gpu_blocks, 0u);
        EXPECT_EQ(st.cpu_workers, hardware);
      }
      engine::Options d = o;
      d.input_bytes = known ? ours.size() : 0;
      d.bz2_gpu_decompress_from_bytes = large ? ours.size() : ours.size() + 1;
      engine::Stats sd;
      EXPECT_EQ(engine_decompress(ours, d, seed + 1, &sd), in);
      if (!sd.gpus.empty()) {
        EXPECT_TRUE(gpus_may);
        EXPECT_EQ(sd.gpu_blocks, sd.blocks);
      } else {
        EXPECT_EQ(sd.gpu_blocks, 0u);
        EXPECT_EQ(sd.cpu_workers, hardware);
      }
    }
  }
}

// Blocks of long runs (each decodes to tens of MB) between ordinary ones, of one byte or of two:
// left compact by the workers and decoded in pieces by the writer (a block that decodes to 8 MiB or less is written
// whole, a larger one a piece at a time), the same bytes with any number of workers.
TEST(Bz2Engine, BlocksOfLongRunsAreWrittenInPieces) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes in = word_text(300000 + rng() % 1000, seed);
  in.insert(in.end(), 40000000 + rng() % 1000, 0);
  const Bytes text = word_text(200000, seed + 1);
  in.insert(in.end(), text.begin(), text.end());
  in.insert(in.end(), 30000000 + rng() % 1000, 0xFF);
  for (int k = 0; k < 24; ++k) in.insert(in.end(), 1000000 + rng() % 100, "ab"[k % 2]);  // runs of two bytes: made in pieces
  const Bytes file = libbz2_compress(in, 9);
  for (const int threads : {1, 3, 16}) {
    SCOPED_TRACE(::testing::Message() << threads << " workers");
    MemSource src(file, seed + static_cast<std::uint64_t>(threads));
    parcomp::testing::LargestWriteSink sink;
    engine::decompress(src, sink, bz2_options(9, threads));
    ASSERT_EQ(sink.b.size(), in.size());
    ASSERT_TRUE(sink.b == in);
    EXPECT_LE(sink.largest, std::size_t{8} << 20);  // the blocks of 45.9 MB not written whole
  }
}

// While the writer is held at its first write, the CPU workers decode blocks only until the decoded
// blocks waiting hold Options::bz2_decoded_in_flight bytes (and the block the writer waits for, and
// one a worker): with the default's 512 MiB they decode more.
TEST(Bz2Engine, DecodedBlocksWaitingForTheWriterStayWithinTheirBytes) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(6'000'000 + seed % 1000, seed);  // about 60 blocks of 100k
  const Bytes file = libbz2_compress(in, 1);
  constexpr int kThreads = 2;
  constexpr std::uint64_t kCap = std::uint64_t{1} << 20, kBlock = 100'000;
  class Held : public MemSink {
   public:
    explicit Held(const engine::Trace& t) : t_(t) {}
    void write(const std::uint8_t* buf, std::size_t n) override {
      if (released < 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the workers run ahead meanwhile
        released = t_.now();
      }
      MemSink::write(buf, n);
    }
    double released = -1;

   private:
    const engine::Trace& t_;
  };
  for (const bool capped : {true, false}) {
    SCOPED_TRACE(capped ? "capped" : "the default");
    engine::Trace trace;
    engine::Options o = bz2_options(9, kThreads);
    o.max_blocks_in_flight = 1000;  // the reader's room is not what holds the workers back
    o.trace = &trace;
    if (capped) o.bz2_decoded_in_flight = kCap;
    MemSource src(file, seed);
    Held sink(trace);
    engine::decompress(src, sink, o);
    ASSERT_TRUE(sink.b == in);
    std::uint64_t decoded = 0, blocks = 0;
    for (const auto& sp : trace.spans())
      if (sp.lane.starts_with("cpu") && sp.what == "block") {
        blocks += sp.blocks;
        if (sp.end < sink.released) decoded += sp.blocks;
      }
    ASSERT_GE(blocks, 50u) << "the trace counts every block";
    if (capped)
      EXPECT_LE(decoded * (kBlock - 200), kCap + (kThreads + 2) * kBlock) << decoded << " blocks decoded while the writer was held";
    else
      EXPECT_GT(decoded * (kBlock - 200), kCap + (kThreads + 2) * kBlock) << "the default's room is larger (the test's own check)";
  }
}

TEST(Bz2Engine, ReadsStreamsWindowsAndTrailingBytes) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  // Incompressible data: the compressed file spans several of the reader's 8 MiB windows.
  const Bytes big = datasets::bytes_with_entropy(parcomp::testing::sized(20'000'000, 9'000'000), 8.0, seed);
  const Bytes small = word_text(300'001, seed), none;
  Bytes file = libbz2_compress(big, 1), all = big;
  for (const auto& [part, level] : {std::pair{&small, 9}, {&none, 4}, {&small, 2}}) {
    const Bytes z = libbz2_compress(*part, level);
    file.insert(file.end(), z.begin(), z.end());
    all.insert(all.end(), part->begin(), part->end());
  }
  for (const int threads : {1, 4}) {
    engine::Stats st;
    EXPECT_EQ(engine_decompress(file, bz2_options(9, threads), seed, &st), all);
    EXPECT_EQ(st.streams, 4u);
    EXPECT_EQ(st.trailing_bytes, 0u);
    EXPECT_EQ(st.compressed_bytes, file.size());
  }
  // Trailing bytes holding both magics: candidates off the chain, whose decoding fails, are
  // dropped; the rest is counted and ignored, as bzip2 ignores it.
  Bytes junk = {'j', 'u', 'n', 'k', 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 1, 2, 3, 0x17, 0x72, 0x45, 0x38, 0x50, 0x90, 0, 0, 0, 0, 'B', 'Z'};
  junk.resize(junk.size() + 3'000'000, 0x5a);
  Bytes with_junk = file;
  with_junk.insert(with_junk.end(), junk.begin(), junk.end());
  engine::Stats st;
  EXPECT_EQ(engine_decompress(with_junk, bz2_options(9, 3), seed, &st), all);
  EXPECT_EQ(st.trailing_bytes, junk.size());
  // The input ending inside what could be a next header is truncated, as for bzip2's program.
  for (const std::string cut : {"B", "BZ", "BZh", "BZh9"}) {
    Bytes with = file;
    with.insert(with.end(), cut.begin(), cut.end());
    EXPECT_THROW(engine_decompress(with, bz2_options(9, 2), seed), CorruptDataError) << cut;
  }
  for (const std::string junk2 : {"BZx", "BZh0"}) {
    Bytes with = file;
    with.insert(with.end(), junk2.begin(), junk2.end());
    EXPECT_EQ(engine_decompress(with, bz2_options(9, 2), seed, &st), all) << junk2;
    EXPECT_EQ(st.trailing_bytes, junk2.size());
  }
  EXPECT_EQ(st.streams, 4u);
}

// A long input with few blocks in flight: the reader's windows are given back while it reads and
// reused for the next reads (their bytes from before must not show).
TEST(Bz2Engine, ReusesTheReadersWindowsOnALongInput) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes part = datasets::bytes_with_entropy(2'000'003, 8.0, seed);
  const Bytes z = libbz2_compress(part, 1);
  Bytes file, all;
  for (int k = 0; k < 24; ++k) {  // about 48 MB: six reads of 8 MiB after the first, smaller ones
    file.insert(file.end(), z.begin(), z.end());
    all.insert(all.end(), part.begin(), part.end());
  }
  engine::Options o = bz2_options(9, 2);
  o.max_blocks_in_flight = 2;
  engine::Stats st;
  EXPECT_TRUE(engine_decompress(file, o, seed, &st) == all);
  EXPECT_EQ(st.streams, 24u);
}

TEST(Bz2Engine, AgreesWithTheSerialReaderOnDamage) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  std::mt19937_64 rng(seed);
  const Bytes original = word_text(250'007, seed);
  int rejected = 0;
  for (std::size_t trial = 0; trial < parcomp::testing::sized(200, 60); ++trial) {
    Bytes file = libbz2_compress(original, 1 + static_cast<int>(trial % 3));
    if (trial % 3 == 0) {
      file.resize(rng() % file.size());
    } else {
      const std::size_t bit = rng() % (file.size() * 8);
      file[bit / 8] ^= static_cast<std::uint8_t>(0x80u >> (bit % 8));
    }
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " seed " << seed);
    std::optional<Bytes> serial, engine;
    std::string serial_error, engine_error;
    try {
      serial = bz2::decompress(file);
    } catch (const CorruptDataError& e) {
      serial_error = e.what();
    }
    try {
      engine = engine_decompress(file, bz2_options(9, 3), seed + trial);
    } catch (const CorruptDataError& e) {
      engine_error = e.what();
    }
    ASSERT_EQ(serial.has_value(), engine.has_value()) << "serial: " << serial_error << "; engine: " << engine_error;
    if (serial) {
      ASSERT_EQ(*serial, *engine);
    } else {
      ++rejected;
      if (serial_error.starts_with("not a bzip2 stream")) {
        // The stream header itself is damaged ("BZh" or the level): no stream to point into.
        EXPECT_TRUE(engine_error.find(".bz2") != std::string::npos || engine_error.find("bzip2") != std::string::npos)
            << engine_error;
      } else {
        EXPECT_NE(engine_error.find("stream 1"), std::string::npos) << engine_error;
        EXPECT_NE(engine_error.find("bit "), std::string::npos) << engine_error;
      }
    }
  }
  EXPECT_GT(rejected, 0);
  // The first byte damaged: neither format's magic, and the message names both.
  Bytes file = libbz2_compress(original, 1);
  file[0] ^= 1;
  try {
    engine_decompress(file, bz2_options(9, 3), seed);
    ADD_FAILURE() << "a file with a damaged \"BZh\" was read";
  } catch (const CorruptDataError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(".bz2"), std::string::npos) << what;
    EXPECT_NE(what.find("parcomp"), std::string::npos) << what;
  }
}

TEST(Bz2Engine, RefusesWhatItCannotDo) {
  engine::Options o = bz2_options(9, 2);
  o.level = 0;
  EXPECT_THROW(engine_compress(Bytes(10, 'a'), o, 1), ContractError);
  o = bz2_options(9, 0);
  EXPECT_THROW(engine_compress(Bytes(10, 'a'), o, 1), ContractError) << "no CPU workers and no GPU .bz2 kernels";
  // --gpu naming a device that no host has: an error with or without a GPU (a CPU test runs on GPU
  // hosts too, where --gpu alone just works).
  o = bz2_options(9, 2);
  o.use_gpus = true;
  o.require_gpu = true;
  o.devices = {4096};
  EXPECT_THROW(engine_compress(Bytes(10, 'a'), o, 1), ContractError);
}

// `bits` bits of value 0xA5... inserted at bit `at` of a file.
Bytes insert_bits(const Bytes& file, std::uint64_t at, int bits) {
  std::vector<bool> v;
  for (std::size_t i = 0; i < file.size() * 8; ++i) v.push_back(((file[i / 8] >> (7 - i % 8)) & 1) != 0);
  for (int k = 0; k < bits; ++k) v.insert(v.begin() + static_cast<std::ptrdiff_t>(at) + k, ((0xA5 >> (7 - k % 8)) & 1) != 0);
  Bytes out((v.size() + 7) / 8, 0);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i]) out[i / 8] = static_cast<std::uint8_t>(out[i / 8] | (0x80u >> (i % 8)));
  return out;
}

// The engine's decompression in a thread with a deadline: a chain that waits for a result no
// worker will publish is a failure here, not a hung test.
Bytes engine_decompress_within(const Bytes& file, const engine::Options& o, std::uint64_t seed, int seconds) {
  auto f = std::async(std::launch::async, [&] { return engine_decompress(file, o, seed); });
  if (f.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
    ADD_FAILURE() << "the engine did not finish in " << seconds << " s";
    std::fflush(stdout);
    std::_Exit(1);
  }
  return f.get();
}

TEST(Bz2Engine, TheChainStopsWhereNoBlockBegins) {
  // Eight bits between two blocks: the first block decodes, and where it ends there is no magic
  // (the second block's is 8 bits on); the reader must say so, not wait or skip ahead.
  const Bytes in = word_text(250'000, 11);
  const Bytes good = libbz2_compress(in, 1);
  std::vector<bz2::Magic> magics;
  bz2::find_magics(good, 0, good.size() * 8, magics);
  ASSERT_GE(magics.size(), 3u);
  const Bytes bad = insert_bits(good, magics[1].bit, 8);
  try {
    engine_decompress_within(bad, bz2_options(9, 2), 1, 60);
    FAIL() << "decoded past eight foreign bits";
  } catch (const CorruptDataError& e) {
    EXPECT_NE(std::string(e.what()).find("neither a block nor the end marker"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bit " + std::to_string(magics[1].bit)), std::string::npos) << e.what();
  }
  EXPECT_THROW(bz2::decompress(bad), CorruptDataError);
}

TEST(Bz2Engine, TheStreamCrcIsChecked) {
  const Bytes in = word_text(150'000, 12);
  const Bytes good = libbz2_compress(in, 1);
  std::vector<bz2::Magic> magics;
  bz2::find_magics(good, 0, good.size() * 8, magics);
  ASSERT_TRUE(magics.back().end);
  for (const int k : {0, 13, 31}) {  // a bit of the stored combined CRC
    Bytes bad = good;
    const std::uint64_t bit = magics.back().bit + 48 + static_cast<std::uint64_t>(k);
    bad[bit / 8] ^= static_cast<std::uint8_t>(0x80u >> (bit % 8));
    try {
      engine_decompress_within(bad, bz2_options(9, 2), 1, 60);
      FAIL() << "a wrong stream CRC was accepted";
    } catch (const CorruptDataError& e) {
      EXPECT_NE(std::string(e.what()).find("stream CRC"), std::string::npos) << e.what();
    }
    EXPECT_THROW(bz2::decompress(bad), CorruptDataError);
  }
}

}  // namespace
