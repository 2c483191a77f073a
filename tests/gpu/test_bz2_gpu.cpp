// .bz2 blocks decoded on the GPU (bz2::GpuBlockDecoder over kernels/bz2) against the CPU reader
// (bz2::decode_block, itself checked against libbz2 by tests/cpu/test_bz2.cpp and the fuzzer):
// for every block of files libbz2 wrote at levels 1 to 9 (random, text, runs, periodic, all equal,
// one byte), the same bytes and header fields; for false candidates (bits inside a block) and
// damaged blocks, the same error message; blocks spread over several windows, many at once. The
// output buffer is poisoned before each run (the decoder does it), so a byte left unwritten is a
// CRC error, never stale data. And the engine with --gpu gives the input back.
#include "codec/bz2.hpp"
#include "codec/bz2_gpu.hpp"
#include "core/errors.hpp"
#include "codec/engine.hpp"
#include "datasets/synthetic.hpp"
#include "kernels/bz2/bz2_encode.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"
#include "reference/bwt.hpp"

#include "common/bz2_blocks.hpp"
#include "common/libbz2.hpp"
#include "common/mem_io.hpp"
#include "common/sample_inputs.hpp"
#include "gpu_test.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;
using parcomp::testing::fresh_seed;
using parcomp::testing::libbz2_compress;
using parcomp::testing::bz2_block_bits;
using parcomp::testing::sized;

class Bz2Gpu : public parcomp::testing::GpuTest {};

// Decodes the candidates on the GPU (with the walk's configuration `walk`, and collect()'s pieces
// of `piece` bytes unless 0); expects the CPU reader's verdicts.
void expect_cpu_verdicts(const std::vector<bz2::GpuBlockIn>& blocks, const std::string& what, bz2gpu::WalkConfig walk = {}, std::size_t piece = 0) {
  cudaStream_t stream = nullptr;
  PARCOMP_CUDA_CHECK(cudaStreamCreate(&stream));
  bz2::GpuBlockDecoder decoder(stream, 9);
  decoder.set_walk(walk);
  if (piece != 0) decoder.set_host_piece(piece);
  decoder.load(blocks);
  decoder.run();
  const auto outs = decoder.collect(blocks);
  PARCOMP_CUDA_CHECK(cudaStreamDestroy(stream));
  parcomp::testing::expect_cpu_verdicts(blocks, outs, what);
}

std::vector<std::pair<std::string, Bytes>> inputs(std::uint64_t seed) {
  Bytes runs;
  std::mt19937_64 rng(seed);
  while (runs.size() < sized(700000, 150000)) runs.insert(runs.end(), 1 + rng() % 600, static_cast<std::uint8_t>(rng() % 5));
  return {{"one byte", {'q'}},
          {"four equal", Bytes(4, 'x')},
          {"all equal", Bytes(sized(2000000, 300000), 'z')},
          {"runs", runs},
          {"text", parcomp::testing::word_text(sized(2500000, 400000) + 7, seed)},
          {"random", datasets::bytes_with_entropy(sized(1500000, 300000) + 1, 8.0, seed)},
          {"low entropy", datasets::bytes_with_entropy(sized(2000000, 300000) + 3, 1.5, seed + 1)},
          {"periodic", parcomp::testing::periodic(sized(1800000, 300000), "xyz")}};
}

TEST_F(Bz2Gpu, BlocksLibbz2WroteGiveTheCpuReadersBytes) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::vector<Bytes> files;
  for (const auto& [name, in] : inputs(seed))
    for (const int level : {1, 5, 9}) files.push_back(libbz2_compress(in, level));
  std::vector<bz2::GpuBlockIn> blocks;  // every block of every file, in one batch
  for (const Bytes& f : files)
    for (const std::uint64_t bit : bz2_block_bits(f)) blocks.push_back({&f, bit, true, bz2::Where{}});
  ASSERT_GT(blocks.size(), 20u);
  for (const int bits : {12, 11})
    for (const unsigned threads : {256u, 64u})
      expect_cpu_verdicts(blocks, "libbz2's blocks, a walk of " + std::to_string(bits) + " bits in " + std::to_string(threads) + " threads",
                          {bits, threads});
  // collect() in pieces: a block at a time, and a few blocks at a time
  for (const std::size_t piece : {std::size_t{1}, std::size_t{3} << 20})
    expect_cpu_verdicts(blocks, "libbz2's blocks, collected in pieces of " + std::to_string(piece) + " bytes", {}, piece);
}

