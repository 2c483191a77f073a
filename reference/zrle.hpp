// Serial CPU oracle for bzip2's zero-run stage after MTF (Seward's bzip2 RUNA/RUNB coding), as the
// pipeline's fast configuration uses it (ours; the thesis has no such stage). In a byte alphabet:
//   a run of r zeros   -> the bijective base-2 digits of r, least significant first:
//                         RUNA (symbol 0) for digit 1, RUNB (symbol 1) for digit 2;
//   MTF value v 1..253 -> v + 1;
//   MTF value 254, 255 -> kEscape (255) then v - 254 (0 or 1).
// bzip2 widens its alphabet to 258 symbols instead; the escape keeps every stage on bytes, and
// values 254 and 255 are rare after MTF. A block of n bytes becomes at most 2n symbols.
#pragma once

#include "core/stages.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

using stages::kRunA;
using stages::kRunB;
using stages::kZrleEscape;
using stages::zrle_max_symbols;

std::vector<std::uint8_t> zrle_encode(std::span<const std::uint8_t> mtf);
// Decodes to exactly n bytes; throws std::invalid_argument otherwise (damaged stream: an escape
// without its second symbol or with one above 1, a run past n, too few bytes).
std::vector<std::uint8_t> zrle_decode(std::span<const std::uint8_t> symbols, std::size_t n);

}  // namespace parcomp::reference
