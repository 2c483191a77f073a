// Between the PAVLE translation units: the fast encoder's entry points (vle_fast.cu), called by
// vle::encode (vle.cu).
#pragma once

#include "../common/scratch.hpp"
#include "vle.hpp"

namespace parcomp::vle::detail {

std::size_t fast_scratch_bytes(std::size_t n);
void encode_fast(const std::uint8_t* d_in, std::size_t n, const std::uint32_t* d_table, int max_length,
                 std::uint32_t* d_out, std::uint64_t* d_bits, ScratchCarver& scratch, cudaStream_t stream,
                 std::uint64_t* d_index, unsigned symbols_per_thread);

}  // namespace parcomp::vle::detail
