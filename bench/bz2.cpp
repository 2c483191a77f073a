// bz2.compress (ours), device-resident: the GPU's stages of .bz2 compression over every
// block of the dataset at once, blocks cut as bzip2 -9 cuts them and after its initial run-length
// stage (done on the host, untimed, as the engine does):
//   gpu.sort.kernels   the sort alone (bwt::forward_segments);
//   gpu.kernels        the sort and the encoder (bz2gpu::encode_batch: MTF, zero runs, tables,
//                      codes): all the GPU does; the host then only packs the blocks' bits.
//   gpu.kernels.t<N>   the same with N threads a block's encoder CTA (128, 256, 512; gpu.kernels
//                      takes bz2gpu::kEncodeThreadsDefault): the encoder's sweep.
// bz2.decompress/gpu.kernels.w<B>t<N>: the decoder with its walk's lookup of B bits (12, 11) in
// CTAs of N threads (256, 64; bz2gpu::WalkConfig): the walk's sweep, each checked first.
// bz2.decompress/gpu.kernels.b<B>[x2]: the file's blocks in batches of B (32, 64, 128), each batch
// its own decoder, one after the other on one stream, or (x2) taking turns on two streams as the
// engine's two slots do: how a GPU's rate falls with the batch it is given (a batch split among
// GPUs is smaller); skipped where the file has no more than B blocks. Each checked first.
// bz2.decompress/gpu.kernels.twice[.w<B>t<N>]: all the file's blocks twice at once, on two streams
// (two decoders), as one GPU's two slots hold two batches: whether the walk's configuration lets
// the two batches' walks (one thread's chain per block) share the SMs; the rate counts both.
// Named bz2.compress/<row>/<dataset>/n=<bytes>: bytes_per_second of the original (uncompressed)
// input, bw_util, blocks, and for gpu.kernels ratio (the .bz2 file's size, from the encoder's bits,
// over the input's). The wall time of the programs is in bench/tool.cpp
// (bz2.compress/<program>/..., bz2.decompress/<program>/...). Checked first: every block's last
// column and primary index equal the oracle's (reference::bwt_rotations), and with the encoder
// every block's bits equal the CPU writer's (bz2::encode_block, bzip2's bytes).
// bz2.decompress (ours), device-resident: the GPU's stages of .bz2 decompression
// (bz2::GpuBlockDecoder::run: every block's symbols and inverse BWT, all blocks of the file at
// once) on the file libbz2 writes at -9 (bzip2 -9's bytes), the compressed file already on the
// device. Named bz2.decompress/gpu.kernels/<dataset>/n=<bytes>: bytes_per_second of the original
// input, blocks, ratio. It leaves out what the host does (the inverse initial run-length stage and
// the CRCs, finding the blocks). Checked first: the blocks, ended on the host, give the input.
#include "codec/bz2.hpp"
#include "codec/bz2_gpu.hpp"
#include "codec/engine.hpp"
#include "core/parallel.hpp"
#include "common/gpu_timing.hpp"
#include "common/harness.hpp"
#include "common/inputs.hpp"
#include "kernels/bwt/bwt.hpp"
#include "kernels/bz2/bz2_encode.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "reference/bwt.hpp"

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <atomic>

