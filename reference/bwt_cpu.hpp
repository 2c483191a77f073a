// Forward BWT of a byte string in independent blocks on the CPU, with libdivsufsort's divbwt
// (the library a CPU user would pick). Used to feed later stages (MTF sees BWT output) until the
// GPU BWT exists. divbwt sorts suffixes with an implicit end marker; each block's output has the
// block's length and a primary index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

struct BwtBlocks {
  std::vector<std::uint8_t> bytes;       // the blocks' transforms, concatenated
  std::vector<std::int32_t> primary;     // one primary index per block
  std::size_t block_bytes = 0;
};

// Blocks of block_bytes (the last may be shorter), transformed on up to `threads` CPU threads
// (0 = all hardware threads).
BwtBlocks bwt_blocks_divsufsort(std::span<const std::uint8_t> in, std::size_t block_bytes, unsigned threads = 0);

}  // namespace parcomp::reference
