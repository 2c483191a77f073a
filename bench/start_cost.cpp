// parcomp-start-cost: what CUDA's start costs a fresh process with one or more devices (the time
// before a GPU's first batch, docs/defaults.md). Each run forks a child that makes a context on each
// device asked for, all at once (a thread each) or one after the other, and says when each was
// ready. With --probe, a thread on the first device, once its context is ready, allocates, fills
// and frees --probe-bytes of device memory again and again until every other context is ready:
// whether making a context holds up another device's CUDA calls. With --pinned SIZE it then times
// taking SIZE of pinned host memory (cudaMallocHost, and malloc'd memory registered with
// cudaHostRegister) and touching it. One JSON line per run on standard output.
//
//   parcomp-start-cost [--devices 0,1] [--sequential] [--probe] [--probe-bytes SIZE] [--pinned SIZE] [--runs N]
#include "bench/fresh_process.hpp"
#include "kernels/common/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using parcomp::bench::monotonic_now;

struct Args {
  std::vector<int> devices{0};
  bool sequential = false, probe = false;
  std::uint64_t probe_bytes = std::uint64_t{64} << 20, pinned = 0;
  int runs = 3;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: parcomp-start-cost [--devices 0,1] [--sequential] [--probe] [--probe-bytes SIZE] [--pinned SIZE] [--runs N]\n");
  std::exit(2);
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "parcomp-start-cost: %s: %s\n", what, cudaGetErrorString(e));
  std::_Exit(3);
}

// The probe: device memory taken, filled and given back until `stop`; the calls' count, longest
// and total seconds.
struct Probe {
  int calls = 0;
  double longest = 0, total = 0;
};
Probe probe(std::uint64_t bytes, const std::atomic<bool>& stop) {
  Probe p;
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  for (int after = 0; after < 2;) {  // two more once every context is ready
    if (stop.load()) ++after;
    const double t = monotonic_now();
    void* d = nullptr;
    check(cudaMalloc(&d, bytes), "cudaMalloc");
    check(cudaMemsetAsync(d, 1, bytes, s), "cudaMemsetAsync");
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    check(cudaFree(d), "cudaFree");
    const double took = monotonic_now() - t;
    ++p.calls;
    p.longest = std::max(p.longest, took);
    p.total += took;
  }
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  return p;
}

[[noreturn]] void child(const Args& a, int fd) {
  const double t0 = monotonic_now();
  const std::size_t n = a.devices.size();
  std::vector<double> ready(n, 0);
  std::atomic<std::size_t> made{0};
  std::atomic<bool> all_ready{false};
  Probe pr;
  const auto make = [&](std::size_t i) {
    check(cudaSetDevice(a.devices[i]), "cudaSetDevice");
    check(cudaFree(nullptr), "context");
    ready[i] = monotonic_now() - t0;
    if (++made == n) all_ready = true;
  };
  if (a.sequential) {
    std::thread first([&] {
      make(0);
      if (a.probe) pr = probe(a.probe_bytes, all_ready);
    });
    while (made.load() == 0) std::this_thread::yield();
    std::thread rest([&] {
      for (std::size_t i = 1; i < n; ++i) make(i);
    });
    rest.join();
    first.join();
  } else {
    std::vector<std::thread> ts;
    for (std::size_t i = 0; i < n; ++i)
      ts.emplace_back([&, i] {
        make(i);
        if (i == 0 && a.probe) pr = probe(a.probe_bytes, all_ready);
      });
    for (auto& t : ts) t.join();
  }
  std::ostringstream out;
  out << "\"devices\": " << n << ", \"sequential\": " << (a.sequential ? "true" : "false");
  for (std::size_t i = 0; i < n; ++i) out << ", \"ready_" << a.devices[i] << "_s\": " << ready[i];
  if (a.probe)
    out << ", \"probe_bytes\": " << a.probe_bytes << ", \"probe_calls\": " << pr.calls << ", \"probe_longest_s\": " << pr.longest
        << ", \"probe_total_s\": " << pr.total;
  if (a.pinned != 0) {
    check(cudaSetDevice(a.devices[0]), "cudaSetDevice");
    double t = monotonic_now();
    void* p = nullptr;
    check(cudaMallocHost(&p, a.pinned), "cudaMallocHost");
    const double alloc = monotonic_now() - t;
    t = monotonic_now();
    std::memset(p, 1, a.pinned);
    const double touch = monotonic_now() - t;
    check(cudaFreeHost(p), "cudaFreeHost");
    void* q = std::aligned_alloc(4096, (a.pinned + 4095) / 4096 * 4096);
    if (q == nullptr) std::_Exit(3);
    std::memset(q, 1, a.pinned);
    t = monotonic_now();
    check(cudaHostRegister(q, a.pinned, cudaHostRegisterDefault), "cudaHostRegister");
    const double reg = monotonic_now() - t;
    check(cudaHostUnregister(q), "cudaHostUnregister");
    std::free(q);
    out << ", \"pinned_bytes\": " << a.pinned << ", \"malloc_host_s\": " << alloc << ", \"touch_s\": " << touch
        << ", \"register_s\": " << reg;
  }
  out << ", \"total_s\": " << monotonic_now() - t0;
  parcomp::bench::write_members(fd, out.str());
  std::_Exit(0);  // the exit's own cost is parcomp-exit-cost's
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const auto value = [&] { return i + 1 < argc ? std::string(argv[++i]) : (usage(), std::string()); };
    try {
      if (k == "--devices") {
        a.devices = parcomp::bench::parse_devices(value());
      } else if (k == "--sequential") {
        a.sequential = true;
      } else if (k == "--probe") {
        a.probe = true;
      } else if (k == "--probe-bytes") {
        a.probe_bytes = parcomp::device_memory::parse_bytes(value());
      } else if (k == "--pinned") {
        a.pinned = parcomp::device_memory::parse_bytes(value());
      } else if (k == "--runs") {
        a.runs = std::stoi(value());
      } else {
        usage();
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parcomp-start-cost: %s: %s\n", k.c_str(), e.what());
      return 2;
    }
  }
  if (a.devices.empty() || a.runs < 1 || a.probe_bytes == 0) usage();
  for (int r = 0; r < a.runs; ++r) {
    const auto run = parcomp::bench::run_fresh([&a](int fd) { child(a, fd); });
    if (!run) {
      std::fprintf(stderr, "parcomp-start-cost: run %d: the child failed\n", r);
      return 1;
    }
    std::printf("{\"run\": %d, %s}\n", r, run->members.c_str());
    std::fflush(stdout);
  }
  return 0;
}