namespace parcomp::bench {

namespace {

void bz2_sort(benchmark::State& state, int level, bool encode, unsigned encode_threads, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    const auto in = byte_input(spec);
    if (!in->unavailable.empty()) return state.SkipWithError(("skipped: " + in->unavailable).c_str());
    std::vector<std::uint8_t> rle;
    std::vector<std::uint64_t> offsets{0};
    std::vector<std::uint32_t> crc;
    const std::span<const std::uint8_t> all(in->bytes);
    for (std::size_t at = 0; at < all.size();) {
      const std::size_t cut = bz2::cut_block(all.subspan(at), level, true);
      bz2::rle1_encode(all.subspan(at, cut), rle);
      offsets.push_back(rle.size());
      crc.push_back(bz2::block_crc(all.subspan(at, cut)));
      at += cut;
    }
    const std::size_t n = rle.size(), count = offsets.size() - 1;
    if (count == 0) return state.SkipWithError("skipped: empty input");
    GpuTimingContext timing;
    DeviceBuffer<std::uint8_t> d_in(n), d_last(n);
    DeviceBuffer<std::uint32_t> d_primary(count);
    DeviceBytes scratch(bwt::forward_segments_scratch_bytes(n, count));
    d_in.upload(rle);
    // The checks (the sort's rows against the oracle, the encoder's bits against the CPU writer's)
    // run in a row's first call; its later calls and repetitions run the same work.
    const bool check = first_check(name);
    std::vector<std::uint8_t> last;
    std::vector<std::uint32_t> primary;
    std::atomic<std::size_t> bad{count};
    if (check) {
      d_last.fill_bytes(0xAB);
      bwt::forward_segments(d_in.data(), offsets, d_last.data(), d_primary.data(), scratch.data(), scratch.size_bytes(), timing.stream());
      last = d_last.download();
      primary = d_primary.download();
      for_each_block(count, 0, [&](std::size_t b) {
        const std::span<const std::uint8_t> block(rle.data() + offsets[b], offsets[b + 1] - offsets[b]);
        const reference::RotationBwt want = reference::bwt_rotations(block);
        if (want.primary != primary[b] || !std::equal(want.last.begin(), want.last.end(), last.begin() + static_cast<std::ptrdiff_t>(offsets[b])))
          bad = std::min<std::size_t>(bad, b);
      });
      if (bad != count) return fail(state, name, fmt::format("block {}: the GPU's BWT differs from the oracle's", bad.load()));
    }
    // The encoder: every block's bits against the CPU writer's.
    std::size_t largest = 0;
    for (std::size_t b = 0; b < count; ++b) largest = std::max<std::size_t>(largest, offsets[b + 1] - offsets[b]);
    const std::size_t stride = bz2gpu::encode_stride(largest);
    DeviceBuffer<std::uint8_t> d_out(encode ? count * stride : 0);
    DeviceBuffer<std::uint64_t> d_offsets(count + 1), d_bits(count);
    DeviceBuffer<std::uint32_t> d_crc(count);
    DeviceBytes encode_scratch(encode ? bz2gpu::encode_scratch_bytes(count) : 0);
    auto run_encoder = [&](cudaStream_t s) {
      bz2gpu::encode_batch(d_last.data(), d_offsets.data(), d_primary.data(), d_crc.data(), count, d_out.data(), stride, d_bits.data(),
                           encode_scratch.data(), encode_scratch.size_bytes(), s, encode_threads);
    };
    if (encode) {
      d_offsets.upload(offsets);
      d_crc.upload(crc);
    }
    if (encode && check) {
      d_out.fill_bytes(0xA5);
      run_encoder(timing.stream());
      PARCOMP_CUDA_CHECK(cudaStreamSynchronize(timing.stream()));
      const auto out = d_out.download();
      const auto bits = d_bits.download();
      for_each_block(count, 0, [&](std::size_t b) {
        thread_local bz2::EncodeScratch es;
        bz2::BlockBits want;
        bz2::encode_block({last.data() + offsets[b], offsets[b + 1] - offsets[b]}, primary[b], crc[b], want, es);
        if (bits[b] != want.bits || !std::equal(want.bytes.begin(), want.bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(b * stride)))
          bad = std::min<std::size_t>(bad, b);
      });
      if (bad != count) return fail(state, name, fmt::format("block {}: the GPU encoder's bits differ from the CPU writer's", bad.load()));
    }
    const double seconds = timing.run(state, name, [&](cudaStream_t s) {
      bwt::forward_segments(d_in.data(), offsets, d_last.data(), d_primary.data(), scratch.data(), scratch.size_bytes(), s);
      if (encode) run_encoder(s);
    });
    set_throughput_counters(state, in->bytes.size());
    set_bandwidth_counter(state, 2 * n, seconds);
    state.counters["blocks"] = static_cast<double>(count);
    state.counters["sorted_bytes"] = static_cast<double>(n);
    if (encode) {  // the whole .bz2 file: header, the blocks' bits (as the timed runs left them), end magic, combined CRC
      std::uint64_t stream_bits = std::uint64_t{bz2::kHeaderBytes} * 8 + 48 + 32;
      for (const std::uint64_t b : d_bits.download()) stream_bits += b;
      state.counters["ratio"] = static_cast<double>((stream_bits + 7) / 8) / static_cast<double>(in->bytes.size());
    }
  });
}

