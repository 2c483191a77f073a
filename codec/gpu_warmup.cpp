#include "gpu_warmup.hpp"

#include "kernels/common/device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string_view>
#include <thread>

namespace parcomp::gpu_warmup {

namespace {

std::mutex m;
std::condition_variable changed;  // a device done, the count known, the maker idle
bool started = false, all_asked = false;
std::vector<int> asked;  // devices asked for before the count was known
State state;
std::chrono::steady_clock::time_point t0;

double since_start() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

// Contexts are made one device after another on one thread: made at once, each took longer than one
// alone, and the first GPU waited for the second (docs/tool.md). PARCOMP_GPU_START=together in the
// environment makes each on a thread of its own instead, for comparison.
std::deque<int> queue;  // devices waiting for their context
bool maker_running = false;
unsigned at_once = 0;  // PARCOMP_GPU_START=together: threads still making a context

bool together() {
  static const bool t = [] {
    const char* env = std::getenv("PARCOMP_GPU_START");
    return env != nullptr && std::string_view(env) == "together";
  }();
  return t;
}

void make_context(int d) {
  const bool ok = cudaSetDevice(d) == cudaSuccess && cudaFree(nullptr) == cudaSuccess;
  const std::lock_guard lock(m);
  for (auto& e : state.devices)
    if (e.id == d) e = Device{d, true, ok, since_start()};
  changed.notify_all();
}

// The maker thread: the queue's devices one at a time, until it is empty.
void make_queued() {
  for (;;) {
    int d = 0;
    {
      const std::lock_guard lock(m);
      if (queue.empty()) {
        maker_running = false;
        changed.notify_all();
        return;
      }
      d = queue.front();
      queue.pop_front();
    }
    make_context(d);
  }
}

// With m held and the count known: a context for each device of `ids` (all when `all`) that exists
// and was not started.
void launch_locked(const std::vector<int>& ids, bool all) {
  std::vector<int> todo;
  if (all)
    for (int d = 0; d < state.count; ++d) todo.push_back(d);
  else
    todo = ids;
  for (const int d : todo) {
    if (d < 0 || d >= state.count || state.find(d) != nullptr) continue;
    state.devices.push_back(Device{d, false, false, 0.0});
    if (together()) {
      ++at_once;
      std::thread([d] {
        make_context(d);
        const std::lock_guard lock(m);
        --at_once;
        changed.notify_all();
      }).detach();
      continue;
    }
    queue.push_back(d);
    if (!maker_running) {
      maker_running = true;
      std::thread(make_queued).detach();
    }
  }
}

void count_devices() {
  const int count = cuda_device_count();
  const std::string why = count == 0 ? "no CUDA device (" + cuda_unavailable_reason() + ")" : std::string();
  const std::lock_guard lock(m);
  state.count = count;
  state.why_none = why;
  state.counted = true;
  launch_locked(asked, all_asked);
  asked.clear();
  changed.notify_all();
}

}  // namespace

const Device* State::find(int d) const {
  const auto it = std::find_if(devices.begin(), devices.end(), [d](const Device& e) { return e.id == d; });
  return it == devices.end() ? nullptr : &*it;
}

void start(const std::vector<int>& devices) {
  const std::lock_guard lock(m);
  if (!started) {
    started = true;
    t0 = std::chrono::steady_clock::now();
    std::thread(count_devices).detach();
  }
  if (state.counted) {
    launch_locked(devices, devices.empty());
  } else {
    if (devices.empty()) all_asked = true;
    asked.insert(asked.end(), devices.begin(), devices.end());
  }
}

State poll() {
  const std::lock_guard lock(m);
  return state;
}

void wait() {
  std::unique_lock lock(m);
  if (!started) return;
  changed.wait(lock, [] {
    if (!state.counted || maker_running || at_once > 0) return false;
    return std::all_of(state.devices.begin(), state.devices.end(), [](const Device& e) { return e.done; });
  });
}

}  // namespace parcomp::gpu_warmup
