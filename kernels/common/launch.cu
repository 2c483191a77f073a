#include "launch.cuh"

#include <map>
#include <mutex>
#include <tuple>

namespace parcomp {

LaunchConfig occupancy_launch_config(const void* kernel, unsigned block) {
  static std::mutex mutex;
  static std::map<std::tuple<int, const void*, unsigned>, LaunchConfig> cache;
  int device = 0;
  PARCOMP_CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(device, kernel, block);
  const std::lock_guard lock(mutex);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  int blocks_per_sm = 0;
  PARCOMP_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, static_cast<int>(block), 0));
  if (blocks_per_sm < 1) blocks_per_sm = 1;
  const LaunchConfig config{static_cast<unsigned>(blocks_per_sm * sm_count()), block};
  cache.emplace(key, config);
  return config;
}

void ensure_dynamic_shared(const void* kernel, std::size_t bytes) {
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, std::size_t> raised;
  int device = 0;
  PARCOMP_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard lock(mutex);
  std::size_t& have = raised[{device, kernel}];
  if (bytes <= have) return;
  PARCOMP_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  have = bytes;
}

}  // namespace parcomp