// One dataset's .bz2 file on the device, made ready and checked once and kept while its row's
// repetitions run (Google Benchmark calls a row's function several times per repetition; making
// the file on the CPU workers and checking the decoder each time was most of a run's time).
struct Bz2DecodeKept {
  std::string label;
  std::size_t input_bytes = 0;
  std::shared_ptr<const ByteInput> input;  // what every row's check compares with
  std::vector<std::uint8_t> file;
  std::vector<bz2::GpuBlockIn> blocks;  // point into file: the struct stays where it was made
  GpuTimingContext timing;
  std::unique_ptr<bz2::GpuBlockDecoder> decoder;
  // The gpu.kernels.b<B>[x2] rows' decoders, batch after batch (made for the row that runs, B and
  // its streams), the second stream and the events that join it to the timing stream.
  std::size_t split_batch = 0;
  bool split_two = false, split_twice = false;
  std::vector<std::unique_ptr<bz2::GpuBlockDecoder>> split;
  cudaStream_t second = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  Bz2DecodeKept() = default;
  Bz2DecodeKept(const Bz2DecodeKept&) = delete;
  Bz2DecodeKept& operator=(const Bz2DecodeKept&) = delete;
  ~Bz2DecodeKept() {
    split.clear();
    decoder.reset();
    if (fork != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaEventDestroy(fork));
    if (join != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaEventDestroy(join));
    if (second != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(second));
  }
};
std::unique_ptr<Bz2DecodeKept> g_decode_kept;

void prepare_decode(Bz2DecodeKept& k, int level, std::shared_ptr<const ByteInput> in) {
  k.input = std::move(in);
  const std::vector<std::uint8_t>& input = k.input->bytes;
  k.input_bytes = input.size();
  // The file bzip2 -level writes (the CPU workers write its bytes), and its blocks by the CPU reader.
  {
    engine::Options o;
    o.format = engine::Format::bz2;
    o.level = level;
    o.use_gpus = false;
    engine::SpanSource src(input);
    engine::VectorSink sink;
    engine::compress(src, sink, o);
    k.file = std::move(sink.bytes);
  }
  {
    bz2::DecodeScratch scratch;
    std::vector<std::uint8_t> sink;
    std::uint64_t bit = bz2::kHeaderBytes * 8;
    for (std::size_t b = 0;; ++b) {
      std::vector<bz2::Magic> m;
      bz2::find_magics(k.file, bit, bit + 48, m);
      if (m.empty() || m.front().end) break;
      k.blocks.push_back({&k.file, bit, true, bz2::Where{1, b + 1, 0, 0}});
      sink.clear();
      bit = bz2::decode_block(k.file, bit, level, sink, scratch, bz2::Where{}).end_bit;
    }
  }
  k.decoder = std::make_unique<bz2::GpuBlockDecoder>(k.timing.stream(), level);
  k.decoder->load(k.blocks);  // the file on the device, once
}

// A row's check, in its first call (each walk configuration its own): every block decoded equals
// the input; the verdict, empty when it does.
std::string check_decode(Bz2DecodeKept& k) {
  k.decoder->run();
  std::vector<std::uint8_t> back;
  std::size_t b = 0;
  for (const auto& o : k.decoder->collect(k.blocks)) {
    if (o.error) return fmt::format("block {}: the GPU decoder failed", b);
    back.insert(back.end(), o.bytes.begin(), o.bytes.end());
    ++b;
  }
  return back == k.input->bytes ? std::string() : "the GPU decoder's blocks differ from the input";
}

// The dataset's file and decoder, kept from row to row (made for a new dataset, the last one's
// device memory freed first); null where the row is skipped (the reason given to state).
Bz2DecodeKept* decode_kept(benchmark::State& state, int level, const ByteInputSpec& spec) {
  if (!g_decode_kept || g_decode_kept->label != spec.label) {
    g_decode_kept.reset();
    const auto in = byte_input(spec);
    if (!in->unavailable.empty()) {
      state.SkipWithError(("skipped: " + in->unavailable).c_str());
      return nullptr;
    }
    if (in->bytes.empty()) {
      state.SkipWithError("skipped: empty input");
      return nullptr;
    }
    auto k = std::make_unique<Bz2DecodeKept>();
    k->label = spec.label;
    prepare_decode(*k, level, in);
    g_decode_kept = std::move(k);
  }
  return g_decode_kept.get();
}

