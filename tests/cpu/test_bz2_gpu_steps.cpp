// The GPU .bz2 encoder's batch (kernels/bz2/bz2_encode.hpp) run on the host gives encode_block's
// bits for every block (the lines are shared; this checks the batch's offsets, strides and CRCs).
// The GPU's inverse BWT for .bz2 (core/bz2_block.hpp: ruler_walk, ruler_rank, ruler_emit,
// ruler_repeat; kernels/bz2 runs these lines with one thread per ruler or block), run here on the
// CPU one "thread" after the other: for every block, origPtr and kind of links (a real BWT, a
// periodic block's, and the arbitrary links of damaged data, whose chain may close early), its
// bytes equal the serial walk's, bzip2's n steps; and so do the CPU reader's rulers walked in
// lanes on one core (bz2::walk_rulers). The CPU reader and the GPU decoder share
// decode_symbols, which tests/cpu/test_bz2.cpp and the fuzzer check against libbz2.
#include "codec/bz2.hpp"
#include "core/bz2_block.hpp"
#include "core/bz2_encode.hpp"
#include "datasets/synthetic.hpp"
#include "kernels/bz2/bz2_decode.hpp"
#include "kernels/bz2/bz2_encode.hpp"
#include "kernels/bz2/bz2_steps.hpp"
#include "reference/bwt.hpp"

#include "common/bz2_blocks.hpp"
#include "common/libbz2.hpp"
#include "common/sample_inputs.hpp"
#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace {
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;

// The bytes of links made from `last` (as decode_symbols leaves them) walked from origPtr: by
// the serial walk and by the rulers with `poison` in every byte first.
struct Both {
  Bytes serial, rulers, lanes;
  std::uint32_t cycle = 0, lanes_cycle = 0;
};
Both decode_both(const Bytes& last, std::uint32_t orig, std::uint8_t poison) {
  const auto n = static_cast<std::uint32_t>(last.size());
  std::vector<std::uint32_t> tt(n);
  std::uint32_t counts[256] = {};
  for (std::uint32_t i = 0; i < n; ++i) {
    tt[i] = last[i];
    ++counts[last[i]];
  }
  bz2::link_rows(tt.data(), n, counts);
  Both r;
  r.serial.assign(n, 0);
  bz2::walk(tt.data(), n, orig, r.serial.data());
  const std::uint32_t slots = bz2::ruler_slots(n);
  std::vector<std::uint32_t> succ(slots, 0xdeadbeef), dist(slots, 0xdeadbeef), start(slots, 0xdeadbeef);
  for (std::uint32_t i = 0; i < slots; ++i) bz2::ruler_walk(tt.data(), n, orig, i, succ.data(), dist.data());
  r.cycle = bz2::ruler_rank(succ.data(), dist.data(), n, orig, start.data());
  r.rulers.assign(n, poison);
  for (std::uint32_t i = 0; i < slots; ++i) bz2::ruler_emit(tt.data(), n, orig, i, dist.data(), start.data(), r.rulers.data());
  for (std::uint32_t k = 0; k < n; ++k) bz2::ruler_repeat(r.rulers.data(), n, r.cycle, k);
  r.lanes.assign(n, poison);
  bz2::RulerScratch rs;
  r.lanes_cycle = bz2::walk_rulers(tt.data(), n, orig, r.lanes.data(), rs);
  return r;
}

void expect_same(const Bytes& last, std::uint32_t orig, const char* kind) {
  SCOPED_TRACE(::testing::Message() << kind << ", " << last.size() << " bytes, origPtr " << orig);
  for (const std::uint8_t poison : {0x00, 0xff}) {  // a byte left unwritten shows under one of them
    const Both b = decode_both(last, orig, poison);
    ASSERT_EQ(b.rulers.size(), b.serial.size());
    const auto diff = std::mismatch(b.rulers.begin(), b.rulers.end(), b.serial.begin());
    ASSERT_TRUE(diff.first == b.rulers.end()) << "first difference at byte " << (diff.first - b.rulers.begin()) << " (chain of "
                                              << b.cycle << " rows)";
    ASSERT_GE(b.cycle, 1u);
    ASSERT_LE(b.cycle, last.size());
    const auto lanes = std::mismatch(b.lanes.begin(), b.lanes.end(), b.serial.begin());
    ASSERT_TRUE(lanes.first == b.lanes.end()) << "the CPU reader's lanes: first difference at byte " << (lanes.first - b.lanes.begin());
    ASSERT_EQ(b.lanes_cycle, b.cycle);
  }
}

