// The rotation BWT oracle (suffix sorting of the doubled block), the serial inverse, and the tie
// analysis of thesis Fig. 4.3.
#include "datasets/synthetic.hpp"
#include "reference/bwt.hpp"

#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

namespace {
using namespace parcomp::reference;

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

// Rotations sorted by plain cyclic comparison.
std::vector<std::uint8_t> naive_last_column(const std::vector<std::uint8_t>& t) {
  const std::size_t n = t.size();
  std::vector<std::size_t> rot(n);
  std::iota(rot.begin(), rot.end(), 0);
  std::stable_sort(rot.begin(), rot.end(), [&](std::size_t a, std::size_t b) {
    for (std::size_t k = 0; k < n; ++k) {
      const auto x = t[(a + k) % n], y = t[(b + k) % n];
      if (x != y) return x < y;
    }
    return false;
  });
  std::vector<std::uint8_t> last(n);
  for (std::size_t i = 0; i < n; ++i) last[i] = t[(rot[i] + n - 1) % n];
  return last;
}

void round_trip(const std::vector<std::uint8_t>& t) {
  const auto f = bwt_rotations(t);
  ASSERT_EQ(f.last, naive_last_column(t)) << "suffix sorting of TT disagrees with rotation sorting";
  ASSERT_EQ(inverse_bwt(f.last, f.primary), t);
}

TEST(BwtReference, KnownExample) {
  const auto f = bwt_rotations(bytes("banana"));
  EXPECT_EQ(std::string(f.last.begin(), f.last.end()), "nnbaaa");
  EXPECT_EQ(f.primary, 3u);
  EXPECT_EQ(inverse_bwt(f.last, f.primary), bytes("banana"));
}

TEST(BwtReference, EdgeCases) {
  round_trip(bytes("x"));
  round_trip(std::vector<std::uint8_t>(1000, 'a'));  // every rotation ties
  round_trip(bytes("abababababab"));                   // periodic, even
  round_trip(bytes("abcabcabcabcabcab"));              // periodic with a remainder
  round_trip(bytes("ababababababa"));
  EXPECT_THROW(bwt_rotations(std::vector<std::uint8_t>{}), std::invalid_argument);
  EXPECT_THROW(inverse_bwt(bytes("ab"), 2), std::invalid_argument);
}

TEST(BwtReference, RandomFreshSeeds) {
  for (const double bits : {1.0, 3.0, 8.0}) {
    const std::uint64_t seed = parcomp::testing::fresh_seed();
    const std::size_t n = 1 + seed % 3000;
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " bits " << bits);
    round_trip(parcomp::datasets::bytes_with_entropy(n, bits, seed));
    if (HasFatalFailure()) return;
  }
  const auto big = parcomp::datasets::bytes_with_entropy(1 << 20, 2.0, parcomp::testing::fresh_seed());
  const auto f = bwt_rotations(big);
  EXPECT_EQ(inverse_bwt(f.last, f.primary), big);
}

TEST(BwtTies, Buckets) {
  EXPECT_EQ(tie_bucket(0), 0);
  EXPECT_EQ(tie_bucket(3), 0);
  EXPECT_EQ(tie_bucket(4), 1);
  EXPECT_EQ(tie_bucket(7), 1);
  EXPECT_EQ(tie_bucket(8), 2);
  EXPECT_EQ(tie_bucket(15), 2);
  EXPECT_EQ(tie_bucket(16), 3);
  EXPECT_EQ(tie_bucket(std::uint64_t{1} << 40), kTieBuckets - 1);
}

TEST(BwtTies, DefinitionOnSmallInputs) {
  // "banana": sorted rotations abanan, anaban, ananab, banana, nabana, nanaba; adjacent LCPs 1,3,0,0,2.
  const auto h = rotation_ties(bytes("banana"));
  EXPECT_EQ(h.pairs, 5u);
  EXPECT_EQ(h.buckets[0], 5u);
  EXPECT_EQ(h.max_tie, 3u);
  EXPECT_DOUBLE_EQ(h.sum_tie, 6.0);
  const auto flat = rotation_ties(std::vector<std::uint8_t>(100, 'z'));  // every pair ties fully, capped at n
  EXPECT_EQ(flat.pairs, 99u);
  EXPECT_EQ(flat.max_tie, 100u);
  EXPECT_EQ(flat.buckets[tie_bucket(100)], 99u);
}

TEST(BwtTies, RandomBytesRarelyTie) {
  const auto h = rotation_ties_blocks(parcomp::datasets::bytes_with_entropy(300000, 8.0, 5), 100000, 2);
  EXPECT_EQ(h.pairs, 3 * 99999u);
  EXPECT_GT(static_cast<double>(h.buckets[0]) / static_cast<double>(h.pairs), 0.99);
}

TEST(BwtBlocks, SamplesRoundTripAndThreads) {
  const auto in = parcomp::datasets::bytes_with_entropy(250001, 3.0, 11);
  const auto one = bwt_rotation_blocks(in, 65536, 1024, 1);
  const auto many = bwt_rotation_blocks(in, 65536, 1024, 3);
  EXPECT_EQ(one.last, many.last);
  EXPECT_EQ(one.primary, many.primary);
  EXPECT_EQ(one.samples, many.samples);
  ASSERT_EQ(one.primary.size(), 4u);
  ASSERT_EQ(one.samples.size(), 4u * 64u);
  EXPECT_EQ(inverse_bwt_blocks(one), in);
  for (std::size_t b = 0; b < 4; ++b) EXPECT_EQ(one.samples[b * 64], one.primary[b]) << "sample 0 is the primary row";
  // The last block has 53393 bytes: 53 samples, the rest of its slots unused.
  EXPECT_NE(one.samples[3 * 64 + 52], 0xFFFFFFFFu);
  EXPECT_EQ(one.samples[3 * 64 + 53], 0xFFFFFFFFu);
}
}  // namespace
