// BWT experiments that need no GPU yet: thesis.fig4_3, the tie analysis (CPU). For every dataset,
// the rotations of each 1 MiB block are sorted (libdivsufsort on the doubled block) and the
// longest common prefix of every pair of adjacent rotations is histogrammed: the fraction of
// pairs whose tie is 0-3 bytes (decided by the thesis's 4-byte keys), 4-7, 8-15, ... Time is that
// of the analysis (one iteration), not an experiment.
#include "common/defaults.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "common/metadata.hpp"
#include "datasets/dataset.hpp"
#include "datasets/sha256.hpp"
#include "datasets/synthetic.hpp"
#include "reference/bwt.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

namespace parcomp::bench {

namespace {

std::string bucket_name(int k) {
  if (k == 0) return "ties_0_3";
  const std::uint64_t lo = std::uint64_t{4} << (k - 1);
  if (k == reference::kTieBuckets - 1) return fmt::format("ties_ge{}", lo);
  return fmt::format("ties_{}_{}", lo, 2 * lo - 1);
}

void tie_analysis(benchmark::State& state, ByteInputSpec spec) {
  const auto in = byte_input(spec);
  if (!in->unavailable.empty()) {
    const std::string msg = "skipped: " + in->unavailable;
    state.SkipWithError(msg.c_str());
    return;
  }
  reference::TieHistogram h;
  for (auto _ : state) h = reference::rotation_ties_blocks(in->bytes, kBwtBlockBytes);
  set_throughput_counters(state, in->bytes.size());
  const double pairs = static_cast<double>(std::max<std::uint64_t>(h.pairs, 1));
  for (int k = 0; k < reference::kTieBuckets; ++k)
    state.counters[bucket_name(k)] = static_cast<double>(h.buckets[k]) / pairs;
  state.counters["pairs"] = static_cast<double>(h.pairs);
  state.counters["mean_tie"] = h.sum_tie / pairs;
  state.counters["max_tie"] = static_cast<double>(h.max_tie);
}

}  // namespace

void register_bwt() {
  std::vector<ByteInputSpec> specs;
  for (const auto& s : standard_byte_inputs())
    if (!s.bwt) specs.push_back(s);
  specs.push_back({"random-bytes", "synthetic:random-bytes", false});
  for (const auto& spec : specs) {
    const std::size_t n = spec.source.rfind("synthetic:", 0) == 0 ? std::size_t{16} << 20
                                                                  : datasets::find_manifest_file(spec.source).size;
    benchmark::RegisterBenchmark(fmt::format("thesis.fig4_3/cpu.analysis/{}/n={}", spec.label, n).c_str(), tie_analysis,
                                 spec)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(1);
  }
}

}  // namespace parcomp::bench