TEST(Bz2Rulers, RealBwtsGiveTheBlockBack) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t n : {1, 2, 3, 255, 256, 257, 511, 513, 4097, 65537, 300001}) {
    Bytes text(n);
    for (auto& c : text) c = static_cast<std::uint8_t>(rng() % (n % 3 == 0 ? 4 : 256));  // few symbols: long ties
    const auto t = reference::bwt_rotations(text);
    expect_same(t.last, t.primary, "random text");
    const Both b = decode_both(t.last, t.primary, 0);
    ASSERT_EQ(b.rulers, text);  // and the bytes are the block's
  }
}

TEST(Bz2Rulers, PeriodicBlocksRepeatTheirFirstCycle) {
  for (const std::size_t period : {1, 2, 3, 7, 256, 1000}) {
    for (const std::size_t n : {period, period * 2, period * 37, period * 1024 + 0}) {
      Bytes text(n);
      for (std::size_t i = 0; i < n; ++i) text[i] = static_cast<std::uint8_t>("periodic!"[i % period % 9] + i % period / 9);
      const auto t = reference::bwt_rotations(text);
      expect_same(t.last, t.primary, "periodic text");
      const Both b = decode_both(t.last, t.primary, 0);
      ASSERT_EQ(b.rulers, text);
      ASSERT_EQ(n % b.cycle, 0u);
    }
  }
}

TEST(Bz2Rulers, AnyLinksAndOrigPtrGiveTheSerialWalksBytes) {
  // Damaged blocks: arbitrary last columns and origPtrs, whose links split into cycles of any
  // lengths (the chain through origPtr may close after a few rows, or miss every ruler).
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 1 + rng() % (round < 150 ? 3000 : 200000);
    Bytes last(n);
    const unsigned alphabet = 1 + static_cast<unsigned>(rng() % 6 == 0 ? 1 : rng() % 256);
    for (auto& c : last) c = static_cast<std::uint8_t>(rng() % alphabet);
    if (round % 10 == 0) std::sort(last.begin(), last.end());  // sorted: every row its own cycle
    expect_same(last, static_cast<std::uint32_t>(rng() % n), "arbitrary links");
  }
  expect_same(Bytes(900000, 'a'), 899999, "all equal, bzip2's largest block");
}

