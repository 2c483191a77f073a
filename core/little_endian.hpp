// Little-endian integers in byte buffers, as the parcomp container and stream store them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp {

// Appends v's sizeof(T) bytes, lowest first.
template <typename T>
void put_le(std::vector<std::uint8_t>& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}

// The T stored lowest byte first at `at` (the caller checks that sizeof(T) bytes are there).
template <typename T>
T get_le(std::span<const std::uint8_t> in, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<std::uint64_t>(in[at + i]) << (8 * i);
  return static_cast<T>(v);
}

}  // namespace parcomp
