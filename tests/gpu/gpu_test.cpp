#include "gpu_test.hpp"

#include "kernels/common/device.hpp"

#include <random>

namespace parcomp::testing {

void GpuTest::SetUp() {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (" << cuda_unavailable_reason() << ")";
}

std::uint64_t fresh_seed() {
  std::random_device rd;
  return (std::uint64_t{rd()} << 32) | rd();
}

}  // namespace parcomp::testing
