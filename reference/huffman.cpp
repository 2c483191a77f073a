#include "huffman.hpp"
#include "vle.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

namespace parcomp::reference {

Histogram fibonacci_histogram(int symbols) {
  if (symbols < 0 || symbols > 90) throw std::invalid_argument("fibonacci_histogram: symbols must be in 0..90");
  Histogram h{};
  std::uint64_t a = 1, b = 1;
  for (int s = 0; s < symbols; ++s) {
    h[s] = a;
    const std::uint64_t c = a + b;
    a = b;
    b = c;
  }
  return h;
}



HuffmanBlocks huffman_blocks_encode(std::span<const std::uint8_t> in, const CodeTable& table,
                                    std::size_t symbols_per_block) {
  if (symbols_per_block == 0) throw std::invalid_argument("huffman_blocks_encode: symbols_per_block must be >= 1");
  HuffmanBlocks out;
  for (std::size_t first = 0; first < in.size(); first += symbols_per_block) {
    const std::size_t last = std::min(in.size(), first + symbols_per_block);
    std::uint64_t acc = 0;
    int pending = 0;
    const std::size_t start = out.bytes.size();
    for (std::size_t i = first; i < last; ++i) {
      const Codeword c = table[in[i]];
      if (c.length == 0) throw std::invalid_argument("huffman_blocks_encode: symbol " + std::to_string(in[i]) + " has no codeword");
      acc = (acc << c.length) | c.bits;
      pending += c.length;
      while (pending >= 8) {
        pending -= 8;
        out.bytes.push_back(static_cast<std::uint8_t>(acc >> pending));
      }
    }
    if (pending > 0) out.bytes.push_back(static_cast<std::uint8_t>(acc << (8 - pending)));
    out.block_bytes.push_back(static_cast<std::uint32_t>(out.bytes.size() - start));
  }
  return out;
}

std::vector<std::uint8_t> huffman_blocks_decode(const HuffmanBlocks& blocks, std::size_t symbols,
                                                std::size_t symbols_per_block, const CodeTable& table) {
  if (symbols_per_block == 0) throw std::invalid_argument("huffman_blocks_decode: symbols_per_block must be >= 1");
  const std::size_t count = (symbols + symbols_per_block - 1) / symbols_per_block;
  if (blocks.block_bytes.size() != count) throw std::invalid_argument("huffman_blocks_decode: wrong number of blocks");
  std::vector<std::uint8_t> out;
  out.reserve(symbols);
  std::size_t offset = 0;
  for (std::size_t b = 0; b < count; ++b) {
    const std::size_t size = blocks.block_bytes[b];
    if (offset + size > blocks.bytes.size()) throw std::invalid_argument("huffman_blocks_decode: block " + std::to_string(b) + " runs past the data");
    VleStream block;
    block.bits = 8 * size;
    block.words.assign((size + 3) / 4, 0);
    for (std::size_t i = 0; i < size; ++i)
      block.words[i / 4] |= static_cast<std::uint32_t>(blocks.bytes[offset + i]) << (24 - 8 * (i % 4));
    const std::size_t n = std::min(symbols_per_block, symbols - b * symbols_per_block);
    const auto decoded = vle_decode(block, n, table);
    std::uint64_t used = 0;
    for (const std::uint8_t c : decoded) used += table[c].length;
    if ((used + 7) / 8 != size) throw std::invalid_argument("huffman_blocks_decode: block " + std::to_string(b) + " has the wrong size");
    out.insert(out.end(), decoded.begin(), decoded.end());
    offset += size;
  }
  return out;
}

}  // namespace parcomp::reference
