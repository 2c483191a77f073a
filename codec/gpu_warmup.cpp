#include "gpu_warmup.hpp"

#include "kernels/common/device.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <mutex>
#include <thread>

namespace parcomp::gpu_warmup {

namespace {

std::mutex m;
std::once_flag started;
State state;
std::chrono::steady_clock::time_point t0;

// How a host thread waits for its GPU work (cudaStreamSynchronize and the like): blocking by
// default, so that the lanes' waits leave their cores to the host stages (the .bz2 block cut and
// run-length stage, the CRCs, the writer), which bound the tool on 16 host threads; CUDA's own
// default spins while it waits. PARCOMP_CUDA_SCHEDULE=spin|yield|blocking|auto chooses, for
// measuring.
unsigned schedule_flags() {
  const char* v = std::getenv("PARCOMP_CUDA_SCHEDULE");
  const std::string s = v != nullptr ? v : "blocking";
  if (s == "spin") return cudaDeviceScheduleSpin;
  if (s == "yield") return cudaDeviceScheduleYield;
  if (s == "auto") return 0;
  return cudaDeviceScheduleBlockingSync;
}

void run() {
  const int count = cuda_device_count();
  std::vector<int> ready;
  std::string why;
  if (count == 0) {
    why = "no CUDA device (" + cuda_unavailable_reason() + ")";
  } else {
    std::vector<std::thread> threads;
    std::vector<int> ok(static_cast<std::size_t>(count), 0);
    const unsigned flags = schedule_flags();
    for (int d = 0; d < count; ++d)
      threads.emplace_back([d, flags, &ok] {
        if (cudaSetDevice(d) != cudaSuccess) return;
        // Before the context exists; a context made earlier (by a caller's own CUDA use) keeps its own.
        if (flags != 0 && cudaSetDeviceFlags(flags) != cudaSuccess) (void)cudaGetLastError();
        if (cudaFree(nullptr) == cudaSuccess) ok[static_cast<std::size_t>(d)] = 1;
      });
    for (auto& t : threads) t.join();
    for (int d = 0; d < count; ++d)
      if (ok[static_cast<std::size_t>(d)] != 0) ready.push_back(d);
    if (ready.empty()) why = "no CUDA device could make a context";
  }
  const std::lock_guard lock(m);
  state.done = true;
  state.ready = std::move(ready);
  state.why_none = std::move(why);
  state.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void start() {
  std::call_once(started, [] {
    t0 = std::chrono::steady_clock::now();
    std::thread(run).detach();
  });
}

State poll() {
  const std::lock_guard lock(m);
  return state;
}

}  // namespace parcomp::gpu_warmup
