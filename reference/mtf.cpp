#include "mtf.hpp"

#include <array>
#include <numeric>
#include <stdexcept>

namespace parcomp::reference {

namespace {
using List = std::array<std::uint8_t, 256>;

List identity_list() {
  List l{};
  std::iota(l.begin(), l.end(), 0);
  return l;
}

// Calls body(first, last) for each segment.
template <typename Body>
void for_each_segment(std::size_t n, std::size_t segment_bytes, Body&& body) {
  const std::size_t seg = segment_bytes == 0 ? n : segment_bytes;
  for (std::size_t first = 0; first < n; first += seg) body(first, std::min(n, first + seg));
}

void check(std::size_t in, std::size_t out) {
  if (out < in) throw std::invalid_argument("mtf: output smaller than input");
}
}  // namespace

void mtf_encode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, std::size_t segment_bytes) {
  check(in.size(), out.size());
  for_each_segment(in.size(), segment_bytes, [&](std::size_t first, std::size_t last) {
    List list = identity_list();
    for (std::size_t j = first; j < last; ++j) {
      const std::uint8_t k = in[j];
      std::size_t pos = 0;
      while (list[pos] != k) ++pos;  // K's position in the list
      out[j] = static_cast<std::uint8_t>(pos);
      for (; pos > 0; --pos) list[pos] = list[pos - 1];  // move K to the front
      list[0] = k;
    }
  });
}

void mtf_decode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, std::size_t segment_bytes) {
  check(in.size(), out.size());
  for_each_segment(in.size(), segment_bytes, [&](std::size_t first, std::size_t last) {
    List list = identity_list();
    for (std::size_t j = first; j < last; ++j) {
      std::size_t pos = in[j];
      const std::uint8_t k = list[pos];
      out[j] = k;
      for (; pos > 0; --pos) list[pos] = list[pos - 1];
      list[0] = k;
    }
  });
}

std::vector<std::uint8_t> mtf_encode(std::span<const std::uint8_t> in, std::size_t segment_bytes) {
  std::vector<std::uint8_t> out(in.size());
  mtf_encode(in, out, segment_bytes);
  return out;
}

std::vector<std::uint8_t> mtf_decode(std::span<const std::uint8_t> in, std::size_t segment_bytes) {
  std::vector<std::uint8_t> out(in.size());
  mtf_decode(in, out, segment_bytes);
  return out;
}

}  // namespace parcomp::reference
