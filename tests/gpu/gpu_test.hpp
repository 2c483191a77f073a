// GPU test helpers: skip (reported as skipped by ctest) without a device; fresh seeds, printed.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

namespace parcomp::testing {

// Fixture base: GTEST_SKIP when no CUDA device is usable.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

// A fresh random seed per call (std::random_device); tests print it on failure.
std::uint64_t fresh_seed();

}  // namespace parcomp::testing
