// Huffman stage (thesis sections 2.3, 3.1, 4.4.5):
//   thesis.fig4_7         time of each encoding step per dataset: histogram, tree, encode, for the
//                         thesis's kernels (paper.*) and ours (fast.*: CUB histogram, the tree from
//                         sorted leaves by two queues on the GPU or on the host, PAVLE's encoder).
//   thesis.huffman_rates  encode-only and decode-only rates: paper (4096-symbol byte-aligned
//                         blocks; one thread per block decodes), fast (PAVLE's encoder and
//                         index-driven decoder), and the serial CPU encoder and decoder.
// Inputs: the MTF output of CPU-made BWT blocks (what the pipeline feeds this stage) and raw data.
// The code is the stage's rule (huffman.hpp): tree lengths, limited to 16 bits when deeper,
// canonical codewords. Every GPU result is checked against the serial reference first.
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/huffman/huffman.hpp"
#include "kernels/vle/vle.hpp"
#include "reference/huffman.hpp"
#include "reference/vle.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <chrono>

namespace parcomp::bench {

namespace {

struct HuffInput {
  std::shared_ptr<const ByteInput> raw;
  reference::Histogram hist{};
  std::array<std::uint8_t, 256> tree_lengths{};
  huffman::Code code;
  reference::HuffmanBlocks blocks;  // the paper layout
  reference::VleStream stream;      // the fast layout (PAVLE)
};

std::shared_ptr<const HuffInput> huff_input(benchmark::State& state, const ByteInputSpec& spec) {
  static std::shared_ptr<const HuffInput> cached;
  if (!cached || cached->raw->label != spec.label) {
    cached.reset();
    auto in = std::make_shared<HuffInput>();
    in->raw = byte_input(spec);
    if (in->raw->unavailable.empty()) {
      in->hist = reference::byte_histogram(in->raw->bytes);
      in->tree_lengths = reference::huffman_lengths_unlimited(in->hist);
      in->code = huffman::code_from_lengths(in->tree_lengths, in->hist);
      in->blocks = reference::huffman_blocks_encode(in->raw->bytes, in->code.table, huffman::kBlockSymbols);
      in->stream = reference::vle_encode(in->raw->bytes, in->code.table);
    }
    cached = std::move(in);
  }
  if (!cached->raw->unavailable.empty()) {
    const std::string msg = "skipped: " + cached->raw->unavailable;
    state.SkipWithError(msg.c_str());
    return nullptr;
  }
  return cached;
}

void counters(benchmark::State& state, const HuffInput& in, double seconds, std::uint64_t device_bytes) {
  set_throughput_counters(state, in.raw->bytes.size());
  if (device_bytes != 0) set_bandwidth_counter(state, device_bytes, seconds);
  state.counters["bits_per_symbol"] =
      in.raw->bytes.empty() ? 0.0 : static_cast<double>(in.stream.bits) / static_cast<double>(in.raw->bytes.size());
}

// Everything one GPU step needs on the device, filled as the step's inputs require.
struct Device {
  std::size_t n;
  DeviceBuffer<std::uint8_t> in, lengths, paper_out, back;
  DeviceBuffer<std::uint64_t> hist, total, bits, index;
  DeviceBuffer<std::uint32_t> depth, table, sizes, words, status;
  DeviceBuffer<vle::DecodeTable> decode;
  explicit Device(const HuffInput& h)
      : n(h.raw->bytes.size()), in(std::max<std::size_t>(n, 1)), lengths(256),
        paper_out(huffman::paper_output_bytes(n, huffman::kMaxCodeLength)), back(std::max<std::size_t>(n, 1)),
        hist(256), total(1), bits(1), index(std::max<std::size_t>(vle::index_entries(n), 1)), depth(1), table(256),
        sizes(std::max<std::size_t>(huffman::block_count(n), 1)), words(vle::output_words(n, huffman::kMaxCodeLength)),
        status(2), decode(1) {
    in.upload(h.raw->bytes);
    hist.upload(std::span<const std::uint64_t>(h.hist.data(), 256));
    table.upload(std::span<const std::uint32_t>(h.code.packed.entries, 256));
    decode.upload(std::span<const vle::DecodeTable>(&h.code.decode, 1));
  }
};

enum class Step { paper_histogram, paper_tree, paper_encode, paper_decode, fast_histogram, fast_tree, fast_tree_host,
                  fast_encode, fast_decode };

std::string step_name(Step s) {
  switch (s) {
    case Step::paper_histogram: return "gpu.paper.histogram";
    case Step::paper_tree: return "gpu.paper.tree";
    case Step::paper_encode: return "gpu.paper.encode";
    case Step::paper_decode: return "gpu.paper.decode";
    case Step::fast_histogram: return "gpu.fast.histogram";
    case Step::fast_tree: return "gpu.fast.tree";
    case Step::fast_tree_host: return "gpu.fast.tree_host";
    case Step::fast_encode: return "gpu.fast.encode";
    case Step::fast_decode: return "gpu.fast.decode";
  }
  return "?";
}

void gpu_step(benchmark::State& state, Step step, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto h = huff_input(state, spec);
    if (!h) return;
    Device d(*h);
    const std::size_t n = d.n;
    const int max_length = std::max(1, h->code.packed.max_length);
    const vle::Config fast{vle::Kernel::fast};
    const bool paper = step == Step::paper_histogram || step == Step::paper_encode || step == Step::paper_decode;
    const auto hv = paper ? huffman::Variant::paper : huffman::Variant::fast;
    std::size_t scratch_size = 0;
    switch (step) {
      case Step::paper_histogram:
      case Step::fast_histogram: scratch_size = huffman::histogram_scratch_bytes(hv, n); break;
      case Step::paper_encode: scratch_size = huffman::paper_encode_scratch_bytes(n); break;
      case Step::paper_decode: scratch_size = huffman::paper_decode_scratch_bytes(n); break;
      case Step::fast_encode:
      case Step::fast_decode: scratch_size = vle::scratch_bytes(fast, n); break;
      default: break;
    }
    DeviceBytes scratch(scratch_size);
    // Inputs of the decoders: the encoders' outputs, checked below.
    if (step == Step::paper_decode) {
      d.paper_out.upload(h->blocks.bytes);
      d.sizes.upload(h->blocks.block_bytes);
    }
    if (step == Step::fast_decode) {  // on the legacy stream: wait before the timing stream reads it
      vle::encode(fast, d.in.data(), n, d.table.data(), max_length, d.words.data(), d.words.size(), d.bits.data(),
                  scratch.data(), scratch.size_bytes(), nullptr, d.index.data());
      PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
      if (d.words.download(h->stream.words.size()) != h->stream.words)
        return fail(state, name, "the encoder's stream differs from the serial encoder");
    }
    std::uint64_t device_bytes = 0;
    auto run = [&](cudaStream_t s) {
      switch (step) {
        case Step::paper_histogram:
        case Step::fast_histogram:
          huffman::histogram(hv, d.in.data(), n, d.hist.data(), scratch.data(), scratch.size_bytes(), s);
          device_bytes = n;
          break;
        case Step::paper_tree: huffman::tree(huffman::Variant::paper, d.hist.data(), d.lengths.data(), d.depth.data(), s); break;
        case Step::fast_tree: huffman::tree(huffman::Variant::fast, d.hist.data(), d.lengths.data(), d.depth.data(), s); break;
        case Step::fast_tree_host: {
          const huffman::Code c = huffman::code_from_device_histogram(d.hist.data(), s);
          PARCOMP_CUDA_CHECK(cudaMemcpyAsync(d.table.data(), c.packed.entries, sizeof c.packed.entries,
                                             cudaMemcpyHostToDevice, s));
          break;
        }
        case Step::paper_encode:
          huffman::encode_paper(d.in.data(), n, d.table.data(), max_length, d.paper_out.data(), d.paper_out.size(),
                                d.sizes.data(), d.total.data(), scratch.data(), scratch.size_bytes(), s);
          device_bytes = n + h->blocks.bytes.size();
          break;
        case Step::paper_decode:
          huffman::decode_paper(d.paper_out.data(), h->blocks.bytes.size(), d.sizes.data(), n, d.decode.data(),
                                d.back.data(), d.status.data(), scratch.data(), scratch.size_bytes(), s);
          device_bytes = n + h->blocks.bytes.size();
          break;
        case Step::fast_encode:
          vle::encode(fast, d.in.data(), n, d.table.data(), max_length, d.words.data(), d.words.size(), d.bits.data(),
                      scratch.data(), scratch.size_bytes(), s, d.index.data());
          device_bytes = n + (h->stream.bits + 7) / 8;
          break;
        case Step::fast_decode:
          vle::decode(d.words.data(), d.words.size(), d.bits.data(), d.index.data(), n, d.decode.data(), d.back.data(),
                      d.status.data(), s);
          device_bytes = n + (h->stream.bits + 7) / 8;
          break;
      }
    };
    GpuTimingContext timing;
    run(timing.stream());
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
    // Check the step's output against the reference.
    std::string bad;
    switch (step) {
      case Step::paper_histogram:
      case Step::fast_histogram:
        if (!std::equal(h->hist.begin(), h->hist.end(), d.hist.download().begin())) bad = "histogram differs";
        break;
      case Step::paper_tree:
      case Step::fast_tree: {
        const auto l = d.lengths.download();
        if (!std::equal(h->tree_lengths.begin(), h->tree_lengths.end(), l.begin())) bad = "tree code lengths differ";
        break;
      }
      case Step::fast_tree_host:
        if (!std::equal(std::begin(h->code.packed.entries), std::end(h->code.packed.entries), d.table.download().begin()))
          bad = "host code differs";
        break;
      case Step::paper_encode:
        if (d.sizes.download(h->blocks.block_bytes.size()) != h->blocks.block_bytes ||
            d.paper_out.download(h->blocks.bytes.size()) != h->blocks.bytes)
          bad = "block arrays differ from the serial encoder";
        break;
      case Step::fast_encode:
        if (d.words.download(h->stream.words.size()) != h->stream.words) bad = "stream differs from the serial encoder";
        break;
      case Step::paper_decode:
        huffman::check_decode_status(d.status.data(), timing.stream());
        if (d.back.download(n) != h->raw->bytes) bad = "decoded bytes differ";
        break;
      case Step::fast_decode:
        vle::check_decode_status(d.status.data(), timing.stream());
        if (d.back.download(n) != h->raw->bytes) bad = "decoded bytes differ";
        break;
    }
    if (!bad.empty()) return fail(state, name, bad);
    const double seconds = timing.run(state, name, run);
    counters(state, *h, seconds, device_bytes);
  });
}