TEST_F(Bz2Gpu, FalseCandidatesAndDamageGiveTheCpuReadersErrors) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const Bytes in = parcomp::testing::word_text(sized(1200000, 300000), seed);
  const Bytes file = libbz2_compress(in, 3);
  const std::vector<std::uint64_t> bits = bz2_block_bits(file);
  ASSERT_GE(bits.size(), 2u);
  std::vector<Bytes> damaged;
  damaged.reserve(sized(400, 60));
  std::vector<bz2::GpuBlockIn> blocks;
  for (std::size_t k = 0; k < sized(400, 60); ++k) {
    Bytes d = file;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      // Mostly in the first block's header and tables (the most varied errors), else anywhere.
      const std::size_t byte = rng() % 4 == 0 ? rng() % d.size() : 4 + rng() % std::min<std::size_t>(200, d.size() - 4);
      d[byte] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
    }
    if (rng() % 5 == 0) d.resize(d.size() / 2);  // truncated
    damaged.push_back(std::move(d));
  }
  for (const Bytes& d : damaged) blocks.push_back({&d, bits[0], true, bz2::Where{}});
  for (int k = 0; k < 40; ++k) blocks.push_back({&file, bits[0] + 1 + rng() % (bits[1] - bits[0] - 1), true, bz2::Where{}});  // not a magic
  // A window that stops inside a block: not the input's end, so "longer than any block".
  const Bytes cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(file.size() / 3));
  blocks.push_back({&cut, bits[0], false, bz2::Where{}});
  blocks.push_back({&cut, bits[0], true, bz2::Where{}});
  expect_cpu_verdicts(blocks, "damaged");
  expect_cpu_verdicts(blocks, "damaged, a walk of 11 bits in 64 threads", {11, 64});
  expect_cpu_verdicts(blocks, "damaged, collected a block at a time", {}, 1);
}

TEST_F(Bz2Gpu, BlocksInSeveralWindowsWithBasesAndNames) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = datasets::bytes_with_entropy(sized(3000000, 500000) + 11, 4.0, seed);
  const Bytes file = libbz2_compress(in, 2);
  const std::vector<std::uint64_t> bits = bz2_block_bits(file);
  ASSERT_GE(bits.size(), 3u);
  // Each block in its own window, starting at the block's byte (as the engine's reader cuts them).
  std::vector<Bytes> windows;
  windows.reserve(bits.size());
  std::vector<bz2::GpuBlockIn> blocks;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    const std::uint64_t byte = bits[i] / 8;
    windows.emplace_back(file.begin() + static_cast<std::ptrdiff_t>(byte), file.end());
    bz2::Where where;
    where.stream = 0;
    where.base = byte * 8;
    blocks.push_back({&windows.back(), bits[i] % 8, true, where});
    blocks.push_back({&file, bits[i], true, bz2::Where{1, i + 1, 0, 0}});  // the same block in the whole file
  }
  expect_cpu_verdicts(blocks, "windows");
}

