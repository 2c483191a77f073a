// .bz2 blocks written on the GPU (ours), a batch at once: each block's MTF, zero runs,
// bzip2's table choice (groups of 50, four rounds), code lengths, selectors and codes, from its BWT
// (bwt::forward_segments leaves the last columns and origPtrs on the device). The lines are
// core/bz2_encode.hpp's, the CPU workers' own, so the blocks are bzip2's bits. A CTA per
// block (bz2_encode.cu says how its threads share the MTF, the tables and the codes); the host
// packs the blocks into the stream (bz2::StreamWriter).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace parcomp::bz2gpu {

std::size_t encode_scratch_bytes(std::size_t count);
// Bytes per block in `out` for blocks of at most max_block bytes.
std::size_t encode_stride(std::size_t max_block);
// The local memory the driver sets aside on the current device for encode_batch's kernels at their
// first launch (their local bytes per thread, for every thread the device can hold at once): device
// memory that no allocation counts, and that a launch fails for when it is not free.
std::size_t encode_local_bytes();

// Block b is last[offsets[b] .. offsets[b + 1]) (at most 900000 bytes) with primary[b] and crc[b]
// (the CRC of its input before the initial run-length stage); its bits go to out[b * stride ...)
// from bit 0, their count to bits[b] (0: a block of no bytes or too many). All pointers device
// memory; asynchronous on `stream`; every launch checked. `threads`: a block's CTA, 128, 256 or
// 512 (0: kEncodeThreadsDefault); the bits are the same for each.
// 512 is the fastest measured (docs/defaults.md).
inline constexpr unsigned kEncodeThreadsDefault = 512;
void encode_batch(const std::uint8_t* last, const std::uint64_t* offsets, const std::uint32_t* primary, const std::uint32_t* crc,
                  std::size_t count, std::uint8_t* out, std::size_t stride, std::uint64_t* bits, void* scratch, std::size_t scratch_bytes,
                  cudaStream_t stream, unsigned threads = 0);
// The same on the host (host pointers), one block after the other: for the CPU tests.
void encode_batch_host(const std::uint8_t* last, const std::uint64_t* offsets, const std::uint32_t* primary, const std::uint32_t* crc,
                       std::size_t count, std::uint8_t* out, std::size_t stride, std::uint64_t* bits, void* scratch, std::size_t scratch_bytes);

}  // namespace parcomp::bz2gpu
