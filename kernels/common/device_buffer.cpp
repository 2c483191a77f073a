#include "device_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace parcomp {

namespace device_memory {
namespace {
struct Ledger {
  std::mutex m;
  std::map<int, std::uint64_t> held;
  std::uint64_t total = 0, peak = 0, limit = 0;
  Ledger() {
    if (const char* env = std::getenv("PARCOMP_GPU_MEMORY_LIMIT"); env != nullptr && *env != '\0') limit = parse_bytes(env);
  }
};
Ledger& ledger() {
  static Ledger l;
  return l;
}
}  // namespace

std::uint64_t in_use() {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  return l.total;
}
std::uint64_t in_use(int device) {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  const auto it = l.held.find(device);
  return it == l.held.end() ? 0 : it->second;
}
std::uint64_t peak() {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  return l.peak;
}
void reset_peak() {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  l.peak = l.total;
}
void set_limit(std::uint64_t bytes_per_device) {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  l.limit = bytes_per_device;
}
std::uint64_t limit() {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  return l.limit;
}

std::uint64_t parse_bytes(const std::string& text) {
  std::size_t end = 0;
  unsigned long long v = 0;
  try {
    if (text.empty() || text[0] < '0' || text[0] > '9') throw std::invalid_argument(text);
    v = std::stoull(text, &end);
  } catch (const std::exception&) {
    throw ContractError("not a size in bytes: \"" + text + "\" (a number, with K, M, G or T for powers of 1024)");
  }
  int shift = 0;
  if (end + 1 == text.size()) {
    switch (text[end]) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      default: end = 0;
    }
    if (shift != 0) end = text.size();
  }
  if (end != text.size() || (shift != 0 && v > (~0ull >> shift)))
    throw ContractError("not a size in bytes: \"" + text + "\" (a number, with K, M, G or T for powers of 1024)");
  return static_cast<std::uint64_t>(v) << shift;
}

namespace {
// Counts `bytes` on `device`, or throws DeviceMemoryError where the cap would be passed.
void reserve(int device, std::size_t bytes) {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  std::uint64_t& held = l.held[device];
  if (l.limit != 0 && held + bytes > l.limit)
    throw DeviceMemoryError(cudaErrorMemoryAllocation, "device allocation of " + std::to_string(bytes) + " bytes refused on device " +
                                                           std::to_string(device) + ": the process holds " + std::to_string(held) +
                                                           " of its limit of " + std::to_string(l.limit) + " bytes there");
  held += bytes;
  l.total += bytes;
  l.peak = std::max(l.peak, l.total);
}
void release(int device, std::size_t bytes) noexcept {
  Ledger& l = ledger();
  const std::lock_guard lock(l.m);
  l.held[device] -= bytes;
  l.total -= bytes;
}
}  // namespace
}  // namespace device_memory

DeviceBytes::DeviceBytes(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  if (cudaGetDevice(&device_) != cudaSuccess) {
    (void)cudaGetLastError();
    device_ = 0;
  }
  device_memory::reserve(device_, bytes);  // the cap, before CUDA is asked
  const cudaError_t status = cudaMalloc(&ptr_, bytes);
  if (status != cudaSuccess) {
    device_memory::release(device_, bytes);
    (void)cudaGetLastError();
    std::size_t free_bytes = 0, total_bytes = 0;
    std::string mem;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      mem = ", " + std::to_string(free_bytes >> 20) + " MiB free of " + std::to_string(total_bytes >> 20) + " MiB";
    (void)cudaGetLastError();
    ptr_ = nullptr;
    bytes_ = 0;
    const std::string what = "cudaMalloc of " + std::to_string(bytes) + " bytes failed: " + cudaGetErrorString(status) + mem;
    if (status == cudaErrorMemoryAllocation) throw DeviceMemoryError(status, what);
    throw CudaError(status, what);
  }
}

DeviceBytes::~DeviceBytes() { reset(); }

void DeviceBytes::reset() noexcept {
  if (ptr_ != nullptr) {
    PARCOMP_CUDA_CHECK_NOTHROW(cudaFree(ptr_));
    device_memory::release(device_, bytes_);
  }
  ptr_ = nullptr;
  bytes_ = 0;
}

}  // namespace parcomp
