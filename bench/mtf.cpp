// Move-to-front (thesis sections 2.2, 3.2): experiments thesis.fig4_4 (forward, per dataset),
// thesis.fig4_5 (forward gpu.paper vs the partial-list size in shared memory: the local scan alone,
// as the thesis timed it, gpu.paper.local_scan, and the whole transform, gpu.paper), thesis.fig4_6
// (reverse, per dataset and vs the list size), and mtf.fast_tuning (ours: gpu.fast's substring
// length). Inputs are the datasets as CPU-made BWT blocks (what MTF sees) and raw.
#include "common/defaults.hpp"
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "core/bz2_encode.hpp"
#include "datasets/dataset.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/mtf/mtf.hpp"
#include "reference/mtf.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <numeric>

namespace parcomp::bench {

namespace {

constexpr std::size_t kSegment = kBwtBlockBytes;  // the list restarts with each BWT block

struct MtfInput {
  std::shared_ptr<const ByteInput> raw;
  std::vector<std::uint8_t> forward;  // the oracle's MTF of raw->bytes
  double mean_index = 0.0;
};

std::shared_ptr<const MtfInput> mtf_input(const ByteInputSpec& spec) {
  static std::shared_ptr<const MtfInput> cached;
  if (cached && cached->raw->label == spec.label) return cached;
  cached.reset();
  auto in = std::make_shared<MtfInput>();
  in->raw = byte_input(spec);
  in->forward = reference::mtf_encode(in->raw->bytes, kSegment);
  if (!in->forward.empty())
    in->mean_index = std::accumulate(in->forward.begin(), in->forward.end(), 0.0) / static_cast<double>(in->forward.size());
  cached = std::move(in);
  return cached;
}

// Input size of a spec without loading it (benchmark names carry it).
bool available(benchmark::State& state, const MtfInput& in) {
  if (in.raw->unavailable.empty()) return true;
  const std::string msg = "skipped: " + in.raw->unavailable;
  state.SkipWithError(msg.c_str());
  return false;
}

void set_mtf_counters(benchmark::State& state, const MtfInput& in, double gpu_seconds) {
  const std::uint64_t n = in.raw->bytes.size();
  set_throughput_counters(state, n);
  set_bandwidth_counter(state, 2 * n, gpu_seconds);  // read n bytes, write n bytes
  state.counters["mean_mtf_index"] = in.mean_index;
}

void cpu_mtf(benchmark::State& state, ByteInputSpec spec, mtf::Direction d) {
  const auto in = mtf_input(spec);
  if (!available(state, *in)) return;
  const auto& src = d == mtf::Direction::forward ? in->raw->bytes : in->forward;
  std::vector<std::uint8_t> out(src.size());
  for (auto _ : state) {
    if (d == mtf::Direction::forward)
      reference::mtf_encode(src, out, kSegment);
    else
      reference::mtf_decode(src, out, kSegment);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_mtf_counters(state, *in, 0.0);
}

// What a benchmark times: the whole transform, or the thesis's "local scan" alone (Fig. 4.5:
// every thread's partial list and the scan over each block's threads).
enum class Step { transform, local_scan };

void gpu_mtf(benchmark::State& state, ByteInputSpec spec, mtf::Variant v, mtf::Direction d, mtf::Config cfg,
             std::string name, Step step = Step::transform) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = mtf_input(spec);
    if (!available(state, *in)) return;
    const auto& src = d == mtf::Direction::forward ? in->raw->bytes : in->forward;
    const auto& want = d == mtf::Direction::forward ? in->forward : in->raw->bytes;
    const std::size_t n = src.size();
    DeviceBuffer<std::uint8_t> d_in(n), d_out(n);
    DeviceBytes scratch(mtf::scratch_bytes(v, d, n, cfg));
    d_in.upload(src);
    d_out.fill_bytes(0xAB);
    GpuTimingContext timing;
    auto run = [&](cudaStream_t s) {
      mtf::transform(v, d, d_in.data(), n, d_out.data(), scratch.data(), scratch.size_bytes(), cfg, s);
    };
    run(timing.stream());
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
    if (first_check(name)) {  // the later calls run the same work on the same input
      const auto got = d_out.download();
      const auto bad = std::mismatch(got.begin(), got.end(), want.begin());
      if (bad.first != got.end())
        return fail(state, name,
                    fmt::format("out[{}] = {}, oracle {}", bad.first - got.begin(), int{*bad.first}, int{*bad.second}));
    }
    // The whole transform was checked against the oracle above; the local scan is its first step.
    const double seconds = step == Step::transform
                               ? timing.run(state, name, run)
                               : timing.run(state, name, [&](cudaStream_t s) {
                                   mtf::local_scan(v, d, d_in.data(), n, scratch.data(), scratch.size_bytes(), cfg, s);
                                 });
    set_mtf_counters(state, *in, seconds);
    state.counters["chars_per_thread"] = cfg.chars_per_thread;
    state.counters["shared_list_entries"] = v == mtf::Variant::fast ? 256 : cfg.shared_list_entries;
  });
}

