// GPU timing for Google Benchmark with manual time: CUDA events around the work, the L2 flushed
// before every iteration, and the device-to-device copy bandwidth that bw_util is relative to.
#pragma once

#include "kernels/common/device_buffer.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <string>
#include <type_traits>
#include <utility>

namespace parcomp::bench {

class CudaEventTimer {
 public:
  CudaEventTimer();
  ~CudaEventTimer();
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;
  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  // Waits for the stop event; seconds between start and stop.
  double seconds();

 private:
  cudaEvent_t start_{}, stop_{};
};

// Overwrites a buffer kL2FlushMultiple times the L2 size, evicting earlier data from L2.
class L2Flusher {
 public:
  L2Flusher();
  void flush(cudaStream_t stream);

 private:
  DeviceBytes buffer_;
};

// Owned stream, flusher and timer for one benchmark.
class GpuTimingContext {
 public:
  GpuTimingContext();
  ~GpuTimingContext();
  GpuTimingContext(const GpuTimingContext&) = delete;
  GpuTimingContext& operator=(const GpuTimingContext&) = delete;
  cudaStream_t stream() const { return stream_; }

  // The timed loop: flush L2, record start, run work(stream), record stop, wait, report.
  // Returns the summed event time of all iterations, in seconds. The loop is one NVTX range in
  // the "parcomp-bench" domain named after the benchmark with '/' turned into ':'.
  template <typename Work>
  double run(benchmark::State& state, const std::string& benchmark_name, Work&& work);
  // As run(), with prepare(stream) before each iteration's L2 flush: work the paper did not time
  // (zeroing an output it assumes set in advance), kept out of the iteration time and timed
  // apart; prepare_seconds() is its summed time.
  template <typename Prepare, typename Work>
  double run(benchmark::State& state, const std::string& benchmark_name, Prepare&& prepare, Work&& work);
  double prepare_seconds() const { return prepare_seconds_; }

 private:
  cudaStream_t stream_{};
  L2Flusher flusher_;
  CudaEventTimer timer_, prepare_timer_;
  double prepare_seconds_ = 0.0;
};

// Median bandwidth of a large device-to-device copy, bytes read plus written per second.
double measure_copy_bandwidth_bytes_per_second();

}  // namespace parcomp::bench

#include "kernels/common/nvtx.hpp"

namespace parcomp::bench {

std::string nvtx_range_name(std::string benchmark_name);

// The timed loop. Without a prepare step (NoPrepare) there is nothing to time apart: no prepare
// events, and so one wait on the host per iteration (the stop event), not two.
struct NoPrepare {};

template <typename Work>
double GpuTimingContext::run(benchmark::State& state, const std::string& benchmark_name, Work&& work) {
  return run(state, benchmark_name, NoPrepare{}, std::forward<Work>(work));
}

template <typename Prepare, typename Work>
double GpuTimingContext::run(benchmark::State& state, const std::string& benchmark_name, Prepare&& prepare, Work&& work) {
  const NvtxBenchRange range{nvtx_range_name(benchmark_name)};
  double total = 0.0;
  prepare_seconds_ = 0.0;
  for (auto _ : state) {
    if constexpr (!std::is_same_v<std::decay_t<Prepare>, NoPrepare>) {
      prepare_timer_.start(stream_);
      prepare(stream_);
      prepare_timer_.stop(stream_);
      prepare_seconds_ += prepare_timer_.seconds();
    }
    flusher_.flush(stream_);
    timer_.start(stream_);
    work(stream_);
    timer_.stop(stream_);
    const double seconds = timer_.seconds();
    total += seconds;
    state.SetIterationTime(seconds);
  }
  return total;
}

}  // namespace parcomp::bench
