// PARLE (parle-blog-run-length-encoding-in-cuda.txt): experiments parle.encode and parle.decode.
// Names: parle.<encode|decode>/<variant>/<dataset>/n=<elements>; variants cpu.serial, gpu.paper,
// gpu.cub. Inputs are int32: "random" (uniform) and "runs-mean<K>" (geometric runs of mean K).
#include "common/defaults.hpp"
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/metadata.hpp"
#include "datasets/sha256.hpp"
#include "datasets/synthetic.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/rle/rle.hpp"
#include "reference/rle.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

namespace parcomp::bench {

namespace {

struct ParleInput {
  std::string dataset;
  std::size_t n = 0;
  std::vector<std::int32_t> values;
  reference::RlePairs pairs;  // the oracle's encoding
};

struct DatasetSpec {
  std::string name;
  int mean_run_length;  // 0 = uniform random
};

std::vector<DatasetSpec> dataset_specs() {
  std::vector<DatasetSpec> specs{{"random", 0}};
  for (const int m : defaults::parle::kMeanRunLengths) specs.push_back({fmt::format("runs-mean{}", m), m});
  return specs;
}

// The benchmarks of one (dataset, n) run back to back: keep the last input only.
std::shared_ptr<const ParleInput> input_for(const DatasetSpec& spec, std::size_t n) {
  static std::shared_ptr<const ParleInput> cached;
  if (cached && cached->dataset == spec.name && cached->n == n) return cached;
  cached.reset();
  auto in = std::make_shared<ParleInput>();
  in->dataset = spec.name;
  in->n = n;
  in->values = spec.mean_run_length == 0 ? datasets::random_int32(n, defaults::kSeed)
                                         : datasets::runs_int32(n, spec.mean_run_length, defaults::kSeed);
  in->pairs = reference::rle_encode(in->values);
  record_dataset(fmt::format("parle/{}/n={}", spec.name, n),
                 {{"generator", spec.mean_run_length == 0 ? "random_int32" : "runs_int32"},
                  {"mean_run_length_requested", spec.mean_run_length},
                  {"mean_run_length_measured", datasets::mean_run_length(in->values)},
                  {"seed", defaults::kSeed},
                  {"elements", n},
                  {"element_type", "int32"},
                  {"bytes", n * sizeof(std::int32_t)},
                  {"runs", in->pairs.symbols.size()},
                  {"sha256", datasets::sha256_hex_of(std::span<const std::int32_t>(in->values))}});
  cached = std::move(in);
  return cached;
}

// gpu_seconds: summed event time of a GPU benchmark (0 for CPU ones, which get no bw_util).
void set_rle_counters(benchmark::State& state, const ParleInput& in, double gpu_seconds) {
  const std::uint64_t n_bytes = in.n * sizeof(std::int32_t);
  const std::uint64_t runs = in.pairs.symbols.size();
  const std::uint64_t pair_bytes = runs * 2 * sizeof(std::int32_t);
  set_throughput_counters(state, n_bytes);
  // Compulsory traffic: the elements and the pairs, each moved once (either direction).
  set_bandwidth_counter(state, n_bytes + pair_bytes, gpu_seconds);
  state.counters["runs"] = static_cast<double>(runs);
  state.counters["ratio"] = n_bytes == 0 ? 0.0 : static_cast<double>(pair_bytes) / static_cast<double>(n_bytes);
  state.counters["elements"] = static_cast<double>(in.n);
}

template <typename T>
std::string first_mismatch(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) return fmt::format("{}[{}] = {}, oracle {}", what, i, got[i], want[i]);
  return {};
}

void cpu_encode(benchmark::State& state, DatasetSpec spec, std::size_t n) {
  const auto in = input_for(spec, n);
  std::vector<std::int32_t> symbols(n), counts(n);
  for (auto _ : state) {
    const std::size_t runs = reference::rle_encode(in->values, symbols, counts);
    benchmark::DoNotOptimize(runs);
    benchmark::ClobberMemory();
  }
  set_rle_counters(state, *in, 0.0);
}

void cpu_decode(benchmark::State& state, DatasetSpec spec, std::size_t n) {
  const auto in = input_for(spec, n);
  std::vector<std::int32_t> out(n);
  for (auto _ : state) {
    const std::size_t written = reference::rle_decode(in->pairs.symbols, in->pairs.counts, out);
    benchmark::DoNotOptimize(written);
    benchmark::ClobberMemory();
  }
  set_rle_counters(state, *in, 0.0);
}

void gpu_encode(benchmark::State& state, rle::EncodeVariant variant, DatasetSpec spec, std::size_t n,
                std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_for(spec, n);
    const std::size_t runs = in->pairs.symbols.size();
    DeviceBuffer<std::int32_t> d_in(n), d_symbols(n), d_counts(n), d_runs(1);
    DeviceBytes scratch(rle::encode_scratch_bytes(variant, n));
    d_in.upload(in->values);
    GpuTimingContext timing;
    auto run = [&](cudaStream_t s) {
      rle::encode(variant, d_in.data(), n, d_symbols.data(), d_counts.data(), d_runs.data(), scratch.data(),
                  scratch.size_bytes(), s);
    };
    // Untimed first run (also the warm-up), checked against the oracle on poisoned outputs in the
    // benchmark's first call (the later calls run the same work on the same input).
    d_symbols.fill_bytes(0xAB);
    d_counts.fill_bytes(0xAB);
    d_runs.fill_bytes(0xAB);
    run(timing.stream());
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
    if (first_check(name)) {
      const auto got_runs = static_cast<std::size_t>(d_runs.download()[0]);
      if (got_runs != runs) return fail(state, name, fmt::format("{} runs, oracle {}", got_runs, runs));
      if (auto m = first_mismatch(d_symbols.download(runs), in->pairs.symbols, "symbols"); !m.empty())
        return fail(state, name, m);
      if (auto m = first_mismatch(d_counts.download(runs), in->pairs.counts, "counts"); !m.empty())
        return fail(state, name, m);
    }
    const double seconds = timing.run(state, name, run);
    set_rle_counters(state, *in, seconds);
  });
}

