#include "gpu_timing.hpp"

#include "defaults.hpp"
#include "kernels/common/cuda_check.hpp"

#include <algorithm>
#include <vector>

namespace parcomp::bench {

CudaEventTimer::CudaEventTimer() {
  PARCOMP_CUDA_CHECK(cudaEventCreate(&start_));
  PARCOMP_CUDA_CHECK(cudaEventCreate(&stop_));
}
CudaEventTimer::~CudaEventTimer() {
  PARCOMP_CUDA_CHECK_NOTHROW(cudaEventDestroy(start_));
  PARCOMP_CUDA_CHECK_NOTHROW(cudaEventDestroy(stop_));
}
void CudaEventTimer::start(cudaStream_t stream) { PARCOMP_CUDA_CHECK(cudaEventRecord(start_, stream)); }
void CudaEventTimer::stop(cudaStream_t stream) { PARCOMP_CUDA_CHECK(cudaEventRecord(stop_, stream)); }
double CudaEventTimer::seconds() {
  PARCOMP_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  PARCOMP_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return static_cast<double>(ms) * 1e-3;
}

namespace {
std::size_t l2_bytes() {
  int device = 0, l2 = 0;
  PARCOMP_CUDA_CHECK(cudaGetDevice(&device));
  PARCOMP_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(l2);
}
}  // namespace

L2Flusher::L2Flusher() : buffer_(l2_bytes() * defaults::kL2FlushMultiple) {}

void L2Flusher::flush(cudaStream_t stream) {
  if (buffer_.size_bytes() != 0)
    PARCOMP_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), 0, buffer_.size_bytes(), stream));
}

GpuTimingContext::GpuTimingContext() { PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
GpuTimingContext::~GpuTimingContext() { PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_)); }

std::string nvtx_range_name(std::string benchmark_name) {
  std::replace(benchmark_name.begin(), benchmark_name.end(), '/', ':');
  return benchmark_name;
}

double measure_copy_bandwidth_bytes_per_second() {
  const std::size_t bytes = defaults::kBandwidthProbeBytes;
  DeviceBytes src(bytes), dst(bytes);
  PARCOMP_CUDA_CHECK(cudaMemset(src.data(), 0x5a, bytes));
  cudaStream_t stream{};
  PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CudaEventTimer timer;
  std::vector<double> seconds;
  for (int i = 0; i < defaults::kBandwidthProbeRepetitions + 2; ++i) {
    timer.start(stream);
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    timer.stop(stream);
    const double s = timer.seconds();
    if (i >= 2) seconds.push_back(s);  // two warm-ups
  }
  PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream));
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return 2.0 * static_cast<double>(bytes) / seconds[seconds.size() / 2];
}

}  // namespace parcomp::bench
