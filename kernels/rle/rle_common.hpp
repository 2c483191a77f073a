// Internal to kernels/rle: argument checks shared by the variants.
#pragma once

#include "../common/cuda_check.hpp"
#include "rle.hpp"

#include <string>

namespace parcomp::rle::detail {

inline void check_size(std::size_t n, const char* what) {
  if (n > kMaxElements)
    throw ContractError(std::string(what) + ": n = " + std::to_string(n) + " exceeds the limit of " +
                        std::to_string(kMaxElements) + " elements (int32 run counts)");
}

}  // namespace parcomp::rle::detail

namespace parcomp::rle::detail {

std::size_t paper_encode_scratch_bytes(std::size_t n);
void paper_encode(const std::int32_t* d_in, std::size_t n, std::int32_t* d_symbols, std::int32_t* d_counts,
                  std::int32_t* d_num_runs, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);
std::size_t paper_decode_scratch_bytes(std::size_t runs, std::size_t n);
void paper_decode(const std::int32_t* d_symbols, const std::int32_t* d_counts, std::size_t runs, std::size_t n,
                  std::int32_t* d_out, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);

std::size_t cub_encode_scratch_bytes(std::size_t n);
void cub_encode(const std::int32_t* d_in, std::size_t n, std::int32_t* d_symbols, std::int32_t* d_counts,
                std::int32_t* d_num_runs, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);
std::size_t cub_decode_scratch_bytes(std::size_t runs, std::size_t n);
void cub_decode(const std::int32_t* d_symbols, const std::int32_t* d_counts, std::size_t runs, std::size_t n,
                std::int32_t* d_out, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);

}  // namespace parcomp::rle::detail
