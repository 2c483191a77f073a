// NVTX ranges: one named domain for the library's public entry points ("parcomp") and one for the
// benchmark harness ("parcomp-bench"), so `ncu --nvtx --nvtx-include "parcomp@rle::encode.paper/"`
// selects exactly one entry point's kernels. Range names never contain '/': Nsight Compute reads
// '/' as the separator of nested push/pop ranges.
#pragma once

#include <nvtx3/nvtx3.hpp>

namespace parcomp {

struct NvtxLibraryDomain {
  static constexpr char const* name{"parcomp"};
};
struct NvtxBenchDomain {
  static constexpr char const* name{"parcomp-bench"};
};

using NvtxRange = nvtx3::scoped_range_in<NvtxLibraryDomain>;
using NvtxBenchRange = nvtx3::scoped_range_in<NvtxBenchDomain>;

}  // namespace parcomp

#define PARCOMP_NVTX_CONCAT2(a, b) a##b
#define PARCOMP_NVTX_CONCAT(a, b) PARCOMP_NVTX_CONCAT2(a, b)
// A scoped range in the library domain, named after the entry point.
#define PARCOMP_NVTX_RANGE(name) \
  const ::parcomp::NvtxRange PARCOMP_NVTX_CONCAT(parcomp_nvtx_range_, __LINE__) { name }
