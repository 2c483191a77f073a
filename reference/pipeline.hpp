// The CPU reference pipeline, from the serial stages, for both configurations:
//   paper  rotation BWT per block, MTF per block, the Huffman stage's code rule and 4096-symbol
//          byte-aligned arrays: bit-identical to what the GPU writes for `paper`;
//   fast   rotation BWT with start rows every 1024 rotations, MTF, the zero-run stage
//          (reference/zrle.hpp), the multi-table code (reference/multi_huffman.hpp) and one
//          MSB-first stream per block; the GPU's fast container is the same wherever the BWT's
//          rows are unique (blocks without equal rotations).
// and a decompressor for both. CI tests the format and round trips with it, without a GPU.
#pragma once

#include "core/container.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

// Blocks of block_bytes (1 .. 2^24), on up to `threads` CPU threads (0 = all).
std::vector<std::uint8_t> pipeline_compress(std::span<const std::uint8_t> in, std::size_t block_bytes,
                                            unsigned threads = 0, pipeline::Config config = pipeline::Config::paper);
// Either configuration; a damaged container is a CorruptDataError naming the header, the index or
// the block (checked sizes, code lengths, decoding, and each block's CRC-32).
std::vector<std::uint8_t> pipeline_decompress(std::span<const std::uint8_t> file, unsigned threads = 0);

}  // namespace parcomp::reference
