// GPU test helpers: skip (reported as skipped by ctest) without a device. Seeds and the
// small-size mode come from tests/common/seeds.hpp.
#pragma once

#include "common/seeds.hpp"

#include <gtest/gtest.h>

namespace parcomp::testing {

// Fixture base: GTEST_SKIP when no CUDA device is usable.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

}  // namespace parcomp::testing
