// Serial variable-length encoder and decoder over a codeword table (Balevic's CPU baseline, and
// the round-trip oracle). Codewords are written MSB-first into 32-bit words, as the paper's
// Fig. 2/3: bit p of the stream is bit (31 - p % 32) of word p / 32. Unused tail bits are zero.
#pragma once

#include "huffman.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

struct VleStream {
  std::vector<std::uint32_t> words;
  std::uint64_t bits = 0;
};

// Throws std::invalid_argument on a symbol without a codeword.
VleStream vle_encode(std::span<const std::uint8_t> in, const CodeTable& table);
// The serial CPU baseline the benchmarks time (Balevic's "serial encoder"): one pass over the
// input, codewords through a 64-bit accumulator straight into `out`, allocated and zeroed by the
// caller beforehand (at least ceil(bits / 32) words); returns the bit count. The same stream as
// vle_encode, which stays the simple oracle (a length pass, then the words). No checks in the
// loop: every symbol of `in` must have a codeword, as the GPU encoders require too.
std::uint64_t vle_encode_into(std::span<const std::uint8_t> in, const CodeTable& table, std::span<std::uint32_t> out);
// The same stream without vle_encode_into's branch on a full word (ours): its speed does not
// depend on how often words fill (at middle entropies the branch is mispredicted most); two stores
// a codeword instead.
std::uint64_t vle_encode_into_branchless(std::span<const std::uint8_t> in, const CodeTable& table, std::span<std::uint32_t> out);

// Decodes `symbols` symbols of a stream written with a canonical table (canonical_codes()).
// Throws std::invalid_argument on a stream that ends early or holds an unused code.
std::vector<std::uint8_t> vle_decode(const VleStream& stream, std::size_t symbols, const CodeTable& table);

// Several tables: symbol i is coded with tables[selectors[i / group]] (bzip2's scheme; see
// multi_huffman.hpp). A missing or out-of-range selector is std::invalid_argument.
VleStream vle_encode(std::span<const std::uint8_t> in, std::span<const CodeTable> tables,
                     std::span<const std::uint8_t> selectors, std::size_t group);
std::vector<std::uint8_t> vle_decode(const VleStream& stream, std::size_t symbols, std::span<const CodeTable> tables,
                                     std::span<const std::uint8_t> selectors, std::size_t group);

}  // namespace parcomp::reference
