// The library peers: CUB's run-length encoder, and a decoder built from CUB device primitives
// (exclusive scan of the counts, then DeviceCopy::Batched copying one constant range per run).
#include "../common/nvtx.hpp"
#include "../common/scratch.hpp"
#include "rle.hpp"
#include "rle_common.hpp"

#include <cub/device/device_copy.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace parcomp::rle::detail {

namespace {

// Decode as batched copies: range r is symbols[r] repeated, written at out + starts[r]. Sizes are
// clamped to the output length so that counts summing past n (a corrupt stream) never write past it.
struct RunSource {
  const std::int32_t* symbols;
  __host__ __device__ auto operator()(std::int64_t r) const { return thrust::make_constant_iterator(symbols[r]); }
};
struct RunDestination {
  std::int32_t* out;
  const std::int32_t* starts;
  __host__ __device__ std::int32_t* operator()(std::int64_t r) const { return out + starts[r]; }
};
struct RunSize {
  const std::int32_t* starts;
  const std::int32_t* counts;
  std::int64_t n;
  __host__ __device__ std::int64_t operator()(std::int64_t r) const {
    const std::int64_t start = starts[r];
    const std::int64_t room = start < n ? n - start : 0;
    const std::int64_t count = counts[r] > 0 ? counts[r] : 0;
    return count < room ? count : room;
  }
};

struct CubDecodeScratch {
  std::int32_t* starts;
  void* temp;
  std::size_t temp_bytes;
};

auto batched_copy_iterators(const std::int32_t* d_symbols, const std::int32_t* d_counts, const std::int32_t* starts,
                            std::int32_t* d_out, std::size_t n) {
  const thrust::counting_iterator<std::int64_t> iota(0);
  return std::make_tuple(thrust::make_transform_iterator(iota, RunSource{d_symbols}),
                         thrust::make_transform_iterator(iota, RunDestination{d_out, starts}),
                         thrust::make_transform_iterator(iota, RunSize{starts, d_counts, static_cast<std::int64_t>(n)}));
}

CubDecodeScratch carve_cub_decode(ScratchCarver& carver, std::size_t runs, std::size_t n) {
  CubDecodeScratch s{};
  s.starts = carver.take<std::int32_t>(runs);
  std::size_t scan_bytes = 0, copy_bytes = 0;
  PARCOMP_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, s.starts, s.starts, static_cast<int>(runs)));
  auto [sources, destinations, sizes] = batched_copy_iterators(nullptr, nullptr, s.starts, nullptr, n);
  PARCOMP_CUDA_CHECK(cub::DeviceCopy::Batched(nullptr, copy_bytes, sources, destinations, sizes,
                                              static_cast<std::int64_t>(runs)));
  s.temp_bytes = scan_bytes > copy_bytes ? scan_bytes : copy_bytes;
  s.temp = carver.take_bytes(s.temp_bytes);
  return s;
}

}  // namespace

std::size_t cub_encode_scratch_bytes(std::size_t n) {
  std::size_t bytes = 0;
  PARCOMP_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
                                                        static_cast<std::int32_t*>(nullptr),
                                                        static_cast<std::int32_t*>(nullptr),
                                                        static_cast<std::int32_t*>(nullptr), static_cast<int>(n)));
  return bytes;
}

void cub_encode(const std::int32_t* d_in, std::size_t n, std::int32_t* d_symbols, std::int32_t* d_counts,
                std::int32_t* d_num_runs, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("rle::encode.cub");
  const std::size_t need = cub_encode_scratch_bytes(n);
  if (scratch_bytes < need)
    throw ContractError("rle::encode/cub: scratch of " + std::to_string(scratch_bytes) + " bytes, need " +
                        std::to_string(need));
  std::size_t bytes = scratch_bytes;
  PARCOMP_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(d_scratch, bytes, d_in, d_symbols, d_counts, d_num_runs,
                                                        static_cast<int>(n), stream));
}

std::size_t cub_decode_scratch_bytes(std::size_t runs, std::size_t n) {
  ScratchCarver sizing;
  carve_cub_decode(sizing, runs, n);
  return sizing.used();
}

void cub_decode(const std::int32_t* d_symbols, const std::int32_t* d_counts, std::size_t runs, std::size_t n,
                std::int32_t* d_out, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("rle::decode.cub");
  ScratchCarver carver(d_scratch, scratch_bytes);
  const CubDecodeScratch s = carve_cub_decode(carver, runs, n);
  std::size_t bytes = s.temp_bytes;
  PARCOMP_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(s.temp, bytes, d_counts, s.starts, static_cast<int>(runs), stream));
  auto [sources, destinations, sizes] = batched_copy_iterators(d_symbols, d_counts, s.starts, d_out, n);
  bytes = s.temp_bytes;
  PARCOMP_CUDA_CHECK(cub::DeviceCopy::Batched(s.temp, bytes, sources, destinations, sizes,
                                              static_cast<std::int64_t>(runs), stream));
}

}  // namespace parcomp::rle::detail
