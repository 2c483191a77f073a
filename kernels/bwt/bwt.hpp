// Burrows-Wheeler transform of rotations in blocks, and its reverse, on the GPU (Patel et al.,
// thesis sections 2.1 and 3.3). Same definition as the serial oracle (reference/bwt.hpp): each
// block's cyclic rotations sorted, L = last byte of each sorted rotation, primary = row of the
// rotation starting at 0; equal rotations (periodic blocks) in descending start order, so the
// primary index matches the oracle's bit for bit. The input is cut into blocks of block_bytes
// (the last one shorter); block b covers [b * block_bytes, min(n, (b + 1) * block_bytes)).
//
// Forward variants:
//   paper  the thesis's rotation sort, one block after the other: a merge sort (CUB's
//          DeviceMergeSort: per-thread sort, block merges in shared memory, global merges by
//          merge path -- the structure of the thesis's sort) of 64-bit keys holding the first 4
//          bytes of a rotation and its start; ties on those 4 bytes are broken by reading the next
//          4 bytes from global memory, again and again, until the rotations differ.
//   fast   ours: prefix doubling over all blocks of the input at once with CUB radix sorts. The
//          first sort takes the block number and as many leading bytes as fit 64 bits; each
//          further round sorts only the rotations whose group is still tied, by (rank of the
//          group, rank of the rotation h bytes on), doubling h; rotations still tied once h covers
//          the block are equal and ordered by descending start.
// Reverse variants:
//   paper  the thesis's Alg. 7 and 8, one block after the other: a key-value radix sort of L
//          (keys) and 0..n-1 gives F and the next pointers V1; pointer doubling with
//          `total_threads` threads (the number of active threads doubles per step) until all are
//          active, then each thread walks with the total_threads-ahead pointers.
//   fast   ours: all blocks at once. A stable counting sort of each block's L (chunk histograms,
//          a scan, ranks within a chunk by warp match) writes one 32-bit word per row, the next
//          row and the byte it yields; then one thread per kSampleStride output bytes walks from a
//          sampled start row recorded by the forward transform (rows of rotations 0, S, 2S, ...).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace parcomp::bwt {

enum class Variant { paper, fast };
std::string name(Variant v);  // "gpu.paper", "gpu.fast"

inline constexpr std::size_t kDefaultBlockBytes = std::size_t{1} << 20;
// Output bytes per start point of the fast reverse transform (samples per block: ceil(len / S)).
inline constexpr std::size_t kSampleStride = 1024;
// Largest block: block-local rows and starts are 32-bit; the fast reverse packs a row in 24 bits.
inline constexpr std::size_t kMaxBlockBytes = std::size_t{1} << 24;

inline std::size_t block_count(std::size_t n, std::size_t block_bytes) { return (n + block_bytes - 1) / block_bytes; }
// Sample entries for the whole input: per block ceil(len / kSampleStride), blocks in order, at
// block b's offset b * samples_per_block(block_bytes).
// The reverse transform may take sparser starts (a multiple of kSampleStride: every k-th sample).
inline std::size_t samples_per_block(std::size_t block_bytes, std::size_t stride = kSampleStride) {
  return (block_bytes + stride - 1) / stride;
}
inline std::size_t sample_entries(std::size_t n, std::size_t block_bytes, std::size_t stride = kSampleStride) {
  return block_count(n, block_bytes) * samples_per_block(block_bytes, stride);
}

std::size_t forward_scratch_bytes(Variant v, std::size_t n, std::size_t block_bytes);
// d_in[0..n) -> d_last[0..n) and d_primary[block_count]; d_samples (optional, sample_entries()
// entries; the fast variant only, else ContractError): the row of every kSampleStride-th rotation.
// Synchronises with `stream` (the fast variant sizes each round on the host).
void forward(Variant v, const std::uint8_t* d_in, std::size_t n, std::size_t block_bytes, std::uint8_t* d_last,
             std::uint32_t* d_primary, std::uint32_t* d_samples, void* d_scratch, std::size_t scratch_bytes,
             cudaStream_t stream);

// Blocks of any sizes, one after the other in d_in (.bz2's blocks, cut by bzip2's rule): offsets
// on the host, count + 1 entries, offsets[0] = 0, strictly increasing, each block at most
// kMaxBlockBytes, the last entry n < 2^32. Writes d_last[0..n) and d_primary[count], each block's
// cyclic rotations sorted as forward()'s fast variant sorts them (equal rotations by descending
// start). Synchronises with `stream`; scratch: forward_segments_scratch_bytes(n, count).
std::size_t forward_segments_scratch_bytes(std::size_t n, std::size_t count);
void forward_segments(const std::uint8_t* d_in, std::span<const std::uint64_t> offsets, std::uint8_t* d_last,
                      std::uint32_t* d_primary, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);

struct ReverseConfig {
  Variant variant = Variant::fast;
  unsigned total_threads = 4096;  // paper: threads per block's pointer doubling (a power of two)
  std::size_t sample_stride = kSampleStride;  // fast: output bytes per start (a multiple of kSampleStride)
};
std::size_t reverse_scratch_bytes(const ReverseConfig& c, std::size_t n, std::size_t block_bytes);
// d_last[0..n) with d_primary -> d_out[0..n). The fast variant needs d_samples (as forward writes
// them, or every (sample_stride / kSampleStride)-th of them, laid out by samples_per_block(block,
// sample_stride)); paper ignores them. A primary index or sample outside its block is a CorruptDataError
// (checked on the device; reported when the call returns, after synchronising `stream`).
void reverse(const ReverseConfig& c, const std::uint8_t* d_last, std::size_t n, std::size_t block_bytes,
             const std::uint32_t* d_primary, const std::uint32_t* d_samples, std::uint8_t* d_out, void* d_scratch,
             std::size_t scratch_bytes, cudaStream_t stream);

}  // namespace parcomp::bwt