// The GPU decoder's whole batch (kernels/bz2: the symbols, walk, rank, emit and repeat steps over
// the batch's layout), run by decode_batch_host, then ended as GpuBlockDecoder::collect ends it:
// the CPU reader's bytes for libbz2's blocks, its messages for false candidates and damage.
TEST(Bz2Rulers, TheGpuBatchStepsOnTheHostGiveTheCpuReadersVerdicts) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<Bytes> files;
  for (const int level : {1, 2, 9}) {
    files.push_back(parcomp::testing::libbz2_compress(parcomp::testing::word_text(250007, seed), level));
    files.push_back(parcomp::testing::libbz2_compress(datasets::bytes_with_entropy(120001, 7.5, seed + 1), level));
    files.push_back(parcomp::testing::libbz2_compress(parcomp::testing::periodic(230000, "abc"), level));
    files.push_back(parcomp::testing::libbz2_compress(Bytes(level == 1 ? 1 : 500000, 'q'), level));
  }
  std::vector<Bytes> damaged;
  for (int k = 0; k < 60; ++k) {  // half in the headers, half anywhere (in the symbols: damage the walk may not see)
    Bytes d = files[rng() % files.size()];
    const std::size_t span = k < 30 ? std::min<std::size_t>(120, d.size() - 4) : d.size() - 4;
    d[4 + rng() % span] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    damaged.push_back(std::move(d));
  }
  std::vector<bz2::GpuBlockIn> blocks;
  for (const Bytes& f : files) {
    for (const std::uint64_t bit : parcomp::testing::bz2_block_bits(f)) blocks.push_back({&f, bit, true, bz2::Where{}});
    blocks.push_back({&f, 32 + 1 + rng() % 200, true, bz2::Where{}});  // no magic there
  }
  for (const Bytes& d : damaged) blocks.push_back({&d, 32, true, bz2::Where{}});
  const std::uint32_t limit = bz2::block_limit(9);
  std::vector<bz2gpu::BatchBlock> table;
  for (const auto& b : blocks) table.push_back({b.window->data(), b.window->size(), b.bit});
  for (const int bits : {12, 11}) {  // the walk's lookup (bz2gpu::WalkConfig): the same verdicts
    SCOPED_TRACE(::testing::Message() << "a walk of " << bits << " bits");
    std::vector<std::uint8_t> scratch(bz2gpu::decode_scratch_bytes(blocks.size(), limit));
    std::vector<bz2::BlockSymbols> info(blocks.size());
    Bytes out(blocks.size() * std::size_t{limit}, 0xA5);
    bz2gpu::decode_batch_host(table.data(), table.size(), limit, info.data(), out.data(), scratch.data(), scratch.size(), {bits, 256});
    // Packed as collect() packs them.
    std::vector<std::size_t> offset(blocks.size() + 1, 0);
    Bytes packed;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const std::size_t n = info[i].error == bz2::BlockError::none ? info[i].nblock : 0;
      packed.insert(packed.end(), out.begin() + static_cast<std::ptrdiff_t>(i * limit), out.begin() + static_cast<std::ptrdiff_t>(i * limit + n));
      offset[i + 1] = packed.size();
    }
    const std::vector<bz2::GpuBlockOut> whole = bz2::GpuBlockDecoder::finish(blocks, info, packed, offset);
    parcomp::testing::expect_cpu_verdicts(blocks, whole, "host steps");
    // With compact_over, a block of runs past it is left before the inverse run-length stage: the
    // same verdicts, its bytes decoding to the whole block's.
    const std::vector<bz2::GpuBlockOut> compact = bz2::GpuBlockDecoder::finish(blocks, info, packed, offset, 0, {}, std::size_t{256} << 10);
    std::size_t compacted = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "block " << i);
      ASSERT_EQ(compact[i].error == nullptr, whole[i].error == nullptr);
      if (whole[i].error != nullptr) continue;
      EXPECT_EQ(compact[i].r.end_bit, whole[i].r.end_bit);
      ASSERT_EQ(compact[i].r.bytes, whole[i].bytes.size());
      if (!compact[i].r.compact) {
        EXPECT_TRUE(compact[i].bytes == whole[i].bytes);
        continue;
      }
      ++compacted;
      Bytes back;
      ASSERT_TRUE(bz2::rle1_decode(compact[i].bytes, back));
      EXPECT_TRUE(back == whole[i].bytes);
    }
    EXPECT_GT(compacted, 0u);  // the blocks of 500000 q at levels 2 and 9
  }
  std::vector<std::uint8_t> scratch(bz2gpu::decode_scratch_bytes(1, limit));
  bz2::BlockSymbols info;
  Bytes out(limit);
  EXPECT_THROW(bz2gpu::decode_batch_host(table.data(), 1, limit, &info, out.data(), scratch.data(), scratch.size(), {10, 256}), ContractError);
}

