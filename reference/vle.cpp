#include "vle.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace parcomp::reference {

namespace {

// The table of symbol i: tables[selectors[i / group]] (one table: selectors empty).
struct TablePicker {
  std::span<const CodeTable> tables;
  std::span<const std::uint8_t> selectors;
  std::size_t group;
  const CodeTable& operator()(std::size_t i) const {
    if (selectors.empty()) return tables[0];
    const std::size_t g = i / group;
    if (g >= selectors.size() || selectors[g] >= tables.size())
      throw std::invalid_argument("vle: symbol " + std::to_string(i) + " has no valid table selector");
    return tables[selectors[g]];
  }
};

VleStream encode_with(std::span<const std::uint8_t> in, const TablePicker& pick) {
  VleStream out;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::uint8_t s = in[i];
    if (pick(i)[s].length == 0) throw std::invalid_argument("vle_encode: symbol " + std::to_string(s) + " has no codeword");
    total += pick(i)[s].length;
  }
  out.bits = total;
  out.words.assign((total + 31) / 32, 0);
  // A 64-bit accumulator: codewords enter at the bottom, full 32-bit words leave from the top.
  std::uint64_t acc = 0;
  int pending = 0;
  std::size_t w = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Codeword c = pick(i)[in[i]];
    acc = (acc << c.length) | c.bits;
    pending += c.length;
    if (pending >= 32) {
      pending -= 32;
      out.words[w++] = static_cast<std::uint32_t>(acc >> pending);
    }
  }
  if (pending > 0) out.words[w] = static_cast<std::uint32_t>(acc << (32 - pending));
  return out;
}

}  // namespace

std::uint64_t vle_encode_into(std::span<const std::uint8_t> in, const CodeTable& table, std::span<std::uint32_t> out) {
  std::uint64_t acc = 0, bits = 0;
  int pending = 0;
  std::uint32_t* w = out.data();
  for (const std::uint8_t s : in) {
    const Codeword c = table[s];
    acc = (acc << c.length) | c.bits;
    pending += c.length;
    bits += c.length;
    if (pending >= 32) {
      pending -= 32;
      *w++ = static_cast<std::uint32_t>(acc >> pending);
    }
  }
  if (pending > 0) *w = static_cast<std::uint32_t>(acc << (32 - pending));
  return bits;
}

// A serial encoder without a branch on whether a word is full (taken about once in
// 32 / entropy symbols, so mispredicted most at middle entropies). After each codeword the total
// bit count says where the stream stands: the last full word and the partial one after it are
// both written from the 64-bit accumulator (their indices follow from the count, not from a
// comparison); later codewords rewrite the partial word until it is full. The table is copied
// first into one word per symbol (code above, length below) that the stores cannot alias.
std::uint64_t vle_encode_into_branchless(std::span<const std::uint8_t> in, const CodeTable& table, std::span<std::uint32_t> out) {
  std::array<std::uint64_t, 256> packed;
  for (int s = 0; s < 256; ++s) packed[static_cast<std::size_t>(s)] = std::uint64_t{table[static_cast<std::size_t>(s)].bits} << 8 | table[static_cast<std::size_t>(s)].length;
  const std::uint8_t* p = in.data();
  const std::size_t n = in.size();
  std::uint64_t acc = 0, bits = 0;
  std::uint32_t* o = out.data();
  std::size_t i = 0;
  const auto add = [&](std::uint8_t s) {
    const std::uint64_t c = packed[s];
    const unsigned len = static_cast<unsigned>(c & 0xFF);
    acc = (acc << len) | (c >> 8);
    bits += len;
  };
  // Until the first word is full there is no full word to write.
  for (; i < n && bits < 32; ++i) add(p[i]);
  if (bits >= 32) o[0] = static_cast<std::uint32_t>(acc >> (bits - 32));
  // Every codeword but the last: the partial word at bits / 32 exists since more bits follow.
  for (; i + 1 < n; ++i) {
    add(p[i]);
    const unsigned r = static_cast<unsigned>(bits & 31);
    const std::size_t k = static_cast<std::size_t>(bits >> 5);
    o[k - 1] = static_cast<std::uint32_t>(acc >> r);
    o[k] = static_cast<std::uint32_t>((acc << 32) >> r);
  }
  if (i < n) {
    add(p[i]);
    const unsigned r = static_cast<unsigned>(bits & 31);
    const std::size_t k = static_cast<std::size_t>(bits >> 5);
    if (k >= 1) o[k - 1] = static_cast<std::uint32_t>(acc >> r);
    if (r > 0) o[k] = static_cast<std::uint32_t>((acc << 32) >> r);
  } else if (bits > 0 && bits < 32) {
    o[0] = static_cast<std::uint32_t>(acc << (32 - bits));
  } else if ((bits & 31) != 0) {
    o[bits >> 5] = static_cast<std::uint32_t>((acc << 32) >> (bits & 31));
  }
  return bits;
}

