// Between the BWT translation units: the fast variants (bwt_fast.cu), called by bwt.cu.
#pragma once

#include "../common/scratch.hpp"
#include "bwt.hpp"

#include <span>

namespace parcomp::bwt::detail {

std::size_t fast_forward_scratch_bytes(std::size_t n);
void fast_forward(const std::uint8_t* d_in, std::size_t n, std::size_t block_bytes, std::uint8_t* d_last,
                  std::uint32_t* d_primary, std::uint32_t* d_samples, ScratchCarver& scratch, cudaStream_t stream);
std::size_t fast_forward_segments_scratch_bytes(std::size_t n, std::size_t count);
void fast_forward_segments(const std::uint8_t* d_in, std::span<const std::uint64_t> offsets, std::uint8_t* d_last,
                           std::uint32_t* d_primary, ScratchCarver& scratch, cudaStream_t stream);
std::size_t fast_reverse_scratch_bytes(std::size_t n, std::size_t block_bytes);
void fast_reverse(const std::uint8_t* d_last, std::size_t n, std::size_t block_bytes, const std::uint32_t* d_primary,
                  const std::uint32_t* d_samples, std::size_t sample_stride, std::uint8_t* d_out, ScratchCarver& scratch,
                  cudaStream_t stream);

// Waits for `stream`, reads the status word (0 = fine, else 1 + the first bad block) and throws
// CorruptDataError naming the block.
void check_status(const std::uint32_t* d_status, const char* variant, cudaStream_t stream);

}  // namespace parcomp::bwt::detail
