#include "device_buffer.hpp"

#include <string>

namespace parcomp {

DeviceBytes::DeviceBytes(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t status = cudaMalloc(&ptr_, bytes);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();
    std::size_t free_bytes = 0, total_bytes = 0;
    std::string mem;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      mem = ", " + std::to_string(free_bytes >> 20) + " MiB free of " + std::to_string(total_bytes >> 20) + " MiB";
    (void)cudaGetLastError();
    ptr_ = nullptr;
    bytes_ = 0;
    throw CudaError(status, "cudaMalloc of " + std::to_string(bytes) + " bytes failed: " +
                                cudaGetErrorString(status) + mem);
  }
}

DeviceBytes::~DeviceBytes() { reset(); }

void DeviceBytes::reset() noexcept {
  if (ptr_ != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
  ptr_ = nullptr;
  bytes_ = 0;
}

}  // namespace parcomp
