// Error checking for every CUDA call and launch: one macro, file/line/call in the message.
#pragma once

#include "core/errors.hpp"  // ContractError, CorruptDataError

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace parcomp {

// Thrown for any failed CUDA runtime call (the public GpuError); what() names the call, file, line
// and CUDA's message. DeviceMemoryError (public too): a device allocation that could not be made
// (out of memory, or the process's limit on it: device_memory::set_limit). The engine hands such a
// GPU's work to the CPU workers; anything else from CUDA stops the job.
using CudaError = GpuError;

// Throws DeviceMemoryError for cudaErrorMemoryAllocation, CudaError otherwise.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);
// For destructors: report to stderr, never throw.
void report_cuda_error(cudaError_t code, const char* call, const char* file, int line) noexcept;

}  // namespace parcomp

#define PARCOMP_CUDA_CHECK(call)                                              \
  do {                                                                        \
    const cudaError_t parcomp_status_ = (call);                               \
    if (parcomp_status_ != cudaSuccess) {                                     \
      ::parcomp::throw_cuda_error(parcomp_status_, #call, __FILE__, __LINE__); \
    }                                                                         \
  } while (false)

#define PARCOMP_CUDA_CHECK_NOTHROW(call)                                       \
  do {                                                                         \
    const cudaError_t parcomp_status_ = (call);                                \
    if (parcomp_status_ != cudaSuccess) {                                      \
      ::parcomp::report_cuda_error(parcomp_status_, #call, __FILE__, __LINE__); \
    }                                                                          \
  } while (false)

// After every kernel launch: catches bad configurations at once (asynchronous faults surface at
// the next synchronising call, which is checked too).
#define PARCOMP_CHECK_LAUNCH() PARCOMP_CUDA_CHECK(cudaPeekAtLastError())