// The decoder's two paths on the host: blocks whose groups decode in parallel, and blocks handed
// to the serial fallback (decode_items) where the walk of the codes or the zero runs meet damage
// or more bytes than the limit; each gives decode_items's verdict, bit and counts. Zero runs cross
// the 4096-symbol chunks (a long run of one byte in the middle of text).
// The walk's word reader (WordBits) against BitReader: every start bit of spans at every alignment
// (bytes before and after the span poisoned), random steps of 0..32 bits up to past the end, and
// the walk's pairs of steps by an entry's low five bits before a refill: the same next 32 bits,
// bit positions and past_end().
TEST(Bz2GpuSteps, WordBitsReadsWhatBitReaderReads) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{7}, std::size_t{64}, std::size_t{1001}}) {
    for (std::size_t lead = 0; lead < 4; ++lead) {
      Bytes buf(size + 16, 0);
      for (auto& x : buf) x = static_cast<std::uint8_t>(rng());
      const std::uint8_t* in = buf.data() + 4 + lead;  // the span, at each alignment, in poison
      for (std::uint64_t start = 0; start <= size * 8; start += size < 8 ? 1 : 1 + rng() % 13) {
        SCOPED_TRACE(::testing::Message() << size << " bytes at +" << lead << ", start bit " << start);
        BitReader want(in, size, start);
        WordBits got(in, size, start);
        for (int step = 0; step < 400; ++step) {
          ASSERT_EQ(got.peek32(), static_cast<std::uint32_t>(want.window() >> 32));
          ASSERT_EQ(got.window() >> 32, want.window() >> 32);
          ASSERT_EQ(got.used(), want.used());
          ASSERT_EQ(got.past_end(), want.past_end());
          if (want.used() > size * 8 + 100) break;
          const int n = step % 7 == 0 ? 32 : static_cast<int>(rng() % 21);
          if (step % 5 == 3) {  // the walk's steps: two of at most 12 bits (an entry's low five bits), then a refill
            const int m = static_cast<int>(rng() % 13);
            got.take_low5(static_cast<std::uint32_t>(n % 13) | static_cast<std::uint32_t>(rng()) << 5);
            got.take_low5(static_cast<std::uint32_t>(m));
            got.refill();
            want.skip(n % 13);
            want.skip(m);
            continue;
          }
          got.skip(n);
          want.skip(n);
        }
      }
    }
  }
}

TEST(Bz2GpuSteps, ParallelAndFallbackPathsGiveDecodeItemsVerdicts) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Bytes text = parcomp::testing::word_text(300001, seed);
  std::fill(text.begin() + 150000, text.begin() + 170000, 'z');
  const std::vector<Bytes> files = {parcomp::testing::libbz2_compress(text, 9),
                                    parcomp::testing::libbz2_compress(parcomp::testing::periodic(230000, "abc"), 9),
                                    parcomp::testing::libbz2_compress(datasets::bytes_with_entropy(150001, 7.9, seed), 9)};
  int parallel = 0, fallback = 0;
  for (const std::uint32_t limit : {bz2::block_limit(1), bz2::block_limit(2), bz2::block_limit(9)}) {
    for (std::size_t f = 0; f < files.size(); ++f) {
      SCOPED_TRACE(::testing::Message() << "file " << f << ", limit " << limit);
      const bz2gpu::BatchBlock block{files[f].data(), files[f].size(), 32};
      std::vector<std::uint8_t> scratch(bz2gpu::decode_scratch_bytes(1, limit));
      bz2::BlockSymbols info;
      Bytes out(limit, 0xA5);
      bz2gpu::decode_batch_host(&block, 1, limit, &info, out.data(), scratch.data(), scratch.size());
      auto work = std::make_unique<bz2::DecodeWork>();
      std::uint32_t counts[256];
      const bz2::BlockSymbols want = bz2::decode_symbols(files[f].data(), files[f].size(), 32, limit, *work, counts, [](std::uint32_t, std::uint8_t) {});
      EXPECT_EQ(static_cast<int>(info.error), static_cast<int>(want.error));
      EXPECT_EQ(info.error_bit, want.error_bit);
      EXPECT_EQ(info.detail, want.detail);
      EXPECT_EQ(info.detail2, want.detail2);
      if (want.error == bz2::BlockError::none || want.error == bz2::BlockError::orig_ptr) {
        EXPECT_EQ(info.nblock, want.nblock);
        EXPECT_EQ(info.end_bit, want.end_bit);
      }
      const auto* w = reinterpret_cast<const bz2::DecodeWork*>(scratch.data() + bz2gpu::steps::layout(1, limit).work);
      if (w->path == bz2gpu::steps::kPathParallel) ++parallel;
      else ++fallback;
    }
  }
  EXPECT_GT(parallel, 0);
  EXPECT_GT(fallback, 0);  // the text and the noise at level 1 and 2, the periodic block at level 1
}

