// The GPU pipeline: stage calls, per-block codes, container assembly and checks. See pipeline.hpp.
#include "gpu_pipeline.hpp"

#include "kernels/bwt/bwt.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/nvtx.hpp"
#include "kernels/huffman/huffman.hpp"
#include "kernels/mtf/mtf.hpp"
#include "kernels/vle/vle.hpp"
#include "kernels/zrle/zrle.hpp"
#include "core/codes.hpp"
#include "core/parallel.hpp"
#include "core/stages.hpp"

#include <algorithm>
#include <exception>
#include <string>

namespace parcomp::pipeline {

static_assert(kStride == vle::kIndexStride && kFastSampleStride % bwt::kSampleStride == 0, "the fast payload's strides");
static_assert(kFastGroupSymbols == vle::kSelectorGroup && kMaxFastTables == huffman::kMaxTables, "the fast payload's tables");
static_assert(kHuffmanBlockSymbols == huffman::kBlockSymbols, "paper payload granularity");

namespace {

constexpr int kMaxLength = huffman::kMaxCodeLength;

class Events {
 public:
  Events() {
    for (auto& e : e_) PARCOMP_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~Events() {
    for (auto& e : e_) PARCOMP_CUDA_CHECK_NOTHROW(cudaEventDestroy(e));
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  void record(int i, cudaStream_t s) { PARCOMP_CUDA_CHECK(cudaEventRecord(e_[i], s)); }
  double seconds(int a, int b) {
    float ms = 0;
    PARCOMP_CUDA_CHECK(cudaEventSynchronize(e_[b]));
    PARCOMP_CUDA_CHECK(cudaEventElapsedTime(&ms, e_[a], e_[b]));
    return ms / 1e3;
  }

 private:
  cudaEvent_t e_[5]{};
};

bwt::Variant bwt_variant(Config c) { return c == Config::paper ? bwt::Variant::paper : bwt::Variant::fast; }
mtf::Variant mtf_variant(Config c) { return c == Config::paper ? mtf::Variant::paper : mtf::Variant::fast; }

mtf::Config mtf_config(Config c, mtf::Direction d, std::size_t block) {
  mtf::Config m = mtf::default_config(mtf_variant(c), d);
  m.segment_bytes = block;
  return m;
}

std::size_t len_of(std::size_t n, std::size_t block, std::size_t b) { return std::min(block, n - b * block); }
std::size_t arrays_of(std::size_t len) { return (len + kHuffmanBlockSymbols - 1) / kHuffmanBlockSymbols; }
constexpr int kTableBytes = kMaxFastTables * 256;

// The fast configuration's per-block slots on the device: zero-run symbols, selectors, streams and
// index, as vle::encode_segments / decode_segments take them.
vle::Segments fast_segments(std::size_t blocks, std::size_t block, const std::uint32_t* d_counts, const std::uint8_t* d_selectors) {
  vle::Segments g;
  g.count = blocks;
  g.capacity = zrle::capacity(block);
  g.d_sizes = d_counts;
  g.tables = kMaxFastTables;
  g.d_selectors = d_selectors;
  g.selector_stride = stages::multi_groups(g.capacity);
  g.out_stride = vle::output_words(g.capacity, kFastMaxLength);
  g.index_stride = vle::index_entries(g.capacity);
  return g;
}

void check_block_size(std::size_t block) {
  if (block == 0 || block > bwt::kMaxBlockBytes || block % 16 != 0)
    throw ContractError("pipeline (GPU): block size must be a multiple of 16 up to " + std::to_string(bwt::kMaxBlockBytes) +
                        ", got " + std::to_string(block));
}

}  // namespace

// ---- compression ------------------------------------------------------------------------------

struct GpuCompressor::State {
  Config config;
  std::size_t n, block, blocks;
  std::vector<std::uint32_t> crcs;
  DeviceBuffer<std::uint8_t> in, last, moved, lengths;
  DeviceBuffer<std::uint32_t> primary, samples, depth, tables, sizes, words;
  DeviceBuffer<std::uint64_t> hist, totals, bits, index;
  DeviceBuffer<std::uint8_t> arrays;
  DeviceBuffer<std::uint8_t> symbols, mlengths, selectors;  // fast
  DeviceBuffer<std::uint32_t> counts, ntables, packed;      // fast
  vle::Segments segments;                                   // fast
  DeviceBytes bwt_scratch, mtf_scratch, hist_scratch, enc_scratch, multi_scratch;
  std::vector<huffman::Code> codes;
  std::size_t array_cap = 0;
  Events events;
};

GpuCompressor::GpuCompressor(Config config, std::size_t n, std::size_t block) : s_(std::make_unique<State>()) {
  check_block_size(block);
  State& s = *s_;
  s.config = config;
  s.n = n;
  s.block = block;
  s.blocks = (n + block - 1) / block;
  const std::size_t m = std::max<std::size_t>(n, 1), nb = std::max<std::size_t>(s.blocks, 1);
  s.in = DeviceBuffer<std::uint8_t>(m);
  s.last = DeviceBuffer<std::uint8_t>(m);
  s.moved = DeviceBuffer<std::uint8_t>(m);
  s.primary = DeviceBuffer<std::uint32_t>(nb);
  s.samples = DeviceBuffer<std::uint32_t>(std::max<std::size_t>(bwt::sample_entries(n, block), 1));
  s.hist = DeviceBuffer<std::uint64_t>(256 * nb);
  s.lengths = DeviceBuffer<std::uint8_t>(256 * nb);
  s.depth = DeviceBuffer<std::uint32_t>(nb);
  s.tables = DeviceBuffer<std::uint32_t>(256 * nb);
  s.bwt_scratch = DeviceBytes(bwt::forward_scratch_bytes(bwt_variant(config), n, block));
  s.mtf_scratch = DeviceBytes(mtf::scratch_bytes(mtf_variant(config), mtf::Direction::forward, n,
                                                 mtf_config(config, mtf::Direction::forward, block)));
  if (config == Config::paper) {
    s.hist_scratch = DeviceBytes(huffman::histogram_scratch_bytes(huffman::Variant::paper, std::min(n, block)));
    s.array_cap = huffman::paper_output_bytes(block, kMaxLength);
    s.arrays = DeviceBuffer<std::uint8_t>(s.array_cap * nb);
    s.sizes = DeviceBuffer<std::uint32_t>(arrays_of(block) * nb);
    s.totals = DeviceBuffer<std::uint64_t>(nb);
    s.enc_scratch = DeviceBytes(huffman::paper_encode_scratch_bytes(block));
  } else {
    s.counts = DeviceBuffer<std::uint32_t>(nb);
    s.segments = fast_segments(s.blocks, block, s.counts.data(), nullptr);
    vle::Segments& g = s.segments;
    s.symbols = DeviceBuffer<std::uint8_t>(g.capacity * nb);
    s.selectors = DeviceBuffer<std::uint8_t>(g.selector_stride * nb);
    g.d_selectors = s.selectors.data();
    s.ntables = DeviceBuffer<std::uint32_t>(nb);
    s.mlengths = DeviceBuffer<std::uint8_t>(kTableBytes * nb);
    s.packed = DeviceBuffer<std::uint32_t>(kTableBytes * nb);
    s.words = DeviceBuffer<std::uint32_t>(g.out_stride * nb);
    s.bits = DeviceBuffer<std::uint64_t>(nb);
    s.index = DeviceBuffer<std::uint64_t>(g.index_stride * nb);
    s.multi_scratch = DeviceBytes(huffman::multi_scratch_bytes(s.blocks));
    s.enc_scratch = DeviceBytes(vle::segments_scratch_bytes(g));
  }
}

GpuCompressor::~GpuCompressor() = default;

void GpuCompressor::upload(std::span<const std::uint8_t> in, cudaStream_t stream) {
  State& s = *s_;
  if (in.size() != s.n) throw ContractError("GpuCompressor::upload: input size differs from the constructed size");
  s.crcs.resize(s.blocks);
  // The blocks' CRC-32 on all host threads while the input travels.
  if (!in.empty()) PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.in.data(), in.data(), in.size(), cudaMemcpyHostToDevice, stream));
  for_each_block(s.blocks, 0, [&](std::size_t b) { s.crcs[b] = crc32(in.subspan(b * s.block, len_of(s.n, s.block, b))); });
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
}

const std::uint8_t* GpuCompressor::device_input() const { return s_->in.data(); }

StageTimes GpuCompressor::run(cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("pipeline::compress");
  State& s = *s_;
  StageTimes t;
  if (s.n == 0) return t;
  const bool fast = s.config == Config::fast;
  s.events.record(0, stream);
  bwt::forward(bwt_variant(s.config), s.in.data(), s.n, s.block, s.last.data(), s.primary.data(),
               fast ? s.samples.data() : nullptr, s.bwt_scratch.data(), s.bwt_scratch.size_bytes(), stream);
  s.events.record(1, stream);
  mtf::transform(mtf_variant(s.config), mtf::Direction::forward, s.last.data(), s.n, s.moved.data(), s.mtf_scratch.data(),
                 s.mtf_scratch.size_bytes(), mtf_config(s.config, mtf::Direction::forward, s.block), stream);
  s.events.record(2, stream);
  if (fast) {
    zrle::encode(s.moved.data(), s.n, s.block, s.symbols.data(), s.counts.data(), stream);
    s.events.record(3, stream);
    const vle::Segments& g = s.segments;
    huffman::multi_choose(s.symbols.data(), g.capacity, s.counts.data(), s.blocks, s.ntables.data(), s.mlengths.data(),
                          s.selectors.data(), g.selector_stride, s.packed.data(), s.multi_scratch.data(),
                          s.multi_scratch.size_bytes(), stream);
    vle::encode_segments(g, s.symbols.data(), s.packed.data(), kFastMaxLength, s.words.data(), s.bits.data(),
                         s.index.data(), s.enc_scratch.data(), s.enc_scratch.size_bytes(), stream);
    s.events.record(4, stream);
    t.bwt = s.events.seconds(0, 1);
    t.mtf = s.events.seconds(1, 2);
    t.zrle = s.events.seconds(2, 3);
    t.huffman = s.events.seconds(3, 4);
    return t;
  }
  for (std::size_t b = 0; b < s.blocks; ++b) {
    const std::size_t len = len_of(s.n, s.block, b);
    huffman::histogram(huffman::Variant::paper, s.moved.data() + b * s.block, len, s.hist.data() + 256 * b,
                       s.hist_scratch.data(), s.hist_scratch.size_bytes(), stream);
    huffman::tree(huffman::Variant::paper, s.hist.data() + 256 * b, s.lengths.data() + 256 * b, s.depth.data() + b, stream);
  }
  // Every block's code on the host at once; the tables back in one copy.
  std::vector<std::uint8_t> lengths(256 * s.blocks);
  std::vector<std::uint64_t> hist(256 * s.blocks);
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(lengths.data(), s.lengths.data(), lengths.size(), cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(hist.data(), s.hist.data(), hist.size() * 8, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  s.codes.resize(s.blocks);
  std::vector<std::uint32_t> tables(256 * s.blocks);
  for (std::size_t b = 0; b < s.blocks; ++b) {
    std::array<std::uint8_t, 256> l{};
    codes::Histogram h{};
    std::copy_n(lengths.begin() + static_cast<std::ptrdiff_t>(256 * b), 256, l.begin());
    std::copy_n(hist.begin() + static_cast<std::ptrdiff_t>(256 * b), 256, h.begin());
    s.codes[b] = huffman::code_from_lengths(l, h);
    std::copy_n(s.codes[b].packed.entries, 256, tables.begin() + static_cast<std::ptrdiff_t>(256 * b));
  }
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.tables.data(), tables.data(), tables.size() * 4, cudaMemcpyHostToDevice, stream));
  for (std::size_t b = 0; b < s.blocks; ++b) {
    const std::size_t len = len_of(s.n, s.block, b);
    const int max_length = std::max(1, s.codes[b].packed.max_length);
    huffman::encode_paper(s.moved.data() + b * s.block, len, s.tables.data() + 256 * b, max_length,
                          s.arrays.data() + b * s.array_cap, s.array_cap, s.sizes.data() + b * arrays_of(s.block),
                          s.totals.data() + b, s.enc_scratch.data(), s.enc_scratch.size_bytes(), stream);
  }
  s.events.record(3, stream);
  t.bwt = s.events.seconds(0, 1);
  t.mtf = s.events.seconds(1, 2);
  t.huffman = s.events.seconds(2, 3);
  return t;
}

namespace {

template <typename T>
std::vector<T> download(const T* d, std::size_t count, cudaStream_t stream) {
  std::vector<T> v(count);
  if (count != 0) PARCOMP_CUDA_CHECK(cudaMemcpyAsync(v.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
  return v;
}

}  // namespace

std::vector<std::uint8_t> GpuCompressor::container(cudaStream_t stream) {
  State& s = *s_;
  const bool fast = s.config == Config::fast;
  Layout layout;
  layout.config = s.config;
  layout.block_bytes = static_cast<std::uint32_t>(s.block);
  layout.original_bytes = s.n;
  layout.blocks.resize(s.blocks);
  std::vector<std::vector<std::uint8_t>> payloads(s.blocks);
  if (s.n == 0) return assemble(std::move(layout), payloads);
  const auto primary = download(s.primary.data(), s.blocks, stream);
  const auto sizes_or_bits = download(fast ? s.bits.data() : s.totals.data(), s.blocks, stream);
  std::vector<std::uint32_t> samples, counts, ntables;
  std::vector<std::uint8_t> mlengths;
  if (fast) {
    // Only the rows the forward BWT wrote: the last block's slots past its own length are never
    // written (compute-sanitizer initcheck would flag the whole-buffer copy).
    const std::size_t last_len = len_of(s.n, s.block, s.blocks - 1);
    samples = download(s.samples.data(),
                       (s.blocks - 1) * bwt::samples_per_block(s.block) + bwt::samples_per_block(last_len), stream);
    counts = download(s.counts.data(), s.blocks, stream);
    ntables = download(s.ntables.data(), s.blocks, stream);
    mlengths = download(s.mlengths.data(), s.blocks * kTableBytes, stream);
  }
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  const vle::Segments& g = s.segments;
  for (std::size_t b = 0; b < s.blocks; ++b) {
    const std::size_t len = len_of(s.n, s.block, b);
    BlockEntry& e = layout.blocks[b];
    e.original_bytes = static_cast<std::uint32_t>(len);
    e.primary = primary[b];
    e.crc = s.crcs[b];
    std::vector<std::uint8_t>& p = payloads[b];
    if (!fast) {
      e.lengths = s.codes[b].lengths;
      const auto sizes = download(s.sizes.data() + b * arrays_of(s.block), arrays_of(len), stream);
      PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
      put_u32s(p, sizes);
      const std::size_t head = p.size();
      p.resize(head + sizes_or_bits[b]);
      PARCOMP_CUDA_CHECK(cudaMemcpyAsync(p.data() + head, s.arrays.data() + b * s.array_cap, sizes_or_bits[b],
                                         cudaMemcpyDeviceToHost, stream));
      continue;
    }
    FastPayload f;
    f.symbols = counts[b];
    for (std::uint32_t t = 0; t < ntables[b]; ++t) {
      std::array<std::uint8_t, 256> l{};
      std::copy_n(mlengths.begin() + static_cast<std::ptrdiff_t>(b * kTableBytes + 256 * t), 256, l.begin());
      f.lengths.push_back(l);
    }
    f.selectors = download(s.selectors.data() + b * g.selector_stride, stages::multi_groups(f.symbols), stream);
    f.index = download(s.index.data() + b * g.index_stride, vle::index_entries(f.symbols), stream);
    const auto words = download(s.words.data() + b * g.out_stride, (sizes_or_bits[b] + 31) / 32, stream);
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
    constexpr std::size_t every = kFastSampleStride / bwt::kSampleStride;
    for (std::size_t k = 0; k < bwt::samples_per_block(len, kFastSampleStride); ++k)
      f.samples.push_back(samples[b * bwt::samples_per_block(s.block) + k * every]);
    f.bits = sizes_or_bits[b];
    put_fast(p, f, words, static_cast<std::uint32_t>(len));
  }
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return assemble(std::move(layout), payloads);
}

// ---- decompression ----------------------------------------------------------------------------

struct GpuDecompressor::State {
  std::vector<std::uint8_t> file;
  Layout layout;
  std::size_t n = 0, block = 0, blocks = 0;
  DeviceBuffer<std::uint8_t> d_file, moved, last, out;
  DeviceBuffer<std::uint32_t> sizes, words, primary, samples, status;
  DeviceBuffer<std::uint64_t> index, bits;
  DeviceBuffer<vle::DecodeTable> tables;
  DeviceBuffer<std::uint8_t> symbols, selectors;  // fast
  DeviceBuffer<std::uint32_t> counts;             // fast
  vle::Segments segments;                         // fast
  std::size_t max_symbols = 0;                    // fast
  DeviceBytes dec_scratch, mtf_scratch, bwt_scratch;
  std::vector<std::size_t> data_offset;  // paper: each block's arrays in d_file
  Events events;
};

GpuDecompressor::GpuDecompressor(std::span<const std::uint8_t> file) : s_(std::make_unique<State>()) { reset(file); }

void GpuDecompressor::reset(std::span<const std::uint8_t> file) {
  s_->file.assign(file.begin(), file.end());
  parse_file();
}

void GpuDecompressor::take(std::vector<std::uint8_t>& file) {
  s_->file.swap(file);
  parse_file();
}

void GpuDecompressor::parse_file() {
  State& s = *s_;
  s.layout = parse(s.file);
  s.n = s.layout.original_bytes;
  s.block = s.layout.block_bytes;
  s.blocks = s.layout.blocks.size();
  s.max_symbols = 0;
  check_block_size(s.block);
}

GpuDecompressor::~GpuDecompressor() = default;
std::size_t GpuDecompressor::original_bytes() const { return s_->n; }

namespace {

vle::DecodeTable decode_table(const std::array<std::uint8_t, 256>& lengths, const std::string& name) {
  const auto table = codes::canonical_codes(lengths);
  std::array<std::uint32_t, 256> codes{};
  for (int c = 0; c < 256; ++c) codes[c] = table[c].bits;
  try {
    return vle::make_decode_table(codes, lengths);
  } catch (const ContractError& x) {
    throw CorruptDataError(name + x.what());
  }
}

bwt::ReverseConfig reverse_config(Config c) {
  bwt::ReverseConfig rc{c == Config::fast ? bwt::Variant::fast : bwt::Variant::paper, 4096};
  rc.sample_stride = kFastSampleStride;
  return rc;
}

}  // namespace

void GpuDecompressor::load(cudaStream_t stream) {
  State& s = *s_;
  const bool fast = s.layout.config == Config::fast;
  const std::size_t m = std::max<std::size_t>(s.n, 1), nb = std::max<std::size_t>(s.blocks, 1);
  // Buffers grow as needed and are kept for the next file (reset()).
  s.d_file.grow(std::max<std::size_t>(s.file.size(), 1));
  s.moved.grow(m);
  s.last.grow(m);
  s.out.grow(m);
  s.primary.grow(nb);
  s.status.grow(2 * nb);
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.d_file.data(), s.file.data(), s.file.size(), cudaMemcpyHostToDevice, stream));
  std::vector<std::uint32_t> primary(s.blocks);
  for (std::size_t b = 0; b < s.blocks; ++b) primary[b] = s.layout.blocks[b].primary;
  PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.primary.data(), primary.data(), primary.size() * 4, cudaMemcpyHostToDevice, stream));
  if (fast) {
    s.counts.grow(nb);
    s.segments = fast_segments(s.blocks, s.block, s.counts.data(), nullptr);
    vle::Segments& g = s.segments;
    s.symbols.grow(g.capacity * nb);
    s.selectors.grow(g.selector_stride * nb);
    g.d_selectors = s.selectors.data();
    s.words.grow(g.out_stride * nb);
    s.index.grow(g.index_stride * nb);
    s.bits.grow(nb);
    s.tables.grow(kMaxFastTables * nb);
    s.samples.grow(std::max<std::size_t>(bwt::sample_entries(s.n, s.block, kFastSampleStride), 1));
    std::vector<vle::DecodeTable> tables(kMaxFastTables * s.blocks);
    std::vector<std::uint32_t> counts(s.blocks), samples(bwt::sample_entries(s.n, s.block, kFastSampleStride));
    std::vector<std::uint8_t> selectors(g.selector_stride * s.blocks);
    std::vector<std::uint64_t> index(g.index_stride * s.blocks), bits(s.blocks);
    std::vector<std::span<const std::uint8_t>> words(s.blocks);
    // Every block's fields and decode tables on the host threads (on one thread, about half of a
    // lane's time); a damaged block's error kept, and the first block's in order thrown.
    std::vector<std::exception_ptr> errors(s.blocks);
    for_each_block(s.blocks, 0, [&](std::size_t b) {
      try {
        const BlockEntry& e = s.layout.blocks[b];
        const std::string name = "parcomp container: block " + std::to_string(b) + ": ";
        const FastPayload p = split_fast(std::span<const std::uint8_t>(s.file).subspan(e.payload_offset, e.payload_bytes),
                                         e.original_bytes, b);
        if (p.words_raw.size() / 4 > g.out_stride) throw CorruptDataError(name + "stream longer than any code allows");
        counts[b] = p.symbols;
        for (std::size_t t = 0; t < p.lengths.size(); ++t) tables[b * kMaxFastTables + t] = decode_table(p.lengths[t], name);
        std::copy(p.selectors.begin(), p.selectors.end(), selectors.begin() + static_cast<std::ptrdiff_t>(b * g.selector_stride));
        std::copy(p.index.begin(), p.index.end(), index.begin() + static_cast<std::ptrdiff_t>(b * g.index_stride));
        std::copy(p.samples.begin(), p.samples.end(),
                  samples.begin() + static_cast<std::ptrdiff_t>(b * bwt::samples_per_block(s.block, kFastSampleStride)));
        bits[b] = p.bits;
        words[b] = p.words_raw;
      } catch (const CorruptDataError&) {
        errors[b] = std::current_exception();
      }
    });
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    for (std::size_t b = 0; b < s.blocks; ++b) {
      s.max_symbols = std::max<std::size_t>(s.max_symbols, counts[b]);
      PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.words.data() + b * g.out_stride, s.d_file.data() + (words[b].data() - s.file.data()),
                                         words[b].size(), cudaMemcpyDeviceToDevice, stream));
    }
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.counts.data(), counts.data(), counts.size() * 4, cudaMemcpyHostToDevice, stream));
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.tables.data(), tables.data(), tables.size() * sizeof(vle::DecodeTable),
                                       cudaMemcpyHostToDevice, stream));
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.selectors.data(), selectors.data(), selectors.size(), cudaMemcpyHostToDevice, stream));
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.index.data(), index.data(), index.size() * 8, cudaMemcpyHostToDevice, stream));
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.samples.data(), samples.data(), samples.size() * 4, cudaMemcpyHostToDevice, stream));
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.bits.data(), bits.data(), bits.size() * 8, cudaMemcpyHostToDevice, stream));
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors die here
  } else {
    s.tables.grow(nb);
    s.sizes.grow(arrays_of(s.block) * nb);
    if (s.dec_scratch.size_bytes() < huffman::paper_decode_scratch_bytes(s.block))
      s.dec_scratch = DeviceBytes(huffman::paper_decode_scratch_bytes(s.block));
    s.data_offset.resize(s.blocks);
    std::vector<vle::DecodeTable> tables(s.blocks);
    for (std::size_t b = 0; b < s.blocks; ++b) {
      const BlockEntry& e = s.layout.blocks[b];
      const std::string name = "parcomp container: block " + std::to_string(b) + ": ";
      if (codes::kraft_sum_scaled(e.lengths) > (std::uint64_t{1} << 32)) throw CorruptDataError(name + "code lengths are not a prefix code");
      tables[b] = decode_table(e.lengths, name);
      const PaperPayload p = split_paper(std::span<const std::uint8_t>(s.file).subspan(e.payload_offset, e.payload_bytes),
                                         e.original_bytes, b);
      PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.sizes.data() + b * arrays_of(s.block),
                                         s.d_file.data() + (p.sizes_raw.data() - s.file.data()), p.sizes_raw.size(),
                                         cudaMemcpyDeviceToDevice, stream));
      s.data_offset[b] = static_cast<std::size_t>(p.data.data() - s.file.data());
    }
    PARCOMP_CUDA_CHECK(cudaMemcpyAsync(s.tables.data(), tables.data(), tables.size() * sizeof(vle::DecodeTable),
                                       cudaMemcpyHostToDevice, stream));
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  const bwt::ReverseConfig rc = reverse_config(s.layout.config);
  const auto mv = fast ? mtf::Variant::fast : mtf::Variant::paper;
  const std::size_t mtf_bytes =
      mtf::scratch_bytes(mv, mtf::Direction::reverse, s.n, mtf_config(s.layout.config, mtf::Direction::reverse, s.block));
  const std::size_t bwt_bytes = bwt::reverse_scratch_bytes(rc, s.n, s.block);
  if (s.mtf_scratch.size_bytes() < mtf_bytes) s.mtf_scratch = DeviceBytes(mtf_bytes);
  if (s.bwt_scratch.size_bytes() < bwt_bytes) s.bwt_scratch = DeviceBytes(bwt_bytes);
}

