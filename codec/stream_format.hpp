// The parcomp stream (container version 3): a file that is written and read as a stream, in
// frames of blocks, so that neither side needs the whole input or output in memory and any input
// size works (stdin to stdout). Little-endian throughout; every header has its own CRC-32.
//
//   stream header (16 bytes)
//     0  magic "PCMS" (u32 0x534D4350)   4  version (u16, 3)   6  config (u8: 0 paper, 1 fast)
//     7  flags (u8, 0)                   8  block_bytes (u32, 1 .. 2^24)
//    12  CRC-32 of bytes 0..11 (u32)
//   frames, in input order, each:
//     frame header (28 bytes)
//       0  magic "PFRM" (u32 0x4D524650)       4  block_count (u32, >= 1)
//       8  original_bytes (u64): the frame's uncompressed bytes
//      16  body_bytes (u64): the length of the body that follows
//      24  CRC-32 of bytes 0..23 (u32)
//     body: a version-2 container (codec/container.hpp: header, block index with each block's
//       CRC-32, payloads) of exactly those blocks, with the stream's config and block size; every
//       block but the stream's last is block_bytes long.
//   index (optional; written by parcomp): where each frame starts, for random access
//     0  magic "PIDX" (u32 0x58444950)   4  reserved (u32, 0)   8  frames (u64)
//    16  frames x {frame's stream offset (u64), its first uncompressed byte (u64)}
//     then the CRC-32 of the index's bytes before it (u32)
//   end marker (36 bytes)
//     0  magic "PEND" (u32 0x444E4550)   4  CRC-32 of all uncompressed bytes (u32)
//     8  frames (u64)                    16  original_bytes (u64): the stream's total
//    24  index offset (u64; 0 = no index)   32  CRC-32 of bytes 0..31 (u32)
//
// A reader takes the stream header, then frame after frame until the end marker, and checks the
// totals, the index (when present) and the stream's CRC-32 (combined from the blocks' CRC-32 with
// crc32_combine). A stream that ends before its end marker is truncated: an error, never a short
// output. The frame's limits (kMaxFrameBlocks, kMaxFrameBody) bound what a damaged header can make
// a reader allocate. Version-2 files (a single container, codec/container.hpp) are still read.
#pragma once

#include "core/container.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace parcomp::stream {

inline constexpr std::uint32_t kMagic = 0x534D4350u;       // "PCMS"
inline constexpr std::uint32_t kFrameMagic = 0x4D524650u;  // "PFRM"
inline constexpr std::uint32_t kIndexMagic = 0x58444950u;  // "PIDX"
inline constexpr std::uint32_t kEndMagic = 0x444E4550u;    // "PEND"
inline constexpr std::uint16_t kVersion = 3;
inline constexpr std::size_t kHeaderBytes = 16, kFrameHeaderBytes = 28, kEndBytes = 36;
inline constexpr std::uint32_t kMaxFrameBlocks = 1u << 16;
inline constexpr std::uint64_t kMaxFrameBody = std::uint64_t{1} << 34;  // 16 GiB

struct Header {
  pipeline::Config config = pipeline::Config::fast;
  std::uint32_t block_bytes = 0;
};
struct FrameHeader {
  std::uint32_t blocks = 0;
  std::uint64_t original_bytes = 0, body_bytes = 0;
};
struct End {
  std::uint32_t crc = 0;
  std::uint64_t frames = 0, original_bytes = 0, index_offset = 0;
};
struct IndexEntry {
  std::uint64_t stream_offset = 0, original_offset = 0;
};

std::vector<std::uint8_t> encode_header(const Header& h);
std::vector<std::uint8_t> encode_frame_header(const FrameHeader& f);
std::vector<std::uint8_t> encode_index(std::span<const IndexEntry> entries);
std::vector<std::uint8_t> encode_end(const End& e);

// Decoders: each checks its magic, CRC and ranges and throws CorruptDataError naming the stream
// offset `at` and the field ("stream offset 16: frame 0: ...").
Header decode_header(std::span<const std::uint8_t> bytes);
FrameHeader decode_frame_header(std::span<const std::uint8_t> bytes, std::uint64_t at, std::uint64_t frame,
                                const Header& h);
End decode_end(std::span<const std::uint8_t> bytes, std::uint64_t at);
// The index whose magic was read at `at` (its 16-byte head, then its entries and CRC).
std::uint64_t index_entries(std::span<const std::uint8_t> head, std::uint64_t at);
std::vector<IndexEntry> decode_index(std::span<const std::uint8_t> bytes, std::uint64_t at);
inline std::size_t index_bytes(std::uint64_t entries) { return 16 + 16 * entries + 4; }

// The 4 bytes at the start of a file: a stream (version 3), a version-2 container, or neither.
enum class Kind { stream, container_v2, unknown };
Kind kind_of(std::span<const std::uint8_t> first4);

std::uint32_t get_u32(std::span<const std::uint8_t> b, std::size_t at);

}  // namespace parcomp::stream