// Fuzzing the GPU decoder: PARCOMP_BZ2_FUZZ_FILES mutated files (default 10,000; 2,000 in the
// small-size mode), each a level-1 file of a small random input with bits flipped, bytes
// overwritten or cut off, decoded on the GPU in batches of 1,000 from the first block's bit and from
// a random bit: the CPU reader's verdict every time, and (under compute-sanitizer memcheck, as
// scripts/gpu-check.sh runs it) no access outside the buffers.
TEST_F(Bz2Gpu, MutatedFilesGiveTheCpuReadersVerdicts) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::size_t files = sized(10000, 2000);
  if (const char* env = std::getenv("PARCOMP_BZ2_FUZZ_FILES"); env != nullptr && *env != '\0') files = std::stoul(env);
  std::vector<Bytes> bases;
  for (int k = 0; k < 24; ++k) {
    const std::size_t n = 1 + rng() % 40000;
    const Bytes in = k % 3 == 0 ? parcomp::testing::word_text(n, seed + k)
                     : k % 3 == 1 ? datasets::bytes_with_entropy(n, 0.5 + static_cast<double>(rng() % 75) / 10.0, seed + k)
                                  : parcomp::testing::periodic(n, std::string(1 + rng() % 5, static_cast<char>('a' + k)));
    bases.push_back(libbz2_compress(in, 1));
  }
  cudaStream_t stream = nullptr;
  PARCOMP_CUDA_CHECK(cudaStreamCreate(&stream));
  bz2::GpuBlockDecoder decoder(stream, 1);
  std::size_t done = 0, decoded = 0;
  while (done < files) {
    const std::size_t batch = std::min<std::size_t>(1000, files - done);
    std::vector<Bytes> mutated(batch);
    std::vector<bz2::GpuBlockIn> blocks;
    for (std::size_t i = 0; i < batch; ++i) {
      Bytes d = bases[rng() % bases.size()];
      switch (rng() % 4) {
        case 0:  // bit flips in the header and tables
          for (int f = 1 + static_cast<int>(rng() % 3); f > 0; --f)
            d[4 + rng() % std::min<std::size_t>(80, d.size() - 4)] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
          break;
        case 1:  // bit flips anywhere
          for (int f = 1 + static_cast<int>(rng() % 8); f > 0; --f) d[rng() % d.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
          break;
        case 2:  // a run of random bytes
          for (std::size_t at = rng() % d.size(), len = 1 + rng() % 16; len > 0 && at < d.size(); --len, ++at)
            d[at] = static_cast<std::uint8_t>(rng());
          break;
        default:  // cut short
          d.resize(1 + rng() % d.size());
      }
      mutated[i] = std::move(d);
    }
    for (std::size_t i = 0; i < batch; ++i) {
      blocks.push_back({&mutated[i], 32, true, bz2::Where{}});
      if (i % 4 == 0) blocks.push_back({&mutated[i], rng() % (mutated[i].size() * 8), rng() % 2 == 0, bz2::Where{}});
    }
    decoder.load(blocks);
    decoder.run();
    const auto outs = decoder.collect(blocks);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const auto want = parcomp::testing::cpu_block_verdict(blocks[i], 1);
      const auto got = parcomp::testing::batch_verdict(outs[i]);
      ASSERT_EQ(got.ok, want.ok) << "file " << done + i << ": GPU " << (got.ok ? "decoded" : got.message) << "; CPU "
                                 << (want.ok ? "decoded" : want.message);
      ASSERT_EQ(got.bytes, want.bytes) << "file " << done + i;
      if (!want.ok) {
        ASSERT_EQ(got.message, want.message) << "file " << done + i;
      }
      decoded += got.ok ? 1 : 0;
    }
    done += batch;
  }
  PARCOMP_CUDA_CHECK(cudaStreamDestroy(stream));
  std::printf("%zu mutated files (%zu block candidates decoded without error)\n", done, decoded);
}

// The GPU encoder (kernels/bz2/bz2_encode.hpp): every block's bits equal encode_block's (the CPU
// workers', byte-identical to libbz2's: tests/cpu/test_bz2.cpp), blocks of many kinds and sizes in
// one batch, the output poisoned first.
TEST_F(Bz2Gpu, TheEncoderWritesTheCpuWritersBlocks) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::vector<Bytes> inputs = {Bytes{'q'}, Bytes(5000, 'r'), parcomp::testing::word_text(sized(900000, 200000), seed),
                               datasets::bytes_with_entropy(sized(120007, 50000), 7.9, seed), parcomp::testing::periodic(sized(700000, 90000), "xyz"),
                               datasets::bytes_with_entropy(sized(899990, 100000), 2.0, seed + 1), Bytes{'a', 'b'}};
  const auto [last, offsets, primary, crc] = parcomp::testing::bz2_bwt_batch(inputs);
  const std::size_t count = inputs.size(), stride = bz2gpu::encode_stride(900000);
  DeviceBuffer<std::uint8_t> d_last(last.size()), d_out(count * stride);
  DeviceBuffer<std::uint64_t> d_offsets(count + 1), d_bits(count);
  DeviceBuffer<std::uint32_t> d_primary(count), d_crc(count);
  DeviceBytes scratch(bz2gpu::encode_scratch_bytes(count));
  d_last.upload(last);
  d_offsets.upload(offsets);
  d_primary.upload(primary);
  d_crc.upload(crc);
  std::vector<bz2::BlockBits> want(count);
  for (std::size_t b = 0; b < count; ++b) {
    bz2::EncodeScratch es;
    bz2::encode_block({last.data() + offsets[b], offsets[b + 1] - offsets[b]}, primary[b], crc[b], want[b], es);
  }
  for (const unsigned threads : {0u, 128u, 256u, 512u}) {  // 0: the default
    SCOPED_TRACE(::testing::Message() << threads << " threads a block");
    d_out.fill_bytes(0xA5);
    d_bits.fill_bytes(0xA5);
    bz2gpu::encode_batch(d_last.data(), d_offsets.data(), d_primary.data(), d_crc.data(), count, d_out.data(), stride, d_bits.data(), scratch.data(),
                         scratch.size_bytes(), nullptr, threads);
    PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
    const auto out = d_out.download();
    const auto bits = d_bits.download();
    for (std::size_t b = 0; b < count; ++b) {
      SCOPED_TRACE(::testing::Message() << "block " << b << " of " << offsets[b + 1] - offsets[b] << " bytes");
      ASSERT_EQ(bits[b], want[b].bits);
      ASSERT_TRUE(std::equal(want[b].bytes.begin(), want[b].bytes.end(), out.begin() + static_cast<std::ptrdiff_t>(b * stride)));
    }
  }
  EXPECT_THROW(bz2gpu::encode_batch(d_last.data(), d_offsets.data(), d_primary.data(), d_crc.data(), count, d_out.data(), stride, d_bits.data(),
                                    scratch.data(), scratch.size_bytes(), nullptr, 100),
               ContractError);
}

