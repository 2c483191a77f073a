// Every size, seed and sweep range of the benchmarks, in one place. Sweep one factor at a time;
// the benchmark name says which.
#pragma once

#include <array>
#include <cstdint>

namespace parcomp::bench::defaults {

// Seeds of the synthetic datasets (a result file records them with each dataset's sha256).
inline constexpr std::uint64_t kSeed = 20261121;

// Google Benchmark settings applied unless given on the command line.
inline constexpr const char* kMinTimeSeconds = "0.05";
inline constexpr int kRepetitions = 5;

// L2 flush: a buffer of this many times the device's L2 is overwritten before each iteration.
inline constexpr int kL2FlushMultiple = 2;

// Device-to-device copy that measures the bandwidth bw_util is relative to.
inline constexpr std::size_t kBandwidthProbeBytes = std::size_t{1} << 30;
inline constexpr int kBandwidthProbeRepetitions = 20;

namespace parle {
// int32 elements, 2^16 .. 2^28 in steps of 4x.
inline constexpr int kMinLog2 = 16;
inline constexpr int kMaxLog2 = 28;
inline constexpr int kStepLog2 = 2;
// The two "runs" datasets (mean run length); "random" is uniform int32 (mean run length ~1).
inline constexpr std::array<int, 2> kMeanRunLengths = {8, 128};
}  // namespace parle

}  // namespace parcomp::bench::defaults
