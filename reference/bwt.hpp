// Burrows-Wheeler transform of rotations (bzip2's and the thesis's definition) and its inverse.
//
// Forward: the n cyclic rotations of a block sorted; L[i] is the last byte of the i-th rotation
// and `primary` the row of the rotation that starts at 0 (the block itself). Mapping suffix sorting
// to rotation sorting: the rotations of T are the length-n prefixes of the suffixes of TT that
// start below n, so libdivsufsort's suffix array of TT (2n bytes), filtered to starts < n, is a
// rotation order. Equal rotations (periodic blocks) tie; any order of them gives the same L.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

struct RotationBwt {
  std::vector<std::uint8_t> last;      // L
  std::uint32_t primary = 0;           // row of rotation 0
  std::vector<std::uint32_t> samples;  // rows of rotations 0, S, 2S, ... (when asked for)
};

// One block (1 <= size < 2^30); sample_stride S > 0 also records the rows of every S-th rotation
// (the start points of the GPU's fast reverse transform).
RotationBwt bwt_rotations(std::span<const std::uint8_t> block, std::size_t sample_stride = 0);
// Serial inverse by LF mapping (as bzip2), from `primary`: cpu.serial of the reverse BWT.
std::vector<std::uint8_t> inverse_bwt(std::span<const std::uint8_t> last, std::uint32_t primary);

// Every block of an input (blocks of block_bytes, the last shorter), on up to `threads` CPU threads
// (0 = all): L concatenated, one primary index per block, and the sampled rows with
// ceil(block_bytes / sample_stride) slots per block (block b's at b * slots; unused ones
// 0xFFFFFFFF) -- the layout of kernels/bwt. inverse_bwt_blocks is the serial inverse (cpu.serial).
struct RotationBlocks {
  std::vector<std::uint8_t> last;
  std::vector<std::uint32_t> primary, samples;
  std::size_t block_bytes = 0, sample_stride = 0;
};
RotationBlocks bwt_rotation_blocks(std::span<const std::uint8_t> in, std::size_t block_bytes, std::size_t sample_stride,
                                   unsigned threads = 0);
std::vector<std::uint8_t> inverse_bwt_blocks(const RotationBlocks& t);

// Tie analysis (thesis Fig. 4.3): for each pair of rotations adjacent in sorted order, their
// longest common prefix in bytes, capped at the block length. Histogram by bucket:
// 0-3 bytes (decided by a 4-byte key), 4-7, 8-15, 16-31, ... doubling, the last bucket open.
inline constexpr int kTieBuckets = 16;
struct TieHistogram {
  std::uint64_t pairs = 0;
  std::uint64_t buckets[kTieBuckets] = {};
  std::uint64_t max_tie = 0;
  double sum_tie = 0;
  void add(const TieHistogram& o);
};
int tie_bucket(std::uint64_t tie);  // index into buckets
TieHistogram rotation_ties(std::span<const std::uint8_t> block);
// Over a whole input in blocks of block_bytes, on up to `threads` CPU threads (0 = all).
TieHistogram rotation_ties_blocks(std::span<const std::uint8_t> in, std::size_t block_bytes, unsigned threads = 0);

}  // namespace parcomp::reference
