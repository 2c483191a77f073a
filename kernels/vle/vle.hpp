// PAVLE: parallel variable-length encoding with atomic bit output (Balevic; papers/
// balevic-parallel-variable-length-encoding.txt). The output is bit-identical to the serial
// reference (reference/vle.hpp): codewords MSB-first in 32-bit words, zero tail bits.
//
// Each thread takes `dpt` 32-bit input words (4 byte symbols each), concatenates each word's four
// codewords into an aggregate codeword, and records its bit length; an exclusive scan (CUB) of the
// lengths gives the bit offsets; the aggregates are then written with put_bits_atomic (Listing 1:
// one atomicOr for every destination word an aggregate touches, zero bits included):
//   gm32      atomicOr on global memory, 32-bit aggregates;
//   sm32      atomicOr on a shared-memory copy of the block's output, then copied out (plain stores
//             inside, atomicOr on the two words shared with neighbouring blocks), 32-bit aggregates;
//   sm64huff  as sm32 with 64-bit aggregates ("twice the original data size"), so four codewords
//             may exceed 32 bits, and the paper's one additional test in the output: a word that an
//             aggregate covers whole is written with a plain store instead of an atomic.
// Options (the paper's Fig. 4b/5): the codeword table cached in shared memory; aggregate
// codewords cached on chip: the output step first computes a thread's DPT aggregates into a
// shared-memory buffer (DPT x block entries, the paper's DPT_max = 4 shared-memory limit), then
// writes them from there.
// Contract: gm32 and sm32 need codewords of at most 8 bits (4 x 8 = 32), sm64huff at most 16;
// a longer table is a ContractError, never a garbled stream. The paper kernels OR into an output
// "set in advance (all zeros)" (sec. 3.3): zero it with zero_output() before each encode(), as
// the benchmarks do outside their timed region.
//
// Ours, beyond the paper:
//   fast      one pass, no global atomics: 256 threads x 64 symbols per tile (32 for codes over 8 bits), a block scan of the
//             threads' bit counts, the tile's bit offset by decoupled look-back over the tiles
//             (dynamic tile ids, so every predecessor has started), the tile assembled in shared
//             memory (plain stores for whole words, shared atomicOr only where two threads meet)
//             and written out with plain stores. The one word a tile shares with its predecessor
//             is merged by a small fix-up kernel. Codewords up to 24 bits.
//   decode    the paper has no decoder. The encoder can record the start bit of every
//             kIndexStride-th symbol (an index, 8 bytes per 1024 symbols, 0.8% of the input); one
//             thread decodes each 1024-symbol subsequence from its recorded start, with a 10-bit
//             lookup table for short codes and a canonical per-length search for longer ones, and
//             checks that it ends exactly where the next subsequence starts.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace parcomp::vle {

enum class Kernel { gm32, sm32, sm64huff, fast };

struct Config {
  Kernel kernel = Kernel::sm32;
  unsigned dpt = 1;               // 32-bit input words per thread (paper kernels)
  bool table_in_shared = false;   // codeword table cached in shared memory (Fig. 4b)
  bool cache_aggregates = false;  // aggregate codewords cached on chip in the output step (Fig. 5b)
  unsigned block_threads = 256;
  unsigned fast_symbols_per_thread = 0;  // gpu.fast: 0 = default (64 for codes <= 8 bits, else 32), or 32 / 64
};

std::string name(const Config& c);  // e.g. "gpu.sm32.tc.dpt4", "gpu.fast"

// 256 codewords packed as (code << 8) | length, as the device table expects.
struct PackedTable {
  std::uint32_t entries[256];
  int max_length;
};
PackedTable pack_table(std::span<const std::uint32_t, 256> codes, std::span<const std::uint8_t, 256> lengths);

// Output capacity in 32-bit words that encode() may touch for n symbols under `max_length`.
std::size_t output_words(std::size_t n, int max_length);
std::size_t scratch_bytes(const Config& c, std::size_t n);

// The longest codeword a kernel accepts: 8 (gm32, sm32), 16 (sm64huff), 24 (fast).
int max_code_length(Kernel k);

// Symbols per recorded start offset, and the index entries for n symbols.
inline constexpr std::size_t kIndexStride = 1024;
inline std::size_t index_entries(std::size_t n) { return (n + kIndexStride - 1) / kIndexStride; }

// Encodes d_in[0..n-1] (4-byte aligned) with the device table d_table (256 packed entries; every symbol of the
// input must have a codeword) into d_out (output_words(n, max_length) words), and writes the total
// bit count to *d_bits. The paper kernels OR into d_out, which must be zero (zero_output());
// gpu.fast writes the stream's words, ceil(bits / 32), and leaves the rest of d_out untouched.
// d_index (optional, index_entries(n) entries): the start bit of symbol k * kIndexStride, for
// decode(); the paper kernels gather it from their scan (dpt must then divide 256).
void encode(const Config& c, const std::uint8_t* d_in, std::size_t n, const std::uint32_t* d_table, int max_length,
            std::uint32_t* d_out, std::size_t out_words, std::uint64_t* d_bits, void* d_scratch,
            std::size_t scratch_bytes, cudaStream_t stream, std::uint64_t* d_index = nullptr);

