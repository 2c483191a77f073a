// PAVLE (balevic-parallel-variable-length-encoding.txt): pavle.fig4a, fig4b, fig5a, fig5b and
// pavle.entropy. Inputs are i.i.d. bytes of a requested entropy (datasets/synthetic.hpp); the code
// is length-limited canonical Huffman of the input's histogram with at most 8 bits per codeword,
// so that four codewords fit the 32-bit aggregates of gm32 and sm32 (the paper limits the length
// and does not say to what); every kernel of a figure uses the same table.
#include "common/defaults.hpp"
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/metadata.hpp"
#include "datasets/sha256.hpp"
#include "datasets/synthetic.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/vle/vle.hpp"
#include "reference/huffman.hpp"
#include "reference/vle.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

namespace parcomp::bench {

namespace {

constexpr int kMaxCodeLength = 8;

struct PavleInput {
  double bits_per_symbol = 0;
  std::size_t n = 0;
  std::vector<std::uint8_t> bytes;
  reference::CodeTable table;
  vle::PackedTable packed;
  reference::VleStream encoded;  // the oracle's output
};

std::string dataset_label(double bits) { return fmt::format("entropy{:g}", bits); }

std::shared_ptr<const PavleInput> pavle_input(double bits, std::size_t n) {
  static std::shared_ptr<const PavleInput> cached;
  if (cached && cached->bits_per_symbol == bits && cached->n == n) return cached;
  cached.reset();
  auto in = std::make_shared<PavleInput>();
  in->bits_per_symbol = bits;
  in->n = n;
  in->bytes = datasets::bytes_with_entropy(n, bits, defaults::kSeed);
  in->table = reference::canonical_codes(reference::code_lengths(reference::byte_histogram(in->bytes), kMaxCodeLength));
  std::array<std::uint32_t, 256> codes{};
  std::array<std::uint8_t, 256> lengths{};
  for (int s = 0; s < 256; ++s) {
    codes[s] = in->table[s].bits;
    lengths[s] = in->table[s].length;
  }
  in->packed = vle::pack_table(codes, lengths);
  in->encoded = reference::vle_encode(in->bytes, in->table);
  record_dataset(fmt::format("pavle/{}/n={}", dataset_label(bits), n),
                 {{"generator", "bytes_with_entropy"}, {"bits_per_symbol_requested", bits},
                  {"bits_per_symbol_measured", datasets::empirical_entropy_bits(in->bytes)},
                  {"seed", defaults::kSeed}, {"bytes", n}, {"max_code_length", kMaxCodeLength},
                  {"sha256", datasets::sha256_hex_of(std::span<const std::uint8_t>(in->bytes))}});
  cached = std::move(in);
  return cached;
}

void set_vle_counters(benchmark::State& state, const PavleInput& in, double gpu_seconds) {
  set_throughput_counters(state, in.n);
  set_bandwidth_counter(state, in.n + (in.encoded.bits + 7) / 8, gpu_seconds);
  state.counters["bits_per_symbol"] = in.n == 0 ? 0.0 : static_cast<double>(in.encoded.bits) / static_cast<double>(in.n);
}

void cpu_vle(benchmark::State& state, double bits, std::size_t n) {
  const auto in = pavle_input(bits, n);
  for (auto _ : state) {
    auto out = reference::vle_encode(in->bytes, in->table);
    benchmark::DoNotOptimize(out.words.data());
  }
  set_vle_counters(state, *in, 0.0);
}

void gpu_vle(benchmark::State& state, vle::Config cfg, double bits, std::size_t n, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = pavle_input(bits, n);
    const std::size_t words = vle::output_words(n, in->packed.max_length);
    DeviceBuffer<std::uint8_t> d_in(n);
    DeviceBuffer<std::uint32_t> d_table(256), d_out(words);
    DeviceBuffer<std::uint64_t> d_bits(1);
    DeviceBytes scratch(vle::scratch_bytes(cfg, n));
    d_in.upload(in->bytes);
    d_table.upload(std::span<const std::uint32_t>(in->packed.entries, 256));
    d_out.fill_bytes(0xAB);
    GpuTimingContext timing;
    auto run = [&](cudaStream_t s) {
      vle::encode(cfg, d_in.data(), n, d_table.data(), in->packed.max_length, d_out.data(), words, d_bits.data(),
                  scratch.data(), scratch.size_bytes(), s);
    };
    run(timing.stream());
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
    if (d_bits.download()[0] != in->encoded.bits) return fail(state, name, "bit count differs from the serial encoder");
    const auto got = d_out.download(in->encoded.words.size());
    if (got != in->encoded.words) return fail(state, name, "output differs from the serial encoder");
    const double seconds = timing.run(state, name, run);
    set_vle_counters(state, *in, seconds);
  });
}

