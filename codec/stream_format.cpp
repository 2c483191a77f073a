#include "stream_format.hpp"

#include "core/crc32.hpp"
#include "core/errors.hpp"
#include "core/little_endian.hpp"

namespace parcomp::stream {

namespace {

void seal(std::vector<std::uint8_t>& out) { put_le<std::uint32_t>(out, crc32(out)); }

[[noreturn]] void corrupt(std::uint64_t at, const std::string& what) {
  throw CorruptDataError("stream offset " + std::to_string(at) + ": " + what);
}

void check_crc(std::span<const std::uint8_t> b, std::size_t body, std::uint64_t at, const std::string& what) {
  if (crc32(b.first(body)) != get_le<std::uint32_t>(b, body)) corrupt(at, what + ": checksum mismatch");
}

}  // namespace

std::uint32_t get_u32(std::span<const std::uint8_t> b, std::size_t at) { return get_le<std::uint32_t>(b, at); }

std::vector<std::uint8_t> encode_header(const Header& h) {
  std::vector<std::uint8_t> out;
  put_le<std::uint32_t>(out, kMagic);
  put_le<std::uint16_t>(out, kVersion);
  put_le<std::uint8_t>(out, static_cast<std::uint8_t>(h.config));
  put_le<std::uint8_t>(out, 0);
  put_le<std::uint32_t>(out, h.block_bytes);
  seal(out);
  return out;
}

std::vector<std::uint8_t> encode_frame_header(const FrameHeader& f) {
  std::vector<std::uint8_t> out;
  put_le<std::uint32_t>(out, kFrameMagic);
  put_le<std::uint32_t>(out, f.blocks);
  put_le<std::uint64_t>(out, f.original_bytes);
  put_le<std::uint64_t>(out, f.body_bytes);
  seal(out);
  return out;
}

std::vector<std::uint8_t> encode_index(std::span<const IndexEntry> entries) {
  std::vector<std::uint8_t> out;
  put_le<std::uint32_t>(out, kIndexMagic);
  put_le<std::uint32_t>(out, 0);
  put_le<std::uint64_t>(out, entries.size());
  for (const IndexEntry& e : entries) {
    put_le<std::uint64_t>(out, e.stream_offset);
    put_le<std::uint64_t>(out, e.original_offset);
  }
  seal(out);
  return out;
}

std::vector<std::uint8_t> encode_end(const End& e) {
  std::vector<std::uint8_t> out;
  put_le<std::uint32_t>(out, kEndMagic);
  put_le<std::uint32_t>(out, e.crc);
  put_le<std::uint64_t>(out, e.frames);
  put_le<std::uint64_t>(out, e.original_bytes);
  put_le<std::uint64_t>(out, e.index_offset);
  seal(out);
  return out;
}

Header decode_header(std::span<const std::uint8_t> b) {
  if (b.size() < kHeaderBytes) corrupt(0, "stream header: truncated (" + std::to_string(b.size()) + " bytes)");
  if (get_le<std::uint32_t>(b, 0) != kMagic) corrupt(0, "stream header: magic: not a parcomp stream");
  check_crc(b, 12, 0, "stream header");
  if (get_le<std::uint16_t>(b, 4) != kVersion) corrupt(0, "stream header: version " + std::to_string(get_le<std::uint16_t>(b, 4)) + " unsupported");
  if (b[6] > 1) corrupt(0, "stream header: configuration " + std::to_string(b[6]) + " unknown");
  if (b[7] != 0) corrupt(0, "stream header: flags " + std::to_string(b[7]) + " unknown");
  Header h;
  h.config = static_cast<pipeline::Config>(b[6]);
  h.block_bytes = get_le<std::uint32_t>(b, 8);
  if (h.block_bytes == 0 || h.block_bytes > (1u << 24))
    corrupt(0, "stream header: block size " + std::to_string(h.block_bytes) + " out of range");
  return h;
}

FrameHeader decode_frame_header(std::span<const std::uint8_t> b, std::uint64_t at, std::uint64_t frame, const Header& h) {
  const std::string name = "frame " + std::to_string(frame) + " header";
  if (b.size() < kFrameHeaderBytes) corrupt(at, name + ": truncated");
  if (get_le<std::uint32_t>(b, 0) != kFrameMagic) corrupt(at, name + ": magic: neither a frame nor the end marker");
  check_crc(b, 24, at, name);
  FrameHeader f;
  f.blocks = get_le<std::uint32_t>(b, 4);
  f.original_bytes = get_le<std::uint64_t>(b, 8);
  f.body_bytes = get_le<std::uint64_t>(b, 16);
  if (f.blocks == 0 || f.blocks > kMaxFrameBlocks) corrupt(at, name + ": block count " + std::to_string(f.blocks) + " out of range");
  if (f.original_bytes == 0 || f.original_bytes > std::uint64_t{f.blocks} * h.block_bytes ||
      f.original_bytes <= std::uint64_t{f.blocks - 1} * h.block_bytes)
    corrupt(at, name + ": " + std::to_string(f.original_bytes) + " bytes do not make " + std::to_string(f.blocks) + " blocks");
  if (f.body_bytes < pipeline::kHeaderBytes || f.body_bytes > kMaxFrameBody)
    corrupt(at, name + ": body size " + std::to_string(f.body_bytes) + " out of range");
  return f;
}

End decode_end(std::span<const std::uint8_t> b, std::uint64_t at) {
  if (b.size() < kEndBytes) corrupt(at, "end marker: truncated");
  if (get_le<std::uint32_t>(b, 0) != kEndMagic) corrupt(at, "end marker: magic");
  check_crc(b, 32, at, "end marker");
  End e;
  e.crc = get_le<std::uint32_t>(b, 4);
  e.frames = get_le<std::uint64_t>(b, 8);
  e.original_bytes = get_le<std::uint64_t>(b, 16);
  e.index_offset = get_le<std::uint64_t>(b, 24);
  return e;
}

std::uint64_t index_entries(std::span<const std::uint8_t> head, std::uint64_t at) {
  if (head.size() < 16) corrupt(at, "index: truncated");
  if (get_le<std::uint32_t>(head, 0) != kIndexMagic) corrupt(at, "index: magic");
  const std::uint64_t n = get_le<std::uint64_t>(head, 8);
  if (n > (std::uint64_t{1} << 40)) corrupt(at, "index: " + std::to_string(n) + " entries");
  return n;
}

std::vector<IndexEntry> decode_index(std::span<const std::uint8_t> b, std::uint64_t at) {
  const std::uint64_t n = index_entries(b, at);
  if (b.size() < index_bytes(n)) corrupt(at, "index: truncated");
  check_crc(b, 16 + 16 * n, at, "index");
  std::vector<IndexEntry> out(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    out[i].stream_offset = get_le<std::uint64_t>(b, 16 + 16 * i);
    out[i].original_offset = get_le<std::uint64_t>(b, 24 + 16 * i);
  }
  return out;
}

Kind kind_of(std::span<const std::uint8_t> first4) {
  if (first4.size() < 4) return Kind::unknown;
  const std::uint32_t m = get_le<std::uint32_t>(first4, 0);
  return m == kMagic ? Kind::stream : m == 0x504D4350u ? Kind::container_v2 : Kind::unknown;
}

}  // namespace parcomp::stream