// What a paper kernel needs before encode(): d_out[0..out_words) set to zero (a no-op for gpu.fast).
void zero_output(const Config& c, std::uint32_t* d_out, std::size_t out_words, cudaStream_t stream);

// Decoding tables for canonical prefix codes (ours; see above). Plain data, copied to the device
// as it is.
struct DecodeTable {
  static constexpr int kLutBits = 10;
  static constexpr int kMaxLength = 24;
  std::uint16_t lut[1 << kLutBits];           // (symbol << 5) | length for codes of <= kLutBits bits; 0 otherwise
  std::uint32_t first[kMaxLength + 1];        // first (smallest) code of each length
  std::uint32_t count[kMaxLength + 1];        // codes of each length
  std::uint32_t offset[kMaxLength + 1];       // position in `symbols` of the first code of each length
  std::uint8_t symbols[256];                  // used symbols ordered by code
  std::int32_t max_length;
};
// Checks the code (prefix-free, codes of one length consecutive in symbol order as canonical
// codes are, lengths <= 24) and builds the tables; anything else is a ContractError.
DecodeTable make_decode_table(std::span<const std::uint32_t, 256> codes, std::span<const std::uint8_t, 256> lengths);

// Decodes n symbols of the stream d_words[0..words) whose bit count is *d_bits, with the index
// the encoder wrote, into d_out (n bytes). d_status (kDecodeStatusWords words) receives the
// outcome; check it with check_decode_status(). A damaged stream or index never reads outside
// d_words / d_index and never writes outside d_out[0..n).
inline constexpr std::size_t kDecodeStatusWords = 2;
void decode(const std::uint32_t* d_words, std::size_t words, const std::uint64_t* d_bits, const std::uint64_t* d_index,
            std::size_t n, const DecodeTable* d_table, std::uint8_t* d_out, std::uint32_t* d_status,
            cudaStream_t stream);
// Waits for `stream` and throws CorruptDataError naming the first bad subsequence, if any.
void check_decode_status(const std::uint32_t* d_status, cudaStream_t stream);

// ---- Batches of independent streams (ours; the pipeline's fast configuration) -----------------
// `count` segments, segment s: d_sizes[s] symbols (device) at d_in + s * capacity; coded with
// `tables` packed tables (256 entries each) at d_tables + s * tables * 256, symbols i .. i + 63
// with table d_selectors[s * selector_stride + i / 64] (nullptr: table 0); its stream to d_out +
// s * out_stride words, its bit count to d_bits[s], its index (optional) to d_index + s *
// index_stride. One launch for all segments: the look-back of gpu.fast stops at each segment's
// first tile. Decoding mirrors it, with `tables` DecodeTables per segment, output at d_out + s *
// capacity (16-byte aligned); damage names the segment.
inline constexpr std::size_t kSelectorGroup = 64;
inline constexpr int kMaxSegmentTables = 6;
struct Segments {
  std::size_t count = 1;
  std::size_t capacity = 0;  // a multiple of 16
  const std::uint32_t* d_sizes = nullptr;
  int tables = 1;
  const std::uint8_t* d_selectors = nullptr;
  std::size_t selector_stride = 0;
  std::size_t out_stride = 0;  // at least output_words(capacity, max_length)
  std::size_t index_stride = 0;
};
std::size_t segments_scratch_bytes(const Segments& g);
void encode_segments(const Segments& g, const std::uint8_t* d_in, const std::uint32_t* d_tables, int max_length,
                     std::uint32_t* d_out, std::uint64_t* d_bits, std::uint64_t* d_index, void* d_scratch,
                     std::size_t scratch_bytes, cudaStream_t stream);
// max_symbols: an upper bound of the sizes (sizes the grid); a size above capacity is damage.
void decode_segments(const Segments& g, std::size_t max_symbols, const std::uint32_t* d_words, const std::uint64_t* d_bits,
                     const std::uint64_t* d_index, const DecodeTable* d_tables, std::uint8_t* d_out,
                     std::uint32_t* d_status, cudaStream_t stream);
// Waits for `stream`; throws CorruptDataError naming the first damaged segment as "<unit> k".
void check_segments_status(const std::uint32_t* d_status, cudaStream_t stream, const std::string& unit = "segment");

// The scan alone, as the paper's reference line: exclusive sum of `elements` 32-bit lengths.
std::size_t scan_scratch_bytes(std::size_t elements);
void scan_only(const std::uint32_t* d_lengths, std::size_t elements, std::uint64_t* d_offsets, void* d_scratch,
               std::size_t scratch_bytes, cudaStream_t stream);

}  // namespace parcomp::vle
