#include "multi_huffman.hpp"

#include <algorithm>
#include <stdexcept>

namespace parcomp::reference {

MultiCode multi_choose(std::span<const std::uint8_t> symbols) {
  const Histogram hist = byte_histogram(symbols);
  const int tables = multi_table_count(symbols.size());
  const std::size_t groups = multi_groups(symbols.size());
  MultiCode code;
  code.lengths = multi_initial_costs(hist, tables);
  code.selectors.assign(groups, 0);
  for (int it = 0; it < kTableIterations; ++it) {
    std::vector<Histogram> counts(static_cast<std::size_t>(tables), Histogram{});
    for (std::size_t g = 0; g < groups; ++g) {
      const auto group = symbols.subspan(g * kGroupSymbols, std::min(kGroupSymbols, symbols.size() - g * kGroupSymbols));
      std::uint32_t best = ~0u;
      int pick = 0;
      for (int t = 0; t < tables; ++t) {
        std::uint32_t cost = 0;
        for (const std::uint8_t s : group) cost += code.lengths[static_cast<std::size_t>(t)][s];
        if (cost < best) best = cost, pick = t;
      }
      code.selectors[g] = static_cast<std::uint8_t>(pick);
      for (const std::uint8_t s : group) ++counts[static_cast<std::size_t>(pick)][s];
    }
    for (int t = 0; t < tables; ++t) {
      Histogram h = counts[static_cast<std::size_t>(t)];
      for (int c = 0; c < 256; ++c)
        if (hist[static_cast<std::size_t>(c)] != 0 && h[static_cast<std::size_t>(c)] == 0) h[static_cast<std::size_t>(c)] = 1;
      code.lengths[static_cast<std::size_t>(t)] = huffman_lengths_rescaled(h, kMultiMaxLength, &code.halvings);
    }
  }
  return code;
}

std::uint64_t multi_encoded_bits(std::span<const std::uint8_t> symbols, const MultiCode& code) {
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < symbols.size(); ++i) bits += code.lengths[code.selectors[i / kGroupSymbols]][symbols[i]];
  return bits;
}

}  // namespace parcomp::reference
