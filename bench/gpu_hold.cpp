// parcomp-gpu-hold: another process's job on a GPU, for tool.load's gpu-busy rows and the load
// script (scripts/load-test.sh): takes all of a device's free memory but LEAVE bytes, says so on
// standard output ("held H bytes, F free"), and keeps it until it is killed.
//
//   parcomp-gpu-hold --leave SIZE [--device D]     (SIZE: bytes, or with K, M, G: powers of 1024)
#include "kernels/common/device_buffer.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::uint64_t leave = 0;
  int device = 0;
  bool have_leave = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--leave" || a == "--device") && i + 1 < argc) {
      try {
        if (a == "--leave") {
          leave = parcomp::device_memory::parse_bytes(argv[++i]);
          have_leave = true;
        } else {
          device = std::stoi(argv[++i]);
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "parcomp-gpu-hold: %s: %s\n", a.c_str(), e.what());
        return 1;
      }
    } else {
      std::fprintf(stderr, "usage: parcomp-gpu-hold --leave SIZE [--device D]\n");
      return 1;
    }
  }
  if (!have_leave) {
    std::fprintf(stderr, "usage: parcomp-gpu-hold --leave SIZE [--device D]\n");
    return 1;
  }
  if (cudaSetDevice(device) != cudaSuccess) {
    std::fprintf(stderr, "parcomp-gpu-hold: no device %d\n", device);
    return 1;
  }
  std::vector<void*> held;
  std::uint64_t total = 0;
  for (std::size_t piece = std::size_t{1} << 30; piece >= (std::size_t{1} << 20);) {
    std::size_t free_b = 0, all = 0;
    if (cudaMemGetInfo(&free_b, &all) != cudaSuccess) break;
    if (free_b <= leave + piece) {
      piece /= 2;
      continue;
    }
    void* p = nullptr;
    if (cudaMalloc(&p, piece) != cudaSuccess) {
      (void)cudaGetLastError();
      piece /= 2;
      continue;
    }
    held.push_back(p);
    total += piece;
  }
  std::size_t free_b = 0, all = 0;
  (void)cudaMemGetInfo(&free_b, &all);
  std::printf("held %llu bytes, %llu free\n", static_cast<unsigned long long>(total), static_cast<unsigned long long>(free_b));
  std::fflush(stdout);
  for (;;) ::pause();
}
