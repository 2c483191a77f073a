// The one-core .bz2 writer: bzip2's stream (codec/bz2.hpp) with the oracle's BWT
// (reference::bwt_rotations), block by block as bzip2's program cuts them. Its bytes are
// `bzip2 -<level>`'s; a periodic block (equal rotations) may differ in origPtr alone, which any
// bzip2 decoder reads back to the same bytes. The reader's oracle is libbz2 itself.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

std::vector<std::uint8_t> bz2_compress(std::span<const std::uint8_t> in, int level);

}  // namespace parcomp::reference
