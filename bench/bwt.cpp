// BWT experiments (thesis sections 2.1, 3.3, 4.4):
//   thesis.fig4_3   the tie analysis (CPU): for every dataset, the rotations of each 1 MiB block
//                   are sorted (libdivsufsort on the doubled block) and the longest common prefix
//                   of every pair of adjacent rotations is histogrammed: the fraction of pairs whose
//                   tie is 0-3 bytes (decided by the thesis's 4-byte keys), 4-7, 8-15, ... Time is
//                   that of the analysis (one iteration), not an experiment.
//   thesis.table4_1 the BWT column: forward BWT in 1 MiB blocks, MB/s and Mstrings/s (rotations
//                   sorted per second): bwt.gpu.paper, bwt.gpu.fast, bwt.cpu.divbwt (libdivsufsort,
//                   one thread) and bwt.cpu.divbwt.mt (all host threads).
//   thesis.table4_2 the reverse-BWT column: rbwt.gpu.paper (4096 threads, the thesis's best),
//                   rbwt.gpu.fast, rbwt.cpu.serial (LF mapping, as bzip2).
//   thesis.table4_3 reverse BWT gpu.paper against its total thread count.
// Every GPU run is first checked bit-exact against the oracle (L, primary indices, samples, and
// the reverse's output against the input).
#include "common/defaults.hpp"
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "common/metadata.hpp"
#include "datasets/dataset.hpp"
#include "datasets/sha256.hpp"
#include "datasets/synthetic.hpp"
#include "kernels/bwt/bwt.hpp"
#include "kernels/common/device_buffer.hpp"
#include "reference/bwt.hpp"
#include "reference/bwt_cpu.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>

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

// A dataset and its oracle transform in 1 MiB blocks (with the fast reverse's sampled rows).
struct BwtInput {
  std::shared_ptr<const ByteInput> raw;
  reference::RotationBlocks oracle;
};

std::shared_ptr<const BwtInput> bwt_input(const ByteInputSpec& spec) {
  static std::shared_ptr<const BwtInput> cached;
  if (cached && cached->raw->label == spec.label) return cached;
  cached.reset();
  auto in = std::make_shared<BwtInput>();
  in->raw = byte_input(spec);
  if (in->raw->unavailable.empty()) {
    fmt::print(stderr, "parcomp-bench: BWT oracle of {} (libdivsufsort, all host threads) ...\n", spec.label);
    in->oracle = reference::bwt_rotation_blocks(in->raw->bytes, kBwtBlockBytes, bwt::kSampleStride);
  }
  cached = std::move(in);
  return cached;
}

std::shared_ptr<const BwtInput> bwt_input_or_skip(benchmark::State& state, const ByteInputSpec& spec) {
  auto in = bwt_input(spec);
  if (in->raw->unavailable.empty()) return in;
  const std::string msg = "skipped: " + in->raw->unavailable;
  state.SkipWithError(msg.c_str());
  return nullptr;
}

void set_bwt_counters(benchmark::State& state, std::size_t n, double seconds, bool gpu) {
  set_throughput_counters(state, n);
  if (gpu) set_bandwidth_counter(state, 2 * n, seconds);
  if (seconds > 0)
    state.counters["Mstrings_per_second"] = static_cast<double>(n) * static_cast<double>(state.iterations()) / seconds / 1e6;
}

// Device buffers of one transform: input, L, primaries, samples, output.
struct DeviceBwt {
  DeviceBuffer<std::uint8_t> in, last, out;
  DeviceBuffer<std::uint32_t> primary, samples;
  explicit DeviceBwt(std::size_t n)
      : in(std::max<std::size_t>(n, 1)), last(std::max<std::size_t>(n, 1)), out(std::max<std::size_t>(n, 1)),
        primary(std::max<std::size_t>(bwt::block_count(n, kBwtBlockBytes), 1)),
        samples(std::max<std::size_t>(bwt::sample_entries(n, kBwtBlockBytes), 1)) {}
};

// Empty when L, the primaries and (if asked) the samples equal the oracle's.
std::string check_forward(const BwtInput& in, const DeviceBwt& d, bool samples) {
  const std::size_t n = in.raw->bytes.size();
  const auto last = d.last.download(n);
  if (last != in.oracle.last) {
    const auto bad = std::mismatch(last.begin(), last.end(), in.oracle.last.begin());
    return fmt::format("L differs from the oracle first at byte {}", bad.first - last.begin());
  }
  if (d.primary.download(in.oracle.primary.size()) != in.oracle.primary) return "primary indices differ from the oracle";
  if (samples) {
    const auto got = d.samples.download(in.oracle.samples.size());
    for (std::size_t k = 0; k < got.size(); ++k)
      if (in.oracle.samples[k] != 0xFFFFFFFFu && got[k] != in.oracle.samples[k])
        return fmt::format("sample {} differs from the oracle", k);
  }
  return {};
}

