// Carving one caller-provided scratch allocation into aligned sub-arrays. The same code computes
// the size (base == nullptr) and hands out the pointers, so the two can never disagree.
#pragma once

#include "cuda_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace parcomp {

class ScratchCarver {
 public:
  static constexpr std::size_t kAlignment = 256;

  ScratchCarver(void* base, std::size_t capacity) : base_(static_cast<std::byte*>(base)), capacity_(capacity) {}
  // Sizing mode: take() returns nullptr and only counts.
  ScratchCarver() = default;

  template <typename T>
  T* take(std::size_t count) {
    return static_cast<T*>(take_bytes(count * sizeof(T)));
  }
  void* take_bytes(std::size_t bytes) {
    const std::size_t offset = used_;
    used_ += (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (base_ == nullptr) return nullptr;
    if (used_ > capacity_)
      throw ContractError("scratch too small: need at least " + std::to_string(used_) + " bytes, got " +
                          std::to_string(capacity_));
    return base_ + offset;
  }
  std::size_t used() const noexcept { return used_; }

 private:
  std::byte* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

}  // namespace parcomp
