#include "gpu_test.hpp"

#include "kernels/common/device.hpp"

namespace parcomp::testing {

void GpuTest::SetUp() {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device (" << cuda_unavailable_reason() << ")";
}

}  // namespace parcomp::testing