mtf::Config config(mtf::Variant v, mtf::Direction d) {
  mtf::Config c = mtf::default_config(v, d);
  c.segment_bytes = kSegment;
  return c;
}

}  // namespace

// The forward transform with the list as 32 words, eight places a step (bz2::mtf_move, the move
// the project's own .bz2 writer makes; ours): the serial baseline beside Alg. 1's one place a step
// (cpu.serial), which is what the thesis's baseline, bzip2's MTF, does.
void mtf_encode_words(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, std::size_t segment) {
  std::uint8_t identity[256];
  std::iota(identity, identity + 256, 0);
  std::uint64_t yy[bz2::kMtfWords];
  for (std::size_t s = 0; s < in.size(); s += segment) {
    bz2::mtf_list_words(identity, 256, yy);
    std::uint64_t front = yy[0];
    for (std::size_t i = s, e = std::min(in.size(), s + segment); i < e; ++i)
      out[i] = (front & 0xffu) == in[i] ? 0 : static_cast<std::uint8_t>(bz2::mtf_move(front, yy, in[i]));
  }
}

void cpu_mtf_words(benchmark::State& state, ByteInputSpec spec, std::string name) {
  const auto in = mtf_input(spec);
  if (!available(state, *in)) return;
  std::vector<std::uint8_t> out(in->raw->bytes.size());
  guarded(state, name, [&] {
    mtf_encode_words(in->raw->bytes, out, kSegment);  // checked once against the oracle, then timed
    if (out != in->forward) throw std::runtime_error("the word-list MTF differs from reference::mtf_encode");
    for (auto _ : state) {
      mtf_encode_words(in->raw->bytes, out, kSegment);
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    }
    set_mtf_counters(state, *in, 0.0);
  });
}

void register_mtf() {
  const std::vector<std::string> sweep_inputs = {"linux-2.6.11.1.tar.bwt", "enwik8.bwt", "silesia-dickens.bwt",
                                                 "silesia-xml.bwt"};
  const std::vector<unsigned> list_sizes = {8, 16, 24, 32, 40, 48, 56, 64, 76, 96, 128, 192, 256};
  const std::vector<unsigned> fast_chars = {128, 256, 512, 1024, 2048, 4096};
  const auto variants = {mtf::Variant::paper, mtf::Variant::naive, mtf::Variant::fast};
  for (const ByteInputSpec& spec : standard_byte_inputs()) {
    const std::size_t n = spec_size(spec);
    for (const auto d : {mtf::Direction::forward, mtf::Direction::reverse}) {
      const char* experiment = d == mtf::Direction::forward ? "thesis.fig4_4" : "thesis.fig4_6";
      configure_cpu(benchmark::RegisterBenchmark(fmt::format("{}/cpu.serial/{}/n={}", experiment, spec.label, n).c_str(),
                                                 cpu_mtf, spec, d));
      if (d == mtf::Direction::forward) {
        const std::string words = fmt::format("{}/cpu.words/{}/n={}", experiment, spec.label, n);
        configure_cpu(benchmark::RegisterBenchmark(words.c_str(), cpu_mtf_words, spec, words));
      }
      for (const auto v : variants) {
        const std::string name = fmt::format("{}/{}/{}/n={}", experiment, mtf::name(v), spec.label, n);
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_mtf, spec, v, d, config(v, d), name, Step::transform));
      }
    }
    if (std::find(sweep_inputs.begin(), sweep_inputs.end(), spec.label) == sweep_inputs.end()) continue;
    for (const auto d : {mtf::Direction::forward, mtf::Direction::reverse}) {
      const char* experiment = d == mtf::Direction::forward ? "thesis.fig4_5" : "thesis.fig4_6";
      for (const unsigned entries : list_sizes) {
        mtf::Config c = config(mtf::Variant::paper, d);
        c.shared_list_entries = entries;
        const std::string name = fmt::format("{}/gpu.paper/{}/list={}", experiment, spec.label, entries);
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_mtf, spec, mtf::Variant::paper, d, c, name, Step::transform));
        if (d == mtf::Direction::forward) {  // Fig. 4.5 as the thesis measured it: the local scan alone
          const std::string scan = fmt::format("{}/gpu.paper.local_scan/{}/list={}", experiment, spec.label, entries);
          configure_gpu(benchmark::RegisterBenchmark(scan.c_str(), gpu_mtf, spec, mtf::Variant::paper, d, c, scan, Step::local_scan));
        }
      }
      for (const unsigned chars : fast_chars) {
        mtf::Config c = config(mtf::Variant::fast, d);
        c.chars_per_thread = chars;
        const std::string name = fmt::format("mtf.fast_tuning/gpu.fast.{}/{}/chars={}",
                                             d == mtf::Direction::forward ? "forward" : "reverse", spec.label, chars);
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_mtf, spec, mtf::Variant::fast, d, c, name, Step::transform));
      }
    }
  }
}

}  // namespace parcomp::bench
