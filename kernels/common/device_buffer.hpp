// RAII device memory. Allocation failures are exceptions naming the size and the reason.
#pragma once

#include "cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace parcomp {

// Untyped device allocation; cudaMalloc at construction, cudaFree at destruction.
class DeviceBytes {
 public:
  DeviceBytes() = default;
  explicit DeviceBytes(std::size_t bytes);
  ~DeviceBytes();
  DeviceBytes(DeviceBytes&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  DeviceBytes& operator=(DeviceBytes&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;

  void* data() const noexcept { return ptr_; }
  std::size_t size_bytes() const noexcept { return bytes_; }
  void reset() noexcept;

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Typed view over DeviceBytes with host<->device helpers. The helpers are fully synchronous: they
// return after the device finished (cudaDeviceSynchronize), so work on any stream, non-blocking
// ones included, sees their result. Not for timed regions.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : bytes_(count * sizeof(T)), count_(count) {}

  T* data() const noexcept { return static_cast<T*>(bytes_.data()); }
  std::size_t size() const noexcept { return count_; }
  std::size_t size_bytes() const noexcept { return count_ * sizeof(T); }
  // At least `count` elements: reallocated (contents lost) only when the buffer is smaller, so
  // that a reused object keeps its memory from one use to the next.
  void grow(std::size_t count) {
    if (count > count_) *this = DeviceBuffer(count);
  }

  void upload(std::span<const T> host) {
    if (host.size() > count_) throw ContractError("DeviceBuffer::upload: host span larger than buffer");
    if (!host.empty())
      PARCOMP_CUDA_CHECK(cudaMemcpy(data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
    // A pageable upload may return before its DMA lands.
    PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<T> download(std::size_t count) const {
    if (count > count_) throw ContractError("DeviceBuffer::download: count larger than buffer");
    std::vector<T> out(count);
    PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
    if (count != 0)
      PARCOMP_CUDA_CHECK(cudaMemcpy(out.data(), data(), count * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
  }
  std::vector<T> download() const { return download(count_); }
  // Fill every byte with `byte` (poisoning outputs before a run). cudaMemset is asynchronous to
  // the host and ordered only on the legacy stream: wait for it.
  void fill_bytes(int byte) {
    if (count_ != 0) PARCOMP_CUDA_CHECK(cudaMemset(data(), byte, size_bytes()));
    PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
  }

 private:
  DeviceBytes bytes_;
  std::size_t count_ = 0;
};

}  // namespace parcomp