TEST(Bz2GpuSteps, TheEncodeBatchOnTheHostGivesEncodeBlocksBits) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::vector<Bytes> inputs = {Bytes{'q'}, Bytes(5000, 'r'), parcomp::testing::word_text(300001, seed),
                               datasets::bytes_with_entropy(120007, 7.9, seed), parcomp::testing::periodic(70000, "xyz"),
                               datasets::bytes_with_entropy(899990, 2.0, seed + 1)};
  const auto [last, offsets, primary, crc] = parcomp::testing::bz2_bwt_batch(inputs);
  const std::size_t count = inputs.size(), stride = bz2gpu::encode_stride(900000);
  Bytes out(count * stride, 0xA5);
  std::vector<std::uint64_t> bits(count, 0);
  std::vector<std::uint8_t> scratch(bz2gpu::encode_scratch_bytes(count));
  bz2gpu::encode_batch_host(last.data(), offsets.data(), primary.data(), crc.data(), count, out.data(), stride, bits.data(), scratch.data(),
                            scratch.size());
  for (std::size_t b = 0; b < count; ++b) {
    SCOPED_TRACE(::testing::Message() << "block " << b);
    bz2::BlockBits want;
    bz2::EncodeScratch es;
    bz2::encode_block({last.data() + offsets[b], offsets[b + 1] - offsets[b]}, primary[b], crc[b], want, es);
    ASSERT_EQ(bits[b], want.bits);
    ASSERT_TRUE(std::equal(want.bytes.begin(), want.bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(b * stride)));
  }
}


// The GPU encoder's writer (kernels/bz2/bz2_encode.cu): the head on one thread, each group's codes
// OR'd as 32-bit words at its start, the groups in any order; here in a shuffled order on the
// host: the bytes and bit count of the serial writer (encode_write).
TEST(Bz2GpuSteps, GroupsOrdAsWordsGiveTheSerialWritersBits) {
  static_assert(std::endian::native == std::endian::little, "the words are little-endian, as on the GPU");
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<Bytes> inputs = {Bytes{'q'}, Bytes(5000, 'r'), parcomp::testing::word_text(300001, seed),
                               datasets::bytes_with_entropy(120007, 7.9, seed), parcomp::testing::periodic(70000, "xyz"),
                               datasets::bytes_with_entropy(899990, 2.0, seed + 1)};
  const auto [last, offsets, primary, crc] = parcomp::testing::bz2_bwt_batch(inputs);
  auto w = std::make_unique<bz2::EncodeWork>();
  for (std::size_t b = 0; b < inputs.size(); ++b) {
    SCOPED_TRACE(::testing::Message() << "block " << b);
    const auto n = static_cast<std::uint32_t>(offsets[b + 1] - offsets[b]);
    const std::size_t cap = bz2::encoded_bytes_bound(n) + 8;
    Bytes want(cap, 0);
    const std::uint64_t bits = bz2::encode_block_bits(last.data() + offsets[b], n, primary[b], crc[b], *w, want.data(), cap);
    ASSERT_GT(bits, 0u);
    // The same tables, written as the GPU writes them.
    std::vector<std::uint32_t> words((cap + 3) / 4, 0xA5A5A5A5u);
    auto* out = reinterpret_cast<std::uint8_t*>(words.data());
    bz2::BitSink s(out, cap);
    bz2::encode_write_head(w->selectors, w->t, primary[b], crc[b], s);
    const std::uint64_t head = s.finish();
    std::vector<std::uint64_t> start(w->t.n_selectors + 1, head);
    for (std::size_t g = 0; g < w->t.n_selectors; ++g) {
      std::uint64_t len = 0;
      bz2::encode_group_codes(w->mtfv, w->selectors, w->t, g, [&len](std::uint32_t, int l) { len += static_cast<std::uint64_t>(l); });
      start[g + 1] = start[g] + len;
    }
    ASSERT_EQ(start.back(), bits);
    std::memset(out + (head + 7) / 8, 0, words.size() * 4 - (head + 7) / 8);
    std::vector<std::size_t> order(w->t.n_selectors);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), rng);
    for (const std::size_t g : order)
      bz2::encode_group_words(w->mtfv, w->selectors, w->t, g, start[g], [&words](std::uint64_t i, std::uint32_t v) { words[i] |= v; });
    const std::size_t used = (bits + 7) / 8;
    ASSERT_TRUE(std::equal(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(used), out));
  }
}


