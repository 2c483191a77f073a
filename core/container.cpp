#include "container.hpp"

#include "core/errors.hpp"
#include "core/little_endian.hpp"

#include <bit>
#include <cstring>

namespace parcomp::pipeline {

namespace {

[[noreturn]] void corrupt(const std::string& what) { throw CorruptDataError("parcomp container: " + what); }

}  // namespace

std::string config_name(Config c) { return c == Config::paper ? "paper" : "fast"; }

void put_u32s(std::vector<std::uint8_t>& out, std::span<const std::uint32_t> v) {
  for (const auto x : v) put_le<std::uint32_t>(out, x);
}
void put_u64s(std::vector<std::uint8_t>& out, std::span<const std::uint64_t> v) {
  for (const auto x : v) put_le<std::uint64_t>(out, x);
}

std::vector<std::uint8_t> assemble(Layout layout, const std::vector<std::vector<std::uint8_t>>& payloads) {
  const std::vector<std::span<const std::uint8_t>> views(payloads.begin(), payloads.end());
  std::vector<std::uint8_t> out;
  assemble_into(std::move(layout), views, out);
  return out;
}

void assemble_into(Layout layout, std::span<const std::span<const std::uint8_t>> payloads, std::vector<std::uint8_t>& out) {
  if (payloads.size() != layout.blocks.size()) throw ContractError("pipeline::assemble: one payload per block");
  std::size_t total = kHeaderBytes + entry_bytes(layout.config) * layout.blocks.size() + 4;
  for (const auto& p : payloads) total += p.size();
  out.clear();
  out.reserve(total);
  put_le<std::uint32_t>(out, 0x504D4350u);  // "PCMP"
  put_le<std::uint16_t>(out, static_cast<std::uint16_t>(kVersion));
  put_le<std::uint8_t>(out, static_cast<std::uint8_t>(layout.config));
  put_le<std::uint8_t>(out, 0);
  put_le<std::uint32_t>(out, layout.block_bytes);
  put_le<std::uint32_t>(out, static_cast<std::uint32_t>(layout.blocks.size()));
  put_le<std::uint64_t>(out, layout.original_bytes);
  put_le<std::uint32_t>(out, 0);
  put_le<std::uint32_t>(out, crc32(out));
  const std::size_t entry = entry_bytes(layout.config);
  std::uint64_t offset = kHeaderBytes + entry * layout.blocks.size() + 4;
  const std::size_t index_start = out.size();
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    BlockEntry& e = layout.blocks[b];
    e.payload_offset = offset;
    e.payload_bytes = static_cast<std::uint32_t>(payloads[b].size());
    offset += payloads[b].size();
    put_le<std::uint64_t>(out, e.payload_offset);
    put_le<std::uint32_t>(out, e.payload_bytes);
    put_le<std::uint32_t>(out, e.original_bytes);
    put_le<std::uint32_t>(out, e.primary);
    put_le<std::uint32_t>(out, e.crc);
    if (layout.config == Config::paper) out.insert(out.end(), e.lengths.begin(), e.lengths.end());
  }
  put_le<std::uint32_t>(out, crc32(std::span(out).subspan(index_start)));
  for (const auto& p : payloads) out.insert(out.end(), p.begin(), p.end());
}

