// The whole pipeline (thesis Tables 4.1 and 4.2):
//   thesis.table4_1  compression per dataset, 1 MiB blocks: pipeline.gpu.<config>.kernels (the
//                    stages on device-resident input: per-block codes, and the paper
//                    configuration's host round trip, included), pipeline.gpu.<config> (that and
//                    the container's download and assembly on the host), pipeline.gpu.fast.e2e
//                    (host bytes to the finished container, allocations included), and
//                    pipeline.gpu.fast.kernels.b900k (900,000-byte blocks, bzip2 -9's size);
//                    bzip2 -9 through libbz2 (900 kB blocks, one core). Counters: ratio
//                    (compressed / uncompressed), stream_ratio and overhead_ratio (the coded
//                    symbols, and everything else in the file, per input byte), block_bytes, and
//                    the stage times in ms.
//   thesis.table4_2  decompression: .kernels (the stages alone), the plain variant (parse, decode
//                    tables, the file's upload and the stages: the host work counted, the output
//                    left on the device), .e2e (host to host, allocations included), CPU peers.
//   CPU peers, on the same host: bzip2.cpu (libbz2 -9, one core), lbzip2.cpu.mt (the lbzip2
//   program, -9, all host threads, file to file in /tmp: its own I/O included), zstd.cpu.l3 and
//   zstd.cpu.mt.l19 (libzstd level 3 on one core; level 19 with a worker per host thread;
//   decompression is one core either way).
//   thesis.fig4_1    the host's PCIe bandwidth: cudaMemcpy of 256 MiB host to device and back, from
//                    pinned and from pageable memory (pcie.h2d/pinned-memory, ...).
//   codecs.landscape  parcomp.fast.kernels and parcomp.paper.kernels on the landscape's datasets
//                    (bench/codecs.cpp has nvCOMP's codecs, bench/tool.cpp the CPU programs).
// The BWT columns alone are in bench/bwt.cpp (bwt.*, rbwt.*). Every GPU container is first checked:
// paper bit-identical to the CPU reference pipeline's, both decompressed back to the input.
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "codec/gpu_pipeline.hpp"
#include "reference/pipeline.hpp"

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"

#include <benchmark/benchmark.h>
#include <bzlib.h>
#include <fmt/core.h>
#include <unistd.h>
#include <zstd.h>

#include <chrono>
#include <optional>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

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
  if (t.zrle > 0) state.counters["zrle_ms"] = t.zrle * 1e3;  // fast only (a constant 0 makes the cv aggregate NaN)
  state.counters["huffman_ms"] = t.huffman * 1e3;
}

// What a GPU pipeline benchmark times.
enum class Timed {
  kernels,   // <variant>.kernels: the stages on the device (compress: run(); decompress: run())
  format,    // <variant>: the stages and the host work of the format, input and output device-resident
             // where they are the raw bytes (compress: run() + container(), the file assembled in host
             // memory; decompress: load() + run() from the file in host memory: parse, decode tables,
             // the file's upload, the stages; the output stays on the device)
  end_to_end // <variant>.e2e: host bytes to host bytes, every allocation and copy included, both ways
};

// The container's side data as counters: stream bytes (the coded symbols) and everything else
// (header, block index, per-block tables, selectors, BWT start rows, decoder index), per input byte.
void container_counters(benchmark::State& state, const std::vector<std::uint8_t>& file, std::size_t n) {
  const pipeline::Layout layout = pipeline::parse(file);
  std::uint64_t stream = 0;
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    const auto& e = layout.blocks[b];
    const auto payload = std::span(file).subspan(e.payload_offset, e.payload_bytes);
    stream += layout.config == pipeline::Config::fast ? pipeline::split_fast(payload, e.original_bytes, b).words_raw.size()
                                                      : pipeline::split_paper(payload, e.original_bytes, b).data.size();
  }
  const double denom = static_cast<double>(std::max<std::size_t>(n, 1));
  state.counters["ratio"] = static_cast<double>(file.size()) / denom;
  state.counters["stream_ratio"] = static_cast<double>(stream) / denom;
  state.counters["overhead_ratio"] = static_cast<double>(file.size() - stream) / denom;
  state.counters["block_bytes"] = static_cast<double>(layout.block_bytes);
}

