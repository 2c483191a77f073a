// The fast pipeline's entropy stages on the GPU against their serial oracles, for many blocks at
// once: the zero-run stage (kernels/zrle) symbol for symbol, the multi-table code
// (huffman::multi_choose) table for table and selector for selector, the batched encoder
// (vle::encode_segments) bit for bit with its index, and the batched decoder; damage is an error.
#include "datasets/synthetic.hpp"
#include "common/skewed.hpp"
#include "gpu_test.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/huffman/huffman.hpp"
#include "kernels/vle/vle.hpp"
#include "kernels/zrle/zrle.hpp"
#include "reference/multi_huffman.hpp"
#include "reference/mtf.hpp"
#include "reference/vle.hpp"
#include "reference/zrle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace {
using namespace parcomp;
using parcomp::testing::fresh_seed;
using parcomp::testing::GpuTest;
using parcomp::testing::sized;

class FastEntropyGpu : public GpuTest {};

// MTF output of varied blocks: text-like, random, constant, rare values.
std::vector<std::uint8_t> mtf_blocks(std::size_t n, std::size_t block, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v;
  for (std::size_t b = 0; v.size() < n; ++b) {
    const std::size_t len = std::min(block, n - v.size());
    std::vector<std::uint8_t> x;
    switch (b % 4) {
      case 0: x = datasets::bytes_with_entropy(len, 2.5, seed + b); break;
      case 1: x = datasets::bytes_with_entropy(len, 8.0, seed + b); break;
      case 2: x.assign(len, static_cast<std::uint8_t>('a' + b % 3)); break;
      default:
        for (std::size_t i = 0; i < len; ++i) x.push_back(rng() % 7 == 0 ? static_cast<std::uint8_t>(rng()) : 'k');
    }
    const auto m = reference::mtf_encode(x);
    v.insert(v.end(), m.begin(), m.end());
  }
  return v;
}

struct Blocks {
  std::vector<std::vector<std::uint8_t>> symbols;  // zero-run symbols per block
};

Blocks reference_symbols(const std::vector<std::uint8_t>& mtf, std::size_t block) {
  Blocks r;
  for (std::size_t at = 0; at < mtf.size(); at += block)
    r.symbols.push_back(reference::zrle_encode(std::span(mtf).subspan(at, std::min(block, mtf.size() - at))));
  return r;
}

TEST_F(FastEntropyGpu, ZeroRunsMatchTheOracleAndRoundTrip) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& [n, block] : std::vector<std::pair<std::size_t, std::size_t>>{
           {1, 16}, {17, 16}, {100001, 8192}, {3 * sized(1 << 20, 1 << 15) + 7, sized(1 << 20, 1 << 15)}, {sized(5000000, 150000), 65536}}) {
    SCOPED_TRACE(::testing::Message() << "n " << n << " block " << block);
    auto mtf = mtf_blocks(n, block, seed);
    if (n > 1000) std::fill_n(mtf.begin() + 40000, 30000, 0);  // a long run across tiles
    const Blocks want = reference_symbols(mtf, block);
    const std::size_t blocks = want.symbols.size(), cap = zrle::capacity(block);
    DeviceBuffer<std::uint8_t> d_in(n), d_sym(cap * blocks), d_back(n);
    DeviceBuffer<std::uint32_t> d_counts(blocks), d_status(2);
    d_in.upload(mtf);
    d_sym.fill_bytes(0xA5);
    d_back.fill_bytes(0x5A);
    zrle::encode(d_in.data(), n, block, d_sym.data(), d_counts.data(), nullptr);
    const auto counts = d_counts.download();
    const auto sym = d_sym.download();
    for (std::size_t b = 0; b < blocks; ++b) {
      ASSERT_EQ(counts[b], want.symbols[b].size()) << "block " << b;
      ASSERT_TRUE(std::equal(want.symbols[b].begin(), want.symbols[b].end(), sym.begin() + static_cast<std::ptrdiff_t>(b * cap)))
          << "block " << b;
    }
    zrle::decode(d_sym.data(), d_counts.data(), n, block, d_back.data(), d_status.data(), nullptr);
    zrle::check_decode_status(d_status.data(), nullptr);
    ASSERT_EQ(d_back.download(), mtf);
    // A wrong count is damage, named by block.
    auto bad = counts;
    bad[blocks / 2] = counts[blocks / 2] > 1 ? counts[blocks / 2] - 1 : 2 * static_cast<std::uint32_t>(block) + 1;
    d_counts.upload(bad);
    zrle::decode(d_sym.data(), d_counts.data(), n, block, d_back.data(), d_status.data(), nullptr);
    EXPECT_THROW(zrle::check_decode_status(d_status.data(), nullptr), CorruptDataError);
  }
}

