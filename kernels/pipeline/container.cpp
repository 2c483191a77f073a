#include "container.hpp"

#include "../common/cuda_check.hpp"  // CorruptDataError, ContractError

#include <cstring>

namespace parcomp::pipeline {

namespace {

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}

template <typename T>
void put(std::vector<std::uint8_t>& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}

template <typename T>
T get(std::span<const std::uint8_t> in, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<std::uint64_t>(in[at + i]) << (8 * i);
  return static_cast<T>(v);
}

[[noreturn]] void corrupt(const std::string& what) { throw CorruptDataError("parcomp container: " + what); }

}  // namespace

std::string config_name(Config c) { return c == Config::paper ? "paper" : "fast"; }

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc) {
  static const auto table = make_crc_table();
  crc = ~crc;
  for (const std::uint8_t b : bytes) crc = table[(crc ^ b) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

void put_u32s(std::vector<std::uint8_t>& out, std::span<const std::uint32_t> v) {
  for (const auto x : v) put<std::uint32_t>(out, x);
}
void put_u64s(std::vector<std::uint8_t>& out, std::span<const std::uint64_t> v) {
  for (const auto x : v) put<std::uint64_t>(out, x);
}

std::vector<std::uint8_t> assemble(Layout layout, const std::vector<std::vector<std::uint8_t>>& payloads) {
  if (payloads.size() != layout.blocks.size()) throw ContractError("pipeline::assemble: one payload per block");
  std::vector<std::uint8_t> out;
  put<std::uint32_t>(out, 0x504D4350u);  // "PCMP"
  put<std::uint16_t>(out, static_cast<std::uint16_t>(kVersion));
  put<std::uint8_t>(out, static_cast<std::uint8_t>(layout.config));
  put<std::uint8_t>(out, 0);
  put<std::uint32_t>(out, layout.block_bytes);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(layout.blocks.size()));
  put<std::uint64_t>(out, layout.original_bytes);
  put<std::uint32_t>(out, 0);
  put<std::uint32_t>(out, crc32(out));
  std::uint64_t offset = kHeaderBytes + kEntryBytes * layout.blocks.size() + 4;
  const std::size_t index_start = out.size();
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    BlockEntry& e = layout.blocks[b];
    e.payload_offset = offset;
    e.payload_bytes = static_cast<std::uint32_t>(payloads[b].size());
    offset += payloads[b].size();
    put<std::uint64_t>(out, e.payload_offset);
    put<std::uint32_t>(out, e.payload_bytes);
    put<std::uint32_t>(out, e.original_bytes);
    put<std::uint32_t>(out, e.primary);
    put<std::uint32_t>(out, e.crc);
    out.insert(out.end(), e.lengths.begin(), e.lengths.end());
  }
  put<std::uint32_t>(out, crc32(std::span(out).subspan(index_start)));
  for (const auto& p : payloads) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Layout parse(std::span<const std::uint8_t> file) {
  if (file.size() < kHeaderBytes) corrupt("truncated header (" + std::to_string(file.size()) + " bytes)");
  if (get<std::uint32_t>(file, 0) != 0x504D4350u) corrupt("not a parcomp file (bad magic)");
  if (crc32(file.first(28)) != get<std::uint32_t>(file, 28)) corrupt("header checksum mismatch");
  if (get<std::uint16_t>(file, 4) != kVersion) corrupt("unsupported version " + std::to_string(get<std::uint16_t>(file, 4)));
  Layout l;
  const std::uint8_t config = file[6];
  if (config > 1) corrupt("unknown configuration " + std::to_string(config));
  l.config = static_cast<Config>(config);
  l.block_bytes = get<std::uint32_t>(file, 8);
  const std::uint32_t count = get<std::uint32_t>(file, 12);
  l.original_bytes = get<std::uint64_t>(file, 16);
  if (l.block_bytes == 0 || l.block_bytes > (1u << 24)) corrupt("block size " + std::to_string(l.block_bytes) + " out of range");
  if (count != (l.original_bytes + l.block_bytes - 1) / l.block_bytes)
    corrupt("block count " + std::to_string(count) + " does not match the original size");
  const std::uint64_t index_end = kHeaderBytes + kEntryBytes * static_cast<std::uint64_t>(count) + 4;
  if (file.size() < index_end) corrupt("truncated block index");
  const auto index = file.subspan(kHeaderBytes, kEntryBytes * count);
  if (crc32(index) != get<std::uint32_t>(file, index_end - 4)) corrupt("block index checksum mismatch");
  l.blocks.resize(count);
  std::uint64_t expect = index_end;
  for (std::uint32_t b = 0; b < count; ++b) {
    const std::size_t at = kHeaderBytes + kEntryBytes * b;
    BlockEntry& e = l.blocks[b];
    e.payload_offset = get<std::uint64_t>(file, at);
    e.payload_bytes = get<std::uint32_t>(file, at + 8);
    e.original_bytes = get<std::uint32_t>(file, at + 12);
    e.primary = get<std::uint32_t>(file, at + 16);
    e.crc = get<std::uint32_t>(file, at + 20);
    std::memcpy(e.lengths.data(), file.data() + at + 24, 256);
    const std::uint64_t want_len = std::min<std::uint64_t>(l.block_bytes, l.original_bytes - std::uint64_t{b} * l.block_bytes);
    const std::string name = "block " + std::to_string(b) + ": ";
    if (e.original_bytes != want_len) corrupt(name + "original size does not match the header");
    if (e.payload_offset != expect) corrupt(name + "payload offset out of order");
    if (e.payload_offset + e.payload_bytes > file.size()) corrupt(name + "payload runs past the end of the file (truncated?)");
    if (e.primary >= e.original_bytes) corrupt(name + "primary index outside the block");
    for (const std::uint8_t len : e.lengths)
      if (len > 24) corrupt(name + "code length over 24 bits");
    expect += e.payload_bytes;
  }
  if (expect != file.size()) corrupt("trailing bytes after the last block");
  return l;
}

std::vector<std::uint32_t> PaperPayload::sizes() const {
  std::vector<std::uint32_t> v(sizes_raw.size() / 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = get<std::uint32_t>(sizes_raw, 4 * i);
  return v;
}

PaperPayload split_paper(std::span<const std::uint8_t> payload, std::uint32_t original_bytes, std::size_t block) {
  const std::size_t arrays = (original_bytes + kHuffmanBlockSymbols - 1) / kHuffmanBlockSymbols;
  if (payload.size() < 4 * arrays) corrupt("block " + std::to_string(block) + ": payload shorter than its size table");
  PaperPayload p{payload.first(4 * arrays), payload.subspan(4 * arrays)};
  std::uint64_t total = 0;
  for (const auto s : p.sizes()) total += s;
  if (total != p.data.size()) corrupt("block " + std::to_string(block) + ": Huffman array sizes do not add up to the payload");
  return p;
}

FastPayload split_fast(std::span<const std::uint8_t> payload, std::uint32_t original_bytes, std::size_t block) {
  const std::size_t k = (original_bytes + kStride - 1) / kStride;
  const std::string name = "block " + std::to_string(block) + ": ";
  if (payload.size() < 12 * k + 8) corrupt(name + "payload shorter than its tables");
  FastPayload p;
  p.samples.resize(k);
  p.index.resize(k);
  for (std::size_t i = 0; i < k; ++i) p.samples[i] = get<std::uint32_t>(payload, 4 * i);
  for (std::size_t i = 0; i < k; ++i) p.index[i] = get<std::uint64_t>(payload, 4 * k + 8 * i);
  p.bits = get<std::uint64_t>(payload, 12 * k);
  p.words_raw = payload.subspan(12 * k + 8);
  if (p.words_raw.size() != (p.bits + 31) / 32 * 4) corrupt(name + "stream size does not match its bit count");
  return p;
}

}  // namespace parcomp::pipeline