void gpu_compress(benchmark::State& state, pipeline::Config config, Timed timed, std::size_t block, ByteInputSpec spec,
                  std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_or_skip(state, spec);
    if (!in) return;
    const std::size_t n = in->bytes.size();
    GpuTimingContext timing;
    std::vector<std::uint8_t> file;
    pipeline::StageTimes t;
    {
      pipeline::GpuCompressor c(config, n, block);
      c.upload(in->bytes, timing.stream());
      t = c.run(timing.stream());
      file = c.container(timing.stream());
    }
    // Checked in the benchmark's first call (the CPU reference pipeline takes seconds on the large
    // inputs); the later calls run the same work on the same input.
    if (first_check(name)) {
      if (config == pipeline::Config::paper && file != reference::pipeline_compress(in->bytes, block))
        return fail(state, name, "container differs from the CPU reference pipeline's");
      if (pipeline::decompress_gpu(file) != in->bytes) return fail(state, name, "container does not decompress to the input");
    }
    std::optional<pipeline::GpuCompressor> kept;
    if (timed != Timed::end_to_end) {
      kept.emplace(config, n, block);
      kept->upload(in->bytes, timing.stream());
    }
    timing.run(state, name, [&](cudaStream_t s) {
      if (timed == Timed::end_to_end) {  // allocations included, as in decompression
        pipeline::GpuCompressor c(config, n, block);
        c.upload(in->bytes, s);
        t = c.run(s);
        benchmark::DoNotOptimize(c.container(s).data());
      } else {
        t = kept->run(s);
        if (timed == Timed::format) benchmark::DoNotOptimize(kept->container(s).data());
      }
    });
    set_throughput_counters(state, n);
    container_counters(state, file, n);
    stage_counters(state, t);
  });
}

void gpu_decompress(benchmark::State& state, pipeline::Config config, Timed timed, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_or_skip(state, spec);
    if (!in) return;
    const auto file = pipeline::compress_gpu(config, in->bytes, kBwtBlockBytes);
    GpuTimingContext timing;
    std::optional<pipeline::GpuDecompressor> d(std::in_place, file);
    d->load(timing.stream());
    pipeline::StageTimes t = d->run(timing.stream());
    if (first_check(name) && d->output(timing.stream()) != in->bytes)  // the later calls: the same work, the same input
      return fail(state, name, "decompressed bytes differ from the input");
    timing.run(state, name, [&](cudaStream_t s) {
      switch (timed) {
        case Timed::kernels: t = d->run(s); break;
        case Timed::format:  // parse, decode tables, the file's upload, then the stages (buffers kept, as compression's)
          d->reset(file);
          d->load(s);
          t = d->run(s);
          break;
        case Timed::end_to_end: {
          pipeline::GpuDecompressor fresh(file);
          fresh.load(s);
          t = fresh.run(s);
          benchmark::DoNotOptimize(fresh.output(s).data());
          break;
        }
      }
    });
    set_throughput_counters(state, in->bytes.size());
    container_counters(state, file, in->bytes.size());
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

// A CPU codec's compressed input for its decompression rows, made once per input and setting:
// Google Benchmark calls a row several times (to find an iteration count, then once per
// repetition), and bzip2 -9 or zstd -19 of the Linux tarball takes tens of seconds on one core.
struct Packed {
  std::string key;
  std::vector<char> bytes;
  std::size_t size = 0;  // bytes used (zstd's buffer is its bound)
};

template <typename Make>
std::shared_ptr<const Packed> packed_for(const std::string& key, Make&& make) {
  static std::shared_ptr<const Packed> cached;
  if (cached && cached->key == key) return cached;
  cached.reset();
  auto p = std::make_shared<Packed>();
  p->key = key;
  make(*p);
  cached = std::move(p);
  return cached;
}

void bzip2_run(benchmark::State& state, bool decompress, ByteInputSpec spec) {
  const auto in = input_or_skip(state, spec);
  if (!in) return;
  if (in->bytes.size() >= (std::size_t{1} << 32)) {
    state.SkipWithError("skipped: libbz2's buffer API takes inputs below 4 GiB");
    return;
  }
  std::shared_ptr<const Packed> made;
  std::vector<char> packed;
  if (decompress)
    made = packed_for("bzip2-9/" + spec.label, [&](Packed& p) {
      p.bytes = bzip2_compress(in->bytes);
      p.size = p.bytes.size();
    });
  std::vector<char> back(decompress ? in->bytes.size() + 1 : 0);
  for (auto _ : state) {
    if (decompress) {
      auto len = static_cast<unsigned>(back.size());
      if (BZ2_bzBuffToBuffDecompress(back.data(), &len, const_cast<char*>(made->bytes.data()), static_cast<unsigned>(made->size),
                                     0, 0) != BZ_OK ||
          len != in->bytes.size()) {
        state.SkipWithError("FAILED: bzip2 did not decompress its own output");
        return;
      }
    } else {
      packed = bzip2_compress(in->bytes);
    }
  }
  const std::size_t packed_size = decompress ? made->size : packed.size();
  set_throughput_counters(state, in->bytes.size());
  state.counters["ratio"] = static_cast<double>(packed_size) / static_cast<double>(std::max<std::size_t>(in->bytes.size(), 1));
}

unsigned host_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// zstd at `level` with `workers` compression threads (0: the calling thread only).
void zstd_run(benchmark::State& state, bool decompress, int level, unsigned workers, ByteInputSpec spec) {
  const auto in = input_or_skip(state, spec);
  if (!in) return;
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  const std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> c_owner(cctx, ZSTD_freeCCtx);
  const std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> d_owner(dctx, ZSTD_freeDCtx);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  if (workers > 0 && ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, static_cast<int>(workers)))) {
    state.SkipWithError("skipped: this libzstd has no multithreading");
    return;
  }
  std::vector<char> packed(decompress ? 0 : ZSTD_compressBound(in->bytes.size()));
  std::size_t size = 0;
  auto compress = [&](std::vector<char>& to) {
    size = ZSTD_compress2(cctx, to.data(), to.size(), in->bytes.data(), in->bytes.size());
    return !ZSTD_isError(size);
  };
  std::shared_ptr<const Packed> made;
  if (decompress) {
    made = packed_for(fmt::format("zstd-{}-T{}/{}", level, workers, spec.label), [&](Packed& p) {
      p.bytes.resize(ZSTD_compressBound(in->bytes.size()));
      p.size = compress(p.bytes) ? size : 0;
    });
    if (made->size == 0) {
      state.SkipWithError("FAILED: ZSTD_compress2");
      return;
    }
    size = made->size;
  }
  std::vector<std::uint8_t> back(decompress ? in->bytes.size() : 0);
  for (auto _ : state) {
    if (decompress) {
      const std::size_t got = ZSTD_decompressDCtx(dctx, back.data(), back.size(), made->bytes.data(), made->size);
      if (ZSTD_isError(got) || got != in->bytes.size()) {
        state.SkipWithError("FAILED: zstd did not decompress its own output");
        return;
      }
    } else if (!compress(packed)) {
      state.SkipWithError("FAILED: ZSTD_compress2");
      return;
    }
  }
  if (decompress && back != in->bytes) return state.SkipWithError("FAILED: zstd round trip differs");
  set_throughput_counters(state, in->bytes.size());
  state.counters["ratio"] = static_cast<double>(size) / static_cast<double>(std::max<std::size_t>(in->bytes.size(), 1));
  state.counters["threads"] = workers == 0 ? 1 : workers;
}

