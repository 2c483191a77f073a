// PAVLE (balevic-parallel-variable-length-encoding.txt): pavle.fig4a, fig4b, fig5a, fig5b and
// pavle.entropy (also with 16-bit codes, sm64huff); pavle.decode (ours: the GPU decoder) and pavle.real (ours: real datasets). The
// synthetic inputs are i.i.d. bytes of a requested entropy (datasets/synthetic.hpp). The code is
// length-limited canonical Huffman of the input's histogram with at most 8 bits per codeword, so
// that four codewords fit the 32-bit aggregates of gm32 and sm32 (the paper limits the length and
// does not say to what); every kernel of a figure, gpu.fast included, uses the same table.
// pavle.real uses 16 bits (sm64huff, gpu.fast and the decoder): with all 256 byte values in use, an
// 8-bit limit leaves only the 8-bit fixed-length code (Kraft sum), i.e. no compression at all.
#include "common/defaults.hpp"
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "common/metadata.hpp"
#include "datasets/sha256.hpp"
#include "datasets/synthetic.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/vle/vle.hpp"
#include "reference/huffman.hpp"
#include "reference/vle.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <algorithm>
#include <optional>

namespace parcomp::bench {

namespace {

constexpr int kFigureMaxCodeLength = 8;
constexpr int kRealMaxCodeLength = 16;

struct PavleInput {
  std::string key;
  std::vector<std::uint8_t> bytes;
  reference::CodeTable table;
  vle::PackedTable packed;
  vle::DecodeTable decode_table;
  reference::VleStream encoded;  // the oracle's output
  std::string unavailable;       // non-empty: a real dataset that is not there
};

// Where a benchmark's input comes from: bytes of a given entropy, or a real dataset.
struct InputRef {
  double bits = 0;
  std::size_t n = 0;
  std::optional<ByteInputSpec> real;
  int max_length = kFigureMaxCodeLength;
};

std::string dataset_label(double bits) { return fmt::format("entropy{:g}", bits); }
std::string dataset_label(const InputRef& r) {
  if (r.real) return r.real->label;
  return r.max_length == kFigureMaxCodeLength ? dataset_label(r.bits) : fmt::format("{}.max{}", dataset_label(r.bits), r.max_length);
}

std::shared_ptr<const PavleInput> pavle_input(const InputRef& ref) {
  static std::shared_ptr<const PavleInput> cached;
  const std::string key =
      (ref.real ? "pavle/" + ref.real->label : fmt::format("pavle/{}/n={}", dataset_label(ref.bits), ref.n)) +
      (ref.max_length == kFigureMaxCodeLength ? "" : fmt::format("/max{}", ref.max_length));
  if (cached && cached->key == key) return cached;
  cached.reset();
  auto in = std::make_shared<PavleInput>();
  in->key = key;
  nlohmann::json record;
  if (ref.real) {
    const auto raw = byte_input(*ref.real);
    in->unavailable = raw->unavailable;
    in->bytes = raw->bytes;
    record = {{"source", ref.real->source}};
  } else {
    in->bytes = datasets::bytes_with_entropy(ref.n, ref.bits, defaults::kSeed);
    record = {{"generator", "bytes_with_entropy"}, {"bits_per_symbol_requested", ref.bits}, {"seed", defaults::kSeed}};
  }
  if (in->unavailable.empty()) {
    in->table = reference::canonical_codes(reference::code_lengths(reference::byte_histogram(in->bytes), ref.max_length));
    std::array<std::uint32_t, 256> codes{};
    std::array<std::uint8_t, 256> lengths{};
    for (int s = 0; s < 256; ++s) {
      codes[s] = in->table[s].bits;
      lengths[s] = in->table[s].length;
    }
    in->packed = vle::pack_table(codes, lengths);
    in->decode_table = vle::make_decode_table(codes, lengths);
    in->encoded = reference::vle_encode(in->bytes, in->table);
    record.update({{"bits_per_symbol_measured", datasets::empirical_entropy_bits(in->bytes)},
                   {"bytes", in->bytes.size()}, {"max_code_length", ref.max_length},
                   {"sha256", datasets::sha256_hex_of(std::span<const std::uint8_t>(in->bytes))}});
    record_dataset(key, record);
  }
  cached = std::move(in);
  return cached;
}

// The input, or nullptr after marking the benchmark skipped (a real dataset not fetched).
std::shared_ptr<const PavleInput> input_or_skip(benchmark::State& state, const InputRef& ref) {
  auto in = pavle_input(ref);
  if (in->unavailable.empty()) return in;
  const std::string msg = "skipped: " + in->unavailable;
  state.SkipWithError(msg.c_str());
  return nullptr;
}

void set_vle_counters(benchmark::State& state, const PavleInput& in, double gpu_seconds, std::uint64_t extra_bytes = 0) {
  const std::size_t n = in.bytes.size();
  set_throughput_counters(state, n);
  set_bandwidth_counter(state, n + (in.encoded.bits + 7) / 8 + extra_bytes, gpu_seconds);
  state.counters["bits_per_symbol"] = n == 0 ? 0.0 : static_cast<double>(in.encoded.bits) / static_cast<double>(n);
}

// The serial baseline (one core): one pass into an output allocated before the loop
// (reference::vle_encode_into, or its branch-free form), checked against the oracle first. The
// output starts half a page (mod 4 KiB) away from the input: where the two kept the same offset,
// as two large allocations do, near 8 bits a symbol the output's stores and the input's loads
// fell on the same 4 KiB offsets and the branch-free encoder ran at half its speed.
void cpu_vle(benchmark::State& state, InputRef ref, bool branchless) {
  const auto in = input_or_skip(state, ref);
  if (!in) return;
  const std::size_t words = std::max<std::size_t>(in->encoded.words.size(), 1);
  std::vector<std::uint32_t> storage(words + 1024, 0);
  const std::uintptr_t gap = (reinterpret_cast<std::uintptr_t>(storage.data()) - reinterpret_cast<std::uintptr_t>(in->bytes.data())) & 4095;
  const std::span<std::uint32_t> out(storage.data() + ((2048 + 4096 - gap) & 4095) / 4, words);
  const auto encode = branchless ? reference::vle_encode_into_branchless : reference::vle_encode_into;
  if (encode(in->bytes, in->table, out) != in->encoded.bits || !std::equal(in->encoded.words.begin(), in->encoded.words.end(), out.begin())) {
    state.SkipWithError("FAILED: the one-pass serial encoder differs from the oracle");
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(encode(in->bytes, in->table, out));
    benchmark::ClobberMemory();
  }
  set_vle_counters(state, *in, 0.0);
}

void cpu_vle_decode(benchmark::State& state, InputRef ref) {
  const auto in = input_or_skip(state, ref);
  if (!in) return;
  for (auto _ : state) {
    auto out = reference::vle_decode(in->encoded, in->bytes.size(), in->table);
    benchmark::DoNotOptimize(out.data());
  }
  set_vle_counters(state, *in, 0.0);
}

// The input and its encoding on the device (checked against the oracle), with the decoder's index.
struct DeviceStream {
  DeviceBuffer<std::uint8_t> in;
  DeviceBuffer<std::uint32_t> table, words;
  DeviceBuffer<std::uint64_t> bits, index;
  DeviceBytes scratch;
  std::size_t n_words = 0;
};

void upload_and_encode(const PavleInput& in, const vle::Config& cfg, DeviceStream& d, cudaStream_t stream, bool index) {
  const std::size_t n = in.bytes.size();
  d.n_words = vle::output_words(n, in.packed.max_length);
  d.in = DeviceBuffer<std::uint8_t>(n);
  d.table = DeviceBuffer<std::uint32_t>(256);
  d.words = DeviceBuffer<std::uint32_t>(d.n_words);
  d.bits = DeviceBuffer<std::uint64_t>(1);
  d.index = DeviceBuffer<std::uint64_t>(std::max<std::size_t>(vle::index_entries(n), 1));
  d.scratch = DeviceBytes(vle::scratch_bytes(cfg, n));
  d.in.upload(in.bytes);
  d.table.upload(std::span<const std::uint32_t>(in.packed.entries, 256));
  d.words.fill_bytes(0xAB);
  vle::zero_output(cfg, d.words.data(), d.n_words, stream);
  vle::encode(cfg, d.in.data(), n, d.table.data(), in.packed.max_length, d.words.data(), d.n_words, d.bits.data(),
              d.scratch.data(), d.scratch.size_bytes(), stream, index ? d.index.data() : nullptr);
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Empty when the device output equals the oracle's, else what differs.
std::string check_stream(const PavleInput& in, const DeviceStream& d) {
  if (d.bits.download()[0] != in.encoded.bits) return "bit count differs from the serial encoder";
  if (d.words.download(in.encoded.words.size()) != in.encoded.words) return "output differs from the serial encoder";
  return {};
}

void gpu_vle(benchmark::State& state, vle::Config cfg, InputRef ref, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_or_skip(state, ref);
    if (!in) return;
    GpuTimingContext timing;
    DeviceStream d;
    upload_and_encode(*in, cfg, d, timing.stream(), false);
    if (first_check(name))  // the later calls run the same work on the same input
      if (const auto bad = check_stream(*in, d); !bad.empty()) return fail(state, name, bad);
    const std::size_t n = in->bytes.size();
    // The output zeroed before each iteration, outside the timed region (the paper assumes it set
    // in advance), and timed apart: zero_ms.
    const double seconds = timing.run(
        state, name, [&](cudaStream_t s) { vle::zero_output(cfg, d.words.data(), d.n_words, s); },
        [&](cudaStream_t s) {
          vle::encode(cfg, d.in.data(), n, d.table.data(), in->packed.max_length, d.words.data(), d.n_words, d.bits.data(),
                      d.scratch.data(), d.scratch.size_bytes(), s);
        });
    set_vle_counters(state, *in, seconds);
    if (cfg.kernel != vle::Kernel::fast && state.iterations() > 0)
      state.counters["zero_ms"] = timing.prepare_seconds() * 1e3 / static_cast<double>(state.iterations());
  });
}

// The GPU decoder on a stream made by gpu.fast (with its index), checked against the input.
void gpu_vle_decode(benchmark::State& state, InputRef ref, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = input_or_skip(state, ref);
    if (!in) return;
    GpuTimingContext timing;
    DeviceStream d;
    upload_and_encode(*in, vle::Config{vle::Kernel::fast}, d, timing.stream(), true);
    const bool check = first_check(name);  // the later calls run the same work on the same input
    if (check)
      if (const auto bad = check_stream(*in, d); !bad.empty()) return fail(state, name, "encoder: " + bad);
    const std::size_t n = in->bytes.size();
    DeviceBuffer<vle::DecodeTable> d_table(1);
    d_table.upload(std::span<const vle::DecodeTable>(&in->decode_table, 1));
    DeviceBuffer<std::uint8_t> d_out(std::max<std::size_t>(n, 1));
    DeviceBuffer<std::uint32_t> d_status(vle::kDecodeStatusWords);
    d_out.fill_bytes(0xCD);
    auto run = [&](cudaStream_t s) {
      vle::decode(d.words.data(), d.n_words, d.bits.data(), d.index.data(), n, d_table.data(), d_out.data(),
                  d_status.data(), s);
    };
    run(timing.stream());
    vle::check_decode_status(d_status.data(), timing.stream());
    if (check && d_out.download(n) != in->bytes) return fail(state, name, "decoded bytes differ from the input");
    const double seconds = timing.run(state, name, run);
    vle::check_decode_status(d_status.data(), timing.stream());
    const std::uint64_t index_bytes = vle::index_entries(n) * sizeof(std::uint64_t);
    set_vle_counters(state, *in, seconds, index_bytes);
    state.counters["index_overhead"] =
        in->encoded.bits == 0 ? 0.0 : static_cast<double>(index_bytes * 8) / static_cast<double>(in->encoded.bits);
  });
}