// The scan alone over `elements` lengths (n/4 for one word per thread, n/(4 dpt) reduced).
void gpu_scan(benchmark::State& state, double bits, std::size_t n, unsigned words_per_element, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = pavle_input(bits, n);
    const std::size_t elements = (n + 4 * words_per_element - 1) / (4 * words_per_element);
    std::vector<std::uint32_t> lengths(elements, 4 * words_per_element * 2);  // ~2 bits a symbol
    DeviceBuffer<std::uint32_t> d_lengths(elements);
    DeviceBuffer<std::uint64_t> d_offsets(elements);
    DeviceBytes scratch(vle::scan_scratch_bytes(elements));
    d_lengths.upload(lengths);
    GpuTimingContext timing;
    auto run = [&](cudaStream_t s) {
      vle::scan_only(d_lengths.data(), elements, d_offsets.data(), scratch.data(), scratch.size_bytes(), s);
    };
    run(timing.stream());
    const double seconds = timing.run(state, name, run);
    set_throughput_counters(state, n);
    set_bandwidth_counter(state, elements * (4 + 8), seconds);
    state.counters["elements"] = static_cast<double>(elements);
  });
}

vle::Config config(vle::Kernel k, unsigned dpt, bool tc, bool ac) { return {k, dpt, tc, ac, 256}; }

// `tail` is "n=<size>" or the swept parameter; a DPT sweep names the variant without its DPT.
void register_gpu(const char* experiment, const vle::Config& c, double bits, std::size_t n, const std::string& tail) {
  vle::Config base = c;
  if (tail.rfind("dpt=", 0) == 0) base.dpt = 1;
  const std::string name = fmt::format("{}/{}/{}/{}", experiment, vle::name(base), dataset_label(bits), tail);
  configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_vle, c, bits, n, name));
}

}  // namespace

void register_pavle() {
  const int max_log2 = options().max_log2 >= 0 ? std::min(options().max_log2, 30) : 30;
  const double fig_bits = 2.2;  // the paper's Fig. 4 and 5 entropy
  using K = vle::Kernel;
  for (int lg = 20; lg <= max_log2; lg += 2) {
    const std::size_t n = std::size_t{1} << lg;
    const std::string size = fmt::format("n={}", n);
    // The serial baseline once per size (fig4a); the other figures' speedups refer to it.
    configure_cpu(benchmark::RegisterBenchmark(
        fmt::format("pavle.fig4a/cpu.serial/{}/{}", dataset_label(fig_bits), size).c_str(), cpu_vle, fig_bits, n));
    for (const K k : {K::gm32, K::sm32, K::sm64huff}) register_gpu("pavle.fig4a", config(k, 1, false, false), fig_bits, n, size);
    for (const K k : {K::gm32, K::sm32, K::sm64huff}) register_gpu("pavle.fig4b", config(k, 1, true, false), fig_bits, n, size);
    register_gpu("pavle.fig5a", config(K::sm32, 1, false, false), fig_bits, n, size);
    register_gpu("pavle.fig5a", config(K::sm32, 4, true, false), fig_bits, n, size);
    register_gpu("pavle.fig5a", config(K::sm32, 4, true, true), fig_bits, n, size);
    for (const auto& [experiment, words] : {std::pair{"pavle.fig4a", 1u}, std::pair{"pavle.fig5a", 1u}, std::pair{"pavle.fig5a", 4u}}) {
      const std::string name = fmt::format("{}/{}/{}/{}", experiment, words == 1 ? "gpu.scan" : "gpu.scan.reduced4",
                                           dataset_label(fig_bits), size);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_scan, fig_bits, n, words, name));
    }
  }
  // Fig. 5b: DPT at one size; the table cached, and aggregates cached too.
  const std::size_t n5 = std::size_t{1} << std::min(max_log2, 28);
  for (const unsigned dpt : {1u, 2u, 4u, 8u}) {
    register_gpu("pavle.fig5b", config(K::sm32, dpt, true, false), fig_bits, n5, fmt::format("dpt={}", dpt));
    register_gpu("pavle.fig5b", config(K::sm32, dpt, true, true), fig_bits, n5, fmt::format("dpt={}", dpt));
  }
  // Throughput against entropy, every variant, at one size.
  const std::size_t ne = std::size_t{1} << std::min(max_log2, 26);
  for (const double bits : {0.5, 1.0, 2.0, 2.2, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}) {
    configure_cpu(benchmark::RegisterBenchmark(
        fmt::format("pavle.entropy/cpu.serial/{}/n={}", dataset_label(bits), ne).c_str(), cpu_vle, bits, ne));
    for (const auto& c : {config(K::gm32, 1, false, false), config(K::gm32, 1, true, false), config(K::sm32, 1, false, false),
                          config(K::sm32, 1, true, false), config(K::sm64huff, 1, true, false), config(K::sm32, 4, true, false),
                          config(K::sm32, 4, true, true)})
      register_gpu("pavle.entropy", c, bits, ne, fmt::format("n={}", ne));
  }
}

}  // namespace parcomp::bench
