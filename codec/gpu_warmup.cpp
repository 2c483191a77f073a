#include "gpu_warmup.hpp"

#include "kernels/common/device.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <mutex>
#include <thread>

namespace parcomp::gpu_warmup {

namespace {

std::mutex m;
std::once_flag started;
State state;
std::chrono::steady_clock::time_point t0;

void run() {
  const int count = cuda_device_count();
  std::vector<int> ready;
  std::string why;
  if (count == 0) {
    why = "no CUDA device (" + cuda_unavailable_reason() + ")";
  } else {
    std::vector<std::thread> threads;
    std::vector<int> ok(static_cast<std::size_t>(count), 0);
    for (int d = 0; d < count; ++d)
      threads.emplace_back([d, &ok] {
        if (cudaSetDevice(d) == cudaSuccess && cudaFree(nullptr) == cudaSuccess) ok[static_cast<std::size_t>(d)] = 1;
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