void bz2_decode(benchmark::State& state, int level, bz2gpu::WalkConfig walk, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    Bz2DecodeKept* const kept = decode_kept(state, level, spec);
    if (kept == nullptr) return;
    Bz2DecodeKept& k = *kept;
    k.decoder->set_walk(walk);
    if (first_check(name)) {
      if (const std::string bad = check_decode(k); !bad.empty()) return fail(state, name, bad);
    }
    const double seconds = k.timing.run(state, name, [&](cudaStream_t) { k.decoder->run(); });
    set_throughput_counters(state, k.input_bytes);
    set_bandwidth_counter(state, k.file.size() + k.input_bytes, seconds);
    state.counters["blocks"] = static_cast<double>(k.blocks.size());
    state.counters["ratio"] = static_cast<double>(k.file.size()) / static_cast<double>(k.input_bytes);
  });
  if (state.error_occurred()) g_decode_kept.reset();
}

// The file's blocks in batches of `batch`, each on a decoder of its own (loaded once), on one
// stream or taking turns on two.
void prepare_split(Bz2DecodeKept& k, int level, std::size_t batch, bool two, bool twice = false) {
  if (k.split_batch == batch && k.split_two == two && k.split_twice == twice && !k.split.empty()) return;
  k.split.clear();  // the last row's device memory first
  if (two && k.second == nullptr) {
    PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&k.second, cudaStreamNonBlocking));
    PARCOMP_CUDA_CHECK(cudaEventCreateWithFlags(&k.fork, cudaEventDisableTiming));
    PARCOMP_CUDA_CHECK(cudaEventCreateWithFlags(&k.join, cudaEventDisableTiming));
  }
  for (int copy = 0; copy < (twice ? 2 : 1); ++copy)
    for (std::size_t first = 0; first < k.blocks.size(); first += batch) {
      const std::size_t count = std::min(batch, k.blocks.size() - first);
      auto d = std::make_unique<bz2::GpuBlockDecoder>(two && k.split.size() % 2 == 1 ? k.second : k.timing.stream(), level);
      d->load(std::span<const bz2::GpuBlockIn>(k.blocks).subspan(first, count));
      k.split.push_back(std::move(d));
    }
  PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
  k.split_batch = batch;
  k.split_two = two;
  k.split_twice = twice;
}

// The split decoders' kernels, queued after `stream`'s work and joined back to it.
void run_split(Bz2DecodeKept& k, cudaStream_t stream) {
  if (k.split_two) {
    PARCOMP_CUDA_CHECK(cudaEventRecord(k.fork, stream));
    PARCOMP_CUDA_CHECK(cudaStreamWaitEvent(k.second, k.fork, 0));
  }
  for (auto& d : k.split) d->run();
  if (k.split_two) {
    PARCOMP_CUDA_CHECK(cudaEventRecord(k.join, k.second));
    PARCOMP_CUDA_CHECK(cudaStreamWaitEvent(stream, k.join, 0));
  }
}

std::string check_split(Bz2DecodeKept& k) {
  run_split(k, k.timing.stream());
  const std::size_t per_copy = k.split.size() / (k.split_twice ? 2 : 1);
  for (std::size_t c = 0; c < k.split.size(); c += per_copy) {
    std::vector<std::uint8_t> back;
    std::size_t b = 0;
    for (std::size_t i = 0; i < per_copy; ++i) {
      const std::size_t first = i * k.split_batch, count = std::min(k.split_batch, k.blocks.size() - first);
      for (const auto& o : k.split[c + i]->collect(std::span<const bz2::GpuBlockIn>(k.blocks).subspan(first, count))) {
        if (o.error) return fmt::format("block {}: the GPU decoder failed", b);
        back.insert(back.end(), o.bytes.begin(), o.bytes.end());
        ++b;
      }
    }
    if (back != k.input->bytes) return "the GPU decoder's blocks in batches differ from the input";
  }
  return std::string();
}

