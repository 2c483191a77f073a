// Skewed test blocks for the multi-table code: one table's Huffman tree is deeper than
// reference::kMultiMaxLength bits, so that its counts must be halved (the tree kernel's halving
// loop, whose exit test once raced). A chain of symbols 0..K-1 with Fibonacci counts from 5 (5, 8, 13, ...: the
// floor of 1 that every used symbol gets in every table would break a chain that starts at 1),
// its last count rounded up to end on a 64-symbol group boundary, holds exactly a sixth of the
// block, so bzip2's starting partition gives the chain a table of its own; five other symbols
// hold the rest, a sixth each. K = 15 gives 66 K symbols, 17 gives 172 K.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>
#include <algorithm>

namespace parcomp::testing {

inline std::vector<std::uint8_t> deep_chain_block(int chain_symbols, std::mt19937_64& rng) {
  std::vector<std::uint8_t> chain(static_cast<std::size_t>(chain_symbols));
  for (int k = 0; k < chain_symbols; ++k) chain[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(k);
  std::shuffle(chain.begin(), chain.end(), rng);
  std::vector<std::uint8_t> x;
  std::uint64_t f0 = 5, f1 = 8, chain_sum = 0;
  for (std::size_t k = 0; k < chain.size(); ++k) {
    const std::uint64_t count = f0 + (k + 1 == chain.size() ? (64 - (chain_sum + f0) % 64) % 64 : 0);
    x.insert(x.end(), count, chain[k]);
    chain_sum += count;
    f0 = std::exchange(f1, f0 + f1);
  }
  std::shuffle(x.begin(), x.end(), rng);
  for (int j = 0; j < 5; ++j)
    x.insert(x.end(), chain_sum,
             static_cast<std::uint8_t>(chain_symbols + 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(254 - chain_symbols))));
  return x;
}

}  // namespace parcomp::testing
