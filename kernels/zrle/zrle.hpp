// bzip2's zero-run stage on the GPU (ours; the pipeline's fast configuration, between MTF and the
// multi-table Huffman coding). The coding is reference/zrle.hpp's: zero runs as bijective base-2
// RUNA/RUNB digits, MTF values v as v + 1, 254 and 255 escaped.
//
// Blocks of the input are coded independently, one thread block (512 threads x 16 bytes a tile)
// walking each block's tiles in order:
//   encode  each thread finds its chunk's leading and trailing zeros; a block-wide scan with a
//           segmented "zeros so far" operator gives the zero run entering every chunk, so each
//           thread can count (pass 1) and write (pass 2) its symbols, a run being written by the
//           thread where it ends; a scan of the counts gives the output offsets;
//   decode  the same scan over "digits so far" gives each RUNA/RUNB symbol its weight (1, 2, 4,
//           ... within its digit run), a scan of the bytes each symbol stands for gives the output
//           offsets; the output is zeroed first and only nonzero values are stored.
// Block b's input is d_in[b * block, min(n, (b + 1) * block)); its symbols go to d_symbols + b *
// capacity(block), their count to d_counts[b].
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace parcomp::zrle {

inline std::size_t capacity(std::size_t block_bytes) { return 2 * block_bytes; }

// block_bytes: a multiple of 16; d_in, d_symbols 16-byte aligned.
void encode(const std::uint8_t* d_in, std::size_t n, std::size_t block_bytes, std::uint8_t* d_symbols,
            std::uint32_t* d_counts, cudaStream_t stream);

// The inverse, into d_out[0..n). Every block must decode to exactly its bytes; d_status (2 words)
// receives the outcome, check it with check_decode_status().
inline constexpr std::size_t kDecodeStatusWords = 2;
void decode(const std::uint8_t* d_symbols, const std::uint32_t* d_counts, std::size_t n, std::size_t block_bytes,
            std::uint8_t* d_out, std::uint32_t* d_status, cudaStream_t stream);
// Waits for `stream`; throws CorruptDataError naming the first damaged block.
void check_decode_status(const std::uint32_t* d_status, cudaStream_t stream);

}  // namespace parcomp::zrle