void bz2_decode_split(benchmark::State& state, int level, std::size_t batch, bool two, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    Bz2DecodeKept* const kept = decode_kept(state, level, spec);
    if (kept == nullptr) return;
    Bz2DecodeKept& k = *kept;
    if (k.blocks.size() <= batch)
      return state.SkipWithError(fmt::format("skipped: {} blocks, not more than one batch of {}", k.blocks.size(), batch).c_str());
    prepare_split(k, level, batch, two);
    if (first_check(name)) {
      if (const std::string bad = check_split(k); !bad.empty()) return fail(state, name, bad);
    }
    const double seconds = k.timing.run(state, name, [&](cudaStream_t stream) { run_split(k, stream); });
    set_throughput_counters(state, k.input_bytes);
    set_bandwidth_counter(state, k.file.size() + k.input_bytes, seconds);
    state.counters["blocks"] = static_cast<double>(k.blocks.size());
    state.counters["batches"] = static_cast<double>(k.split.size());
  });
  if (state.error_occurred()) g_decode_kept.reset();
}

void bz2_decode_twice(benchmark::State& state, int level, bz2gpu::WalkConfig walk, ByteInputSpec spec, std::string name) {
  if (!require_gpu(state)) return;
  guarded(state, name, [&] {
    Bz2DecodeKept* const kept = decode_kept(state, level, spec);
    if (kept == nullptr) return;
    Bz2DecodeKept& k = *kept;
    prepare_split(k, level, k.blocks.size(), true, true);
    for (auto& d : k.split) d->set_walk(walk);
    if (first_check(name)) {
      if (const std::string bad = check_split(k); !bad.empty()) return fail(state, name, bad);
    }
    const double seconds = k.timing.run(state, name, [&](cudaStream_t stream) { run_split(k, stream); });
    set_throughput_counters(state, 2 * k.input_bytes);
    set_bandwidth_counter(state, 2 * (k.file.size() + k.input_bytes), seconds);
    state.counters["blocks"] = static_cast<double>(2 * k.blocks.size());
  });
  if (state.error_occurred()) g_decode_kept.reset();
}

}  // namespace

void release_bz2() { g_decode_kept.reset(); }

void register_bz2() {
  for (const auto& [spec, n] : landscape_inputs_sized()) {
    for (const bool encode : {false, true}) {
      const std::string name = fmt::format("bz2.compress/{}/{}/n={}", encode ? "gpu.kernels" : "gpu.sort.kernels", spec.label, n);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), bz2_sort, 9, encode, 0u, spec, name));
    }
    for (const unsigned threads : {128u, 256u, 512u}) {
      const std::string name = fmt::format("bz2.compress/gpu.kernels.t{}/{}/n={}", threads, spec.label, n);
      configure_gpu(benchmark::RegisterBenchmark(name.c_str(), bz2_sort, 9, true, threads, spec, name));
    }
  }
  for (const auto& [spec, n] : landscape_inputs_sized()) {
    const std::string name = fmt::format("bz2.decompress/gpu.kernels/{}/n={}", spec.label, n);
    configure_gpu(benchmark::RegisterBenchmark(name.c_str(), bz2_decode, 9, bz2gpu::WalkConfig{}, spec, name));
    for (const int bits : {12, 11})
      for (const unsigned threads : {256u, 64u}) {
        const std::string v = fmt::format("bz2.decompress/gpu.kernels.w{}t{}/{}/n={}", bits, threads, spec.label, n);
        configure_gpu(benchmark::RegisterBenchmark(v.c_str(), bz2_decode, 9, bz2gpu::WalkConfig{bits, threads}, spec, v));
      }
    for (const std::size_t batch : {32, 64, 128})
      for (const bool two : {false, true}) {
        const std::string v = fmt::format("bz2.decompress/gpu.kernels.b{}{}/{}/n={}", batch, two ? "x2" : "", spec.label, n);
        configure_gpu(benchmark::RegisterBenchmark(v.c_str(), bz2_decode_split, 9, batch, two, spec, v));
      }
    const std::string t = fmt::format("bz2.decompress/gpu.kernels.twice/{}/n={}", spec.label, n);
    configure_gpu(benchmark::RegisterBenchmark(t.c_str(), bz2_decode_twice, 9, bz2gpu::WalkConfig{}, spec, t));
    for (const int bits : {12, 11})
      for (const unsigned threads : {256u, 64u}) {
        const std::string v = fmt::format("bz2.decompress/gpu.kernels.twice.w{}t{}/{}/n={}", bits, threads, spec.label, n);
        configure_gpu(benchmark::RegisterBenchmark(v.c_str(), bz2_decode_twice, 9, bz2gpu::WalkConfig{bits, threads}, spec, v));
      }
  }
}

}  // namespace parcomp::bench
