// codecs.landscape (ours): where the papers' pipeline stands among the GPU codecs users already
// have. Every codec of NVIDIA nvCOMP through its C++ managers, data on the device, timed as the
// suite's kernels are (CUDA events on the manager's stream, L2 flushed before each iteration,
// medians of the repetitions); each setting first compresses, decompresses and compares with the
// input, untimed. Names: codecs.landscape/nvcomp.<codec>[.a<algorithm>].c<chunk>.<compress|decompress>/
// <dataset>/n=<bytes> (the direction last in the variant, as tool.e2e's); counters bytes_per_second
// (uncompressed bytes), ratio (compressed / uncompressed), chunk_bytes, bw_util (input read once,
// output written once).
//   Settings: LZ4, Snappy, Zstd, ANS, Cascaded (bytes as its data type: cascaded.u8), Bitcomp, Gzip at their defaults; Deflate and
//   GDeflate at every algorithm (0 entropy only, 1 the default, 2, 4, 5 the strongest) with 64 KiB
//   chunks and at the default algorithm with the largest chunk. Chunks: 64 KiB, and the largest a
//   codec allows, capped at 16 MiB (Deflate, GDeflate, Gzip and Zstd allow 2 GiB: one chunk per
//   CTA, a whole file in a few chunks would leave the GPU idle and measure nothing useful).
//   Compression is the manager's compress() with the configuration made once (not timed);
//   decompression is decompress() with the configuration read once from the compressed buffer.
// The papers' pipeline in the same terms is registered by bench/pipeline.cpp
// (codecs.landscape/parcomp.<config>.kernels/...), and the CPU programs' wall time by
// bench/tool.cpp (codecs.landscape/<program>/...). nvCOMP is optional: without it (the default
// build) these benchmarks report skipped with the command that installs it.
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"

#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#ifdef PARCOMP_HAVE_NVCOMP
#include <nvcomp/ans.hpp>
#include <nvcomp/bitcomp.hpp>
#include <nvcomp/cascaded.hpp>
#include <nvcomp/deflate.hpp>
#include <nvcomp/gdeflate.hpp>
#include <nvcomp/gzip.hpp>
#include <nvcomp/lz4.hpp>
#include <nvcomp/snappy.hpp>
#include <nvcomp/zstd.hpp>
#include <nvcomp/version.h>
#endif

