// The code rules of parcomp's formats, one implementation each, shared by the GPU kernels
// (kernels/huffman, kernels/vle), the CPU codec (codec/) and the oracles (reference/): the byte
// histogram, optimal length-limited code lengths (package-merge), the Huffman tree with
// deterministic ties, the stage's code rule that combines them, and canonical codewords.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace parcomp::codes {

using Histogram = std::array<std::uint64_t, 256>;
using Lengths = std::array<std::uint8_t, 256>;

Histogram byte_histogram(std::span<const std::uint8_t> bytes);

// Optimal prefix-code lengths for the symbols with nonzero frequency, no length above max_length
// (package-merge). Unused symbols get length 0. One used symbol gets length 1. Throws
// std::invalid_argument when max_length cannot hold the used symbols (2^max_length < used) or is
// outside 1..32.
Lengths code_lengths(const Histogram& freq, int max_length);

// Plain (unlimited) Huffman code lengths: the two least frequent nodes merge, ties to the lower node
// number (leaves numbered by symbol, internal nodes in creation order). The GPU tree kernels
// follow this rule bit for bit.
Lengths huffman_lengths_unlimited(const Histogram& freq);

// The pipeline's code rule (thesis section 2.3, made deterministic): huffman_lengths_unlimited;
// if that tree is deeper than max_length, the optimal length-limited code (code_lengths) instead.
Lengths huffman_code_lengths(const Histogram& freq, int max_length);

struct Codeword {
  std::uint32_t bits = 0;  // the code, right-aligned: the first bit sent is bit (length - 1)
  std::uint8_t length = 0; // 0 = symbol unused
};
using CodeTable = std::array<Codeword, 256>;

// Canonical codes for the lengths: shorter codes first, equal lengths by symbol value.
CodeTable canonical_codes(const Lengths& lengths);

// Sum over used symbols of 2^-length, as an exact fraction numerator over 2^32.
std::uint64_t kraft_sum_scaled(const Lengths& lengths);

// Total encoded bits of a histogram under a code.
std::uint64_t encoded_bits(const Histogram& freq, const Lengths& lengths);

}  // namespace parcomp::codes