// The lbzip2 program: next to parcomp-bench (the bundle carries it), else on PATH.
std::string find_lbzip2() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(self.parent_path() / "lbzip2")) return (self.parent_path() / "lbzip2").string();
  return std::system("command -v lbzip2 > /dev/null 2>&1") == 0 ? "lbzip2" : "";
}

void lbzip2_run(benchmark::State& state, bool decompress, ByteInputSpec spec) {
  const auto in = input_or_skip(state, spec);
  if (!in) return;
  const std::string tool = find_lbzip2();
  if (tool.empty()) return state.SkipWithError("skipped: lbzip2 not found (apt-get install lbzip2)");
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("parcomp-lbzip2-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto raw = dir / "in", packed = dir / "in.bz2", back = dir / "back";
  std::ofstream(raw, std::ios::binary).write(reinterpret_cast<const char*>(in->bytes.data()),
                                             static_cast<std::streamsize>(in->bytes.size()));
  const unsigned threads = host_threads();
  const std::string pack = fmt::format("{} -9 -n {} -c '{}' > '{}'", tool, threads, raw.string(), packed.string());
  const std::string unpack = fmt::format("{} -d -n {} -c '{}' > '{}'", tool, threads, packed.string(), back.string());
  if (std::system(pack.c_str()) != 0 || std::system(unpack.c_str()) != 0) {
    std::filesystem::remove_all(dir);
    return state.SkipWithError("FAILED: lbzip2 exited with an error");
  }
  for (auto _ : state)
    if (std::system((decompress ? unpack : pack).c_str()) != 0) {
      state.SkipWithError("FAILED: lbzip2 exited with an error");
      break;
    }
  std::ifstream check(back, std::ios::binary);
  const std::vector<std::uint8_t> got((std::istreambuf_iterator<char>(check)), {});
  const auto size = std::filesystem::file_size(packed);
  std::filesystem::remove_all(dir);
  if (got != in->bytes) return state.SkipWithError("FAILED: lbzip2 round trip differs");
  set_throughput_counters(state, in->bytes.size());
  state.counters["ratio"] = static_cast<double>(size) / static_cast<double>(std::max<std::size_t>(in->bytes.size(), 1));
  state.counters["threads"] = threads;
}

// PCIe: one cudaMemcpyAsync of n bytes between host (pinned or pageable) and device memory.
void pcie_copy(benchmark::State& state, bool to_device, bool pinned, std::size_t n, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    DeviceBuffer<std::uint8_t> d(n);
    std::vector<std::uint8_t> pageable;
    std::uint8_t* host = nullptr;
    if (pinned) {
      void* p = nullptr;
      PARCOMP_CUDA_CHECK(cudaMallocHost(&p, n));
      host = static_cast<std::uint8_t*>(p);
    } else {
      pageable.assign(n, 1);
      host = pageable.data();
    }
    const std::unique_ptr<std::uint8_t, void (*)(std::uint8_t*)> owner(
        pinned ? host : nullptr, [](std::uint8_t* p) { if (p) PARCOMP_CUDA_CHECK_NOTHROW(cudaFreeHost(p)); });
    std::memset(host, 1, n);
    GpuTimingContext timing;
    timing.run(state, name, [&](cudaStream_t s) {
      PARCOMP_CUDA_CHECK(to_device ? cudaMemcpyAsync(d.data(), host, n, cudaMemcpyHostToDevice, s)
                                   : cudaMemcpyAsync(host, d.data(), n, cudaMemcpyDeviceToHost, s));
    });
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n));
  });
}

}  // namespace

