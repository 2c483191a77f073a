// .bz2 blocks decoded on the GPU (ours; the thesis's future work 1), a batch at once: every
// block's symbols (its header, tables, selectors, Huffman codes, inverse MTF and zero runs) and its
// inverse BWT from origPtr alone. The lines that do the work are core/bz2_block.hpp's,
// the ones the CPU reader runs:
//   huff      one thread per block reads its header and tables and walks its Huffman codes (a
//             serial chain of variable-length codes), each code's length only, to the start of
//             every group of 50 symbols; every group then decodes its symbols at once, and chunks
//             of 1024 symbols turn them into MTF items, zero runs as their lengths (a scan of the
//             chunks' counts places them). A block that meets damage on the way is decoded by
//             decode_items on its one thread, so that its verdict is the CPU reader's;
//   mtf       the inverse MTF in chunks of 1024 items at once, each from a list of its own (in
//             shared memory on the GPU, a thread's list in its own bank); a CTA
//             per block chains the chunks' lists, a thread per list place, then every byte finds
//             its value;
//   link      the rows' links (a stable counting sort of the block's bytes: each row's next row)
//             in chunks of 4096 bytes at once, a warp each: counts, one thread per byte value of a
//             block for the offsets, and the scatter (on the host, a chunk on one thread);
//   pack      every row at once: tt = next row << 8 | the row's byte (bzip2's tt).
//   rulers    the chain of rows is ranked with rulers (bz2_block.hpp): every K-th row walks to
//             the next ruler at once (one thread per ruler, keeping the bytes it passes on the
//             GPU), a CTA per block ranks the rulers by pointer jumping (one thread on the host),
//             every ruler writes its stretch (a warp each on the GPU, from the kept bytes), and a
//             periodic block's first cycle is repeated.
// What stays on the host: finding the block magics, the inverse of the initial run-length stage
// and the CRCs (bz2::finish_block), on every host thread.
#pragma once

#include "core/bz2_block.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace parcomp::bz2gpu {

// One block of a batch: the device bytes that hold it (any window of the input around it) and the
// bit of its magic in them. The kWindowPad device bytes after each window must be readable (their
// values do not matter): the walk loads words ahead without a bounds test, and a block whose codes
// run past its window's end goes to the serial decoder, which reads zeros there.
inline constexpr std::size_t kWindowPad = 512;
struct BatchBlock {
  const std::uint8_t* window = nullptr;
  std::uint64_t window_bytes = 0;
  std::uint64_t bit = 0;
};

std::size_t decode_scratch_bytes(std::size_t count, std::uint32_t limit);

// The walk to each group's start (group_starts_kernel, a CTA a block, thread 0 walking): its
// lookup's bits (12 or 11: 96 or 48 KiB of shared memory a CTA, 6 tables) and the CTA's threads
// (256 or 64: they fill the lookup). The defaults are the measured ones; the others are for
// bz2.decompress/gpu.kernels.w<bits>t<threads>. The bits decoded are the same for each.
struct WalkConfig {
  int bits = 12;
  unsigned threads = 256;
};

// Decodes blocks[0..count) (device memory), each of at most `limit` bytes (bz2::block_limit of the
// level): info[b] the block's header fields or its damage (bz2::BlockSymbols; error none when
// decoded), out[b * limit ...) its info[b].nblock bytes after the inverse BWT (before the inverse
// initial run-length stage). Asynchronous on `stream`; every launch is checked.
void decode_batch(const BatchBlock* blocks, std::size_t count, std::uint32_t limit, bz2::BlockSymbols* info, std::uint8_t* out,
                  void* scratch, std::size_t scratch_bytes, cudaStream_t stream, WalkConfig walk = {});

// The same steps on the host, one element after the other (host pointers): the CPU tests' check
// of the batch's layout and order (tests/cpu/test_bz2_gpu_steps.cpp).
void decode_batch_host(const BatchBlock* blocks, std::size_t count, std::uint32_t limit, bz2::BlockSymbols* info, std::uint8_t* out,
                       void* scratch, std::size_t scratch_bytes, WalkConfig walk = {});

}  // namespace parcomp::bz2gpu
