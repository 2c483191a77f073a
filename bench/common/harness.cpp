#include "harness.hpp"

#include <atomic>
#include <mutex>
#include <set>

namespace parcomp::bench {

namespace {
Options g_options;
std::atomic<int> g_failures{0};
std::mutex g_failed_mutex;
std::set<std::string> g_failed;  // names that failed once fail in every repetition
std::set<std::string> g_checked;  // names whose output was checked once
}  // namespace

const Options& options() { return g_options; }
void set_options(const Options& o) { g_options = o; }
int failure_count() { return g_failures.load(); }

bool require_gpu(benchmark::State& state) {
  if (g_options.gpu_available) return true;
  const std::string msg = "skipped: no CUDA device (" + g_options.gpu_note + ")";
  state.SkipWithError(msg.c_str());
  return false;
}

void fail(benchmark::State& state, const std::string& name, const std::string& message) {
  {
    const std::lock_guard lock(g_failed_mutex);
    if (g_failed.insert(name).second) ++g_failures;
  }
  const std::string msg = "FAILED: " + name + ": " + message;
  state.SkipWithError(msg.c_str());
}

bool failed_before(benchmark::State& state, const std::string& name) {
  const std::lock_guard lock(g_failed_mutex);
  if (g_failed.count(name) == 0) return false;
  const std::string msg = "FAILED: " + name + ": failed in an earlier repetition";
  state.SkipWithError(msg.c_str());
  return true;
}

bool first_check(const std::string& name) {
  const std::lock_guard lock(g_failed_mutex);
  return g_checked.insert(name).second;
}

void set_throughput_counters(benchmark::State& state, std::uint64_t uncompressed_bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * uncompressed_bytes));
}

void set_bandwidth_counter(benchmark::State& state, std::uint64_t compulsory_device_bytes, double gpu_seconds) {
  if (gpu_seconds <= 0.0 || g_options.measured_bandwidth <= 0.0) return;
  const double bytes = static_cast<double>(compulsory_device_bytes) * static_cast<double>(state.iterations());
  state.counters["bw_util"] = bytes / gpu_seconds / g_options.measured_bandwidth;
}

benchmark::internal::Benchmark* configure_gpu(benchmark::internal::Benchmark* b) {
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
  if (g_options.once) b->Iterations(1)->Repetitions(1);
  return b;
}

benchmark::internal::Benchmark* configure_cpu(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->Unit(benchmark::kMicrosecond);
  if (g_options.once) b->Iterations(1)->Repetitions(1);
  return b;
}

}  // namespace parcomp::bench
