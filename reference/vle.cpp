#include "vle.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace parcomp::reference {

VleStream vle_encode(std::span<const std::uint8_t> in, const CodeTable& table) {
  VleStream out;
  std::uint64_t total = 0;
  for (const std::uint8_t s : in) {
    if (table[s].length == 0) throw std::invalid_argument("vle_encode: symbol " + std::to_string(s) + " has no codeword");
    total += table[s].length;
  }
  out.bits = total;
  out.words.assign((total + 31) / 32, 0);
  // A 64-bit accumulator: codewords enter at the bottom, full 32-bit words leave from the top.
  std::uint64_t acc = 0;
  int pending = 0;
  std::size_t w = 0;
  for (const std::uint8_t s : in) {
    const Codeword c = table[s];
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

std::vector<std::uint8_t> vle_decode(const VleStream& stream, std::size_t symbols, const CodeTable& table) {
  // Canonical decoding: per length, the first code and the symbols of that length in order.
  std::array<std::uint32_t, 33> first{}, count{};
  std::array<std::vector<std::uint8_t>, 33> by_length;
  for (int s = 0; s < 256; ++s)
    if (table[s].length != 0) by_length[table[s].length].push_back(static_cast<std::uint8_t>(s));
  for (int l = 1; l <= 32; ++l) {
    count[l] = static_cast<std::uint32_t>(by_length[l].size());
    if (count[l] != 0) first[l] = table[by_length[l][0]].bits;
  }
  std::vector<std::uint8_t> out;
  out.reserve(symbols);
  std::uint64_t pos = 0;
  while (out.size() < symbols) {
    std::uint32_t code = 0;
    int length = 0;
    for (;;) {
      if (pos >= stream.bits) throw std::invalid_argument("vle_decode: the stream ends inside a codeword");
      code = (code << 1) | ((stream.words[pos / 32] >> (31 - pos % 32)) & 1u);
      ++pos;
      if (++length > 32) throw std::invalid_argument("vle_decode: no codeword matches");
      if (count[length] != 0 && code >= first[length] && code - first[length] < count[length]) break;
    }
    out.push_back(by_length[length][code - first[length]]);
  }
  return out;
}

}  // namespace parcomp::reference
