// The tests' one-core .bz2 writer: the codec's block writer and stream (codec/bz2.hpp) over the
// oracle's BWT (reference::bwt_rotations), block by block as bzip2's program cuts them; a test
// helper, not an oracle (the .bz2 oracle is libbz2), kept out of reference/ for that reason. Its bytes are
// `bzip2 -<level>`'s; a periodic block (equal rotations) may differ in origPtr alone, which any
// bzip2 decoder reads back to the same bytes. The reader's oracle is libbz2 itself.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::testing {

// random_numbers (bzip2's 512-entry table, for tests: libbz2's BZ2_rNums): each block randomised
// as bzip2 0.9.0 and older could write it (the initial run-length stage's bytes get their lowest
// bit flipped where the table's countdown reaches 1, libbz2's rule) and marked so; libbz2 reads
// such files back. Null: bzip2 1.0.8's blocks.
std::vector<std::uint8_t> bz2_compress(std::span<const std::uint8_t> in, int level, const int* random_numbers = nullptr);

}  // namespace parcomp::testing
