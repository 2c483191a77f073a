// Device presence and properties, without throwing on GPU-less machines.
#pragma once

#include <string>

namespace parcomp {

// Number of usable CUDA devices; 0 when there is no device or no driver (never throws).
int cuda_device_count() noexcept;
// Why cuda_device_count() is 0, in words ("no CUDA-capable device is detected", ...); empty otherwise.
std::string cuda_unavailable_reason();

// Multiprocessor count of the current device (throws CudaError on failure).
int sm_count();

}  // namespace parcomp