namespace {

// Canonical decoding: per length, the first code and the symbols of that length in order.
struct CanonicalDecoder {
  std::array<std::uint32_t, 33> first{}, count{};
  std::array<std::vector<std::uint8_t>, 33> by_length;
  explicit CanonicalDecoder(const CodeTable& table) {
    for (int s = 0; s < 256; ++s)
      if (table[s].length != 0) by_length[table[s].length].push_back(static_cast<std::uint8_t>(s));
    for (int l = 1; l <= 32; ++l) {
      count[l] = static_cast<std::uint32_t>(by_length[l].size());
      if (count[l] != 0) first[l] = table[by_length[l][0]].bits;
    }
  }
};

std::vector<std::uint8_t> decode_with(const VleStream& stream, std::size_t symbols, std::span<const CodeTable> tables,
                                      std::span<const std::uint8_t> selectors, std::size_t group) {
  std::vector<CanonicalDecoder> decoders;
  for (const CodeTable& t : tables) decoders.emplace_back(t);
  const TablePicker pick{tables, selectors, group};
  std::vector<std::uint8_t> out;
  out.reserve(symbols);
  std::uint64_t pos = 0;
  while (out.size() < symbols) {
    const CanonicalDecoder& d = decoders[static_cast<std::size_t>(&pick(out.size()) - tables.data())];
    std::uint32_t code = 0;
    int length = 0;
    for (;;) {
      if (pos >= stream.bits) throw std::invalid_argument("vle_decode: the stream ends inside a codeword");
      if (pos / 32 >= stream.words.size()) throw std::invalid_argument("vle_decode: the stream is shorter than its bit count");
      code = (code << 1) | ((stream.words[pos / 32] >> (31 - pos % 32)) & 1u);
      ++pos;
      if (++length > 32) throw std::invalid_argument("vle_decode: no codeword matches");
      if (d.count[length] != 0 && code >= d.first[length] && code - d.first[length] < d.count[length]) break;
    }
    out.push_back(d.by_length[length][code - d.first[length]]);
  }
  return out;
}

}  // namespace

VleStream vle_encode(std::span<const std::uint8_t> in, const CodeTable& table) {
  return encode_with(in, TablePicker{std::span(&table, 1), {}, 1});
}

VleStream vle_encode(std::span<const std::uint8_t> in, std::span<const CodeTable> tables,
                     std::span<const std::uint8_t> selectors, std::size_t group) {
  return encode_with(in, TablePicker{tables, selectors, group});
}

std::vector<std::uint8_t> vle_decode(const VleStream& stream, std::size_t symbols, const CodeTable& table) {
  return decode_with(stream, symbols, std::span(&table, 1), {}, 1);
}

std::vector<std::uint8_t> vle_decode(const VleStream& stream, std::size_t symbols, std::span<const CodeTable> tables,
                                     std::span<const std::uint8_t> selectors, std::size_t group) {
  return decode_with(stream, symbols, tables, selectors, group);
}

}  // namespace parcomp::reference
