// Huffman code construction shared by PAVLE (kernels/vle) and the pipeline's Huffman stage
// (kernels/huffman): byte histogram, optimal length-limited code lengths (package-merge), and the
// canonical codeword table. One implementation of each idea.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace parcomp::reference {

using Histogram = std::array<std::uint64_t, 256>;

Histogram byte_histogram(std::span<const std::uint8_t> bytes);

// Optimal prefix-code lengths for the symbols with nonzero frequency, no length above max_length
// (package-merge). Unused symbols get length 0. One used symbol gets length 1. Throws
// std::invalid_argument when max_length cannot hold the used symbols (2^max_length < used) or is
// outside 1..32.
std::array<std::uint8_t, 256> code_lengths(const Histogram& freq, int max_length);

// Plain (unlimited) Huffman code lengths, for checking: same total cost as code_lengths() when
// the limit does not bind.
std::array<std::uint8_t, 256> huffman_lengths_unlimited(const Histogram& freq);

struct Codeword {
  std::uint32_t bits = 0;  // the code, right-aligned: the first bit sent is bit (length - 1)
  std::uint8_t length = 0; // 0 = symbol unused
};
using CodeTable = std::array<Codeword, 256>;

// Canonical codes for the lengths: shorter codes first, equal lengths by symbol value.
CodeTable canonical_codes(const std::array<std::uint8_t, 256>& lengths);

// Sum over used symbols of 2^-length, as an exact fraction numerator over 2^32.
std::uint64_t kraft_sum_scaled(const std::array<std::uint8_t, 256>& lengths);

// Frequencies 1, 1, 2, 3, 5, ... on symbols 0..symbols-1: the deepest possible Huffman tree, so
// that a length limit binds (adversarial input for tests and benchmarks). symbols <= 90.
Histogram fibonacci_histogram(int symbols);

// Total encoded bits of a histogram under a code.
std::uint64_t encoded_bits(const Histogram& freq, const std::array<std::uint8_t, 256>& lengths);

}  // namespace parcomp::reference
