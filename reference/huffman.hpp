// The Huffman oracles: the thesis's block layout (encode and decode) and adversarial histograms.
// The code rules themselves (histogram, tree, package-merge, canonical codes) are the formats'
// (core/codes.hpp), shared with the kernels; they are re-exported here under the oracles'
// names.
#pragma once

#include "core/codes.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

// The format's code rules (core/codes.hpp), under the oracles' names.
using codes::byte_histogram;
using codes::canonical_codes;
using codes::code_lengths;
using codes::CodeTable;
using codes::Codeword;
using codes::encoded_bits;
using codes::Histogram;
using codes::huffman_code_lengths;
using codes::huffman_lengths_unlimited;
using codes::kraft_sum_scaled;

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


}  // namespace parcomp::reference
