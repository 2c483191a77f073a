#include "zrle.hpp"

#include <stdexcept>
#include <string>

namespace parcomp::reference {

std::vector<std::uint8_t> zrle_encode(std::span<const std::uint8_t> mtf) {
  std::vector<std::uint8_t> out;
  out.reserve(mtf.size() / 2 + 16);
  std::size_t i = 0;
  while (i < mtf.size()) {
    if (mtf[i] == 0) {
      std::uint64_t run = 0;
      while (i < mtf.size() && mtf[i] == 0) ++run, ++i;
      for (; run > 0; run = (run - 1) / 2) out.push_back((run & 1) != 0 ? kRunA : kRunB);
      continue;
    }
    const std::uint8_t v = mtf[i++];
    if (v <= 253) {
      out.push_back(static_cast<std::uint8_t>(v + 1));
    } else {
      out.push_back(kZrleEscape);
      out.push_back(static_cast<std::uint8_t>(v - 254));
    }
  }
  return out;
}

std::vector<std::uint8_t> zrle_decode(std::span<const std::uint8_t> symbols, std::size_t n) {
  std::vector<std::uint8_t> out;
  out.reserve(n);
  auto fail = [&](const std::string& what, std::size_t at) {
    throw std::invalid_argument("zero-run stage: " + what + " at symbol " + std::to_string(at));
  };
  std::uint64_t run = 0, weight = 1;  // the pending run and the next digit's weight
  auto flush = [&](std::size_t at) {
    if (run > n - out.size()) fail("a run past the block's end", at);
    out.insert(out.end(), run, 0);
    run = 0;
    weight = 1;
  };
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    const std::uint8_t s = symbols[i];
    if (s == kRunA || s == kRunB) {
      if (weight > (std::uint64_t{1} << 40)) fail("a run too long", i);
      run += weight * (s == kRunA ? 1 : 2);
      weight *= 2;
      continue;
    }
    flush(i);
    std::uint8_t v;
    if (s == kZrleEscape) {
      if (i + 1 >= symbols.size() || symbols[i + 1] > 1) fail("a bad escape", i);
      v = static_cast<std::uint8_t>(254 + symbols[++i]);
    } else {
      v = static_cast<std::uint8_t>(s - 1);
    }
    if (out.size() >= n) fail("a value past the block's end", i);
    out.push_back(v);
  }
  flush(symbols.size());
  if (out.size() != n) throw std::invalid_argument("zero-run stage: decodes to " + std::to_string(out.size()) +
                                                   " bytes, the block has " + std::to_string(n));
  return out;
}

}  // namespace parcomp::reference