// The scan alone over `elements` lengths (n/4 for one word per thread, n/(4 dpt) reduced).
void gpu_scan(benchmark::State& state, InputRef ref, unsigned words_per_element, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const std::size_t n = ref.n;
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
const vle::Config kFast{vle::Kernel::fast};

// `tail` is "n=<size>" or the swept parameter; a DPT sweep names the variant without its DPT.
void register_gpu(const char* experiment, const vle::Config& c, const InputRef& ref, const std::string& tail) {
  vle::Config base = c;
  if (tail.rfind("dpt=", 0) == 0) base.dpt = 1;
  if (tail.rfind("spt=", 0) == 0) base.fast_symbols_per_thread = 0;
  const std::string name = fmt::format("{}/{}/{}/{}", experiment, vle::name(base), dataset_label(ref), tail);
  configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_vle, c, ref, name));
}

void register_cpu(const char* experiment, const InputRef& ref, const std::string& tail, bool decode = false, bool branchless = false) {
  const std::string name = fmt::format("{}/cpu.serial{}/{}/{}", experiment, branchless ? ".branchless" : "", dataset_label(ref), tail);
  if (decode) configure_cpu(benchmark::RegisterBenchmark(name.c_str(), cpu_vle_decode, ref));
  else configure_cpu(benchmark::RegisterBenchmark(name.c_str(), cpu_vle, ref, branchless));
}

