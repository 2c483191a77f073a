// 32-bit counts read as 64-bit values (for CUB scans whose sums may pass 2^32).
#pragma once

#include <thrust/iterator/transform_iterator.h>

#include <cstdint>

namespace parcomp {

struct WidenU32 {
  __host__ __device__ std::uint64_t operator()(std::uint32_t x) const { return x; }
};
inline auto widen(const std::uint32_t* p) { return thrust::make_transform_iterator(p, WidenU32{}); }

}  // namespace parcomp
