// The parcomp container: a compressed file of independent blocks (thesis pipeline: BWT, MTF,
// Huffman per block). Little-endian throughout.
//
//   header (32 bytes)
//     0  magic "PCMP"            4  version (u16, 1)        6  config (u8: 0 paper, 1 fast)
//     7  reserved (u8, 0)        8  block_bytes (u32)      12  block_count (u32)
//    16  original_bytes (u64)   24  reserved (u32, 0)      28  CRC-32 of bytes 0..27
//   block index: block_count entries, then the CRC-32 of all entries (u32)
//     0  payload_offset (u64, from the file's start)        8  payload_bytes (u32)
//    12  original_bytes (u32)   16  primary (u32, BWT row of rotation 0)
//    20  CRC-32 of the block's original bytes (u32)
//    24  paper only: code lengths (256 x u8); entries are 280 bytes (paper) or 24 bytes (fast)
//   payloads, in block order:
//     paper  Huffman block sizes (u32 x ceil(n / 4096)), then the byte-aligned bit arrays
//     fast   (version 2) the block's zero-run symbols m (u32); the table count T (u8); the used
//            symbols (a 256-bit map, bit c % 8 of byte c / 8); then MSB-first bit fields, each
//            part padded to a whole byte: the T tables' code lengths over the used symbols (bzip2's
//            delta code: 5 bits of start length, then per symbol "10" = +1, "11" = -1, "0" = done), the ceil(m / 64) table selectors (bzip2's move-to-front then unary
//            code), the BWT start rows of every 8192nd rotation (ceil(n / 8192) fields of the
//            bit width of n - 1); then the decoder index as the bits of each 1024-symbol
//            subsequence but the last (u16 each), the stream's bit count (u64), and the stream
//            (u32 words, MSB-first).
// Every code is canonical for its lengths (reference::canonical_codes). Any block can be
// decoded from the header, its index entry and its payload alone. parse() checks every size,
// offset and checksum it can before any decoding and throws CorruptDataError naming what is wrong
// (the header, the index, or block k).
#pragma once

#include "core/crc32.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace parcomp::pipeline {

enum class Config : std::uint8_t { paper = 0, fast = 1 };
std::string config_name(Config c);

inline constexpr std::uint32_t kVersion = 2;  // 2: the fast payload with zero runs and several tables
inline constexpr std::size_t kHeaderBytes = 32;
inline std::size_t entry_bytes(Config c) { return c == Config::paper ? 280 : 24; }
inline constexpr std::size_t kHuffmanBlockSymbols = 4096;  // paper payload granularity
inline constexpr std::size_t kStride = 1024;               // fast payload: decoder index
inline constexpr std::size_t kFastSampleStride = 8192;     // fast payload: BWT start rows
inline constexpr std::size_t kFastGroupSymbols = 64;       // fast payload: symbols per table selector
inline constexpr int kMaxFastTables = 6, kFastMaxLength = 16;

struct BlockEntry {
  std::uint64_t payload_offset = 0;
  std::uint32_t payload_bytes = 0;
  std::uint32_t original_bytes = 0;
  std::uint32_t primary = 0;
  std::uint32_t crc = 0;
  std::array<std::uint8_t, 256> lengths{};  // paper only
};

struct Layout {
  Config config = Config::paper;
  std::uint32_t block_bytes = 0;
  std::uint64_t original_bytes = 0;
  std::vector<BlockEntry> blocks;
};

using parcomp::crc32;  // core/crc32.hpp

// Writes header and index for `layout` (offsets assigned here, payloads back to back after the
// index) followed by the payloads.
std::vector<std::uint8_t> assemble(Layout layout, const std::vector<std::vector<std::uint8_t>>& payloads);
// The same into `out` (its bytes replaced, its capacity kept: no page faults for a buffer reused
// from batch to batch), from views of the payloads.
void assemble_into(Layout layout, std::span<const std::span<const std::uint8_t>> payloads, std::vector<std::uint8_t>& out);
// Reads and checks header and index; payload i is file[blocks[i].payload_offset, + payload_bytes).
Layout parse(std::span<const std::uint8_t> file);

// The parts of a paper / fast payload, with their sizes checked against the block.
struct PaperPayload {
  std::span<const std::uint8_t> sizes_raw;  // u32 per 4096 symbols
  std::span<const std::uint8_t> data;
  std::vector<std::uint32_t> sizes() const;
};
PaperPayload split_paper(std::span<const std::uint8_t> payload, std::uint32_t original_bytes, std::size_t block);
struct FastPayload {
  std::uint32_t symbols = 0;                            // zero-run symbols
  std::vector<std::array<std::uint8_t, 256>> lengths;   // per table; every table codes the same used symbols
  std::vector<std::uint8_t> selectors;                  // per 64 symbols
  std::vector<std::uint32_t> samples;                   // BWT start rows, every kFastSampleStride rotations
  std::vector<std::uint64_t> index;                     // start bit of every 1024th symbol
  std::uint64_t bits = 0;
  std::span<const std::uint8_t> words_raw;              // ceil(bits / 32) words
};
FastPayload split_fast(std::span<const std::uint8_t> payload, std::uint32_t original_bytes, std::size_t block);
// Writes p (words_raw ignored) and the stream `words`.
void put_fast(std::vector<std::uint8_t>& out, const FastPayload& p, std::span<const std::uint32_t> words,
              std::uint32_t original_bytes);

// Serialisation of the payload parts (little-endian).
void put_u32s(std::vector<std::uint8_t>& out, std::span<const std::uint32_t> v);
void put_u64s(std::vector<std::uint8_t>& out, std::span<const std::uint64_t> v);

}  // namespace parcomp::pipeline