Layout parse(std::span<const std::uint8_t> file) {
  // Every message names where the damage is: "header: <field>", "block index: ..." or
  // "block <k>: <field>".
  if (file.size() < kHeaderBytes) corrupt("header: truncated (" + std::to_string(file.size()) + " bytes)");
  if (get_le<std::uint32_t>(file, 0) != 0x504D4350u) corrupt("header: magic: not a parcomp file");
  if (crc32(file.first(28)) != get_le<std::uint32_t>(file, 28)) corrupt("header: checksum mismatch");
  if (get_le<std::uint16_t>(file, 4) != kVersion) corrupt("header: version " + std::to_string(get_le<std::uint16_t>(file, 4)) + " unsupported");
  Layout l;
  const std::uint8_t config = file[6];
  if (config > 1) corrupt("header: configuration " + std::to_string(config) + " unknown");
  l.config = static_cast<Config>(config);
  l.block_bytes = get_le<std::uint32_t>(file, 8);
  const std::uint32_t count = get_le<std::uint32_t>(file, 12);
  l.original_bytes = get_le<std::uint64_t>(file, 16);
  if (l.block_bytes == 0 || l.block_bytes > (1u << 24)) corrupt("header: block size " + std::to_string(l.block_bytes) + " out of range");
  // Without overflow: original_bytes may be anything up to 2^64 - 1 in a damaged header.
  const std::uint64_t want_count = l.original_bytes / l.block_bytes + (l.original_bytes % l.block_bytes != 0 ? 1 : 0);
  if (count != want_count)
    corrupt("header: block count " + std::to_string(count) + " does not match the original size " + std::to_string(l.original_bytes));
  const std::size_t entry = entry_bytes(l.config);
  const std::uint64_t index_end = kHeaderBytes + entry * static_cast<std::uint64_t>(count) + 4;
  if (file.size() < index_end) corrupt("block index: truncated");
  const auto index = file.subspan(kHeaderBytes, entry * count);
  if (crc32(index) != get_le<std::uint32_t>(file, index_end - 4)) corrupt("block index: checksum mismatch");
  l.blocks.resize(count);
  std::uint64_t expect = index_end;
  for (std::uint32_t b = 0; b < count; ++b) {
    const std::size_t at = kHeaderBytes + entry * b;
    BlockEntry& e = l.blocks[b];
    e.payload_offset = get_le<std::uint64_t>(file, at);
    e.payload_bytes = get_le<std::uint32_t>(file, at + 8);
    e.original_bytes = get_le<std::uint32_t>(file, at + 12);
    e.primary = get_le<std::uint32_t>(file, at + 16);
    e.crc = get_le<std::uint32_t>(file, at + 20);
    if (l.config == Config::paper) std::memcpy(e.lengths.data(), file.data() + at + 24, 256);
    const std::uint64_t want_len = std::min<std::uint64_t>(l.block_bytes, l.original_bytes - std::uint64_t{b} * l.block_bytes);
    const std::string name = "block " + std::to_string(b) + ": ";
    if (e.original_bytes != want_len) corrupt(name + "original size " + std::to_string(e.original_bytes) + " does not match the header");
    if (e.payload_offset != expect) corrupt(name + "payload offset out of order");
    if (e.payload_offset + e.payload_bytes > file.size()) corrupt(name + "payload runs past the end of the file (truncated?)");
    if (e.primary >= e.original_bytes) corrupt(name + "primary index " + std::to_string(e.primary) + " outside the block");
    for (const std::uint8_t len : e.lengths)
      if (len > 24) corrupt(name + "code length " + std::to_string(len) + " over 24 bits");
    expect += e.payload_bytes;
  }
  if (expect != file.size()) corrupt("trailing bytes after the last block");
  return l;
}

