// What every paper's benchmark file shares: run options, the GPU gate, failure accounting and
// the counters (bytes processed are always uncompressed bytes).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <exception>
#include <string>

namespace parcomp::bench {

struct Options {
  bool gpu_available = false;
  std::string gpu_note;                    // why not, when no GPU
  double measured_bandwidth = 0.0;         // bytes/s of a device-to-device copy; 0 without a GPU
  bool once = false;                       // one iteration, one repetition (for Nsight Compute)
  int max_log2 = -1;                       // cap on size sweeps (log2 of elements), -1 = defaults
};

const Options& options();
void set_options(const Options& o);

// Benchmarks that failed (validation mismatch or exception), not counting "no GPU" skips.
int failure_count();

// Marks a GPU benchmark skipped when there is no device; returns true if it may run.
bool require_gpu(benchmark::State& state);
// Reports a failed benchmark (counted once in failure_count()).
void fail(benchmark::State& state, const std::string& name, const std::string& message);
// A benchmark that failed in one repetition fails in all (Google Benchmark 1.7 aborts when the
// repetitions of one benchmark disagree on their iteration counts).
bool failed_before(benchmark::State& state, const std::string& name);
// Runs body() unless it failed before; an exception becomes fail(state, name, what()).
template <typename Body>
void guarded(benchmark::State& state, const std::string& name, Body&& body) {
  if (failed_before(state, name)) return;
  try {
    body();
  } catch (const std::exception& e) {
    fail(state, name, e.what());
  }
}

// True the first time a benchmark asks (then it checks its output against the oracle); false in
// its later calls and repetitions, which run the same work on the same input. A check that failed
// fails every later call through guarded().
bool first_check(const std::string& name);

// bytes_per_second from uncompressed bytes (encoders and decoders alike). For GPU benchmarks,
// bw_util = compulsory device bytes (each input read once, each output written once) per
// iteration / mean event time / measured copy bandwidth; gpu_seconds is the summed event time.
void set_throughput_counters(benchmark::State& state, std::uint64_t uncompressed_bytes);
void set_bandwidth_counter(benchmark::State& state, std::uint64_t compulsory_device_bytes, double gpu_seconds);

// Applies the common settings to a registered benchmark: GPU ones use manual (event) time,
// CPU ones wall time; --parcomp_once gives one iteration of one repetition.
benchmark::internal::Benchmark* configure_gpu(benchmark::internal::Benchmark* b);
benchmark::internal::Benchmark* configure_cpu(benchmark::internal::Benchmark* b);

// Registration of each paper's benchmarks (bench/<paper>.cpp).
void register_parle();
void register_mtf();
void register_pavle();
void register_bwt();
void register_huffman();
void register_pipeline();
void register_tool();  // tool.e2e: whole programs, one process per run (bench/tool.cpp)
void register_codecs();  // codecs.landscape: nvCOMP's codecs (bench/codecs.cpp)
void release_codecs();   // frees the nvCOMP setting the last rows kept (before CUDA shuts down)
void release_bz2();      // frees the .bz2 file the last bz2.decompress rows kept
void register_bz2();     // bz2.compress: the GPU's stage of .bz2 compression (bench/bz2.cpp)
std::string nvcomp_version();  // "6.0.0.12", or "" when built without nvCOMP

}  // namespace parcomp::bench
