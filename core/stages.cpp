// The fast configuration's table rules (bzip2's). See stages.hpp.
#include "stages.hpp"

#include <algorithm>

namespace parcomp::stages {

codes::Lengths huffman_lengths_rescaled(codes::Histogram freq, int max_length, int* halvings) {
  for (;;) {
    const codes::Lengths l = codes::huffman_lengths_unlimited(freq);
    if (*std::max_element(l.begin(), l.end()) <= max_length) return l;
    if (halvings != nullptr) ++*halvings;
    for (auto& f : freq)
      if (f != 0) f = 1 + f / 2;
  }
}

std::vector<codes::Lengths> multi_initial_costs(const codes::Histogram& hist, int tables) {
  std::vector<codes::Lengths> costs(static_cast<std::size_t>(tables));
  std::uint64_t remaining = 0;
  for (const auto f : hist) remaining += f;
  int lo = 0;
  for (int part = tables; part > 0; --part) {
    const std::uint64_t target = remaining / static_cast<std::uint64_t>(part);
    std::uint64_t got = 0;
    int hi = lo - 1;
    while (got < target && hi < 255) got += hist[static_cast<std::size_t>(++hi)];
    if (hi > lo && part != tables && part != 1 && (tables - part) % 2 == 1) got -= hist[static_cast<std::size_t>(hi--)];
    for (int c = 0; c < 256; ++c) costs[static_cast<std::size_t>(part - 1)][static_cast<std::size_t>(c)] = c >= lo && c <= hi ? kCheapCost : kDearCost;
    lo = hi + 1;
    remaining -= got;
  }
  return costs;
}

}  // namespace parcomp::stages
