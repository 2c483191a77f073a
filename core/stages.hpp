// The constants that define the fast configuration's entropy stages (ours, after bzip2), shared by
// the GPU kernels (kernels/zrle, kernels/huffman/multi.cu), the CPU codec and the oracles
// (reference/zrle.hpp, reference/multi_huffman.hpp, which describe the stages in full).
#pragma once

#include "codes.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace parcomp::stages {

// Zero-run stage: RUNA and RUNB digits for runs of MTF zeros, MTF values v + 1, and an escape
// before MTF values 254 and 255. A block of n bytes becomes at most 2n symbols.
inline constexpr std::uint8_t kRunA = 0, kRunB = 1, kZrleEscape = 255;
inline constexpr std::size_t zrle_max_symbols(std::size_t n) { return 2 * n; }

// Multi-table Huffman code: a table per kGroupSymbols symbols, at most kMaxTables tables chosen in
// kTableIterations rounds from bzip2's starting costs, codes of at most kMultiMaxLength bits.
inline constexpr std::size_t kGroupSymbols = 64;
inline constexpr int kMaxTables = 6, kTableIterations = 4, kMultiMaxLength = 16;
inline constexpr std::uint8_t kCheapCost = 0, kDearCost = 15;  // bzip2's LESSER_ICOST / GREATER_ICOST

// bzip2's table count for a block of `symbols` symbols: 2 below 200, 3 below 600, 4 below 1200,
// 5 below 2400, else 6.
inline constexpr int multi_table_count(std::size_t symbols) {
  return symbols < 200 ? 2 : symbols < 600 ? 3 : symbols < 1200 ? 4 : symbols < 2400 ? 5 : 6;
}
inline constexpr std::size_t multi_groups(std::size_t symbols) { return (symbols + kGroupSymbols - 1) / kGroupSymbols; }

// codes::huffman_lengths_unlimited, with counts halved (c -> 1 + c / 2, zero stays zero) until
// no length exceeds max_length (bzip2's rule); `halvings` (optional) is increased by the number
// of halvings.
codes::Lengths huffman_lengths_rescaled(codes::Histogram freq, int max_length, int* halvings = nullptr);

// bzip2's starting cost tables for a block histogram: `tables` tables that split the alphabet into
// ranges of about equal frequency, cost kCheapCost inside the range and kDearCost outside; table
// T-1 is cheap on the least symbols, ..., table 0 on the greatest.
std::vector<codes::Lengths> multi_initial_costs(const codes::Histogram& hist, int tables);

}  // namespace parcomp::stages
