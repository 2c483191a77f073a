// parcomp's errors: one hierarchy under parcomp::Error, for the library's callers and for its own
// layers (the GPU stages throw GpuError, the formats CorruptDataError, every entry point
// ContractError for a broken contract).
#pragma once

#include <stdexcept>
#include <string>

namespace parcomp {

// Every error parcomp throws (besides std::bad_alloc).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller broke an entry point's contract: options, sizes, capacities, limits.
class ContractError : public Error {
 public:
  using Error::Error;
};

// The input is not a stream parcomp reads, or is damaged: what() names where (stream offset,
// frame, block) the damage was found.
class CorruptDataError : public Error {
 public:
  using Error::Error;
};

// Reading the source or writing the sink failed (the system's message in what()).
class IoError : public Error {
 public:
  using Error::Error;
};

// A CUDA call failed: what() names the call and CUDA's message; code() is CUDA's error number.
class GpuError : public Error {
 public:
  GpuError(int code, const std::string& what) : Error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// A device allocation could not be made: the GPU is out of memory, or the process's cap on it is
// reached. By default the job's blocks then go to the CPU workers; with require_gpu it is an error.
class DeviceMemoryError : public GpuError {
 public:
  using GpuError::GpuError;
};

}  // namespace parcomp
