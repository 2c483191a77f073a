// The zero-run stage's oracle (reference/zrle.hpp) and the multi-table code
// (reference/multi_huffman.hpp): round trips, known codings, damage.
#include "datasets/synthetic.hpp"
#include "reference/multi_huffman.hpp"
#include "reference/mtf.hpp"
#include "reference/vle.hpp"
#include "reference/zrle.hpp"

#include "common/seeds.hpp"
#include "common/skewed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>

namespace {
using namespace parcomp::reference;

// MTF-like bytes: mostly zeros in runs of random length, small values, a few 254/255.
std::vector<std::uint8_t> mtf_like(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v;
  while (v.size() < n) {
    const auto r = rng() % 100;
    if (r < 50) v.insert(v.end(), 1 + rng() % (r < 5 ? 5000 : 12), 0);
    else if (r < 95) v.push_back(static_cast<std::uint8_t>(1 + rng() % 20));
    else v.push_back(static_cast<std::uint8_t>(250 + rng() % 6));
  }
  v.resize(n);
  return v;
}

TEST(Zrle, KnownCodings) {
  // Runs 1..6 -> A, B, AA, BA, AB, BB (bijective base 2, least significant digit first).
  const std::vector<std::vector<std::uint8_t>> want = {{0}, {1}, {0, 0}, {1, 0}, {0, 1}, {1, 1}};
  for (std::size_t r = 1; r <= 6; ++r) EXPECT_EQ(zrle_encode(std::vector<std::uint8_t>(r, 0)), want[r - 1]) << r;
  EXPECT_EQ(zrle_encode(std::vector<std::uint8_t>{5, 253, 254, 255}), (std::vector<std::uint8_t>{6, 254, 255, 0, 255, 1}));
  EXPECT_TRUE(zrle_encode({}).empty());
}

TEST(Zrle, RoundTrips) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{4097}, std::size_t{1000003}}) {
    for (const auto& in : {mtf_like(n, seed), std::vector<std::uint8_t>(n, 0), std::vector<std::uint8_t>(n, 255),
                           parcomp::datasets::bytes_with_entropy(n, 8.0, seed)}) {
      const auto z = zrle_encode(in);
      EXPECT_LE(z.size(), zrle_max_symbols(in.size()));
      EXPECT_EQ(zrle_decode(z, in.size()), in) << "n " << n;
    }
  }
}

TEST(Zrle, DamageIsAnError) {
  EXPECT_THROW(zrle_decode(std::vector<std::uint8_t>{255}, 1), std::invalid_argument);     // escape alone
  EXPECT_THROW(zrle_decode(std::vector<std::uint8_t>{255, 7}, 1), std::invalid_argument);  // bad escape
  EXPECT_THROW(zrle_decode(std::vector<std::uint8_t>{1, 1}, 5), std::invalid_argument);    // run of 6 past 5
  EXPECT_THROW(zrle_decode(std::vector<std::uint8_t>{3}, 2), std::invalid_argument);       // too few bytes
  EXPECT_THROW(zrle_decode(std::vector<std::uint8_t>(64, 1), 100), std::invalid_argument); // a run too long
}

TEST(MultiTable, CodesAreValidAndRoundTrip) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const std::size_t n : {std::size_t{1}, std::size_t{63}, std::size_t{199}, std::size_t{2500}, std::size_t{300001}}) {
    const auto symbols = zrle_encode(mtf_like(n * 3, seed));
    const MultiCode code = multi_choose(symbols);
    ASSERT_EQ(static_cast<int>(code.lengths.size()), multi_table_count(symbols.size()));
    ASSERT_EQ(code.selectors.size(), multi_groups(symbols.size()));
    const Histogram h = byte_histogram(symbols);
    std::vector<CodeTable> tables;
    for (const auto& l : code.lengths) {
      EXPECT_LE(kraft_sum_scaled(l), std::uint64_t{1} << 32);
      for (int c = 0; c < 256; ++c) {
        EXPECT_EQ(l[c] != 0, h[c] != 0) << "every table codes exactly the used symbols";
        EXPECT_LE(l[c], kMultiMaxLength);
      }
      tables.push_back(canonical_codes(l));
    }
    for (const auto s : code.selectors) EXPECT_LT(s, code.lengths.size());
    const VleStream stream = vle_encode(symbols, tables, code.selectors, kGroupSymbols);
    EXPECT_EQ(stream.bits, multi_encoded_bits(symbols, code));
    EXPECT_EQ(vle_decode(stream, symbols.size(), tables, code.selectors, kGroupSymbols), symbols);
  }
}

TEST(MultiTable, BeatsOneTableOnMixedStatistics) {
  // Two halves with different statistics: several tables code them better than one.
  std::vector<std::uint8_t> s;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 64 * 400; ++i) s.push_back(static_cast<std::uint8_t>((i / 6400) % 2 == 0 ? rng() % 4 : 4 + rng() % 60));
  const auto one = huffman_lengths_rescaled(byte_histogram(s), kMultiMaxLength);
  EXPECT_LT(multi_encoded_bits(s, multi_choose(s)), encoded_bits(byte_histogram(s), one) * 95 / 100);
}

TEST(MultiTable, RescaledLengthsFit) {
  const auto l = huffman_lengths_rescaled(fibonacci_histogram(40), 16);
  for (int c = 0; c < 40; ++c) EXPECT_TRUE(l[c] >= 1 && l[c] <= 16);
  EXPECT_LE(kraft_sum_scaled(l), std::uint64_t{1} << 32);
}


// The oracle's halving path on the blocks the GPU test uses: some table needs it, every table is a
// complete prefix code within kMultiMaxLength bits.
TEST(MultiTable, DeepChainBlocksAreHalved) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (const int chain : {15, 16}) {
    const auto block = parcomp::testing::deep_chain_block(chain, rng);
    const MultiCode code = multi_choose(block);
    EXPECT_GT(code.halvings, 0) << "chain " << chain;
    for (const auto& l : code.lengths) {
      EXPECT_EQ(kraft_sum_scaled(l), std::uint64_t{1} << 32) << "chain " << chain;
      EXPECT_LE(*std::max_element(l.begin(), l.end()), kMultiMaxLength) << "chain " << chain;
    }
  }
}

}  // namespace
