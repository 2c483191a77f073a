// The Huffman stage of the GPU pipeline (Patel et al., thesis sections 2.3 and 3.1): histogram,
// tree, encode, decode.
//
// Variants:
//   paper  histogram as Brown et al. (per-warp 256-bin histograms in shared memory, merged per
//          block; the block histograms merged by one block); the tree on the GPU by one block of
//          128 threads, a parallel reduction finding the two least frequent nodes for every merge
//          (each thread searches four entries, the operator keeps the two least of four); the
//          encoding in 4096-symbol blocks of 128 threads (32 codewords a thread), each block a
//          byte-aligned bit array, offsets by scans across blocks and threads, block sizes kept;
//          decoding by one thread per block, four bytes written at a time, one bit at a time down
//          the code tree (sec. 3.1; for canonical codes a compare per bit against the first code
//          of each length). DecodeMethod::lut (ours, gpu.paper.lut) decodes the same blocks with
//          PAVLE's 10-bit lookup table instead.
//   fast   ours: CUB's histogram; the tree by a rank sort of the leaves and a two-queue merge on
//          the GPU, or on the host (both measured); encoding
//          and decoding by PAVLE's gpu.fast encoder and index-driven decoder (kernels/vle), the
//          same codeword tables and bit layout.
// The code (both variants, and the serial reference): the tree's code lengths with deterministic
// ties (codes::huffman_code_lengths: the two least frequent nodes merge, ties to the lower
// node number), limited to kMaxCodeLength bits by package-merge when the tree is deeper, then
// canonical codewords for those lengths. The thesis assigned codewords by walking its tree; the
// lengths, hence the compressed size, are the same, and canonical codes need no tree to decode.
#pragma once

#include "kernels/vle/vle.hpp"
#include "core/codes.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace parcomp::huffman {

enum class Variant { paper, fast };

inline constexpr int kMaxCodeLength = 16;
inline constexpr std::size_t kBlockSymbols = 4096;  // paper encode / decode blocks

// ---- histogram (256 uint64 counts) ----------------------------------------------------------
std::size_t histogram_scratch_bytes(Variant v, std::size_t n);
void histogram(Variant v, const std::uint8_t* d_in, std::size_t n, std::uint64_t* d_hist, void* d_scratch,
               std::size_t scratch_bytes, cudaStream_t stream);

// ---- tree -------------------------------------------------------------------------------------
// The unlimited tree's code lengths (d_lengths[256]) and its depth (*d_depth), on the GPU:
// paper = one block of 128 threads searching per merge, fast = sorted leaves and two queues.
// Bit-identical to
// codes::huffman_lengths_unlimited.
void tree(Variant v, const std::uint64_t* d_hist, std::uint8_t* d_lengths, std::uint32_t* d_depth, cudaStream_t stream);

// The stage's code from lengths (package-merge on the host when deeper than kMaxCodeLength, so the
// histogram is needed then): canonical codewords and both device tables.
struct Code {
  std::array<std::uint8_t, 256> lengths{};
  codes::CodeTable table{};
  vle::PackedTable packed{};
  vle::DecodeTable decode{};
};
Code code_from_lengths(const std::array<std::uint8_t, 256>& tree_lengths, const codes::Histogram& hist);
// The host tree of gpu.fast: the histogram down, the code built on the CPU.
Code code_from_device_histogram(const std::uint64_t* d_hist, cudaStream_t stream);

// ---- multi-table code (the pipeline's fast configuration; ours, after bzip2) ------------------
// reference/multi_huffman.hpp's steps on the GPU for `count` segments at once (segment s:
// d_sizes[s] >= 1 symbols at d_symbols + s * capacity, capacity a multiple of 16): the block
// histogram, bzip2's starting cost tables, kTableIterations rounds of group selection (one thread
// per 64-symbol group, the tables' counts in shared memory) and trees (one thread block per
// table, halving the counts until the code fits 16 bits), then canonical codewords. Writes per
// segment: the table count (d_tables[s]), kMaxTables x 256 code lengths (d_lengths + s * 1536;
// unused tables zero), the selectors (d_selectors + s * selector_stride), and the packed codewords
// as vle::encode_segments takes them (d_packed + s * 1536). Bit-identical to reference::multi_choose
// and canonical_codes.
inline constexpr int kMaxTables = 6;
std::size_t multi_scratch_bytes(std::size_t count);
void multi_choose(const std::uint8_t* d_symbols, std::size_t capacity, const std::uint32_t* d_sizes, std::size_t count,
                  std::uint32_t* d_tables, std::uint8_t* d_lengths, std::uint8_t* d_selectors, std::size_t selector_stride,
                  std::uint32_t* d_packed, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);

// ---- paper encode / decode ----------------------------------------------------------------------
inline std::size_t block_count(std::size_t n) { return (n + kBlockSymbols - 1) / kBlockSymbols; }
// Capacity of the byte-aligned block arrays for n symbols of codes up to max_length bits.
inline std::size_t paper_output_bytes(std::size_t n, int max_length) {
  return (n * static_cast<std::size_t>(max_length) + 7) / 8 + block_count(n);
}
std::size_t paper_encode_scratch_bytes(std::size_t n);
// d_table: 256 packed entries (vle::PackedTable). Writes the arrays to d_out, each block's size in
// bytes to d_block_bytes[block_count(n)], and the total to *d_total_bytes.
void encode_paper(const std::uint8_t* d_in, std::size_t n, const std::uint32_t* d_table, int max_length,
                  std::uint8_t* d_out, std::size_t out_bytes, std::uint32_t* d_block_bytes,
                  std::uint64_t* d_total_bytes, void* d_scratch, std::size_t scratch_bytes, cudaStream_t stream);
std::size_t paper_decode_scratch_bytes(std::size_t n);
// One thread per block. d_status: kDecodeStatusWords words; check with check_decode_status().
inline constexpr std::size_t kDecodeStatusWords = 2;
enum class DecodeMethod { bit_serial, lut };  // the thesis's walk; ours, the lookup table
void decode_paper(const std::uint8_t* d_data, std::size_t data_bytes, const std::uint32_t* d_block_bytes, std::size_t n,
                  const vle::DecodeTable* d_table, std::uint8_t* d_out, std::uint32_t* d_status, void* d_scratch,
                  std::size_t scratch_bytes, cudaStream_t stream, DecodeMethod method = DecodeMethod::bit_serial);
// Waits for `stream`; throws CorruptDataError naming the first bad block.
void check_decode_status(const std::uint32_t* d_status, cudaStream_t stream);

}  // namespace parcomp::huffman
