// RAII device memory, counted per process and device (device_memory), with an optional cap.
// Allocation failures are DeviceMemoryError naming the size and the reason.
#pragma once

#include "cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace parcomp {

// The device memory this process holds through DeviceBytes (the CUDA context's own is not
// counted), and a cap on it per device that turns larger allocations into DeviceMemoryError
// before CUDA is asked: how a test or a user makes a GPU with little free memory.
namespace device_memory {
std::uint64_t in_use();            // on every device together
std::uint64_t in_use(int device);
std::uint64_t peak();              // the most held at once, every device together, since reset_peak()
void reset_peak();
// 0: no cap. At first use the cap is PARCOMP_GPU_MEMORY_LIMIT's (parse_bytes) where it is set.
void set_limit(std::uint64_t bytes_per_device);
std::uint64_t limit();
// "123", "64K", "512M", "2G", "1T" (powers of 1024); throws ContractError for anything else.
std::uint64_t parse_bytes(const std::string& text);
}  // namespace device_memory

// Untyped device allocation; cudaMalloc at construction, cudaFree at destruction.
class DeviceBytes {
 public:
  DeviceBytes() = default;
  explicit DeviceBytes(std::size_t bytes);
  ~DeviceBytes();
  DeviceBytes(DeviceBytes&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)), device_(other.device_) {}
  DeviceBytes& operator=(DeviceBytes&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
      device_ = other.device_;
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
  int device_ = 0;
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
    if (count <= count_) return;
    *this = DeviceBuffer();  // freed first: the old and the new are never held at once
    *this = DeviceBuffer(count);
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