StageTimes GpuDecompressor::run(cudaStream_t stream) {
  PARCOMP_NVTX_RANGE("pipeline::decompress");
  State& s = *s_;
  StageTimes t;
  if (s.n == 0) return t;
  const bool fast = s.layout.config == Config::fast;
  auto name_block = [](const CorruptDataError& x, std::size_t b) {
    return CorruptDataError("parcomp container: block " + std::to_string(b) + ": " + x.what());
  };
  s.events.record(0, stream);
  if (fast) {
    vle::decode_segments(s.segments, s.max_symbols, s.words.data(), s.bits.data(), s.index.data(), s.tables.data(),
                         s.symbols.data(), s.status.data(), stream);
    try {
      vle::check_segments_status(s.status.data(), stream, "block");
      s.events.record(1, stream);
      zrle::decode(s.symbols.data(), s.counts.data(), s.n, s.block, s.moved.data(), s.status.data(), stream);
      zrle::check_decode_status(s.status.data(), stream);
    } catch (const CorruptDataError& x) {
      throw CorruptDataError(std::string("parcomp container: ") + x.what());
    }
    s.events.record(2, stream);
  } else {
    for (std::size_t b = 0; b < s.blocks; ++b) {
      const BlockEntry& e = s.layout.blocks[b];
      huffman::decode_paper(s.d_file.data() + s.data_offset[b], e.payload_bytes - 4 * arrays_of(e.original_bytes),
                            s.sizes.data() + b * arrays_of(s.block), e.original_bytes, s.tables.data() + b,
                            s.moved.data() + b * s.block, s.status.data() + 2 * b, s.dec_scratch.data(),
                            s.dec_scratch.size_bytes(), stream);
    }
    for (std::size_t b = 0; b < s.blocks; ++b) {
      try {
        huffman::check_decode_status(s.status.data() + 2 * b, stream);
      } catch (const CorruptDataError& x) {
        throw name_block(x, b);
      }
    }
    s.events.record(1, stream);
    s.events.record(2, stream);
  }
  mtf::transform(fast ? mtf::Variant::fast : mtf::Variant::paper, mtf::Direction::reverse, s.moved.data(), s.n,
                 s.last.data(), s.mtf_scratch.data(), s.mtf_scratch.size_bytes(),
                 mtf_config(s.layout.config, mtf::Direction::reverse, s.block), stream);
  s.events.record(3, stream);
  try {
    bwt::reverse(reverse_config(s.layout.config), s.last.data(), s.n, s.block, s.primary.data(),
                 fast ? s.samples.data() : nullptr, s.out.data(), s.bwt_scratch.data(), s.bwt_scratch.size_bytes(), stream);
  } catch (const CorruptDataError& x) {
    throw CorruptDataError(std::string("parcomp container: ") + x.what());
  }
  s.events.record(4, stream);
  t.huffman = s.events.seconds(0, 1);
  t.zrle = fast ? s.events.seconds(1, 2) : 0.0;
  t.mtf = s.events.seconds(2, 3);
  t.bwt = s.events.seconds(3, 4);
  return t;
}