TEST_F(FastEntropyGpu, MultiTableCodesMatchTheOracleAndStreamsRoundTrip) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const std::size_t block = sized(1 << 18, 1 << 15), n = 9 * block + 12345;
  const Blocks want = reference_symbols(mtf_blocks(n, block, seed), block);
  const std::size_t blocks = want.symbols.size();
  vle::Segments g;
  g.count = blocks;
  g.capacity = zrle::capacity(block);
  g.tables = huffman::kMaxTables;
  g.selector_stride = reference::multi_groups(g.capacity);
  g.out_stride = vle::output_words(g.capacity, 16);
  g.index_stride = vle::index_entries(g.capacity);
  DeviceBuffer<std::uint8_t> d_sym(g.capacity * blocks), d_lengths(1536 * blocks), d_sel(g.selector_stride * blocks),
      d_back(g.capacity * blocks);
  DeviceBuffer<std::uint32_t> d_counts(blocks), d_tables(blocks), d_packed(1536 * blocks), d_words(g.out_stride * blocks),
      d_status(2);
  DeviceBuffer<std::uint64_t> d_bits(blocks), d_index(g.index_stride * blocks);
  DeviceBytes scratch(huffman::multi_scratch_bytes(blocks)), enc_scratch(vle::segments_scratch_bytes(g));
  std::vector<std::uint8_t> host(g.capacity * blocks, 0);
  std::vector<std::uint32_t> counts;
  for (std::size_t b = 0; b < blocks; ++b) {
    std::copy(want.symbols[b].begin(), want.symbols[b].end(), host.begin() + static_cast<std::ptrdiff_t>(b * g.capacity));
    counts.push_back(static_cast<std::uint32_t>(want.symbols[b].size()));
  }
  d_sym.upload(host);
  d_counts.upload(counts);
  g.d_sizes = d_counts.data();
  g.d_selectors = d_sel.data();
  d_words.fill_bytes(0xEE);
  d_sel.fill_bytes(0xEE);  // the selectors and index entries past each block's own are never written
  d_index.fill_bytes(0xEE);
  huffman::multi_choose(d_sym.data(), g.capacity, d_counts.data(), blocks, d_tables.data(), d_lengths.data(), d_sel.data(),
                        g.selector_stride, d_packed.data(), scratch.data(), scratch.size_bytes(), nullptr);
  vle::encode_segments(g, d_sym.data(), d_packed.data(), 16, d_words.data(), d_bits.data(), d_index.data(), enc_scratch.data(),
                       enc_scratch.size_bytes(), nullptr);
  const auto tables = d_tables.download();
  const auto lengths = d_lengths.download();
  const auto sel = d_sel.download();
  const auto packed = d_packed.download();
  const auto words = d_words.download();
  const auto bits = d_bits.download();
  const auto index = d_index.download();
  std::vector<vle::DecodeTable> decode_tables(huffman::kMaxTables * blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    SCOPED_TRACE(::testing::Message() << "block " << b << " symbols " << counts[b]);
    const reference::MultiCode code = reference::multi_choose(want.symbols[b]);
    ASSERT_EQ(tables[b], code.lengths.size());
    std::vector<reference::CodeTable> cts;
    for (std::size_t t = 0; t < code.lengths.size(); ++t) {
      ASSERT_TRUE(std::equal(code.lengths[t].begin(), code.lengths[t].end(), lengths.begin() + static_cast<std::ptrdiff_t>(b * 1536 + t * 256)))
          << "table " << t;
      cts.push_back(reference::canonical_codes(code.lengths[t]));
      std::array<std::uint32_t, 256> c{};
      for (int s = 0; s < 256; ++s) {
        c[s] = cts.back()[s].bits;
        const std::uint32_t e = cts.back()[s].length == 0 ? 0u : (cts.back()[s].bits << 8) | cts.back()[s].length;
        ASSERT_EQ(packed[b * 1536 + t * 256 + s], e) << "table " << t << " symbol " << s;
      }
      decode_tables[b * huffman::kMaxTables + t] = vle::make_decode_table(c, code.lengths[t]);
    }
    ASSERT_TRUE(std::equal(code.selectors.begin(), code.selectors.end(), sel.begin() + static_cast<std::ptrdiff_t>(b * g.selector_stride)));
    const reference::VleStream s = reference::vle_encode(want.symbols[b], cts, code.selectors, reference::kGroupSymbols);
    ASSERT_EQ(bits[b], s.bits);
    ASSERT_TRUE(std::equal(s.words.begin(), s.words.end(), words.begin() + static_cast<std::ptrdiff_t>(b * g.out_stride)));
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < counts[b]; ++i) {
      if (i % vle::kIndexStride == 0) {
        ASSERT_EQ(index[b * g.index_stride + i / vle::kIndexStride], at) << "index " << i;
      }
      at += code.lengths[code.selectors[i / reference::kGroupSymbols]][want.symbols[b][i]];
    }
  }
  // The batched decoder gives the symbols back; a flipped bit in one block is damage there.
  DeviceBuffer<vle::DecodeTable> d_dec(decode_tables.size());
  d_dec.upload(decode_tables);
  d_back.fill_bytes(0x77);
  const std::size_t max_symbols = *std::max_element(counts.begin(), counts.end());
  vle::decode_segments(g, max_symbols, d_words.data(), d_bits.data(), d_index.data(), d_dec.data(), d_back.data(),
                       d_status.data(), nullptr);
  vle::check_segments_status(d_status.data(), nullptr);
  const auto back = d_back.download();
  for (std::size_t b = 0; b < blocks; ++b)
    ASSERT_TRUE(std::equal(want.symbols[b].begin(), want.symbols[b].end(), back.begin() + static_cast<std::ptrdiff_t>(b * g.capacity)))
        << "block " << b;
  // A stream whose recorded length disagrees with its codewords is damage (a flipped bit inside a
  // prefix code may decode to other valid symbols; the pipeline's CRC-32 catches that).
  auto damaged = bits;
  damaged[3] += 1;
  d_bits.upload(damaged);
  vle::decode_segments(g, max_symbols, d_words.data(), d_bits.data(), d_index.data(), d_dec.data(), d_back.data(),
                       d_status.data(), nullptr);
  EXPECT_THROW(vle::check_segments_status(d_status.data(), nullptr), CorruptDataError);
}


