// Between the PAVLE translation units: the fast encoder's entry points (vle_fast.cu), called by
// vle::encode (vle.cu).
#pragma once

#include "../common/scratch.hpp"
#include "vle.hpp"

namespace parcomp::vle::detail {

// `count` slots of `capacity` symbols (one plain stream: 1, n).
std::size_t fast_scratch_bytes(std::size_t count, std::size_t capacity);
// n: the symbols of a single segment (g.d_sizes == nullptr).
void encode_fast(const Segments& g, const std::uint8_t* d_in, const std::uint32_t* d_table, int max_length,
                 std::uint32_t* d_out, std::uint64_t* d_bits, ScratchCarver& scratch, cudaStream_t stream,
                 std::uint64_t* d_index, unsigned symbols_per_thread, std::size_t n);

}  // namespace parcomp::vle::detail
