// Serial CPU oracle for the move-to-front transform (thesis Alg. 1) and its reverse (Alg. 4).
// The list starts as the identity (list[i] = i) and restarts at every segment of
// `segment_bytes` bytes (each BWT block is transformed on its own, as bzip2 and the thesis do);
// segment_bytes == 0 means one segment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace parcomp::reference {

void mtf_encode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, std::size_t segment_bytes = 0);
void mtf_decode(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, std::size_t segment_bytes = 0);
std::vector<std::uint8_t> mtf_encode(std::span<const std::uint8_t> in, std::size_t segment_bytes = 0);
std::vector<std::uint8_t> mtf_decode(std::span<const std::uint8_t> in, std::size_t segment_bytes = 0);

}  // namespace parcomp::reference