// Blocks whose chain table is deeper than 16 bits (tests/common/skewed.hpp), so that the tree
// kernel's halving loop runs (the loop whose exit test once raced). Lengths and selectors
// equal the oracle's (which counts the halvings: there must be some), every table is a complete
// prefix code within 16 bits, and three launches agree.
TEST_F(FastEntropyGpu, MultiTableTreeHalvesDeepCodes) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const std::size_t segments = sized(6, 3), capacity = std::size_t{1} << 18;
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::uint8_t>> blocks;
  std::vector<reference::MultiCode> codes;
  for (std::size_t b = 0; b < segments; ++b) {
    blocks.push_back(parcomp::testing::deep_chain_block(static_cast<int>(sized(16 + b % 2, 15)), rng));
    ASSERT_LE(blocks.back().size(), capacity);
    codes.push_back(reference::multi_choose(blocks.back()));
    ASSERT_GT(codes.back().halvings, 0) << "segment " << b << ": no table needed the halving loop; the test lost its point";
  }
  std::vector<std::uint8_t> host(capacity * segments, 0);
  std::vector<std::uint32_t> counts;
  for (std::size_t b = 0; b < segments; ++b) {
    std::copy(blocks[b].begin(), blocks[b].end(), host.begin() + static_cast<std::ptrdiff_t>(b * capacity));
    counts.push_back(static_cast<std::uint32_t>(blocks[b].size()));
  }
  const std::size_t stride = reference::multi_groups(capacity);
  DeviceBuffer<std::uint8_t> d_sym(host.size()), d_lengths(1536 * segments), d_sel(stride * segments);
  DeviceBuffer<std::uint32_t> d_counts(segments), d_tables(segments), d_packed(1536 * segments);
  DeviceBytes scratch(huffman::multi_scratch_bytes(segments));
  d_sym.upload(host);
  d_counts.upload(counts);
  std::vector<std::uint8_t> first_lengths;
  for (int launch = 0; launch < 3; ++launch) {
    SCOPED_TRACE(::testing::Message() << "launch " << launch);
    d_lengths.fill_bytes(0xC3);
    d_sel.fill_bytes(0xC3);
    huffman::multi_choose(d_sym.data(), capacity, d_counts.data(), segments, d_tables.data(), d_lengths.data(), d_sel.data(),
                          stride, d_packed.data(), scratch.data(), scratch.size_bytes(), nullptr);
    const auto lengths = d_lengths.download();
    const auto sel = d_sel.download();
    const auto tables = d_tables.download();
    if (launch == 0) first_lengths = lengths;
    ASSERT_EQ(lengths, first_lengths) << "the lengths differ between launches";
    for (std::size_t b = 0; b < segments; ++b) {
      SCOPED_TRACE(::testing::Message() << "segment " << b << " symbols " << counts[b]);
      const reference::MultiCode& code = codes[b];
      ASSERT_EQ(tables[b], code.lengths.size());
      for (std::size_t t = 0; t < code.lengths.size(); ++t) {
        reference::Lengths got{};
        std::copy_n(lengths.begin() + static_cast<std::ptrdiff_t>(b * 1536 + t * 256), 256, got.begin());
        ASSERT_EQ(got, code.lengths[t]) << "table " << t;
        EXPECT_EQ(reference::kraft_sum_scaled(got), std::uint64_t{1} << 32) << "table " << t << " is not a complete prefix code";
        EXPECT_LE(*std::max_element(got.begin(), got.end()), reference::kMultiMaxLength) << "table " << t;
      }
      ASSERT_TRUE(std::equal(code.selectors.begin(), code.selectors.end(), sel.begin() + static_cast<std::ptrdiff_t>(b * stride)));
    }
  }
}

}  // namespace
