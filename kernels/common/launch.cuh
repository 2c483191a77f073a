// Grid-stride launch configuration in the manner of Hemi's cudaLaunch (which the PARLE blog uses):
// a fixed block size and as many blocks as the device keeps resident at once.
#pragma once

#include "cuda_check.hpp"
#include "device.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace parcomp {

struct LaunchConfig {
  unsigned grid;
  unsigned block;
};

// Resident blocks of `block` threads for `kernel` on the current device, times the SM count.
// Cached per (device, kernel, block): the occupancy query stays out of repeated launches.
LaunchConfig occupancy_launch_config(const void* kernel, unsigned block);

template <typename Kernel>
LaunchConfig occupancy_launch_config(Kernel kernel, unsigned block = 256) {
  return occupancy_launch_config(reinterpret_cast<const void*>(kernel), block);
}

// Raises `kernel`'s dynamic shared-memory limit to at least `bytes` on the current device, once:
// the host call (cudaFuncSetAttribute) stays out of repeated launches and timed regions.
void ensure_dynamic_shared(const void* kernel, std::size_t bytes);

template <typename Kernel>
void ensure_dynamic_shared(Kernel kernel, std::size_t bytes) {
  ensure_dynamic_shared(reinterpret_cast<const void*>(kernel), bytes);
}

// 64-bit grid-stride loop indices, so that element counts past 2^31 bytes never overflow.
__device__ __forceinline__ std::int64_t grid_thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::int64_t grid_stride() {
  return static_cast<std::int64_t>(gridDim.x) * blockDim.x;
}

}  // namespace parcomp
