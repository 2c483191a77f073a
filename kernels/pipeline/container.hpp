// The parcomp container: a compressed file of independent blocks (thesis pipeline: BWT, MTF,
// Huffman per block). Little-endian throughout.
//
//   header (32 bytes)
//     0  magic "PCMP"            4  version (u16, 1)        6  config (u8: 0 paper, 1 fast)
//     7  reserved (u8, 0)        8  block_bytes (u32)      12  block_count (u32)
//    16  original_bytes (u64)   24  reserved (u32, 0)      28  CRC-32 of bytes 0..27
//   block index: block_count entries of 280 bytes, then the CRC-32 of all entries (u32)
//     0  payload_offset (u64, from the file's start)        8  payload_bytes (u32)
//    12  original_bytes (u32)   16  primary (u32, BWT row of rotation 0)
//    20  CRC-32 of the block's original bytes (u32)          24  code lengths (256 x u8)
//   payloads, in block order:
//     paper  Huffman block sizes (u32 x ceil(n / 4096)), then the byte-aligned bit arrays
//     fast   BWT start rows (u32 x ceil(n / 1024)), the decoder index (u64 x ceil(n / 1024)),
//            the stream's bit count (u64), then the stream (u32 words, MSB-first)
// The code of a block is canonical for its lengths (reference::canonical_codes). Any block can be
// decoded from the header, its index entry and its payload alone. parse() checks every size,
// offset and checksum it can before any decoding and throws CorruptDataError naming what is wrong
// (the header, the index, or block k).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace parcomp::pipeline {

enum class Config : std::uint8_t { paper = 0, fast = 1 };
std::string config_name(Config c);

inline constexpr std::uint32_t kVersion = 1;
inline constexpr std::size_t kHeaderBytes = 32, kEntryBytes = 280;
inline constexpr std::size_t kHuffmanBlockSymbols = 4096;  // paper payload granularity
inline constexpr std::size_t kStride = 1024;               // fast payload: BWT samples and decoder index

struct BlockEntry {
  std::uint64_t payload_offset = 0;
  std::uint32_t payload_bytes = 0;
  std::uint32_t original_bytes = 0;
  std::uint32_t primary = 0;
  std::uint32_t crc = 0;
  std::array<std::uint8_t, 256> lengths{};
};

struct Layout {
  Config config = Config::paper;
  std::uint32_t block_bytes = 0;
  std::uint64_t original_bytes = 0;
  std::vector<BlockEntry> blocks;
};

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);

// Writes header and index for `layout` (offsets assigned here, payloads back to back after the
// index) followed by the payloads.
std::vector<std::uint8_t> assemble(Layout layout, const std::vector<std::vector<std::uint8_t>>& payloads);
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
  std::vector<std::uint32_t> samples;
  std::vector<std::uint64_t> index;
  std::uint64_t bits = 0;
  std::span<const std::uint8_t> words_raw;  // ceil(bits / 32) words
};
FastPayload split_fast(std::span<const std::uint8_t> payload, std::uint32_t original_bytes, std::size_t block);

// Serialisation of the payload parts (little-endian).
void put_u32s(std::vector<std::uint8_t>& out, std::span<const std::uint32_t> v);
void put_u64s(std::vector<std::uint8_t>& out, std::span<const std::uint64_t> v);

}  // namespace parcomp::pipeline