void cpu_step(benchmark::State& state, bool decode, ByteInputSpec spec) {
  const auto h = huff_input(state, spec);
  if (!h) return;
  for (auto _ : state) {
    if (decode) {
      auto out = reference::huffman_blocks_decode(h->blocks, h->raw->bytes.size(), huffman::kBlockSymbols, h->code.table);
      benchmark::DoNotOptimize(out.data());
    } else {
      auto out = reference::huffman_blocks_encode(h->raw->bytes, h->code.table, huffman::kBlockSymbols);
      benchmark::DoNotOptimize(out.bytes.data());
    }
  }
  counters(state, *h, 0.0, 0);
}

}  // namespace

void register_huffman() {
  std::vector<ByteInputSpec> specs;
  for (const std::string name : {"linux-2.6.11.1.tar", "enwik8", "silesia/xml", "silesia/dickens"}) {
    std::string slug = name;
    std::replace(slug.begin(), slug.end(), '/', '-');
    specs.push_back({slug + ".bwt.mtf", name, true, true});
    specs.push_back({slug, name, false, false});
  }
  for (const auto& spec : specs) {
    const std::string tail = fmt::format("{}/n={}", spec.label, spec_size(spec));
    for (const Step s : {Step::paper_histogram, Step::paper_tree, Step::paper_encode, Step::fast_histogram,
                         Step::fast_tree, Step::fast_tree_host, Step::fast_encode}) {
      const std::string name = fmt::format("thesis.fig4_7/{}/{}", step_name(s), tail);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_step, s, spec, name));
    }
    for (const Step s : {Step::paper_encode, Step::paper_decode, Step::fast_encode, Step::fast_decode}) {
      const std::string name = fmt::format("thesis.huffman_rates/{}/{}", step_name(s), tail);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), gpu_step, s, spec, name));
    }
    configure_cpu(benchmark::RegisterBenchmark(fmt::format("thesis.huffman_rates/cpu.serial.encode/{}", tail).c_str(),
                                               cpu_step, false, spec));
    configure_cpu(benchmark::RegisterBenchmark(fmt::format("thesis.huffman_rates/cpu.serial.decode/{}", tail).c_str(),
                                               cpu_step, true, spec));
  }
}

}  // namespace parcomp::bench
