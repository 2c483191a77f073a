// SHA-256 (FIPS 180-4), for verifying datasets and naming the exact bytes a result came from.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace parcomp::datasets {

class Sha256 {
 public:
  Sha256();
  void update(std::span<const std::byte> data);
  void update(const void* data, std::size_t bytes) { update({static_cast<const std::byte*>(data), bytes}); }
  std::array<std::uint8_t, 32> digest();  // finalises; call once
  std::string hex_digest();               // finalises; lowercase hex

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::span<const std::byte> data);
template <typename T>
std::string sha256_hex_of(std::span<const T> values) {
  return sha256_hex(std::as_bytes(values));
}

}  // namespace parcomp::datasets