namespace parcomp::bench {

namespace {

enum class NvCodec { lz4, snappy, deflate, gdeflate, gzip, zstd, ans, cascaded, bitcomp };

struct NvSetting {
  NvCodec codec;
  const char* codec_name;
  int algorithm = -1;  // Deflate, GDeflate, Gzip: nvCOMP's algorithm option; -1: the codec's default
  std::size_t chunk = 0;
};

constexpr std::size_t kSmallChunk = std::size_t{64} << 10;
constexpr std::size_t kLargeChunkCap = std::size_t{16} << 20;

// The largest chunk each codec's compressor takes (its header's MaxAllowedChunkSize), capped.
constexpr std::size_t largest_chunk(NvCodec c) {
  switch (c) {
    case NvCodec::lz4:
    case NvCodec::snappy:
    case NvCodec::ans:
    case NvCodec::cascaded:
    case NvCodec::bitcomp: return std::size_t{1} << 24;  // 16 MiB: their limit
    default: return kLargeChunkCap;                      // 2 GiB allowed: capped
  }
}

std::vector<NvSetting> nvcomp_settings() {
  std::vector<NvSetting> v;
  const std::vector<std::pair<NvCodec, const char*>> plain = {{NvCodec::lz4, "lz4"},   {NvCodec::snappy, "snappy"},
                                                              {NvCodec::zstd, "zstd"}, {NvCodec::ans, "ans"},
                                                              {NvCodec::cascaded, "cascaded.u8"}, {NvCodec::bitcomp, "bitcomp"},
                                                              {NvCodec::gzip, "gzip"}};
  for (const auto& [c, name] : plain)
    for (const std::size_t chunk : {kSmallChunk, largest_chunk(c)}) v.push_back({c, name, -1, chunk});
  for (const auto& [c, name] : {std::pair{NvCodec::deflate, "deflate"}, std::pair{NvCodec::gdeflate, "gdeflate"}}) {
    for (const int a : {0, 1, 2, 4, 5}) v.push_back({c, name, a, kSmallChunk});
    v.push_back({c, name, 1, largest_chunk(c)});
  }
  return v;
}

std::string setting_name(const NvSetting& s) {
  const std::string chunk = s.chunk >= (std::size_t{1} << 20) ? fmt::format("c{}m", s.chunk >> 20) : fmt::format("c{}k", s.chunk >> 10);
  return s.algorithm >= 0 ? fmt::format("nvcomp.{}.a{}.{}", s.codec_name, s.algorithm, chunk)
                          : fmt::format("nvcomp.{}.{}", s.codec_name, chunk);
}

#ifdef PARCOMP_HAVE_NVCOMP
std::unique_ptr<nvcomp::nvcompManagerBase> make_manager(const NvSetting& s, cudaStream_t stream) {
  switch (s.codec) {
    case NvCodec::lz4:
      return std::make_unique<nvcomp::LZ4Manager>(s.chunk, nvcompBatchedLZ4CompressDefaultOpts, nvcompBatchedLZ4DecompressDefaultOpts, stream);
    case NvCodec::snappy:
      return std::make_unique<nvcomp::SnappyManager>(s.chunk, nvcompBatchedSnappyCompressDefaultOpts,
                                                     nvcompBatchedSnappyDecompressDefaultOpts, stream);
    case NvCodec::zstd:
      return std::make_unique<nvcomp::ZstdManager>(s.chunk, nvcompBatchedZstdCompressDefaultOpts, nvcompBatchedZstdDecompressDefaultOpts, stream);
    case NvCodec::ans:
      return std::make_unique<nvcomp::ANSManager>(s.chunk, nvcompBatchedANSCompressDefaultOpts, nvcompBatchedANSDecompressDefaultOpts, stream);
    case NvCodec::cascaded: {
      // The default logical type is a 4-byte integer, and nvCOMP requires every chunk to be a
      // multiple of the type's size (cascaded.h): a file whose length is not a multiple of 4 then
      // comes back wrong (measured on an H200: silesia dickens, nci and reymont). These are byte
      // streams, so the type is bytes: the setting is named cascaded.u8.
      nvcompBatchedCascadedCompressOpts_t o = nvcompBatchedCascadedCompressDefaultOpts;
      o.common_opts.data_type = NVCOMP_TYPE_UCHAR;
      return std::make_unique<nvcomp::CascadedManager>(s.chunk, o, nvcompBatchedCascadedDecompressDefaultOpts, stream);
    }
    case NvCodec::bitcomp:
      return std::make_unique<nvcomp::BitcompManager>(s.chunk, nvcompBatchedBitcompCompressDefaultOpts,
                                                      nvcompBatchedBitcompDecompressDefaultOpts, stream);
    case NvCodec::gzip: {
      nvcompBatchedGzipCompressOpts_t o = nvcompBatchedGzipCompressDefaultOpts;
      if (s.algorithm >= 0) o.algorithm = s.algorithm;
      return std::make_unique<nvcomp::GzipManager>(s.chunk, o, nvcompBatchedGzipDecompressDefaultOpts, stream);
    }
    case NvCodec::deflate: {
      nvcompBatchedDeflateCompressOpts_t o = nvcompBatchedDeflateCompressDefaultOpts;
      if (s.algorithm >= 0) o.algorithm = s.algorithm;
      return std::make_unique<nvcomp::DeflateManager>(s.chunk, o, nvcompBatchedDeflateDecompressDefaultOpts, stream);
    }
    case NvCodec::gdeflate: {
      nvcompBatchedGdeflateCompressOpts_t o = nvcompBatchedGdeflateCompressDefaultOpts;
      if (s.algorithm >= 0) o.algorithm = s.algorithm;
      return std::make_unique<nvcomp::GdeflateManager>(s.chunk, o, nvcompBatchedGdeflateDecompressDefaultOpts, stream);
    }
  }
  throw ContractError("make_manager: unknown codec");
}

void check_status(const nvcompStatus_t* status, const char* what) {
  if (status != nullptr && *status != nvcompSuccess) throw std::runtime_error(fmt::format("nvCOMP {}: status {}", what, static_cast<int>(*status)));
}

// One setting on one dataset, made ready once and kept while its rows run: Google Benchmark calls
// a row's function several times per repetition (to find an iteration count) and once per
// repetition, and the compress and decompress rows of a setting follow each other. Without this,
// every call uploaded the input, built the manager and ran the untimed check again: about two
// thirds of an H200 run's time went there.
struct NvPrepared {
  std::string key;
  std::shared_ptr<const ByteInput> in;
  GpuTimingContext timing;
  DeviceBuffer<std::uint8_t> d_in, d_back, d_comp;
  std::unique_ptr<nvcomp::nvcompManagerBase> manager;
  std::optional<nvcomp::CompressionConfig> cc;
  std::optional<nvcomp::DecompressionConfig> dc;
  std::size_t packed = 0;
  std::string failure;  // the check's verdict: empty when the round trip gave the input back
};

std::unique_ptr<NvPrepared> g_held;  // the setting being measured; released by release_codecs()

// The check, untimed: compress, decompress, compare (the output poisoned first).
void prepare(NvPrepared& p, const NvSetting& setting) {
  const std::size_t n = p.in->bytes.size();
  const cudaStream_t stream = p.timing.stream();
  p.d_in = DeviceBuffer<std::uint8_t>(n);
  p.d_back = DeviceBuffer<std::uint8_t>(n);
  p.d_in.upload(p.in->bytes);
  p.manager = make_manager(setting, stream);
  p.cc.emplace(p.manager->configure_compression(n));
  p.d_comp = DeviceBuffer<std::uint8_t>(p.cc->max_compressed_buffer_size);
  p.manager->compress(p.d_in.data(), p.d_comp.data(), *p.cc);
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  check_status(p.cc->get_status(), "compress");
  p.packed = p.manager->get_compressed_output_size(p.d_comp.data());
  p.dc.emplace(p.manager->configure_decompression(p.d_comp.data()));
  if (p.dc->decomp_data_size != n) {
    p.failure = fmt::format("nvCOMP says {} bytes decompressed, not {}", p.dc->decomp_data_size, n);
    return;
  }
  PARCOMP_CUDA_CHECK(cudaMemsetAsync(p.d_back.data(), 0xA5, n, stream));
  p.manager->decompress(p.d_back.data(), p.d_comp.data(), *p.dc);
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  check_status(p.dc->get_status(), "decompress");
  if (p.d_back.download(n) != p.in->bytes) p.failure = "decompressed bytes differ from the input";
}

void nvcomp_run(benchmark::State& state, NvSetting setting, bool decompress, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  std::unique_ptr<NvPrepared>& held = g_held;
  guarded(state, name, [&] {
    const std::string key = setting_name(setting) + "/" + spec.label;
    if (!held || held->key != key) {
      held.reset();  // the last setting's device memory first
      const auto in = byte_input(spec);
      if (!in->unavailable.empty()) return state.SkipWithError(("skipped: " + in->unavailable).c_str());
      auto p = std::make_unique<NvPrepared>();
      p->key = key;
      p->in = in;
      prepare(*p, setting);
      held = std::move(p);
    }
    NvPrepared& p = *held;
    if (!p.failure.empty()) return fail(state, name, p.failure);
    const std::size_t n = p.in->bytes.size();
    const double seconds = p.timing.run(state, name, [&](cudaStream_t) {
      if (decompress)
        p.manager->decompress(p.d_back.data(), p.d_comp.data(), *p.dc);
      else
        p.manager->compress(p.d_in.data(), p.d_comp.data(), *p.cc);
    });
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(p.timing.stream()));
    check_status(decompress ? p.dc->get_status() : p.cc->get_status(), decompress ? "decompress" : "compress");
    set_throughput_counters(state, n);
    set_bandwidth_counter(state, n + p.packed, seconds);
    state.counters["ratio"] = static_cast<double>(p.packed) / static_cast<double>(std::max<std::size_t>(n, 1));
    state.counters["chunk_bytes"] = static_cast<double>(setting.chunk);
  });
  if (state.error_occurred()) held.reset();  // an exception or a failure: nothing half-made is kept
}
#else
void nvcomp_run(benchmark::State& state, NvSetting, bool, ByteInputSpec, std::string) {
  state.SkipWithError(
      "skipped: built without nvCOMP (optional, NVIDIA's proprietary library): python3 -m pip install nvidia-libnvcomp-cu13, "
      "then configure again (cmake finds it through scripts/find_nvcomp.py), or scripts/reproduce.sh --with-nvcomp");
}
#endif

}  // namespace

std::string nvcomp_version() {
#ifdef PARCOMP_HAVE_NVCOMP
  return fmt::format("{}.{}.{}.{}", NVCOMP_VER_MAJOR, NVCOMP_VER_MINOR, NVCOMP_VER_PATCH, NVCOMP_VER_BUILD);
#else
  return "";
#endif
}

void release_codecs() {
#ifdef PARCOMP_HAVE_NVCOMP
  g_held.reset();
#endif
}

void register_codecs() {
  for (const auto& [spec, n] : landscape_inputs_sized()) {
    for (const NvSetting& s : nvcomp_settings())
      for (const bool d : {false, true}) {
        const std::string name = fmt::format("codecs.landscape/{}.{}/{}/n={}", setting_name(s), d ? "decompress" : "compress", spec.label, n);
        configure_gpu(benchmark::RegisterBenchmark(name.c_str(), nvcomp_run, s, d, spec, name));
      }
  }
}

}  // namespace parcomp::bench