std::vector<std::uint8_t> GpuDecompressor::output(cudaStream_t stream) {
  std::vector<std::uint8_t> out;
  output(stream, out);
  return out;
}

void GpuDecompressor::output(cudaStream_t stream, std::vector<std::uint8_t>& out) {
  State& s = *s_;
  out.resize(s.n);
  if (s.n != 0) PARCOMP_CUDA_CHECK(cudaMemcpyAsync(out.data(), s.out.data(), s.n, cudaMemcpyDeviceToHost, stream));
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream));
  for_each_block(s.blocks, 0, [&](std::size_t b) {
    if (crc32(std::span(out).subspan(b * s.block, len_of(s.n, s.block, b))) != s.layout.blocks[b].crc)
      throw CorruptDataError("parcomp container: block " + std::to_string(b) + ": CRC-32 of the decoded block does not match");
  });
}

std::vector<std::uint8_t> compress_gpu(Config config, std::span<const std::uint8_t> in, std::size_t block_bytes,
                                       StageTimes* times) {
  GpuCompressor c(config, in.size(), block_bytes);
  c.upload(in, nullptr);
  const StageTimes t = c.run(nullptr);
  if (times) *times = t;
  return c.container(nullptr);
}

std::vector<std::uint8_t> decompress_gpu(std::span<const std::uint8_t> file, StageTimes* times) {
  GpuDecompressor d(file);
  d.load(nullptr);
  const StageTimes t = d.run(nullptr);
  if (times) *times = t;
  return d.output(nullptr);
}

std::uint64_t device_bytes_estimate(Config config, std::size_t n, std::size_t block, bool decompress) {
  if (n == 0) return 0;
  const mtf::Direction d = decompress ? mtf::Direction::reverse : mtf::Direction::forward;
  const std::uint64_t bwt_bytes = decompress ? bwt::reverse_scratch_bytes(reverse_config(config), n, block)
                                             : bwt::forward_scratch_bytes(bwt_variant(config), n, block);
  return bwt_bytes + mtf::scratch_bytes(mtf_variant(config), d, n, mtf_config(config, d, block)) + 8 * std::uint64_t{n} + (std::uint64_t{16} << 20);
}

}  // namespace parcomp::pipeline
