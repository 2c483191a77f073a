// Test inputs the CPU and GPU tests share: text from a small vocabulary (repeats like real text),
// and periodic bytes (a block of them has equal rotations).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace parcomp::testing {

inline std::vector<std::uint8_t> word_text(std::size_t n, std::uint64_t seed) {
  static const char* words[] = {"the ", "of ", "parallel ", "compression ", "block ", "GPU ", "sort ", "and\n", "x"};
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> out;
  while (out.size() < n) {
    const std::string w = words[rng() % 9];
    out.insert(out.end(), w.begin(), w.end());
  }
  out.resize(n);
  return out;
}

inline std::vector<std::uint8_t> periodic(std::size_t n, const std::string& period) {
  std::vector<std::uint8_t> out;
  while (out.size() < n) out.insert(out.end(), period.begin(), period.end());
  out.resize(n);
  return out;
}

}  // namespace parcomp::testing
