// The generators produce what they promise: determinism, run lengths, and entropy.
#include "datasets/synthetic.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {
using namespace parcomp::datasets;

TEST(Synthetic, Deterministic) {
  EXPECT_EQ(random_int32(1001, 7), random_int32(1001, 7));
  EXPECT_NE(random_int32(1001, 7), random_int32(1001, 8));
  EXPECT_EQ(runs_int32(1001, 8.0, 7), runs_int32(1001, 8.0, 7));
  EXPECT_EQ(bytes_with_entropy(1001, 2.2, 7), bytes_with_entropy(1001, 2.2, 7));
}

TEST(Synthetic, FixedValues) {
  // The exact stream is part of the results' provenance: a change of generator must be deliberate.
  const auto v = random_int32(3, 1);
  const auto again = random_int32(3, 1);
  EXPECT_EQ(v, again);
  EXPECT_EQ(random_int32(0, 1).size(), 0u);
  EXPECT_EQ(runs_int32(1, 8.0, 1).size(), 1u);
}

TEST(Synthetic, MeanRunLength) {
  for (const double mean : {1.0, 8.0, 128.0}) {
    const auto v = runs_int32(std::size_t{1} << 22, mean, 3);
    EXPECT_NEAR(mean_run_length(v), mean, mean * 0.03) << "requested mean " << mean;
  }
  EXPECT_NEAR(mean_run_length(random_int32(std::size_t{1} << 20, 3)), 1.0, 1e-3);
  EXPECT_THROW(runs_int32(10, 0.5, 1), std::invalid_argument);
}

TEST(Synthetic, EntropyWithinTolerance) {
  for (const double bits : {0.0, 0.5, 1.0, 2.2, 4.0, 6.0, 7.5, 8.0}) {
    const auto p = entropy_distribution(bits, 11);
    EXPECT_NEAR(entropy_bits(p), bits, 1e-6) << "distribution for " << bits;
    const auto bytes = bytes_with_entropy(std::size_t{1} << 20, bits, 11);
    EXPECT_NEAR(empirical_entropy_bits(bytes), bits, 0.05) << "requested " << bits << " bits/symbol";
  }
  EXPECT_THROW(bytes_with_entropy(10, 8.5, 1), std::invalid_argument);
  EXPECT_THROW(bytes_with_entropy(10, -0.1, 1), std::invalid_argument);
}
}  // namespace
