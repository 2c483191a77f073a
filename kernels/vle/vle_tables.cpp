// Host-side PAVLE tables: the packed encoder table, the decoder's tables, names and sizes.
#include "../common/cuda_check.hpp"
#include "vle.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace parcomp::vle {

std::string name(const Config& c) {
  if (c.kernel == Kernel::fast)
    return c.fast_symbols_per_thread == 0 ? "gpu.fast" : "gpu.fast.spt" + std::to_string(c.fast_symbols_per_thread);
  std::string s = c.kernel == Kernel::gm32 ? "gpu.gm32" : c.kernel == Kernel::sm32 ? "gpu.sm32" : "gpu.sm64huff";
  if (c.table_in_shared) s += ".tc";
  if (c.cache_aggregates) s += ".ac";
  if (c.dpt != 1) s += ".dpt" + std::to_string(c.dpt);
  return s;
}

int max_code_length(Kernel k) {
  switch (k) {
    case Kernel::gm32:
    case Kernel::sm32: return 8;
    case Kernel::sm64huff: return 16;
    case Kernel::fast: return 24;
  }
  return 0;
}

PackedTable pack_table(std::span<const std::uint32_t, 256> codes, std::span<const std::uint8_t, 256> lengths) {
  PackedTable t{};
  t.max_length = 0;
  for (int s = 0; s < 256; ++s) {
    if (lengths[s] > 24) throw ContractError("vle: codewords longer than 24 bits cannot be packed");
    t.entries[s] = (codes[s] << 8) | lengths[s];
    t.max_length = std::max<int>(t.max_length, lengths[s]);
  }
  return t;
}

std::size_t output_words(std::size_t n, int max_length) {
  return (n * static_cast<std::size_t>(max_length) + 31) / 32 + 2;
}

DecodeTable make_decode_table(std::span<const std::uint32_t, 256> codes, std::span<const std::uint8_t, 256> lengths) {
  DecodeTable t{};
  std::vector<int> used;
  for (int s = 0; s < 256; ++s) {
    if (lengths[s] == 0) continue;
    if (lengths[s] > DecodeTable::kMaxLength)
      throw ContractError("vle::make_decode_table: symbol " + std::to_string(s) + " has a " +
                          std::to_string(lengths[s]) + "-bit code; the decoder takes at most 24");
    if (lengths[s] < 32 && (codes[s] >> lengths[s]) != 0)
      throw ContractError("vle::make_decode_table: code of symbol " + std::to_string(s) + " exceeds its length");
    used.push_back(s);
  }
  if (used.empty()) throw ContractError("vle::make_decode_table: no symbol has a code");
  // Prefix-free: no code is the start of another.
  for (const int a : used)
    for (const int b : used)
      if (a != b && lengths[a] <= lengths[b] && (codes[b] >> (lengths[b] - lengths[a])) == codes[a])
        throw ContractError("vle::make_decode_table: not a prefix code (symbol " + std::to_string(a) +
                            "'s code starts symbol " + std::to_string(b) + "'s)");
  // By code: per length consecutive codes, in symbol order (what canonical codes give).
  std::sort(used.begin(), used.end(), [&](int a, int b) {
    return lengths[a] != lengths[b] ? lengths[a] < lengths[b] : codes[a] < codes[b];
  });
  for (std::size_t i = 0; i < used.size(); ++i) {
    const int s = used[i], l = lengths[s];
    t.symbols[i] = static_cast<std::uint8_t>(s);
    if (t.count[l] == 0) {
      t.first[l] = codes[s];
      t.offset[l] = static_cast<std::uint32_t>(i);
    } else if (codes[s] != t.first[l] + t.count[l] || s < used[i - 1]) {
      throw ContractError("vle::make_decode_table: the codes of length " + std::to_string(l) +
                          " are not consecutive in symbol order (not canonical)");
    }
    ++t.count[l];
    t.max_length = std::max<std::int32_t>(t.max_length, l);
    if (l <= DecodeTable::kLutBits) {
      const int span = 1 << (DecodeTable::kLutBits - l);
      for (int j = 0; j < span; ++j)
        t.lut[(codes[s] << (DecodeTable::kLutBits - l)) + static_cast<std::uint32_t>(j)] =
            static_cast<std::uint16_t>((s << 5) | l);
    }
  }
  return t;
}

}  // namespace parcomp::vle