// The engine, .bz2 with --gpu: the input back from libbz2's files (several streams too), GPU-only
// and mixed with CPU workers, many batches; a damaged stream is the CPU engine's error.
TEST_F(Bz2Gpu, EngineDecodesOnTheGpu) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Bytes in = datasets::bytes_with_entropy(sized(6000000, 1200000) + 777, 3.0, seed);
  in.insert(in.end(), 300000, 'a');
  for (int i = 0; i < 250000; ++i) in.push_back("xyz"[i % 3]);
  Bytes file = libbz2_compress(in, 1);
  const Bytes second = libbz2_compress(Bytes(in.begin(), in.begin() + 100001), 9);
  file.insert(file.end(), second.begin(), second.end());
  Bytes want = in;
  want.insert(want.end(), in.begin(), in.begin() + 100001);
  auto run = [seed](const Bytes& f, const engine::Options& o, engine::Stats* st) {
    parcomp::testing::MemSource src(f, seed);
    parcomp::testing::MemSink sink;
    const engine::Stats s = engine::decompress(src, sink, o);
    if (st) *st = s;
    return sink.b;
  };
  for (const int threads : {0, 3}) {
    SCOPED_TRACE(::testing::Message() << threads << " CPU workers");
    engine::Options o;
    o.use_gpus = true;
    o.require_gpu = true;
    o.cpu_threads = threads;
    o.bz2_gpu_batch_blocks = 4;
    engine::Stats st;
    const Bytes got = run(file, o, &st);
    ASSERT_EQ(got.size(), want.size());
    ASSERT_TRUE(got == want);
    if (threads == 0) {  // with CPU workers beside it the GPU may get no block (a late start)
      EXPECT_GT(st.gpu_blocks, 0u);
      EXPECT_EQ(st.gpu_blocks, st.blocks);
      engine::Options walk = o;  // --gpu-walk 11x64: the same bytes
      walk.bz2_gpu_walk_bits = 11;
      walk.bz2_gpu_walk_threads = 64;
      ASSERT_TRUE(run(file, walk, nullptr) == want);
    }
    EXPECT_EQ(st.streams, 2u);
    // Damage in the middle: the CPU engine's message.
    Bytes bad = file;
    bad[bad.size() / 3] ^= 0x10;
    engine::Options cpu;
    cpu.use_gpus = false;
    cpu.cpu_threads = 2;
    std::string want_msg, got_msg;
    try {
      run(bad, cpu, nullptr);
    } catch (const CorruptDataError& e) {
      want_msg = e.what();
    }
    try {
      run(bad, o, nullptr);
    } catch (const CorruptDataError& e) {
      got_msg = e.what();
    }
    ASSERT_FALSE(want_msg.empty());
    EXPECT_EQ(got_msg, want_msg);
  }
}

}  // namespace