std::vector<std::uint32_t> PaperPayload::sizes() const {
  std::vector<std::uint32_t> v(sizes_raw.size() / 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = get_le<std::uint32_t>(sizes_raw, 4 * i);
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

namespace {

// MSB-first bit fields, padded with zero bits to a whole byte at the end of each part.
class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(std::uint32_t value, int bits) {
    for (int b = bits - 1; b >= 0; --b) {
      if (fill_ == 0) out_.push_back(0);
      out_.back() |= static_cast<std::uint8_t>(((value >> b) & 1u) << (7 - fill_));
      fill_ = (fill_ + 1) % 8;
    }
  }
  void align() { fill_ = 0; }

 private:
  std::vector<std::uint8_t>& out_;
  int fill_ = 0;
};

class BitReader {
 public:
  BitReader(std::span<const std::uint8_t> in, std::size_t at, const std::string& name) : in_(in), pos_(8 * at), name_(name) {}
  std::uint32_t get(int bits) {
    std::uint32_t v = 0;
    for (int b = 0; b < bits; ++b, ++pos_) {
      if (pos_ / 8 >= in_.size()) corrupt(name_ + "payload shorter than its tables");
      v = (v << 1) | ((in_[pos_ / 8] >> (7 - pos_ % 8)) & 1u);
    }
    return v;
  }
  std::size_t align() {  // the byte where the next part starts
    pos_ = (pos_ + 7) / 8 * 8;
    return pos_ / 8;
  }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t pos_;
  const std::string& name_;
};

int row_bits(std::uint32_t original_bytes) {
  return original_bytes <= 1 ? 1 : static_cast<int>(std::bit_width(original_bytes - 1));
}

}  // namespace

void put_fast(std::vector<std::uint8_t>& out, const FastPayload& p, std::span<const std::uint32_t> words,
              std::uint32_t original_bytes) {
  put_le<std::uint32_t>(out, p.symbols);
  put_le<std::uint8_t>(out, static_cast<std::uint8_t>(p.lengths.size()));
  std::array<std::uint8_t, 32> used{};
  for (int c = 0; c < 256; ++c)
    if (!p.lengths.empty() && p.lengths[0][static_cast<std::size_t>(c)] != 0) used[static_cast<std::size_t>(c / 8)] |= static_cast<std::uint8_t>(1u << (c % 8));
  out.insert(out.end(), used.begin(), used.end());
  BitWriter w(out);
  for (const auto& l : p.lengths) {
    int current = -1;
    for (int c = 0; c < 256; ++c) {
      const int want = l[static_cast<std::size_t>(c)];
      if (p.lengths[0][static_cast<std::size_t>(c)] == 0) continue;
      if (current < 0) w.put(static_cast<std::uint32_t>(current = want), 5);
      for (; current < want; ++current) w.put(2, 2);
      for (; current > want; --current) w.put(3, 2);
      w.put(0, 1);
    }
  }
  w.align();
  std::array<std::uint8_t, 8> order{0, 1, 2, 3, 4, 5, 6, 7};  // selectors: move-to-front, then unary
  for (const std::uint8_t s : p.selectors) {
    int j = 0;
    while (order[static_cast<std::size_t>(j)] != s) ++j;
    for (int k = 0; k < j; ++k) w.put(1, 1);
    w.put(0, 1);
    for (; j > 0; --j) order[static_cast<std::size_t>(j)] = order[static_cast<std::size_t>(j - 1)];
    order[0] = s;
  }
  w.align();
  for (const std::uint32_t r : p.samples) w.put(r, row_bits(original_bytes));
  w.align();
  for (std::size_t i = 1; i < p.index.size(); ++i) put_le<std::uint16_t>(out, static_cast<std::uint16_t>(p.index[i] - p.index[i - 1]));
  put_le<std::uint64_t>(out, p.bits);
  put_u32s(out, words);
}

FastPayload split_fast(std::span<const std::uint8_t> payload, std::uint32_t original_bytes, std::size_t block) {
  const std::string name = "block " + std::to_string(block) + ": ";
  if (payload.size() < 37) corrupt(name + "payload shorter than its tables");
  FastPayload p;
  p.symbols = get_le<std::uint32_t>(payload, 0);
  const int tables = payload[4];
  if (p.symbols == 0 || p.symbols > 2 * static_cast<std::uint64_t>(original_bytes))
    corrupt(name + "symbol count " + std::to_string(p.symbols) + " impossible for " + std::to_string(original_bytes) + " bytes");
  if (tables < 1 || tables > kMaxFastTables) corrupt(name + "table count " + std::to_string(tables) + " out of range");
  std::array<bool, 256> used{};
  for (int c = 0; c < 256; ++c) used[static_cast<std::size_t>(c)] = ((payload[5 + c / 8] >> (c % 8)) & 1u) != 0;
  BitReader r(payload, 37, name);
  p.lengths.assign(static_cast<std::size_t>(tables), {});
  for (auto& l : p.lengths) {
    std::uint64_t kraft = 0;
    int current = -1;
    for (int c = 0; c < 256; ++c) {
      if (!used[static_cast<std::size_t>(c)]) continue;
      if (current < 0) current = static_cast<int>(r.get(5));
      while (r.get(1) != 0)
        if ((current += r.get(1) == 0 ? 1 : -1) < 0 || current > 32) corrupt(name + "code length out of range");
      if (current < 1 || current > kFastMaxLength) corrupt(name + "code length out of range");
      l[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(current);
      kraft += std::uint64_t{1} << (32 - current);
    }
    if (kraft > (std::uint64_t{1} << 32) || kraft == 0) corrupt(name + "code lengths are not a prefix code");
  }
  r.align();
  p.selectors.resize((p.symbols + kFastGroupSymbols - 1) / kFastGroupSymbols);
  std::array<std::uint8_t, 8> order{0, 1, 2, 3, 4, 5, 6, 7};
  for (auto& s : p.selectors) {
    int j = 0;
    while (r.get(1) != 0)
      if (++j >= tables) corrupt(name + "selector out of range");
    s = order[static_cast<std::size_t>(j)];
    for (; j > 0; --j) order[static_cast<std::size_t>(j)] = order[static_cast<std::size_t>(j - 1)];
    order[0] = s;
  }
  r.align();
  p.samples.resize((original_bytes + kFastSampleStride - 1) / kFastSampleStride);
  for (auto& s : p.samples)
    if ((s = r.get(row_bits(original_bytes))) >= original_bytes) corrupt(name + "BWT start row outside the block");
  std::size_t at = r.align();
  const std::size_t k = (p.symbols + kStride - 1) / kStride;
  if (payload.size() < at + 2 * (k - 1) + 8) corrupt(name + "payload shorter than its tables");
  p.index.assign(k, 0);
  for (std::size_t i = 1; i < k; ++i) p.index[i] = p.index[i - 1] + get_le<std::uint16_t>(payload, at + 2 * (i - 1));
  at += 2 * (k - 1);
  p.bits = get_le<std::uint64_t>(payload, at);
  p.words_raw = payload.subspan(at + 8);
  if (p.words_raw.size() != (p.bits + 31) / 32 * 4) corrupt(name + "stream size does not match its bit count");
  if (p.index.back() > p.bits) corrupt(name + "decoder index past the stream's end");
  if (p.bits > std::uint64_t{p.symbols} * kFastMaxLength) corrupt(name + "stream longer than any code allows");
  return p;
}

}  // namespace parcomp::pipeline