// The MTF list as words (mtf_move, 8 places a step) against bzip2's byte-by-byte move: lists of
// every length, bytes drawn near the front, at word edges and anywhere, the same places and lists.
TEST(Bz2GpuSteps, MtfMoveOnWordsIsBzip2sMove) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (const int n : {1, 2, 7, 8, 9, 63, 64, 65, 200, 256}) {
    SCOPED_TRACE(::testing::Message() << n << " places");
    Bytes list(static_cast<std::size_t>(n));
    std::iota(list.begin(), list.end(), std::uint8_t{0});
    std::shuffle(list.begin(), list.end(), rng);
    std::uint64_t words[bz2::kMtfWords];
    bz2::mtf_list_words(list.data(), n, words);
    for (int step = 0; step < 20000; ++step) {
      const int pick = step % 3 == 0 ? static_cast<int>(rng() % static_cast<std::uint64_t>(std::min(3, n))) : step % 3 == 1 ? (8 * static_cast<int>(rng() % 32) + static_cast<int>(rng() % 2) * 7) % n
                                                                               : static_cast<int>(rng() % static_cast<std::uint64_t>(n));
      const std::uint8_t v = list[static_cast<std::size_t>(pick)];
      if ((words[0] & 0xffu) == v) {
        ASSERT_EQ(pick, 0);
      } else {
        ASSERT_EQ(bz2::mtf_move(words, v), pick);
      }
      std::rotate(list.begin(), list.begin() + pick, list.begin() + pick + 1);  // bzip2's move to front
      for (int p = 0; p < n; ++p) ASSERT_EQ(static_cast<std::uint8_t>(words[p >> 3] >> (8 * (p & 7))), list[static_cast<std::size_t>(p)]) << "place " << p;
    }
  }
}

