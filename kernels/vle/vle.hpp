// PAVLE: parallel variable-length encoding with atomic bit output (Balevic; papers/
// balevic-parallel-variable-length-encoding.txt). The output is bit-identical to the serial
// reference (reference/vle.hpp): codewords MSB-first in 32-bit words, zero tail bits.
//
// Each thread takes `dpt` 32-bit input words (4 byte symbols each), concatenates each word's four
// codewords into an aggregate codeword, and records its bit length; an exclusive scan (CUB) of the
// lengths gives the bit offsets; the aggregates are then OR-ed into place:
//   gm32      atomicOr on global memory, aggregates of at most 32 bits;
//   sm32      atomicOr on a shared-memory copy of the block's output, then copied out (plain stores
//             inside, atomicOr on the two words shared with neighbouring blocks);
//   sm64huff  as sm32 with 64-bit aggregates, so four codewords may exceed 32 bits.
// Options (the paper's Fig. 4b/5): the codeword table cached in shared memory; aggregates cached
// between the length and output phases instead of looked up twice.
// Contract: gm32 and sm32 need codewords of at most 8 bits (4 x 8 = 32), sm64huff at most 16;
// a longer table is a ContractError, never a garbled stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace parcomp::vle {

enum class Kernel { gm32, sm32, sm64huff };

struct Config {
  Kernel kernel = Kernel::sm32;
  unsigned dpt = 1;               // 32-bit input words per thread
  bool table_in_shared = false;   // codeword table cached in shared memory (Fig. 4b)
  bool cache_aggregates = false;  // aggregates kept from the length phase (Fig. 5b)
  unsigned block_threads = 256;
};

std::string name(const Config& c);  // e.g. "gpu.sm32.tc.dpt4"

// 256 codewords packed as (code << 8) | length, as the device table expects.
struct PackedTable {
  std::uint32_t entries[256];
  int max_length;
};
PackedTable pack_table(std::span<const std::uint32_t, 256> codes, std::span<const std::uint8_t, 256> lengths);

// Output capacity in 32-bit words that encode() may touch for n symbols under `max_length`.
std::size_t output_words(std::size_t n, int max_length);
std::size_t scratch_bytes(const Config& c, std::size_t n);

// Encodes d_in[0..n-1] (4-byte aligned) with the device table d_table (256 packed entries; every symbol of the
// input must have a codeword) into d_out (output_words(n, max_length) words; zeroed here), and
// writes the total bit count to *d_bits.
void encode(const Config& c, const std::uint8_t* d_in, std::size_t n, const std::uint32_t* d_table, int max_length,
            std::uint32_t* d_out, std::size_t out_words, std::uint64_t* d_bits, void* d_scratch,
            std::size_t scratch_bytes, cudaStream_t stream);

// The scan alone, as the paper's reference line: exclusive sum of `elements` 32-bit lengths.
std::size_t scan_scratch_bytes(std::size_t elements);
void scan_only(const std::uint32_t* d_lengths, std::size_t elements, std::uint64_t* d_offsets, void* d_scratch,
               std::size_t scratch_bytes, cudaStream_t stream);

}  // namespace parcomp::vle