void gpu_decode(benchmark::State& state, rle::DecodeVariant variant, DatasetSpec spec, std::size_t n,
                std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_for(spec, n);
    const std::size_t runs = in->pairs.symbols.size();
    DeviceBuffer<std::int32_t> d_symbols(runs), d_counts(runs), d_out(n);
    DeviceBytes scratch(rle::decode_scratch_bytes(variant, runs, n));
    d_symbols.upload(in->pairs.symbols);
    d_counts.upload(in->pairs.counts);
    GpuTimingContext timing;
    auto run = [&](cudaStream_t s) {
      rle::decode(variant, d_symbols.data(), d_counts.data(), runs, n, d_out.data(), scratch.data(),
                  scratch.size_bytes(), s);
    };
    d_out.fill_bytes(0xAB);
    run(timing.stream());
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
    if (first_check(name))
      if (auto m = first_mismatch(d_out.download(), in->values, "out"); !m.empty()) return fail(state, name, m);
    const double seconds = timing.run(state, name, run);
    set_rle_counters(state, *in, seconds);
  });
}

}  // namespace

void register_parle() {
  namespace d = defaults::parle;
  const int max_log2 = options().max_log2 >= 0 ? std::min(options().max_log2, d::kMaxLog2) : d::kMaxLog2;
  for (const DatasetSpec& spec : dataset_specs()) {
    for (int lg = d::kMinLog2; lg <= max_log2; lg += d::kStepLog2) {
      const std::size_t n = std::size_t{1} << lg;
      auto bench_name = [&](const char* experiment, std::string_view variant) {
        return fmt::format("{}/{}/{}/n={}", experiment, variant, spec.name, n);
      };
      configure_cpu(benchmark::RegisterBenchmark(bench_name("parle.encode", "cpu.serial").c_str(), cpu_encode, spec, n));
      for (const auto v : {rle::EncodeVariant::paper, rle::EncodeVariant::cub}) {
        const std::string name = bench_name("parle.encode", rle::name(v));
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_encode, v, spec, n, name));
      }
      configure_cpu(benchmark::RegisterBenchmark(bench_name("parle.decode", "cpu.serial").c_str(), cpu_decode, spec, n));
      for (const auto v : {rle::DecodeVariant::paper, rle::DecodeVariant::cub}) {
        const std::string name = bench_name("parle.decode", rle::name(v));
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_decode, v, spec, n, name));
      }
    }
  }
}

}  // namespace parcomp::bench
