// The whole pipeline (thesis Tables 4.1 and 4.2):
//   thesis.table4_1  compression per dataset: pipeline.gpu.paper / pipeline.gpu.fast with the
//                    input already on the device (the stages, per-block codes and their host
//                    round trip included), pipeline.gpu.fast.e2e from host bytes to the finished
//                    container (upload, CRC-32 on the host, stages, download, assembly), and
//                    bzip2 -9 through libbz2 (900 kB blocks, one core). Counters: ratio
//                    (compressed / uncompressed) and the stage times in ms.
//   thesis.table4_2  decompression: the same variants reversed, and bzip2.
// The BWT columns alone are in bench/bwt.cpp (bwt.*, rbwt.*). Every GPU container is first checked:
// paper bit-identical to the CPU reference pipeline's, both decompressed back to the input.
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "kernels/pipeline/pipeline.hpp"
#include "reference/pipeline.hpp"

#include <benchmark/benchmark.h>
#include <bzlib.h>
#include <fmt/core.h>

#include <chrono>

namespace parcomp::bench {

namespace {

std::shared_ptr<const ByteInput> input_or_skip(benchmark::State& state, const ByteInputSpec& spec) {
  auto in = byte_input(spec);
  if (in->unavailable.empty()) return in;
  const std::string msg = "skipped: " + in->unavailable;
  state.SkipWithError(msg.c_str());
  return nullptr;
}

void stage_counters(benchmark::State& state, const pipeline::StageTimes& t) {
  state.counters["bwt_ms"] = t.bwt * 1e3;
  state.counters["mtf_ms"] = t.mtf * 1e3;
  state.counters["huffman_ms"] = t.huffman * 1e3;
}

void gpu_compress(benchmark::State& state, pipeline::Config config, bool end_to_end, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_or_skip(state, spec);
    if (!in) return;
    const std::size_t n = in->bytes.size();
    pipeline::GpuCompressor c(config, n, kBwtBlockBytes);
    GpuTimingContext timing;
    c.upload(in->bytes, timing.stream());
    pipeline::StageTimes t = c.run(timing.stream());
    const auto file = c.container(timing.stream());
    if (config == pipeline::Config::paper && file != reference::pipeline_compress(in->bytes, kBwtBlockBytes))
      return fail(state, name, "container differs from the CPU reference pipeline's");
    if (pipeline::decompress_gpu(file) != in->bytes) return fail(state, name, "container does not decompress to the input");
    const double seconds = timing.run(state, name, [&](cudaStream_t s) {
      if (end_to_end) {
        c.upload(in->bytes, s);
        t = c.run(s);
        benchmark::DoNotOptimize(c.container(s).data());
      } else {
        t = c.run(s);
      }
    });
    set_throughput_counters(state, n);
    (void)seconds;
    state.counters["ratio"] = static_cast<double>(file.size()) / static_cast<double>(std::max<std::size_t>(n, 1));
    stage_counters(state, t);
  });
}

void gpu_decompress(benchmark::State& state, pipeline::Config config, bool end_to_end, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_or_skip(state, spec);
    if (!in) return;
    const auto file = pipeline::compress_gpu(config, in->bytes, kBwtBlockBytes);
    pipeline::GpuDecompressor d(file);
    GpuTimingContext timing;
    d.load(timing.stream());
    pipeline::StageTimes t = d.run(timing.stream());
    if (d.output(timing.stream()) != in->bytes) return fail(state, name, "decompressed bytes differ from the input");
    timing.run(state, name, [&](cudaStream_t s) {
      if (end_to_end) {
        pipeline::GpuDecompressor fresh(file);
        fresh.load(s);
        t = fresh.run(s);
        benchmark::DoNotOptimize(fresh.output(s).data());
      } else {
        t = d.run(s);
      }
    });
    set_throughput_counters(state, in->bytes.size());
    state.counters["ratio"] = static_cast<double>(file.size()) / static_cast<double>(std::max<std::size_t>(in->bytes.size(), 1));
    stage_counters(state, t);
  });
}

std::vector<char> bzip2_compress(const std::vector<std::uint8_t>& in) {
  std::vector<char> out(in.size() + in.size() / 100 + 600);
  auto len = static_cast<unsigned>(out.size());
  const int rc = BZ2_bzBuffToBuffCompress(out.data(), &len, reinterpret_cast<char*>(const_cast<std::uint8_t*>(in.data())),
                                          static_cast<unsigned>(in.size()), 9, 0, 0);
  if (rc != BZ_OK) throw std::runtime_error("BZ2_bzBuffToBuffCompress failed: " + std::to_string(rc));
  out.resize(len);
  return out;
}

void bzip2_run(benchmark::State& state, bool decompress, ByteInputSpec spec) {
  const auto in = input_or_skip(state, spec);
  if (!in) return;
  if (in->bytes.size() >= (std::size_t{1} << 32)) {
    state.SkipWithError("skipped: libbz2's buffer API takes inputs below 4 GiB");
    return;
  }
  auto packed = bzip2_compress(in->bytes);
  std::vector<char> back(in->bytes.size() + 1);
  for (auto _ : state) {
    if (decompress) {
      auto len = static_cast<unsigned>(back.size());
      if (BZ2_bzBuffToBuffDecompress(back.data(), &len, packed.data(), static_cast<unsigned>(packed.size()), 0, 0) != BZ_OK ||
          len != in->bytes.size()) {
        state.SkipWithError("FAILED: bzip2 did not decompress its own output");
        return;
      }
    } else {
      packed = bzip2_compress(in->bytes);
    }
  }
  set_throughput_counters(state, in->bytes.size());
  state.counters["ratio"] = static_cast<double>(packed.size()) / static_cast<double>(std::max<std::size_t>(in->bytes.size(), 1));
}

}  // namespace

void register_pipeline() {
  for (const ByteInputSpec& spec : standard_byte_inputs()) {
    if (spec.bwt) continue;
    const std::string tail = fmt::format("{}/n={}", spec.label, spec_size(spec));
    for (const auto& [experiment, decompress] : {std::pair{"thesis.table4_1", false}, std::pair{"thesis.table4_2", true}}) {
      for (const auto& [variant, config, e2e] : {std::tuple{"pipeline.gpu.paper", pipeline::Config::paper, false},
                                                 std::tuple{"pipeline.gpu.fast", pipeline::Config::fast, false},
                                                 std::tuple{"pipeline.gpu.fast.e2e", pipeline::Config::fast, true}}) {
        const std::string name = fmt::format("{}/{}/{}", experiment, variant, tail);
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), decompress ? gpu_decompress : gpu_compress, config, e2e,
                                                   spec, name));
      }
      configure_cpu(benchmark::RegisterBenchmark(fmt::format("{}/bzip2.cpu/{}", experiment, tail).c_str(), bzip2_run,
                                                 decompress, spec));
    }
  }
}

}  // namespace parcomp::bench
