// Huffman stage (thesis sections 2.3, 3.1, 4.4.5), per 1 MiB block as the thesis and the pipeline
// run it: every block has its own histogram, tree and code, and a step's time is summed over the
// blocks (one launch per block for every step, as the thesis's pipeline issues them).
//   thesis.fig4_7         time of each encoding step per dataset: histogram, tree, encode, for the
//                         thesis's kernels (paper.*) and ours (fast.*: CUB histogram, the tree from
//                         sorted leaves by two queues on the GPU or on the host, PAVLE's encoder).
//   thesis.huffman_rates  encode-only and decode-only rates: paper (4096-symbol byte-aligned
//                         blocks; one thread per block decodes, bit by bit down the tree as the
//                         thesis does; gpu.paper.decode_lut: the same blocks with a lookup table,
//                         ours), fast (PAVLE's encoder and index-driven decoder), and the serial CPU
//                         encoder and decoder over the same per-block codes.
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

#include <algorithm>

namespace parcomp::bench {

namespace {

constexpr std::size_t kBlock = kBwtBlockBytes;  // the thesis's (and the pipeline's) 1 MiB blocks

struct HuffBlock {
  std::size_t first = 0, n = 0;
  reference::Histogram hist{};
  std::array<std::uint8_t, 256> tree_lengths{};
  huffman::Code code;
  reference::HuffmanBlocks paper;  // the paper layout
  reference::VleStream stream;     // the fast layout (PAVLE)
};

struct HuffInput {
  std::shared_ptr<const ByteInput> raw;
  std::vector<HuffBlock> blocks;
  std::uint64_t paper_bytes = 0, stream_bits = 0;
};

std::shared_ptr<const HuffInput> huff_input(benchmark::State& state, const ByteInputSpec& spec) {
  static std::shared_ptr<const HuffInput> cached;
  if (!cached || cached->raw->label != spec.label) {
    cached.reset();
    auto in = std::make_shared<HuffInput>();
    in->raw = byte_input(spec);
    if (in->raw->unavailable.empty()) {
      const auto& bytes = in->raw->bytes;
      for (std::size_t first = 0; first < bytes.size(); first += kBlock) {
        HuffBlock b;
        b.first = first;
        b.n = std::min(kBlock, bytes.size() - first);
        const auto part = std::span(bytes).subspan(first, b.n);
        b.hist = reference::byte_histogram(part);
        b.tree_lengths = reference::huffman_lengths_unlimited(b.hist);
        b.code = huffman::code_from_lengths(b.tree_lengths, b.hist);
        b.paper = reference::huffman_blocks_encode(part, b.code.table, huffman::kBlockSymbols);
        b.stream = reference::vle_encode(part, b.code.table);
        in->paper_bytes += b.paper.bytes.size();
        in->stream_bits += b.stream.bits;
        in->blocks.push_back(std::move(b));
      }
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
  state.counters["blocks"] = static_cast<double>(in.blocks.size());
  state.counters["bits_per_symbol"] =
      in.raw->bytes.empty() ? 0.0 : static_cast<double>(in.stream_bits) / static_cast<double>(in.raw->bytes.size());
}

// Every block's buffers on the device, at per-block strides.
struct Device {
  std::size_t n, blocks, paper_cap, arrays, words_stride, index_stride;
  DeviceBuffer<std::uint8_t> in, lengths, paper_out, back;
  DeviceBuffer<std::uint64_t> hist, total, bits, index;
  DeviceBuffer<std::uint32_t> depth, table, sizes, words, status;
  DeviceBuffer<vle::DecodeTable> decode;
  explicit Device(const HuffInput& h)
      : n(h.raw->bytes.size()), blocks(std::max<std::size_t>(h.blocks.size(), 1)),
        paper_cap(huffman::paper_output_bytes(kBlock, huffman::kMaxCodeLength)), arrays(huffman::block_count(kBlock)),
        words_stride(vle::output_words(kBlock, huffman::kMaxCodeLength)), index_stride(vle::index_entries(kBlock)),
        in(std::max<std::size_t>(n, 1)), lengths(256 * blocks), paper_out(paper_cap * blocks),
        back(std::max<std::size_t>(n, 1)), hist(256 * blocks), total(blocks), bits(blocks), index(index_stride * blocks),
        depth(blocks), table(256 * blocks), sizes(arrays * blocks), words(words_stride * blocks),
        status(huffman::kDecodeStatusWords * blocks), decode(blocks) {
    in.upload(h.raw->bytes);
    std::vector<std::uint64_t> hists(256 * blocks);
    std::vector<std::uint32_t> tables(256 * blocks);
    std::vector<vle::DecodeTable> decodes(blocks);
    for (std::size_t b = 0; b < h.blocks.size(); ++b) {
      std::copy(h.blocks[b].hist.begin(), h.blocks[b].hist.end(), hists.begin() + static_cast<std::ptrdiff_t>(256 * b));
      std::copy(std::begin(h.blocks[b].code.packed.entries), std::end(h.blocks[b].code.packed.entries),
                tables.begin() + static_cast<std::ptrdiff_t>(256 * b));
      decodes[b] = h.blocks[b].code.decode;
    }
    hist.upload(hists);
    table.upload(tables);
    decode.upload(decodes);
  }
};

enum class Step { paper_histogram, paper_tree, paper_encode, paper_decode, paper_decode_lut, fast_histogram, fast_tree,
                  fast_tree_host, fast_encode, fast_decode };

std::string step_name(Step s) {
  switch (s) {
    case Step::paper_histogram: return "gpu.paper.histogram";
    case Step::paper_tree: return "gpu.paper.tree";
    case Step::paper_encode: return "gpu.paper.encode";
    case Step::paper_decode: return "gpu.paper.decode";
    case Step::paper_decode_lut: return "gpu.paper.decode_lut";
    case Step::fast_histogram: return "gpu.fast.histogram";
    case Step::fast_tree: return "gpu.fast.tree";
    case Step::fast_tree_host: return "gpu.fast.tree_host";
    case Step::fast_encode: return "gpu.fast.encode";
    case Step::fast_decode: return "gpu.fast.decode";
  }
  return "?";
}

bool is_paper(Step s) {
  return s == Step::paper_histogram || s == Step::paper_tree || s == Step::paper_encode || s == Step::paper_decode ||
         s == Step::paper_decode_lut;
}

void gpu_step(benchmark::State& state, Step step, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto h = huff_input(state, spec);
    if (!h) return;
    Device d(*h);
    const std::size_t nb = h->blocks.size();
    const vle::Config fast{vle::Kernel::fast};
    const auto hv = is_paper(step) ? huffman::Variant::paper : huffman::Variant::fast;
    std::size_t scratch_size = 0;
    switch (step) {
      case Step::paper_histogram:
      case Step::fast_histogram: scratch_size = huffman::histogram_scratch_bytes(hv, kBlock); break;
      case Step::paper_encode: scratch_size = huffman::paper_encode_scratch_bytes(kBlock); break;
      case Step::paper_decode:
      case Step::paper_decode_lut: scratch_size = huffman::paper_decode_scratch_bytes(kBlock); break;
      case Step::fast_encode:
      case Step::fast_decode: scratch_size = vle::scratch_bytes(fast, kBlock); break;
      default: break;
    }
    DeviceBytes scratch(scratch_size);
    auto max_length = [&](std::size_t b) { return std::max(1, h->blocks[b].code.packed.max_length); };
    // Inputs of the decoders: the serial encoder's outputs (paper), the GPU encoder's (fast,
    // checked against the serial encoder).
    if (step == Step::paper_decode || step == Step::paper_decode_lut) {
      for (std::size_t b = 0; b < nb; ++b) {
        PARCOMP_CUDA_CHECK(cudaMemcpy(d.paper_out.data() + b * d.paper_cap, h->blocks[b].paper.bytes.data(),
                                      h->blocks[b].paper.bytes.size(), cudaMemcpyHostToDevice));
        PARCOMP_CUDA_CHECK(cudaMemcpy(d.sizes.data() + b * d.arrays, h->blocks[b].paper.block_bytes.data(),
                                      h->blocks[b].paper.block_bytes.size() * 4, cudaMemcpyHostToDevice));
      }
    }
    // The outputs are checked in the benchmark's first call; the later calls run the same work on
    // the same input.
    const bool check = first_check(name);
    if (step == Step::fast_decode) {  // on the legacy stream: wait before the timing stream reads it
      for (std::size_t b = 0; b < nb; ++b)
        vle::encode(fast, d.in.data() + h->blocks[b].first, h->blocks[b].n, d.table.data() + 256 * b, max_length(b),
                    d.words.data() + b * d.words_stride, d.words_stride, d.bits.data() + b, scratch.data(),
                    scratch.size_bytes(), nullptr, d.index.data() + b * d.index_stride);
      PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
      for (std::size_t b = 0; check && b < nb; ++b) {
        std::vector<std::uint32_t> w(h->blocks[b].stream.words.size());
        PARCOMP_CUDA_CHECK(cudaMemcpy(w.data(), d.words.data() + b * d.words_stride, w.size() * 4, cudaMemcpyDeviceToHost));
        if (w != h->blocks[b].stream.words) return fail(state, name, fmt::format("block {}: the encoder's stream differs", b));
      }
    }
    std::uint64_t device_bytes = 0;
    const std::uint64_t n = d.n;
    auto run = [&](cudaStream_t s) {
      for (std::size_t b = 0; b < nb; ++b) {
        const HuffBlock& blk = h->blocks[b];
        const std::uint8_t* in = d.in.data() + blk.first;
        switch (step) {
          case Step::paper_histogram:
          case Step::fast_histogram:
            huffman::histogram(hv, in, blk.n, d.hist.data() + 256 * b, scratch.data(), scratch.size_bytes(), s);
            break;
          case Step::paper_tree:
          case Step::fast_tree:
            huffman::tree(hv, d.hist.data() + 256 * b, d.lengths.data() + 256 * b, d.depth.data() + b, s);
            break;
          case Step::fast_tree_host: {
            const huffman::Code c = huffman::code_from_device_histogram(d.hist.data() + 256 * b, s);
            PARCOMP_CUDA_CHECK(cudaMemcpyAsync(d.table.data() + 256 * b, c.packed.entries, sizeof c.packed.entries,
                                               cudaMemcpyHostToDevice, s));
            PARCOMP_CUDA_CHECK(cudaStreamSynchronize(s));  // c dies here
            break;
          }
          case Step::paper_encode:
            huffman::encode_paper(in, blk.n, d.table.data() + 256 * b, max_length(b), d.paper_out.data() + b * d.paper_cap,
                                  d.paper_cap, d.sizes.data() + b * d.arrays, d.total.data() + b, scratch.data(),
                                  scratch.size_bytes(), s);
            break;
          case Step::paper_decode:
          case Step::paper_decode_lut:
            huffman::decode_paper(d.paper_out.data() + b * d.paper_cap, blk.paper.bytes.size(), d.sizes.data() + b * d.arrays,
                                  blk.n, d.decode.data() + b, d.back.data() + blk.first,
                                  d.status.data() + huffman::kDecodeStatusWords * b, scratch.data(), scratch.size_bytes(), s,
                                  step == Step::paper_decode ? huffman::DecodeMethod::bit_serial : huffman::DecodeMethod::lut);
            break;
          case Step::fast_encode:
            vle::encode(fast, in, blk.n, d.table.data() + 256 * b, max_length(b), d.words.data() + b * d.words_stride,
                        d.words_stride, d.bits.data() + b, scratch.data(), scratch.size_bytes(), s,
                        d.index.data() + b * d.index_stride);
            break;
          case Step::fast_decode:
            vle::decode(d.words.data() + b * d.words_stride, d.words_stride, d.bits.data() + b,
                        d.index.data() + b * d.index_stride, blk.n, d.decode.data() + b, d.back.data() + blk.first,
                        d.status.data() + huffman::kDecodeStatusWords * b, s);
            break;
        }
      }
      switch (step) {
        case Step::paper_histogram:
        case Step::fast_histogram: device_bytes = n; break;
        case Step::paper_encode:
        case Step::paper_decode:
        case Step::paper_decode_lut: device_bytes = n + h->paper_bytes; break;
        case Step::fast_encode:
        case Step::fast_decode: device_bytes = n + (h->stream_bits + 7) / 8; break;
        default: break;
      }
    };
    GpuTimingContext timing;
    run(timing.stream());
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
    // Check the step's output against the reference, block by block.
    std::string bad;
    if (check) {
      const auto hist = d.hist.download();
      const auto lengths = d.lengths.download();
      const auto table = d.table.download();
      const auto sizes = d.sizes.download();
      const auto paper_out = d.paper_out.download();
      const auto back = d.back.download();
      for (std::size_t b = 0; b < nb && bad.empty(); ++b) {
        const HuffBlock& blk = h->blocks[b];
        const std::string where = fmt::format("block {}: ", b);
        switch (step) {
          case Step::paper_histogram:
          case Step::fast_histogram:
            if (!std::equal(blk.hist.begin(), blk.hist.end(), hist.begin() + static_cast<std::ptrdiff_t>(256 * b)))
              bad = where + "histogram differs";
            break;
          case Step::paper_tree:
          case Step::fast_tree:
            if (!std::equal(blk.tree_lengths.begin(), blk.tree_lengths.end(), lengths.begin() + static_cast<std::ptrdiff_t>(256 * b)))
              bad = where + "tree code lengths differ";
            break;
          case Step::fast_tree_host:
            if (!std::equal(std::begin(blk.code.packed.entries), std::end(blk.code.packed.entries),
                            table.begin() + static_cast<std::ptrdiff_t>(256 * b)))
              bad = where + "host code differs";
            break;
          case Step::paper_encode:
            if (!std::equal(blk.paper.block_bytes.begin(), blk.paper.block_bytes.end(),
                            sizes.begin() + static_cast<std::ptrdiff_t>(b * d.arrays)) ||
                !std::equal(blk.paper.bytes.begin(), blk.paper.bytes.end(), paper_out.begin() + static_cast<std::ptrdiff_t>(b * d.paper_cap)))
              bad = where + "block arrays differ from the serial encoder";
            break;
          case Step::fast_encode: {
            std::vector<std::uint32_t> w(blk.stream.words.size());
            PARCOMP_CUDA_CHECK(cudaMemcpy(w.data(), d.words.data() + b * d.words_stride, w.size() * 4, cudaMemcpyDeviceToHost));
            if (w != blk.stream.words) bad = where + "stream differs from the serial encoder";
            break;
          }
          case Step::paper_decode:
          case Step::paper_decode_lut:
            huffman::check_decode_status(d.status.data() + huffman::kDecodeStatusWords * b, timing.stream());
            break;
          case Step::fast_decode:
            vle::check_decode_status(d.status.data() + huffman::kDecodeStatusWords * b, timing.stream());
            break;
        }
      }
      if ((step == Step::paper_decode || step == Step::paper_decode_lut || step == Step::fast_decode) && bad.empty() &&
          !std::equal(h->raw->bytes.begin(), h->raw->bytes.end(), back.begin()))
        bad = "decoded bytes differ";
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
    for (const HuffBlock& b : h->blocks) {
      if (decode) {
        auto out = reference::huffman_blocks_decode(b.paper, b.n, huffman::kBlockSymbols, b.code.table);
        benchmark::DoNotOptimize(out.data());
      } else {
        auto out = reference::huffman_blocks_encode(std::span(h->raw->bytes).subspan(b.first, b.n), b.code.table,
                                                    huffman::kBlockSymbols);
        benchmark::DoNotOptimize(out.bytes.data());
      }
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
    for (const Step s : {Step::paper_encode, Step::paper_decode, Step::paper_decode_lut, Step::fast_encode, Step::fast_decode}) {
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
