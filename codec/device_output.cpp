// decompress_to_device: the engine's output written into one GPU's memory. See parcomp.hpp.
#include "parcomp/parcomp.hpp"

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/nvtx.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace parcomp {

struct DeviceOutput::State {
  DeviceBytes bytes;  // counted and capped with the engine's own device memory
  std::size_t size = 0;
  int device = 0;
};

DeviceOutput::DeviceOutput() : s_(new State) {}
DeviceOutput::~DeviceOutput() { delete s_; }  // cudaFree takes a pointer of any device
DeviceOutput::DeviceOutput(DeviceOutput&& other) noexcept : s_(std::exchange(other.s_, nullptr)) {}
DeviceOutput& DeviceOutput::operator=(DeviceOutput&& other) noexcept {
  if (this != &other) std::swap(s_, other.s_);
  return *this;
}
void* DeviceOutput::data() const noexcept { return s_ != nullptr ? s_->bytes.data() : nullptr; }
std::size_t DeviceOutput::size() const noexcept { return s_ != nullptr ? s_->size : 0; }
std::size_t DeviceOutput::capacity() const noexcept { return s_ != nullptr ? s_->bytes.size_bytes() : 0; }
int DeviceOutput::device() const noexcept { return s_ != nullptr ? s_->device : 0; }

namespace {

// The engine's writer: each write is copied into one of a few pinned staging buffers and sent on
// from there while the next write is staged; the device buffer doubles when full (its bytes moved
// on the device).
class DeviceSink : public Sink {
 public:
  static constexpr std::size_t kStage = std::size_t{8} << 20;
  static constexpr int kStages = 4;

  DeviceSink(DeviceBytes& bytes, std::size_t& size, int device, std::size_t first_capacity)
      : bytes_(bytes), size_(size), device_(device), first_(std::max(first_capacity, kStage)) {
    PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (Stage& s : stages_) {
      PARCOMP_CUDA_CHECK(cudaEventCreateWithFlags(&s.sent, cudaEventDisableTiming));
      void* p = nullptr;
      if (cudaMallocHost(&p, kStage) != cudaSuccess) {
        (void)cudaGetLastError();  // not sticky: the copies go from pageable memory, synchronously
        continue;
      }
      s.host = static_cast<std::uint8_t*>(p);
    }
  }
  ~DeviceSink() override {
    if (stream_ != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamSynchronize(stream_));
    for (Stage& s : stages_) {
      if (s.host != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaFreeHost(s.host));
      if (s.sent != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaEventDestroy(s.sent));
    }
    if (stream_ != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
  }
  DeviceSink(const DeviceSink&) = delete;
  DeviceSink& operator=(const DeviceSink&) = delete;

  void write(const std::uint8_t* buf, std::size_t n) override {
    PARCOMP_CUDA_CHECK(cudaSetDevice(device_));  // the engine's writer thread may have another current
    reserve(size_ + n);
    auto* const dst = static_cast<std::uint8_t*>(bytes_.data());
    while (n > 0) {
      const std::size_t piece = std::min(n, kStage);
      Stage& s = stages_[next_];
      next_ = (next_ + 1) % kStages;
      if (s.host == nullptr) {
        PARCOMP_CUDA_CHECK(cudaMemcpy(dst + size_, buf, piece, cudaMemcpyHostToDevice));
      } else {
        PARCOMP_CUDA_CHECK(cudaEventSynchronize(s.sent));  // its last piece has left
        std::memcpy(s.host, buf, piece);
        PARCOMP_CUDA_CHECK(cudaMemcpyAsync(dst + size_, s.host, piece, cudaMemcpyHostToDevice, stream_));
        PARCOMP_CUDA_CHECK(cudaEventRecord(s.sent, stream_));
      }
      size_ += piece;
      buf += piece;
      n -= piece;
    }
  }
  // Every copy landed (before the result is handed over).
  void finish() {
    PARCOMP_CUDA_CHECK(cudaSetDevice(device_));
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  struct Stage {
    std::uint8_t* host = nullptr;
    cudaEvent_t sent = nullptr;
  };
  void reserve(std::size_t need) {
    if (need <= bytes_.size_bytes()) return;
    std::size_t cap = bytes_.size_bytes() == 0 ? first_ : bytes_.size_bytes();
    while (cap < need) cap *= 2;
    DeviceBytes bigger(cap);  // DeviceMemoryError where it does not fit
    if (size_ > 0) PARCOMP_CUDA_CHECK(cudaMemcpyAsync(bigger.data(), bytes_.data(), size_, cudaMemcpyDeviceToDevice, stream_));
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the old buffer's copies have ended
    bytes_ = std::move(bigger);
  }

  DeviceBytes& bytes_;
  std::size_t& size_;
  int device_;
  std::size_t first_;
  cudaStream_t stream_ = nullptr;
  Stage stages_[kStages];
  int next_ = 0;
};

}  // namespace

DeviceOutput decompress_to_device(Source& in, int device, const Options& options, Stats* stats) {
  PARCOMP_NVTX_RANGE("parcomp::decompress_to_device");
  int count = 0;
  const cudaError_t probe = cudaGetDeviceCount(&count);
  if (probe != cudaSuccess) {
    (void)cudaGetLastError();
    throw GpuError(static_cast<int>(probe), std::string("decompress_to_device: no usable GPU (") + cudaGetErrorString(probe) + ")");
  }
  if (count == 0) throw GpuError(static_cast<int>(cudaErrorNoDevice), "decompress_to_device: no usable GPU (no CUDA device)");
  if (device < 0 || device >= count)
    throw ContractError("decompress_to_device: GPU " + std::to_string(device) + " of " + std::to_string(count));
  int previous = 0;
  PARCOMP_CUDA_CHECK(cudaGetDevice(&previous));
  PARCOMP_CUDA_CHECK(cudaSetDevice(device));
  DeviceOutput result;
  result.s_->device = device;
  try {
    // A first guess of the output: four times a known input (a typical .bz2's ratio), then doubling.
    DeviceSink sink(result.s_->bytes, result.s_->size, device, static_cast<std::size_t>(std::min<std::uint64_t>(options.input_size * 4, std::uint64_t{1} << 34)));
    Stats st = decompress(in, sink, options);
    sink.finish();
    if (stats != nullptr) *stats = std::move(st);
  } catch (...) {
    (void)cudaSetDevice(previous);
    throw;
  }
  PARCOMP_CUDA_CHECK(cudaSetDevice(previous));
  return result;
}

void copy_to_host(void* host, const void* device_bytes, std::size_t n) {
  if (n > 0) PARCOMP_CUDA_CHECK(cudaMemcpy(host, device_bytes, n, cudaMemcpyDefault));
}

}  // namespace parcomp
