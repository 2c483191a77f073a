#include "rle.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace parcomp::reference {

std::size_t rle_encode(std::span<const std::int32_t> in, std::span<std::int32_t> symbols_out,
                       std::span<std::int32_t> counts_out) {
  const std::size_t n = in.size();
  if (n == 0) return 0;
  if (symbols_out.size() < n || counts_out.size() < n)
    throw std::invalid_argument("rle_encode: output capacity smaller than the input");
  std::size_t out_index = 0;
  std::int32_t symbol = in[0];
  std::int32_t count = 1;
  for (std::size_t i = 1; i < n; ++i) {
    if (in[i] != symbol) {
      symbols_out[out_index] = symbol;
      counts_out[out_index] = count;
      ++out_index;
      symbol = in[i];
      count = 1;
    } else {
      ++count;
    }
  }
  symbols_out[out_index] = symbol;
  counts_out[out_index] = count;
  return out_index + 1;
}

RlePairs rle_encode(std::span<const std::int32_t> in) {
  RlePairs pairs;
  pairs.symbols.resize(in.size());
  pairs.counts.resize(in.size());
  const std::size_t runs = rle_encode(in, pairs.symbols, pairs.counts);
  pairs.symbols.resize(runs);
  pairs.counts.resize(runs);
  return pairs;
}

std::size_t rle_decode(std::span<const std::int32_t> symbols, std::span<const std::int32_t> counts,
                       std::span<std::int32_t> out) {
  if (symbols.size() != counts.size()) throw std::invalid_argument("rle_decode: symbols and counts differ in length");
  std::size_t pos = 0;
  for (std::size_t r = 0; r < symbols.size(); ++r) {
    if (counts[r] < 1) throw std::invalid_argument("rle_decode: run " + std::to_string(r) + " has count < 1");
    const auto count = static_cast<std::size_t>(counts[r]);
    if (count > out.size() - pos) throw std::invalid_argument("rle_decode: runs exceed the output capacity");
    std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(pos), count, symbols[r]);
    pos += count;
  }
  return pos;
}

std::vector<std::int32_t> rle_decode(std::span<const std::int32_t> symbols, std::span<const std::int32_t> counts) {
  std::size_t total = 0;
  for (const std::int32_t c : counts) total += c > 0 ? static_cast<std::size_t>(c) : 0;
  std::vector<std::int32_t> out(total);
  rle_decode(symbols, counts, out);
  return out;
}

}  // namespace parcomp::reference
