// parcomp-exit-cost: what a process's exit costs with CUDA contexts, pinned host memory and device
// memory (the program's wall time after its last byte, docs/defaults.md). Each run forks a child
// that makes a context on each device asked for, takes BYTES of pinned host memory and of device
// memory with each one current, touches them, and exits; the parent times from the child's last
// step to its reaping. With --release the child first frees what it took and destroys each context
// (cudaDeviceReset), each step timed; with --release-parallel each device's frees and reset run on a
// thread of their own, all at once (the span timed whole). One JSON line per run on standard output.
//
//   parcomp-exit-cost [--devices 0,1] [--pinned SIZE] [--device-bytes SIZE] [--register]
//                     [--release | --release-parallel] [--runs N]
//
// SIZE: bytes, or with K, M, G (powers of 1024), per device. --register pins malloc'd memory with
// cudaHostRegister instead of cudaMallocHost.
#include "bench/fresh_process.hpp"
#include "kernels/common/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using parcomp::bench::monotonic_now;
double now() { return monotonic_now(); }

struct Args {
  std::vector<int> devices{0};
  std::uint64_t pinned = 0, device_bytes = 0;
  bool register_host = false, release = false, parallel = false;
  int runs = 3;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: parcomp-exit-cost [--devices 0,1] [--pinned SIZE] [--device-bytes SIZE] [--register] "
               "[--release | --release-parallel] [--runs N]\n");
  std::exit(2);
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "parcomp-exit-cost: %s: %s\n", what, cudaGetErrorString(e));
  std::_Exit(3);
}

// The child: takes everything, then (with --release) gives it back step by step; writes its timed
// steps as JSON members to `fd`, the last one the time it calls exit().
[[noreturn]] void child(const Args& a, int fd) {
  std::ostringstream out;
  const double t0 = now();
  std::vector<void*> host, dev;
  for (const int d : a.devices) {
    check(cudaSetDevice(d), "cudaSetDevice");
    check(cudaFree(nullptr), "context");
    if (a.pinned != 0) {
      void* p = nullptr;
      if (a.register_host) {
        p = std::aligned_alloc(4096, (a.pinned + 4095) / 4096 * 4096);  // whole pages, as a registration pins
        if (p == nullptr) std::_Exit(3);
        std::memset(p, 1, a.pinned);
        check(cudaHostRegister(p, a.pinned, cudaHostRegisterDefault), "cudaHostRegister");
      } else {
        check(cudaMallocHost(&p, a.pinned), "cudaMallocHost");
        std::memset(p, 1, a.pinned);
      }
      host.push_back(p);
    }
    if (a.device_bytes != 0) {
      void* p = nullptr;
      check(cudaMalloc(&p, a.device_bytes), "cudaMalloc");
      check(cudaMemset(p, 1, a.device_bytes), "cudaMemset");
      dev.push_back(p);
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  out << "\"setup_s\": " << now() - t0;
  // Device i's pinned host memory and its device memory given back, with device i current.
  const auto free_host = [&](std::size_t i) {
    if (i >= host.size()) return;
    if (a.register_host) {
      check(cudaHostUnregister(host[i]), "cudaHostUnregister");
      std::free(host[i]);
    } else {
      check(cudaFreeHost(host[i]), "cudaFreeHost");
    }
  };
  const auto free_device = [&](std::size_t i) {
    if (i < dev.size()) check(cudaFree(dev[i]), "cudaFree");
  };
  if (a.parallel) {
    const double t = now();
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < a.devices.size(); ++i)
      threads.emplace_back([&, i] {
        check(cudaSetDevice(a.devices[i]), "cudaSetDevice");
        free_host(i);
        free_device(i);
        check(cudaDeviceReset(), "cudaDeviceReset");
      });
    for (auto& th : threads) th.join();
    out << ", \"release_parallel_s\": " << now() - t;
  } else if (a.release) {
    double t = now();
    for (std::size_t i = 0; i < host.size(); ++i) {
      check(cudaSetDevice(a.devices[i]), "cudaSetDevice");
      free_host(i);
    }
    out << ", \"free_host_s\": " << now() - t;
    t = now();
    for (std::size_t i = 0; i < dev.size(); ++i) {
      check(cudaSetDevice(a.devices[i]), "cudaSetDevice");
      free_device(i);
    }
    out << ", \"free_device_s\": " << now() - t;
    for (const int d : a.devices) {
      t = now();
      check(cudaSetDevice(d), "cudaSetDevice");
      check(cudaDeviceReset(), "cudaDeviceReset");
      out << ", \"reset_" << d << "_s\": " << now() - t;
    }
  }
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, ", \"exit_at\": %.9f", now());
  parcomp::bench::write_members(fd, out.str() + stamp);
  std::exit(0);
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
      } else if (k == "--pinned") {
        a.pinned = parcomp::device_memory::parse_bytes(value());
      } else if (k == "--device-bytes") {
        a.device_bytes = parcomp::device_memory::parse_bytes(value());
      } else if (k == "--register") {
        a.register_host = true;
      } else if (k == "--release") {
        a.release = true;
      } else if (k == "--release-parallel") {
        a.parallel = true;
      } else if (k == "--runs") {
        a.runs = std::stoi(value());
      } else {
        usage();
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parcomp-exit-cost: %s: %s\n", k.c_str(), e.what());
      return 2;
    }
  }
  if (a.devices.empty() || a.runs < 1) usage();
  for (int r = 0; r < a.runs; ++r) {
    const auto run = parcomp::bench::run_fresh([&a](int fd) { child(a, fd); });
    const std::size_t at = run ? run->members.rfind("\"exit_at\": ") : std::string::npos;
    if (at == std::string::npos) {
      std::fprintf(stderr, "parcomp-exit-cost: run %d: the child failed\n", r);
      return 1;
    }
    const std::string& got = run->members;
    const double reaped = run->reaped_at;
    const double exit_at = std::strtod(got.c_str() + at + 11, nullptr);
    std::printf("{\"run\": %d, \"devices\": %zu, \"pinned_bytes\": %llu, \"device_bytes\": %llu, \"register\": %s, "
                "\"release\": %s, %s, \"exit_s\": %.6f}\n",
                r, a.devices.size(), static_cast<unsigned long long>(a.pinned), static_cast<unsigned long long>(a.device_bytes),
                a.register_host ? "true" : "false", a.parallel ? "\"parallel\"" : a.release ? "true" : "false", got.c_str(), reaped - exit_at);
    std::fflush(stdout);
  }
  return 0;
}