void register_pipeline() {
  for (const bool pinned : {true, false})
    for (const bool to_device : {true, false}) {
      const std::size_t n = std::size_t{256} << 20;
      const std::string name = fmt::format("thesis.fig4_1/pcie.{}/{}-memory/n={}", to_device ? "h2d" : "d2h",
                                           pinned ? "pinned" : "pageable", n);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), pcie_copy, to_device, pinned, n, name));
    }
  for (const ByteInputSpec& spec : standard_byte_inputs()) {
    if (spec.bwt) continue;
    const std::string tail = fmt::format("{}/n={}", spec.label, spec_size(spec));
    for (const auto& [experiment, decompress] : {std::pair{"thesis.table4_1", false}, std::pair{"thesis.table4_2", true}}) {
      for (const auto& [variant, config, timed] : {std::tuple{"pipeline.gpu.paper", pipeline::Config::paper, Timed::format},
                                                   std::tuple{"pipeline.gpu.paper.kernels", pipeline::Config::paper, Timed::kernels},
                                                   std::tuple{"pipeline.gpu.fast", pipeline::Config::fast, Timed::format},
                                                   std::tuple{"pipeline.gpu.fast.kernels", pipeline::Config::fast, Timed::kernels},
                                                   std::tuple{"pipeline.gpu.fast.e2e", pipeline::Config::fast, Timed::end_to_end}}) {
        const std::string name = fmt::format("{}/{}/{}", experiment, variant, tail);
        if (decompress)
          configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_decompress, config, timed, spec, name));
        else
          configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_compress, config, timed, kBwtBlockBytes, spec, name));
      }
      if (!decompress) {  // bzip2's block size (900,000 bytes, as bzip2 -9): the ratio beside bzip2's at equal blocks
        const std::string name = fmt::format("{}/pipeline.gpu.fast.kernels.b900k/{}", experiment, tail);
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_compress, pipeline::Config::fast, Timed::kernels,
                                                   std::size_t{900000}, spec, name));
      }
      configure_cpu(benchmark::RegisterBenchmark(fmt::format("{}/bzip2.cpu/{}", experiment, tail).c_str(), bzip2_run,
                                                 decompress, spec));
      configure_cpu(benchmark::RegisterBenchmark(fmt::format("{}/lbzip2.cpu.mt/{}", experiment, tail).c_str(), lbzip2_run,
                                                 decompress, spec));
      configure_cpu(benchmark::RegisterBenchmark(fmt::format("{}/zstd.cpu.l3/{}", experiment, tail).c_str(), zstd_run,
                                                 decompress, 3, 0u, spec));
      // Level 19 compresses at a few MB/s: one iteration per repetition.
      configure_cpu(benchmark::RegisterBenchmark(fmt::format("{}/zstd.cpu.mt.l19/{}", experiment, tail).c_str(), zstd_run,
                                                 decompress, 19, host_threads(), spec))
          ->Iterations(1);
    }
  }
  // codecs.landscape: the pipeline's kernels on its datasets, in its names, beside nvCOMP's codecs
  // (bench/codecs.cpp): the stages on device-resident data, 1 MiB blocks, as pipeline.gpu.<config>.kernels.
  for (const auto& [spec, n] : landscape_inputs_sized()) {
    for (const auto& [variant, config] : {std::pair{"parcomp.fast.kernels", pipeline::Config::fast}, std::pair{"parcomp.paper.kernels", pipeline::Config::paper}})
      for (const bool d : {false, true}) {
        const std::string name = fmt::format("codecs.landscape/{}.{}/{}/n={}", variant, d ? "decompress" : "compress", spec.label, n);
        if (d)
          configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_decompress, config, Timed::kernels, spec, name));
        else
          configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_compress, config, Timed::kernels, kBwtBlockBytes, spec, name));
      }
  }
}

}  // namespace parcomp::bench