// The GPU encoder's MTF on chunks at once (kernels/bz2/bz2_encode.cu: each chunk's list from the
// lists before it, its positions, its symbols at the count of the symbols before it), run here
// chunk after chunk: the serial encode_mtf's symbols, counts and starting tables, for any number
// of chunks, zero runs across chunk edges and chunks with no bytes.
TEST(Bz2GpuSteps, MtfOnChunksGivesTheSerialMtf) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::vector<Bytes> inputs = {Bytes{'q'}, Bytes(5000, 'r'), Bytes{'a', 'b'}, parcomp::testing::word_text(300001, seed),
                               datasets::bytes_with_entropy(120007, 7.9, seed), parcomp::testing::periodic(70000, "xyz"),
                               datasets::bytes_with_entropy(99990, 0.5, seed + 1)};
  Bytes runs;  // zero runs that span many chunks, between single changes
  for (int k = 0; k < 40; ++k) runs.insert(runs.end(), 1 + (k * 7919) % 20000, static_cast<std::uint8_t>('a' + k % 3));
  inputs.push_back(runs);
  auto want = std::make_unique<bz2::EncodeWork>();
  auto got = std::make_unique<bz2::EncodeWork>();
  for (const Bytes& in : inputs) {
    const auto n = static_cast<std::uint32_t>(in.size());
    bz2::encode_mtf(in.data(), n, *want);
    for (const std::size_t chunks : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{bz2::kMtfChunks}}) {
      SCOPED_TRACE(::testing::Message() << n << " bytes, " << chunks << " chunks");
      bz2::EncodeTables& t = got->t;
      auto lo = [&](std::size_t c) { return std::size_t{n} * c / chunks; };
      std::uint32_t bits[8] = {};
      for (std::size_t c = 0; c < chunks; ++c) {
        std::uint32_t mine[8] = {};
        bz2::encode_used_bits(in.data(), lo(c), lo(c + 1), mine);
        for (int k = 0; k < 8; ++k) bits[k] |= mine[k];
      }
      bz2::encode_set_used(t, bits);
      const int used = t.alpha - 2;
      std::vector<Bytes> lists(chunks, Bytes(256)), starts(chunks, Bytes(256));
      std::vector<int> counts(chunks);
      for (std::size_t c = 0; c < chunks; ++c) counts[c] = bz2::mtf_chunk_list(in.data(), t.to_seq, lo(c), lo(c + 1), lists[c].data());
      Bytes state(256);
      std::iota(state.begin(), state.end(), std::uint8_t{0});
      for (std::size_t c = 0; c < chunks; ++c) {
        starts[c] = state;
        Bytes after(256);
        bz2::mtf_next_state(state.data(), used, lists[c].data(), counts[c], after.data());
        state = after;
      }
      std::memset(got->mtf_index, 0xA5, n);
      std::vector<bz2::MtfTail> tails(chunks);
      for (std::size_t c = 0; c < chunks; ++c) {
        std::uint64_t yy[bz2::kMtfWords];
        bz2::mtf_list_words(starts[c].data(), c % 2 == 0 ? used : 256, yy);  // the places past the used ones: zero or not, never reached
        tails[c] = bz2::mtf_chunk_indices(in.data(), t.to_seq, lo(c), lo(c + 1), yy, got->mtf_index);
      }
      std::vector<std::uint64_t> run(chunks, 0), at(chunks + 1, 0);
      for (std::size_t c = 0; c + 1 < chunks; ++c) run[c + 1] = bz2::mtf_run_after(run[c], lo(c + 1) - lo(c), tails[c]);
      for (std::size_t c = 0; c < chunks; ++c) {
        std::uint64_t k = 0;
        bz2::mtf_chunk_emit(got->mtf_index, lo(c), lo(c + 1), run[c], c + 1 == chunks, [&k](std::uint16_t) { ++k; });
        at[c + 1] = at[c] + k;
      }
      std::fill(got->mtfv, got->mtfv + n + 1, std::uint16_t{0xA5A5});
      for (std::size_t c = chunks; c-- > 0;) {  // any order
        std::uint64_t o = at[c];
        bz2::mtf_chunk_emit(got->mtf_index, lo(c), lo(c + 1), run[c], c + 1 == chunks, [&](std::uint16_t v) {
          got->mtfv[o++] = v;
          ++t.mtf_freq[v];
        });
      }
      bz2::encode_end_mtf(got->mtfv, at[chunks], t);
      ASSERT_EQ(t.n_mtf, want->t.n_mtf);
      ASSERT_TRUE(std::equal(want->mtfv, want->mtfv + want->t.n_mtf, got->mtfv));
      ASSERT_TRUE(std::equal(want->t.mtf_freq, want->t.mtf_freq + bz2::kMaxAlphabet, t.mtf_freq));
      ASSERT_EQ(t.groups, want->t.groups);
      ASSERT_EQ(std::memcmp(&t.len, &want->t.len, sizeof t.len), 0);
    }
  }
}

}  // namespace
