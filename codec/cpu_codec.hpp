// The CPU codec: the pipeline's two configurations on the host's cores, written for speed and
// bit-identical to the GPU and to the serial oracle (reference/pipeline.hpp) block for block.
//
// Per block (one thread each, the workspace reused from block to block):
//   forward BWT   a suffix sort over the block rotated to its least rotation: for a primitive
//                 block that rotation is a Lyndon word, whose rotations sort as its suffixes do,
//                 so one suffix sort of n bytes replaces the oracle's sort of the doubled block
//                 (2n); periodic blocks (equal rotations) take the oracle's way, so equal rotations
//                 are ordered as the oracle and the GPU order them; the sort is libdivsufsort's,
//                 or for a block with threads to itself parallel_suffix_sort below;
//   MTF           search and shift in one pass (bzip2's);
//   zero runs, multi-table code (fast), one table (paper): as the oracles, in preallocated buffers;
//                 the tables' group costs packed four 16-bit lanes to a 64-bit word;
//   coding        a 64-bit bit accumulator;
// and back:
//   decoding      a 12-bit lookup table per code table, longer codes by the canonical search;
//   reverse MTF   one pass;
//   reverse BWT   bzip2's packed array (next row << 8 | byte), walked from every start row of the
//                 fast payload at once (eight independent walks in flight), from the primary row
//                 alone for the paper payload.
// Damage is a CorruptDataError naming the block, as the oracle reports it.
#pragma once

#include "bz2.hpp"
#include "core/container.hpp"

#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <vector>

namespace parcomp::cpu {

// A thread's working memory for one block at a time (grows to the largest block it saw).
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  struct Buffers;
  Buffers& buffers() { return *b_; }

 private:
  std::unique_ptr<Buffers> b_;
};

// One block: its index entry (original size, primary, CRC-32; the paper code lengths) and its
// payload, as pipeline::assemble takes them. `threads` > 1: the sort on that many
// (parallel_suffix_sort below), for a block that has several of the host's threads to itself.
void compress_block(pipeline::Config config, std::span<const std::uint8_t> block, pipeline::BlockEntry& entry,
                    std::vector<std::uint8_t>& payload, Workspace& ws, unsigned threads = 1);
// One block back into `out` (entry.original_bytes bytes), its CRC-32 checked. `index` names the
// block in errors.
void decompress_block(pipeline::Config config, const pipeline::BlockEntry& entry, std::span<const std::uint8_t> payload,
                      std::size_t index, std::span<std::uint8_t> out, Workspace& ws);

// The start of t's least rotation (Duval's algorithm) and, in `period`, t's smallest period: n for
// a primitive block (no two rotations equal), a proper divisor of n for a power of a shorter
// string. The forward BWT's choice between one suffix sort and the oracle's way.
std::size_t least_rotation(std::span<const std::uint8_t> t, std::size_t& period);

// The suffix array of `text` on `threads` threads (for_each_block's pool): buckets by the first two
// bytes, each bucket sorted by the next eight and, where those tie, by the rest compared, the
// buckets spread over the threads. The suffix array is unique, so it is libdivsufsort's. False,
// leaving sa undefined, where it does not pay: fewer than two threads, a bucket of a quarter of the
// text, or suffixes sharing such long prefixes that the comparisons would pass a budget that grows
// with the threads (13 t - 20 eight-byte steps per byte of text on t threads): repetitive blocks,
// which libdivsufsort sorts faster on one thread. A sample of the buckets, sorted first, foretells
// it, so that a declined block costs about a tenth of libdivsufsort's time, not the budget; on up
// to 8 threads a smaller probe before the buckets are counted (a fiftieth or less).
// (Larsson and Sadakane's doubling on the tied groups, tried instead of the comparisons, was 2-3
// times slower on text.)
bool parallel_suffix_sort(std::span<const std::uint8_t> text, std::int32_t* sa, unsigned threads);

// .bz2 (codec/bz2.hpp): one block's input, as bz2::cut_block cuts it, into the block's bits: the
// initial run-length stage, the forward BWT above, bzip2's entropy stages (bz2::encode_block).
// `threads` > 1: the sort on that many threads (parallel_suffix_sort, libdivsufsort where it
// declines), and from 4 threads on the encoder's MTF stage and table choices too
// (bz2::encode_block), for a block that has several of the host's threads to itself.
// row_later (optional): a block of equal rotations whose bzip2 row another thread is asking libbz2
// for is written with the sort's row, not waited for; *row_later then holds bzip2's row to come,
// for bz2::set_orig_ptr before the block is written out.
void bz2_compress_block(std::span<const std::uint8_t> input, bz2::BlockBits& out, Workspace& ws, unsigned threads = 1,
                        std::shared_future<std::uint32_t>* row_later = nullptr);
// The .bz2 block whose magic starts at bit `bit` of `in`, appended to `out` (or written over a
// recycled `out` from its start: overwrite, as bz2::decode_block; compact_over as there).
bz2::BlockResult bz2_decompress_block(std::span<const std::uint8_t> in, std::uint64_t bit, int level, std::vector<std::uint8_t>& out,
                                      Workspace& ws, const bz2::Where& where, bool input_ends_here = true, bool overwrite = false,
                                      std::size_t compact_over = 0);

// Whole version-2 containers on `threads` threads (0: all hardware threads).
std::vector<std::uint8_t> compress(pipeline::Config config, std::span<const std::uint8_t> in, std::size_t block_bytes,
                                   unsigned threads = 0);
std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> file, unsigned threads = 0);

}  // namespace parcomp::cpu
