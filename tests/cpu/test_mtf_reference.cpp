// The serial MTF oracle (thesis Alg. 1 and 4) and the CPU BWT that feeds it.
#include "datasets/synthetic.hpp"
#include "reference/bwt_cpu.hpp"
#include "reference/mtf.hpp"

#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace parcomp::reference;

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

TEST(MtfReference, ThesisFigures) {
  // Fig. 2.3 / 3.2: "ccbbbaaaaa" <-> 99,0,99,0,0,99,0,0,0,0 from the ASCII identity list.
  const std::vector<std::uint8_t> coded{99, 0, 99, 0, 0, 99, 0, 0, 0, 0};
  EXPECT_EQ(mtf_encode(bytes("ccbbbaaaaa")), coded);
  EXPECT_EQ(mtf_decode(coded), bytes("ccbbbaaaaa"));
}

TEST(MtfReference, EdgeCases) {
  EXPECT_TRUE(mtf_encode(std::vector<std::uint8_t>{}).empty());
  EXPECT_EQ(mtf_encode(std::vector<std::uint8_t>{255}), std::vector<std::uint8_t>{255});
  std::vector<std::uint8_t> cycling(1000);
  for (std::size_t i = 0; i < cycling.size(); ++i) cycling[i] = static_cast<std::uint8_t>(i);
  const auto coded = mtf_encode(cycling);
  for (std::size_t i = 256; i < coded.size(); ++i) ASSERT_EQ(coded[i], 255) << "cycling all 256 symbols: index " << i;
  EXPECT_EQ(mtf_decode(coded), cycling);
}

TEST(MtfReference, SegmentsRestartTheList) {
  const auto seg = parcomp::datasets::bytes_with_entropy(1000, 3.0, 5);
  std::vector<std::uint8_t> twice(seg);
  twice.insert(twice.end(), seg.begin(), seg.end());
  const auto coded = mtf_encode(twice, 1000);
  EXPECT_TRUE(std::equal(coded.begin(), coded.begin() + 1000, coded.begin() + 1000));
  EXPECT_EQ(mtf_decode(coded, 1000), twice);
  EXPECT_NE(mtf_encode(twice, 0), coded);
}

TEST(MtfReference, RoundTripFreshSeeds) {
  for (int trial = 0; trial < 6; ++trial) {
    const std::uint64_t seed = parcomp::testing::fresh_seed();
    const std::size_t n = 1 + seed % 200000, seg = trial % 2 ? 0 : 1 + (seed >> 20) % 5000;
    const double bits = static_cast<double>(seed % 80) / 10.0;
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " segment " << seg << " bits " << bits);
    const auto in = parcomp::datasets::bytes_with_entropy(n, bits, seed);
    ASSERT_EQ(mtf_decode(mtf_encode(in, seg), seg), in);
  }
}

TEST(BwtCpu, BlocksArePermutationsOfTheirInput) {
  const auto in = parcomp::datasets::bytes_with_entropy(100003, 2.5, 9);
  const auto out = bwt_blocks_divsufsort(in, 10000, 3);
  ASSERT_EQ(out.bytes.size(), in.size());
  ASSERT_EQ(out.primary.size(), 11u);
  for (std::size_t b = 0; b < out.primary.size(); ++b) {
    const std::size_t first = b * 10000, last = std::min(in.size(), first + 10000);
    std::vector<std::uint8_t> x(in.begin() + first, in.begin() + last), y(out.bytes.begin() + first, out.bytes.begin() + last);
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    ASSERT_EQ(x, y) << "block " << b;
    EXPECT_GE(out.primary[b], 0);
    EXPECT_LE(out.primary[b], static_cast<std::int32_t>(last - first));
  }
  EXPECT_EQ(bwt_blocks_divsufsort(in, 10000, 1).bytes, out.bytes) << "thread count changed the output";
}

TEST(BwtCpu, GroupsEqualContexts) {
  // BWT output of repetitive text has long runs: MTF then gives mostly zeros.
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "the quick brown fox jumps over the lazy dog. ";
  const auto out = bwt_blocks_divsufsort(bytes(text), 1 << 20);
  const auto coded = mtf_encode(out.bytes);
  const auto zeros = std::count(coded.begin(), coded.end(), 0);
  EXPECT_GT(zeros, static_cast<long>(coded.size() * 9 / 10));
}
}  // namespace
