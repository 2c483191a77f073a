// Huffman code construction shared by PAVLE (kernels/vle) and the pipeline's Huffman stage
// (kernels/huffman): byte histogram, optimal length-limited code lengths (package-merge), and the
// canonical codeword table. One implementation of each idea.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

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

// The pipeline's code rule (thesis section 2.3, made deterministic): the Huffman tree, merging
// the two least frequent nodes with ties to the lower node number (leaves numbered by symbol,
// internal nodes in creation order), as huffman_lengths_unlimited; if that tree is deeper than
// max_length, the optimal length-limited code (code_lengths) instead. The GPU tree kernels follow
// the same rule, so their codes are bit-identical.
std::array<std::uint8_t, 256> huffman_code_lengths(const Histogram& freq, int max_length);

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

// The thesis's Huffman encoding layout (section 2.3.3): the input cut into blocks of
// symbols_per_block symbols (4096), each block's codewords written MSB-first into its own
// byte-aligned bit array (zero padding at its end), the arrays concatenated; their sizes in bytes
// are recorded so that blocks decode independently.
struct HuffmanBlocks {
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint32_t> block_bytes;
};
HuffmanBlocks huffman_blocks_encode(std::span<const std::uint8_t> in, const CodeTable& table,
                                    std::size_t symbols_per_block);
// Throws std::invalid_argument on a damaged stream (a block that does not decode to exactly its
// symbols within exactly its bytes).
std::vector<std::uint8_t> huffman_blocks_decode(const HuffmanBlocks& blocks, std::size_t symbols,
                                                std::size_t symbols_per_block, const CodeTable& table);

// Total encoded bits of a histogram under a code.
std::uint64_t encoded_bits(const Histogram& freq, const std::array<std::uint8_t, 256>& lengths);

}  // namespace parcomp::reference
