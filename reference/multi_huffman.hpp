// Serial CPU oracle for the pipeline's multi-table Huffman coding (fast configuration; ours, after
// bzip2's compressor, Seward 1996-2019; the thesis codes each block with one table):
//   - the block's symbols (zero-run stage output) are cut into groups of kGroupSymbols symbols;
//     each group is coded with one of T tables (T by bzip2's rule from the symbol count, at most 6),
//     its selector recorded;
//   - the tables are chosen as bzip2 does: start from T cost tables that split the alphabet into
//     T ranges of about equal frequency (cost 0 inside the range, 15 outside); then
//     kTableIterations times: give each group the table of least total cost (ties to the lower
//     table), count each table's symbols over its groups, and rebuild each table as a Huffman code
//     of those counts in which every symbol the block uses has at least count 1 (so any group may
//     take any table);
//   - a code deeper than kMultiMaxLength bits is rebuilt from halved counts (c -> 1 + c / 2) until
//     it fits (bzip2's rule; the Huffman tree itself is huffman_lengths_unlimited's).
// bzip2 groups 50 symbols; 64 keeps groups aligned with the GPU encoder's 32-symbol threads and
// the decoder's 1024-symbol index. The GPU kernels (kernels/huffman/multi.cu) follow these steps
// exactly, so their lengths and selectors are bit-identical.
#pragma once

#include "core/stages.hpp"
#include "huffman.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

using stages::kCheapCost;
using stages::kDearCost;
using stages::kGroupSymbols;
using stages::kMaxTables;
using stages::kMultiMaxLength;
using stages::kTableIterations;
using stages::multi_groups;
using stages::multi_table_count;

using Lengths = std::array<std::uint8_t, 256>;


// bzip2's rules for the tables (core/stages.hpp): the halving of deep codes and the
// starting cost tables.
using stages::huffman_lengths_rescaled;
using stages::multi_initial_costs;

struct MultiCode {
  std::vector<Lengths> lengths;         // one per table
  std::vector<std::uint8_t> selectors;  // one per group
  int halvings = 0;                     // halvings over all rounds and tables (for tests)
};
MultiCode multi_choose(std::span<const std::uint8_t> symbols);

// Bits of `symbols` under the code (for checks and estimates).
std::uint64_t multi_encoded_bits(std::span<const std::uint8_t> symbols, const MultiCode& code);

}  // namespace parcomp::reference
