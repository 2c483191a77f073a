// Serial CPU oracle for run-length encoding (the PARLE blog's rleCpu) and decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

// The blog's serial RLE: writes runs into symbols_out/counts_out (capacity in.size() each) and
// returns the run count. Empty input gives 0 runs.
std::size_t rle_encode(std::span<const std::int32_t> in, std::span<std::int32_t> symbols_out,
                       std::span<std::int32_t> counts_out);

struct RlePairs {
  std::vector<std::int32_t> symbols;
  std::vector<std::int32_t> counts;
};
RlePairs rle_encode(std::span<const std::int32_t> in);

// Expands runs into out (capacity sum(counts)); returns the number of elements written.
// Throws std::invalid_argument on a count < 1 or a total larger than out.
std::size_t rle_decode(std::span<const std::int32_t> symbols, std::span<const std::int32_t> counts,
                       std::span<std::int32_t> out);
std::vector<std::int32_t> rle_decode(std::span<const std::int32_t> symbols, std::span<const std::int32_t> counts);

}  // namespace parcomp::reference
