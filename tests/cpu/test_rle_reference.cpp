// The serial RLE oracle: the blog's example, edge cases, and round trips on random data.
#include "datasets/synthetic.hpp"
#include "reference/rle.hpp"

#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace {
using parcomp::reference::rle_decode;
using parcomp::reference::rle_encode;

void expect_valid_encoding(const std::vector<std::int32_t>& in, const parcomp::reference::RlePairs& p) {
  ASSERT_EQ(p.symbols.size(), p.counts.size());
  std::size_t total = 0;
  for (std::size_t r = 0; r < p.counts.size(); ++r) {
    ASSERT_GE(p.counts[r], 1) << "run " << r;
    if (r > 0) {
      ASSERT_NE(p.symbols[r], p.symbols[r - 1]) << "adjacent runs " << r - 1 << "," << r << " share a symbol";
    }
    total += static_cast<std::size_t>(p.counts[r]);
  }
  ASSERT_EQ(total, in.size());
  ASSERT_EQ(rle_decode(p.symbols, p.counts), in);
}

TEST(RleReference, BlogExample) {
  const std::vector<std::int32_t> in{1, 2, 3, 6, 6, 6, 5, 5};
  const auto p = rle_encode(in);
  EXPECT_EQ(p.counts, (std::vector<std::int32_t>{1, 1, 1, 3, 2}));
  EXPECT_EQ(p.symbols, (std::vector<std::int32_t>{1, 2, 3, 6, 5}));
}

TEST(RleReference, Empty) {
  const auto p = rle_encode(std::vector<std::int32_t>{});
  EXPECT_TRUE(p.symbols.empty());
  EXPECT_TRUE(rle_decode(p.symbols, p.counts).empty());
}

TEST(RleReference, OneElement) {
  const std::vector<std::int32_t> in{-7};
  const auto p = rle_encode(in);
  EXPECT_EQ(p.symbols, in);
  EXPECT_EQ(p.counts, (std::vector<std::int32_t>{1}));
}

TEST(RleReference, AllEqualAndAllDistinct) {
  const std::vector<std::int32_t> equal(1001, 42);
  auto p = rle_encode(equal);
  EXPECT_EQ(p.counts, (std::vector<std::int32_t>{1001}));
  std::vector<std::int32_t> distinct(1001);
  for (std::size_t i = 0; i < distinct.size(); ++i) distinct[i] = static_cast<std::int32_t>(i * 7919 % 1001);
  p = rle_encode(distinct);
  EXPECT_EQ(p.symbols, distinct);
  expect_valid_encoding(distinct, p);
}

TEST(RleReference, RoundTripRandomSeeds) {
  for (int trial = 0; trial < 8; ++trial) {
    const std::uint64_t seed = parcomp::testing::fresh_seed();
    const std::size_t n = 1 + seed % 100003;
    const double mean = 1.0 + static_cast<double>(seed % 50);
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " mean " << mean);
    const auto in = parcomp::datasets::runs_int32(n, mean, seed);
    expect_valid_encoding(in, rle_encode(in));
  }
}

TEST(RleReference, DecodeRejectsBadStreams) {
  const std::vector<std::int32_t> symbols{1, 2}, zero{1, 0}, negative{1, -3};
  EXPECT_THROW(rle_decode(symbols, zero), std::invalid_argument);
  EXPECT_THROW(rle_decode(symbols, negative), std::invalid_argument);
  std::vector<std::int32_t> small(2);
  const std::vector<std::int32_t> counts{2, 2};
  EXPECT_THROW(rle_decode(symbols, counts, small), std::invalid_argument);
  EXPECT_THROW(rle_decode(symbols, std::vector<std::int32_t>{1}), std::invalid_argument);
}
}  // namespace
