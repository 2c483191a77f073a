#include "crc32.hpp"

#include <array>

namespace parcomp {

namespace {

// Slicing by 8: eight tables, 8 bytes a step.
struct Tables {
  std::array<std::array<std::uint32_t, 256>, 8> t{};
  Tables() {
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
  }
};
const Tables& tables() {
  static const Tables t;
  return t;
}

// GF(2) 32x32 matrix times vector, and matrix squared (zlib's crc32_combine).
std::uint32_t times(const std::array<std::uint32_t, 32>& m, std::uint32_t v) {
  std::uint32_t sum = 0;
  for (int i = 0; v != 0; ++i, v >>= 1)
    if ((v & 1u) != 0) sum ^= m[static_cast<std::size_t>(i)];
  return sum;
}
std::array<std::uint32_t, 32> square(const std::array<std::uint32_t, 32>& m) {
  std::array<std::uint32_t, 32> r{};
  for (std::size_t i = 0; i < 32; ++i) r[i] = times(m, m[i]);
  return r;
}

}  // namespace

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc) {
  const auto& t = tables().t;
  crc = ~crc;
  const std::uint8_t* p = bytes.data();
  std::size_t n = bytes.size();
  while (n >= 8) {
    const std::uint32_t lo = crc ^ (std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24);
    crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^
          t[1][p[6]] ^ t[0][p[7]];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = t[0][(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b) {
  if (length_b == 0) return crc_a;
  std::array<std::uint32_t, 32> odd{}, even{};
  odd[0] = 0xEDB88320u;  // the operator for one zero bit
  for (std::size_t i = 1; i < 32; ++i) odd[i] = 1u << (i - 1);
  even = square(odd);  // two zero bits
  odd = square(even);  // four zero bits
  do {  // apply length_b zero bytes to crc_a
    even = square(odd);
    if ((length_b & 1u) != 0) crc_a = times(even, crc_a);
    length_b >>= 1;
    if (length_b == 0) break;
    odd = square(even);
    if ((length_b & 1u) != 0) crc_a = times(odd, crc_a);
    length_b >>= 1;
  } while (length_b != 0);
  return crc_a ^ crc_b;
}

}  // namespace parcomp