void register_decode(const InputRef& ref, const std::string& tail) {
  const std::string name = fmt::format("pavle.decode/gpu.fast/{}/{}", dataset_label(ref), tail);
  configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_vle_decode, ref, name));
}

}  // namespace

void register_pavle() {
  const int max_log2 = options().max_log2 >= 0 ? std::min(options().max_log2, 30) : 30;
  const double fig_bits = 2.2;  // the paper's Fig. 4 and 5 entropy
  using K = vle::Kernel;
  for (int lg = 20; lg <= max_log2; lg += 2) {
    const std::size_t n = std::size_t{1} << lg;
    const std::string size = fmt::format("n={}", n);
    const InputRef ref{fig_bits, n, std::nullopt};
    // The serial baseline once per size (fig4a); the other figures' speedups refer to it.
    register_cpu("pavle.fig4a", ref, size);
    for (const K k : {K::gm32, K::sm32, K::sm64huff}) register_gpu("pavle.fig4a", config(k, 1, false, false), ref, size);
    register_gpu("pavle.fig4a", kFast, ref, size);  // ours, beside the paper's kernels
    for (const K k : {K::gm32, K::sm32, K::sm64huff}) register_gpu("pavle.fig4b", config(k, 1, true, false), ref, size);
    register_gpu("pavle.fig5a", config(K::sm32, 1, false, false), ref, size);
    register_gpu("pavle.fig5a", config(K::sm32, 4, true, false), ref, size);
    register_gpu("pavle.fig5a", config(K::sm32, 4, true, true), ref, size);
    for (const auto& [experiment, words] : {std::pair{"pavle.fig4a", 1u}, std::pair{"pavle.fig5a", 1u}, std::pair{"pavle.fig5a", 4u}}) {
      const std::string name = fmt::format("{}/{}/{}/{}", experiment, words == 1 ? "gpu.scan" : "gpu.scan.reduced4",
                                           dataset_label(fig_bits), size);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_scan, ref, words, name));
    }
    // The serial decoder is the bit-at-a-time oracle (slow): up to 16 MiB only.
    if (lg <= 24) register_cpu("pavle.decode", ref, size, true);
    register_decode(ref, size);
  }
  // Fig. 5b: DPT at one size; the table cached, and aggregates cached too.
  const std::size_t n5 = std::size_t{1} << std::min(max_log2, 28);
  for (const unsigned dpt : {1u, 2u, 4u, 8u}) {
    const InputRef ref{fig_bits, n5, std::nullopt};
    register_gpu("pavle.fig5b", config(K::sm32, dpt, true, false), ref, fmt::format("dpt={}", dpt));
    register_gpu("pavle.fig5b", config(K::sm32, dpt, true, true), ref, fmt::format("dpt={}", dpt));
  }
  // gpu.fast's symbols per thread (ours), at the Fig. 5b size.
  for (const unsigned spt : {32u, 64u}) {
    vle::Config c = kFast;
    c.fast_symbols_per_thread = spt;
    register_gpu("pavle.fast_tuning", c, InputRef{fig_bits, n5, std::nullopt}, fmt::format("spt={}", spt));
  }
  // Throughput against entropy, every variant, at one size.
  const std::size_t ne = std::size_t{1} << std::min(max_log2, 26);
  const int ne_log2 = std::min(max_log2, 26);
  const bool ne_in_size_sweep = ne_log2 >= 20 && ne_log2 % 2 == 0;
  for (const double bits : {0.5, 1.0, 2.0, 2.2, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}) {
    const InputRef ref{bits, ne, std::nullopt};
    const std::string size = fmt::format("n={}", ne);
    register_cpu("pavle.entropy", ref, size);
    register_cpu("pavle.entropy", ref, size, false, true);
    for (const auto& c : {config(K::gm32, 1, false, false), config(K::gm32, 1, true, false), config(K::sm32, 1, false, false),
                          config(K::sm32, 1, true, false), config(K::sm64huff, 1, true, false), config(K::sm32, 4, true, false),
                          config(K::sm32, 4, true, true), kFast})
      register_gpu("pavle.entropy", c, ref, size);
    if (!(bits == fig_bits && ne_in_size_sweep)) register_decode(ref, size);  // 2.2 is in the size sweep
  }
  // The same sweep with codes of up to 16 bits (datasets entropy<b>.max16): an 8-bit limit codes
  // 6, 7 and 8 bits/symbol of entropy all at 8.0 bits/symbol, so the 8-bit sweep's upper end is
  // one point; the plot's x axis is the coded bits/symbol (the bits_per_symbol counter). Run by
  // sm64huff, the paper's kernel for codes over 8 bits, beside the serial encoder and gpu.fast.
  for (const double bits : {0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0}) {
    const InputRef ref{bits, ne, std::nullopt, kRealMaxCodeLength};
    const std::string size = fmt::format("n={}", ne);
    register_cpu("pavle.entropy", ref, size);
    for (const auto& c : {config(K::sm64huff, 1, true, false), config(K::sm64huff, 4, true, false), kFast})
      register_gpu("pavle.entropy", c, ref, size);
  }
  // Real data (ours): the raw datasets, sm64huff (the paper kernel that takes 16-bit codes),
  // gpu.fast and the decoder.
  for (const ByteInputSpec& spec : standard_byte_inputs()) {
    if (spec.bwt || spec.source.rfind("synthetic:", 0) == 0) continue;
    const InputRef ref{0.0, 0, spec, kRealMaxCodeLength};
    const std::string size = fmt::format("n={}", spec_size(spec));
    register_cpu("pavle.real", ref, size);
    for (const auto& c : {config(K::sm64huff, 1, true, false), config(K::sm64huff, 4, true, false), kFast})
      register_gpu("pavle.real", c, ref, size);
    register_decode(ref, size);
  }
}

}  // namespace parcomp::bench
