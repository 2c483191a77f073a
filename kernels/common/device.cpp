#include "device.hpp"

#include "cuda_check.hpp"

#include <cuda_runtime_api.h>

namespace parcomp {

namespace {
cudaError_t probe(int* count) noexcept {
  const cudaError_t status = cudaGetDeviceCount(count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    *count = 0;
  }
  return status;
}
}  // namespace

int cuda_device_count() noexcept {
  int count = 0;
  probe(&count);
  return count;
}

std::string cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t status = probe(&count);
  if (status == cudaErrorInsufficientDriver)
    return "no usable NVIDIA driver: none is installed, or it is older than the CUDA runtime (cudaErrorInsufficientDriver)";
  if (status != cudaSuccess) return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  if (count == 0) return "cudaGetDeviceCount reported 0 devices";
  return {};
}

int sm_count() {
  int device = 0;
  PARCOMP_CUDA_CHECK(cudaGetDevice(&device));
  int sms = 0;
  PARCOMP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

}  // namespace parcomp
