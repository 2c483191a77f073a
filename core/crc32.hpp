// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320; zlib's and gzip's): every block's and
// stream's checksum in the parcomp formats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace parcomp {

// CRC-32 of `bytes`, continuing from `crc` (the CRC of what came before; 0 to start).
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);

// CRC-32 of A followed by B from crc32(A), crc32(B) and B's length (zlib's crc32_combine).
std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b);

}  // namespace parcomp
