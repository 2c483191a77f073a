// parcomp-bench: every experiment of the suite in one Google Benchmark binary.
//
// Own flags (removed before Google Benchmark sees argv):
//   --parcomp_once         one iteration, one repetition per benchmark (for Nsight Compute)
//   --parcomp_max_log2=K   cap every size sweep at 2^K elements (quick runs, CPU-only machines)
//   --parcomp_force_debug  allow timing a Debug build (refused otherwise)
//   --parcomp_device_info  print the device/host/build metadata as JSON and exit
// Defaults applied unless given: --benchmark_min_time, --benchmark_repetitions,
// --benchmark_display_aggregates_only=true. With --benchmark_out=FILE (JSON), the file's context
// gets a "parcomp" object: device, measured bandwidth, host, build, commit, argv, dataset sha256s.
#include "common/defaults.hpp"
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/metadata.hpp"
#include "kernels/common/device.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

bool has_flag(const std::vector<std::string>& args, std::string_view prefix) {
  for (const auto& a : args)
    if (std::string_view(a).substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::string flag_value(const std::vector<std::string>& args, std::string_view prefix) {
  for (const auto& a : args)
    if (std::string_view(a).substr(0, prefix.size()) == prefix) return a.substr(prefix.size());
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace parcomp;
  using namespace parcomp::bench;
  const std::vector<std::string> original(argv, argv + argc);

  Options opts;
  bool force_debug = false, device_info = false;
  std::vector<std::string> args;
  for (const auto& a : original) {
    if (a == "--parcomp_once") opts.once = true;
    else if (a == "--parcomp_force_debug") force_debug = true;
    else if (a == "--parcomp_device_info") device_info = true;
    else if (a.rfind("--parcomp_max_log2=", 0) == 0) opts.max_log2 = std::stoi(a.substr(19));
    else if (a.rfind("--parcomp_", 0) == 0) {
      fmt::print(stderr, "parcomp-bench: unknown option {}\n", a);
      return 1;
    } else args.push_back(a);
  }
  const bool listing = has_flag(args, "--benchmark_list_tests") && flag_value(args, "--benchmark_list_tests=") != "false";

  if (std::string_view(PARCOMP_BUILD_TYPE) == "Debug" && !force_debug && !listing && !device_info) {
    fmt::print(stderr,
               "parcomp-bench: this is a Debug build; its timings mean nothing. Rebuild with "
               "-DCMAKE_BUILD_TYPE=Release, or pass --parcomp_force_debug.\n");
    return 1;
  }
  if (!has_flag(args, "--benchmark_min_time")) args.push_back(std::string("--benchmark_min_time=") + defaults::kMinTimeSeconds);
  if (!has_flag(args, "--benchmark_repetitions") && !opts.once)
    args.push_back(fmt::format("--benchmark_repetitions={}", defaults::kRepetitions));
  if (!has_flag(args, "--benchmark_display_aggregates_only") && !has_flag(args, "--benchmark_report_aggregates_only"))
    args.push_back("--benchmark_display_aggregates_only=true");

  // Device and its measured bandwidth (not needed to list benchmarks).
  nlohmann::json device = nullptr;
  opts.gpu_available = cuda_device_count() > 0;
  if (!opts.gpu_available) {
    opts.gpu_note = cuda_unavailable_reason();
    if (!listing)
      fmt::print(stderr, "parcomp-bench: no CUDA device ({}): GPU benchmarks will be reported as skipped.\n",
                 opts.gpu_note);
  } else if (!listing) {
    try {
      opts.measured_bandwidth = measure_copy_bandwidth_bytes_per_second();
      device = device_metadata(opts.measured_bandwidth);
      fmt::print(stderr, "parcomp-bench: {} (sm_{}), measured copy bandwidth {:.0f} GB/s of {:.0f} GB/s theoretical\n",
                 device["name"].get<std::string>(), device["compute_capability"].get<std::string>(),
                 opts.measured_bandwidth / 1e9,
                 device["theoretical_bandwidth_bytes_per_second"].get<double>() / 1e9);
    } catch (const std::exception& e) {
      fmt::print(stderr, "parcomp-bench: the CUDA device is not usable: {}\n", e.what());
      return 1;
    }
  }
  set_options(opts);
  const std::string device_note = opts.gpu_available ? "" : "no CUDA device: " + opts.gpu_note;
  if (device_info) {
    nlohmann::json ctx = parcomp_context(original, device, device_note);
    ctx["nvcomp_version"] = nvcomp_version();  // as the results' context has it (merge_results.py --context)
    fmt::print("{}\n", ctx.dump(2));
    return 0;
  }

  std::vector<char*> gb_argv;
  for (auto& a : args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 1;

  register_parle();
  register_mtf();
  register_pavle();
  register_bwt();
  register_huffman();
  register_pipeline();
  register_tool();
  register_codecs();
  register_bz2();

  const auto build = build_metadata();
  benchmark::AddCustomContext("parcomp_git_sha", build["git_sha"].get<std::string>() +
                                                     (build["git_dirty"].get<bool>() ? "-dirty" : ""));
  benchmark::AddCustomContext("parcomp_build_type", PARCOMP_BUILD_TYPE);
  // Debian's libbenchmark is built without NDEBUG, so the library prints "***WARNING*** Library was
  // built as DEBUG" and writes library_build_type "debug": that is its own code, not parcomp's.
  benchmark::AddCustomContext(
      "parcomp_note",
      fmt::format("parcomp's code is a {} build; a '***WARNING*** Library was built as DEBUG' line (and the JSON's "
                  "library_build_type) describes the Google Benchmark library this was linked with, not the code "
                  "it times",
                  PARCOMP_BUILD_TYPE));
  benchmark::AddCustomContext("parcomp_gpu", device.is_null() ? device_note : device["name"].get<std::string>());

  benchmark::RunSpecifiedBenchmarks();
  release_codecs();
  release_bz2();
  benchmark::Shutdown();

  const std::string out = flag_value(args, "--benchmark_out=");
  if (!out.empty() && !listing) {
    const std::string format = flag_value(args, "--benchmark_out_format=");
    if (format.empty() || format == "json") {
      try {
        nlohmann::json ctx = parcomp_context(original, device, device_note);
        ctx["nvcomp_version"] = nvcomp_version();  // empty: built without nvCOMP (codecs.landscape's nvCOMP rows skipped)
        merge_into_benchmark_json(out, ctx);
      } catch (const std::exception& e) {
        fmt::print(stderr, "parcomp-bench: could not add metadata to {}: {}\n", out, e.what());
        return 1;
      }
    }
  }
  if (failure_count() > 0) {
    fmt::print(stderr, "parcomp-bench: {} benchmark(s) FAILED (see the error lines above)\n", failure_count());
    return 2;
  }
  return 0;
}
