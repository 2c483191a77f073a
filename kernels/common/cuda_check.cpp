#include "cuda_check.hpp"

#include <cstdio>
#include <string>

namespace parcomp {

namespace {
std::string describe(cudaError_t code, const char* call, const char* file, int line) {
  return std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
         ") in " + call + " at " + file + ":" + std::to_string(line);
}
}  // namespace

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Clear a sticky-free error so the next call does not report it again.
  (void)cudaGetLastError();
  if (code == cudaErrorMemoryAllocation) throw DeviceMemoryError(code, describe(code, call, file, line));
  throw CudaError(code, describe(code, call, file, line));
}

void report_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "parcomp: %s\n", describe(code, call, file, line).c_str());
}

}  // namespace parcomp