void gpu_forward(benchmark::State& state, bwt::Variant v, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = bwt_input_or_skip(state, spec);
    if (!in) return;
    const std::size_t n = in->raw->bytes.size();
    const bool samples = v == bwt::Variant::fast;
    DeviceBwt d(n);
    DeviceBytes scratch(bwt::forward_scratch_bytes(v, n, kBwtBlockBytes));
    d.in.upload(in->raw->bytes);
    d.last.fill_bytes(0xAB);
    d.primary.fill_bytes(0xAB);
    d.samples.fill_bytes(0xAB);
    GpuTimingContext timing;
    auto run = [&](cudaStream_t s) {
      bwt::forward(v, d.in.data(), n, kBwtBlockBytes, d.last.data(), d.primary.data(), samples ? d.samples.data() : nullptr,
                   scratch.data(), scratch.size_bytes(), s);
    };
    run(timing.stream());
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
    if (first_check(name))  // the later calls run the same work on the same input
      if (const auto bad = check_forward(*in, d, samples); !bad.empty()) return fail(state, name, bad);
    const double seconds = timing.run(state, name, run);
    set_bwt_counters(state, n, seconds, true);
  });
}

void gpu_reverse(benchmark::State& state, bwt::ReverseConfig c, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = bwt_input_or_skip(state, spec);
    if (!in) return;
    const std::size_t n = in->raw->bytes.size();
    DeviceBwt d(n);
    DeviceBytes scratch(bwt::reverse_scratch_bytes(c, n, kBwtBlockBytes));
    d.last.upload(in->oracle.last);
    d.primary.upload(in->oracle.primary);
    d.samples.upload(in->oracle.samples);
    d.out.fill_bytes(0xCD);
    GpuTimingContext timing;
    auto run = [&](cudaStream_t s) {
      bwt::reverse(c, d.last.data(), n, kBwtBlockBytes, d.primary.data(), d.samples.data(), d.out.data(), scratch.data(),
                   scratch.size_bytes(), s);
    };
    run(timing.stream());
    if (first_check(name) && d.out.download(n) != in->raw->bytes)
      return fail(state, name, "reverse output differs from the input");
    const double seconds = timing.run(state, name, run);
    set_bwt_counters(state, n, seconds, true);
  });
}

// CPU forward: libdivsufsort's divbwt per block (1 thread, or all host threads).
void cpu_forward(benchmark::State& state, ByteInputSpec spec, unsigned threads) {
  const auto in = bwt_input_or_skip(state, spec);
  if (!in) return;
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto out = reference::bwt_blocks_divsufsort(in->raw->bytes, kBwtBlockBytes, threads);
    benchmark::DoNotOptimize(out.bytes.data());
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  set_bwt_counters(state, in->raw->bytes.size(), seconds, false);
}

void cpu_reverse(benchmark::State& state, ByteInputSpec spec) {
  const auto in = bwt_input_or_skip(state, spec);
  if (!in) return;
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto out = reference::inverse_bwt_blocks(in->oracle);
    benchmark::DoNotOptimize(out.data());
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  set_bwt_counters(state, in->raw->bytes.size(), seconds, false);
}

}  // namespace

namespace {
void register_bwt_transforms() {
  std::vector<ByteInputSpec> specs;
  for (const auto& s : standard_byte_inputs())
    if (!s.bwt) specs.push_back(s);
  // The control: random bytes, whose 4-byte keys almost never tie (about 128 repeated 4-grams per
  // 1 MiB block), standing in for the thesis's input of random unique 4-character keys.
  specs.push_back({"random-bytes", "synthetic:random-bytes", false});
  for (const auto& spec : specs) {
    const std::string tail = fmt::format("{}/n={}", spec.label, spec_size(spec));
    for (const auto v : {bwt::Variant::paper, bwt::Variant::fast}) {
      const std::string name = fmt::format("thesis.table4_1/bwt.{}/{}", bwt::name(v), tail);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_forward, v, spec, name));
    }
    configure_cpu(benchmark::RegisterBenchmark(fmt::format("thesis.table4_1/bwt.cpu.divbwt/{}", tail).c_str(),
                                               cpu_forward, spec, 1u));
    configure_cpu(benchmark::RegisterBenchmark(fmt::format("thesis.table4_1/bwt.cpu.divbwt.mt/{}", tail).c_str(),
                                               cpu_forward, spec, 0u));
    for (const auto v : {bwt::Variant::paper, bwt::Variant::fast}) {
      const std::string name = fmt::format("thesis.table4_2/rbwt.{}/{}", bwt::name(v), tail);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_reverse, bwt::ReverseConfig{v, 4096}, spec, name));
    }
    configure_cpu(benchmark::RegisterBenchmark(fmt::format("thesis.table4_2/rbwt.cpu.serial/{}", tail).c_str(),
                                               cpu_reverse, spec));
    // Table 4.3: the thesis's three datasets (Silesia xml stands in for enwiki xml).
    if (spec.label == "linux-2.6.11.1.tar" || spec.label == "enwik8" || spec.label == "silesia-xml") {
      for (const unsigned threads : {1024u, 2048u, 4096u, 8192u, 16384u, 32768u, 65536u, 262144u}) {
        const std::string name = fmt::format("thesis.table4_3/rbwt.gpu.paper/{}/threads={}", spec.label, threads);
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_reverse,
                                                   bwt::ReverseConfig{bwt::Variant::paper, threads}, spec, name));
      }
    }
  }
}
}  // namespace

void register_bwt() {
  std::vector<ByteInputSpec> specs;
  for (const auto& s : standard_byte_inputs())
    if (!s.bwt) specs.push_back(s);
  specs.push_back({"random-bytes", "synthetic:random-bytes", false});
  for (const auto& spec : specs) {
    benchmark::RegisterBenchmark(fmt::format("thesis.fig4_3/cpu.analysis/{}/n={}", spec.label, spec_size(spec)).c_str(), tie_analysis,
                                 spec)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(1);
  }
  register_bwt_transforms();
}

}  // namespace parcomp::bench
