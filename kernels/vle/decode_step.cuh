// One step of canonical prefix decoding on the device, shared by the PAVLE decoder and the
// Huffman stage's block decoder: the next codeword of a left-aligned 64-bit bit window (at least
// DecodeTable::kMaxLength valid bits) through the 10-bit lookup table, or, for a longer code, the
// canonical per-length search. Returns false when no codeword matches.
#pragma once

#include "vle.hpp"

namespace parcomp::vle {

__device__ __forceinline__ bool decode_symbol(const DecodeTable& t, std::uint64_t window, std::uint32_t& symbol,
                                              std::uint32_t& length) {
  const std::uint32_t entry = t.lut[window >> (64 - DecodeTable::kLutBits)];
  if (entry != 0) {
    symbol = entry >> 5;
    length = entry & 31u;
    return true;
  }
  for (int l = DecodeTable::kLutBits + 1; l <= t.max_length; ++l) {
    const auto code = static_cast<std::uint32_t>(window >> (64 - l));
    if (code - t.first[l] < t.count[l]) {
      symbol = t.symbols[t.offset[l] + code - t.first[l]];
      length = static_cast<std::uint32_t>(l);
      return true;
    }
  }
  return false;
}

// The next symbol of a bit window: decoded, and its bits consumed (window shifted, `avail` and
// `used` updated). False when no codeword matches.
__device__ __forceinline__ bool decode_next(const DecodeTable& t, std::uint64_t& window, int& avail, std::uint64_t& used,
                                            std::uint32_t& symbol) {
  std::uint32_t length;
  if (!decode_symbol(t, window, symbol, length)) return false;
  window <<= length;
  avail -= static_cast<int>(length);
  used += length;
  return true;
}

// Decoders' status words: [0] the OR of the problems found, [1] the first damaged unit
// (subsequence or block); initialised to {0, 0xFFFFFFFF} by the host.
inline constexpr std::uint32_t kBadCode = 1, kBadLength = 2;
__device__ __forceinline__ void report_damage(std::uint32_t* status, std::uint32_t what, std::int64_t unit) {
  atomicOr(status, what);
  atomicMin(status + 1, static_cast<std::uint32_t>(min(unit, std::int64_t{0xFFFFFFFE})));
}

// Copies `count` consecutive decode tables into shared memory (the whole block takes part;
// synchronises).
__device__ __forceinline__ void load_decode_table(const DecodeTable* global, DecodeTable& shared, int count = 1) {
  static_assert(sizeof(DecodeTable) % 4 == 0, "the table is copied in 32-bit words");
  const auto* src = reinterpret_cast<const std::uint32_t*>(global);
  auto* dst = reinterpret_cast<std::uint32_t*>(&shared);
  const int words = count * static_cast<int>(sizeof(DecodeTable) / 4);
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x))
    dst[i] = src[i];
  __syncthreads();
}

}  // namespace parcomp::vle
