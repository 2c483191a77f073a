// The streaming engine with GPU workers: GPU-only and GPU with CPU workers give the CPU engine's
// bytes (the output does not depend on the workers), decode each other's streams, over many
// frames and a short last block; every GPU of the machine takes part.
#include "core/errors.hpp"
#include "codec/bz2.hpp"
#include "codec/bz2_ties.hpp"
#include "codec/engine.hpp"
#include "codec/gpu_warmup.hpp"
#include "datasets/synthetic.hpp"
#include "gpu_test.hpp"
#include "common/libbz2.hpp"
#include "common/mem_io.hpp"
#include "kernels/common/device.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;
using parcomp::testing::fresh_seed;
using parcomp::testing::sized;

class Reader : public engine::Source {
 public:
  explicit Reader(const Bytes& b) : b_(b) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    const std::size_t n = std::min(max, b_.size() - at_);
    std::copy_n(b_.begin() + static_cast<std::ptrdiff_t>(at_), n, buf);
    at_ += n;
    return n;
  }

 private:
  const Bytes& b_;
  std::size_t at_ = 0;
};
class Writer : public engine::Sink {
 public:
  void write(const std::uint8_t* buf, std::size_t n) override { b.insert(b.end(), buf, buf + n); }
  Bytes b;
};

Bytes run(bool compress, const Bytes& in, const engine::Options& o, engine::Stats* st = nullptr) {
  Reader r(in);
  Writer w;
  const engine::Stats s = compress ? engine::compress(r, w, o) : engine::decompress(r, w, o);
  if (st) *st = s;
  return w.b;
}

class EngineGpu : public parcomp::testing::GpuTest {};

// .bz2 at `level` on the GPUs alone (--gpu, no CPU workers), in batches of `batch` blocks.
engine::Options bz2_on_the_gpu_alone(int level, std::size_t batch) {
  engine::Options o;
  o.format = engine::Format::bz2;
  o.level = level;
  o.use_gpus = true;
  o.require_gpu = true;
  o.cpu_threads = 0;
  o.bz2_gpu_batch_blocks = batch;
  return o;
}

TEST_F(EngineGpu, AnyMixOfWorkersWritesTheSameBytes) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes in = datasets::bytes_with_entropy(sized(9 << 20, 1 << 20) + 12345, 3.0, seed);
  for (std::size_t i = 0; i < in.size(); i += 4096) in[i] = static_cast<std::uint8_t>(rng());
  for (const auto config : {pipeline::Config::fast, pipeline::Config::paper}) {
    SCOPED_TRACE(pipeline::config_name(config));
    engine::Options cpu_only;
    cpu_only.config = config;
    cpu_only.block_bytes = sized(1 << 20, 1 << 16);
    cpu_only.frame_blocks = 4;
    cpu_only.use_gpus = false;
    engine::Options gpu_only = cpu_only;
    gpu_only.use_gpus = true;
    gpu_only.require_gpu = true;
    gpu_only.cpu_threads = 0;
    gpu_only.gpu_batch_blocks = 3;  // batches that do not line up with the frames
    gpu_only.gpu_lanes = config == pipeline::Config::fast ? 3 : 1;  // lanes finishing out of order, and one alone
    engine::Options mixed = gpu_only;
    mixed.require_gpu = false;
    mixed.cpu_threads = 2;
    mixed.cpu_beside_gpus = 2;  // both keep working beside the GPU (by default they step aside)
    const Bytes want = run(true, in, cpu_only);
    engine::Stats st;
    EXPECT_TRUE(run(true, in, gpu_only, &st) == want) << "GPU-only stream differs from the CPU engine's";
    EXPECT_EQ(st.gpu_blocks, st.blocks);
    EXPECT_TRUE(run(true, in, mixed) == want) << "mixed stream differs from the CPU engine's";
    EXPECT_EQ(run(false, want, gpu_only, &st), in);
    EXPECT_EQ(st.gpu_blocks, st.blocks);
    EXPECT_EQ(run(false, want, mixed), in);
  }
}

// The parcomp format's CPU workers (engine::Options::cpu_beside_gpus, default none) take no block
// once a GPU has taken its first batch: in the run's trace no CPU block starts after the end of
// the first GPU batch, both ways; with cpu_beside_gpus they do, and the bytes are the same.
TEST_F(EngineGpu, CpuWorkersStepAsideOnceAGpuWorks) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = datasets::bytes_with_entropy(sized(24 << 20, 6 << 20) + 777, 3.0, seed);
  engine::Options o;
  o.block_bytes = 128 << 10;
  o.cpu_threads = 2;
  o.gpu_batch_blocks = 8;
  o.gpu_lanes = 2;
  o.input_bytes = 1;  // a size known (a pipe's GPUs would join only once the CPU workers fall behind), at the threshold
  o.gpu_from_bytes = o.gpu_decompress_from_bytes = 1;
  auto cpu_blocks_after_first_gpu_batch = [](const engine::Trace& t) {
    double first_gpu_end = 1e30;
    for (const auto& s : t.spans())
      if (s.lane.rfind("gpu", 0) == 0 && s.what == "batch") first_gpu_end = std::min(first_gpu_end, s.end);
    EXPECT_LT(first_gpu_end, 1e30) << "no GPU batch in the trace";
    int n = 0;
    for (const auto& s : t.spans())
      if (s.lane.rfind("cpu", 0) == 0 && s.start > first_gpu_end) ++n;
    return n;
  };
  engine::Trace tc, td;
  o.trace = &tc;
  engine::Stats st;
  const Bytes packed = run(true, in, o, &st);
  EXPECT_EQ(cpu_blocks_after_first_gpu_batch(tc), 0);
  EXPECT_GT(st.gpu_blocks, 0u);
  o.trace = &td;
  EXPECT_EQ(run(false, packed, o, &st), in);
  EXPECT_EQ(cpu_blocks_after_first_gpu_batch(td), 0);
  EXPECT_GT(st.gpu_blocks, 0u);
  engine::Options beside = o;
  beside.cpu_beside_gpus = 2;
  engine::Trace tb;
  beside.trace = &tb;
  EXPECT_TRUE(run(true, in, beside) == packed) << "the bytes depend on the CPU workers' share";
  EXPECT_GT(cpu_blocks_after_first_gpu_batch(tb), 0) << "with cpu_beside_gpus the CPU workers kept no share";
}

TEST_F(EngineGpu, DamagedStreamsAreErrorsOnTheGpuToo) {
  const Bytes in = datasets::bytes_with_entropy(sized(3 << 20, 1 << 18) + 5, 4.0, fresh_seed());
  engine::Options o;
  o.block_bytes = sized(1 << 20, 1 << 16);
  o.cpu_threads = 0;
  o.require_gpu = true;
  const Bytes file = run(true, in, o);
  Bytes bad = file;
  bad[bad.size() / 2] ^= 0x10;  // inside a block's payload: a decoding or CRC error
  EXPECT_THROW(run(false, bad, o), CorruptDataError);
  EXPECT_THROW(run(false, Bytes(file.begin(), file.end() - 40), o), CorruptDataError);
}

// By default (no --gpu, no --cpu) a .bz2 input of Options::bz2_gpu_from_bytes or more goes to the
// GPU alone, both ways, with the CPU workers' bytes; a smaller one to the CPU workers.
TEST_F(EngineGpu, Bz2LargeInputsGoToTheGpuByDefault) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = datasets::bytes_with_entropy(sized(6 << 20, 2 << 20) + 4321, 3.0, seed);
  engine::Options cpu;
  cpu.format = engine::Format::bz2;
  cpu.level = 9;
  cpu.use_gpus = false;
  const Bytes want = run(true, in, cpu);
  engine::Options o;
  o.format = engine::Format::bz2;
  o.level = 9;
  o.bz2_gpu_batch_blocks = 3;
  o.input_bytes = in.size();
  o.bz2_gpu_from_bytes = in.size();
  // CPU workers while CUDA starts (the default) write the same bytes and leave the rest to the GPU.
  engine::Stats sy;
  ASSERT_TRUE(run(true, in, o, &sy) == want);
  EXPECT_EQ(sy.cpu_workers, std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_LE(sy.gpu_blocks, sy.blocks);
  o.cpu_while_cuda_starts = false;
  engine::Stats st;
  const Bytes got = run(true, in, o, &st);
  ASSERT_TRUE(got == want);
  EXPECT_FALSE(st.gpus.empty());
  EXPECT_EQ(st.gpu_blocks, st.blocks);
  EXPECT_EQ(st.cpu_workers, 0u);
  engine::Options d = o;
  d.input_bytes = got.size();
  d.bz2_gpu_decompress_from_bytes = got.size();
  engine::Stats sd;
  EXPECT_EQ(run(false, got, d, &sd), in);
  EXPECT_FALSE(sd.gpus.empty());
  EXPECT_EQ(sd.gpu_blocks, sd.blocks);
  {  // decompression takes no CPU workers while CUDA starts by default; with two kept beside the
     // GPU it takes them on every hardware thread, and two of them keep taking blocks
    engine::Options dy = d;
    dy.cpu_while_cuda_starts = true;
    engine::Stats sdy;
    EXPECT_EQ(run(false, got, dy, &sdy), in);
    EXPECT_EQ(sdy.cpu_workers, 0u);
    dy.cpu_beside_gpus = 2;
    EXPECT_EQ(run(false, got, dy, &sdy), in);
    EXPECT_EQ(sdy.cpu_workers, std::max(1u, std::thread::hardware_concurrency()));
    EXPECT_LE(sdy.gpu_blocks, sdy.blocks);
  }
  {
    engine::Options cy = o;
    cy.cpu_while_cuda_starts = true;
    cy.cpu_beside_gpus = 2;
    EXPECT_TRUE(run(true, in, cy) == want);
  }
  for (const unsigned lanes : {2u, 3u}) {  // lanes of one block each: every lane ends batches of its own
    SCOPED_TRACE(::testing::Message() << lanes << " decoding lanes");
    engine::Options l = d;
    l.bz2_gpu_decode_lanes = lanes;
    l.bz2_gpu_batch_blocks = 1;
    engine::Stats sl;
    EXPECT_EQ(run(false, got, l, &sl), in);
    EXPECT_EQ(sl.gpu_blocks, sl.blocks);
  }
  d.bz2_gpu_decompress_from_bytes = got.size() + 1;
  EXPECT_EQ(run(false, got, d, &sd), in);
  EXPECT_TRUE(sd.gpus.empty());
  EXPECT_EQ(sd.gpu_blocks, 0u);
}

}  // namespace

namespace {

// .bz2 with the GPUs sorting and writing the blocks (--gpu): the bytes of the CPU workers alone and
// libbz2's, GPU-only and mixed, over many batches and a short last block; periodic blocks and runs
// included (zeros first: at level 1 blocks of equal rotations, whose row is bzip2's, not the GPU
// sort's); the result reads back on the CPU.
TEST_F(EngineGpu, Bz2WithGpuSortingWritesTheCpuBytes) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const std::size_t zeros = 255 * (2 * 19997 + rng() % 1000);  // two full level-1 blocks and more
  Bytes in(zeros, 0);
  const Bytes mixed = datasets::bytes_with_entropy(sized(12 << 20, 2 << 20) + 777, 3.0, seed);
  in.insert(in.end(), mixed.begin(), mixed.end());
  for (std::size_t i = zeros; i < in.size(); i += 4096) in[i] = static_cast<std::uint8_t>(rng());
  in.insert(in.end(), 300000, 'a');                           // runs: a block shortened by the initial stage
  for (int i = 0; i < 250000; ++i) in.push_back("xyz"[i % 3]);  // periodic rotations
  for (const int level : {1, 9}) {
    SCOPED_TRACE(::testing::Message() << "level " << level);
    engine::Options cpu;
    cpu.format = engine::Format::bz2;
    cpu.level = level;
    cpu.use_gpus = false;
    cpu.cpu_threads = 2;
    const Bytes want = run(true, in, cpu);
    ASSERT_TRUE(want == parcomp::testing::libbz2_compress(in, level));
    for (const int threads : {0, 3}) {
      SCOPED_TRACE(::testing::Message() << threads << " CPU workers");
      engine::Options gpu = cpu;
      gpu.use_gpus = true;
      gpu.require_gpu = true;
      gpu.cpu_threads = threads;
      gpu.bz2_gpu_batch_blocks = 5;
      gpu.bz2_gpu_lanes = threads == 0 ? 3 : 1;  // lanes sharing the preparer's slot, and one alone
      engine::Stats st;
      const Bytes got = run(true, in, gpu, &st);
      ASSERT_EQ(got.size(), want.size());
      ASSERT_TRUE(got == want) << "first difference at byte " << (std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin());
      // With CPU workers beside it the GPU may get no block at all (under compute-sanitizer it
      // starts late): only a GPU-only run must put every block on the GPU but those of equal
      // rotations (level 1's blocks of zeros), which the GPU's preparer encodes on the host.
      if (threads == 0) {
        std::uint64_t blocks = 0, tied = 0;
        for (std::size_t at = 0; at < in.size(); ++blocks) {
          const std::size_t cut = bz2::cut_block(std::span(in).subspan(at), level, true);
          Bytes rle;
          bz2::rle1_encode(std::span(in).subspan(at, cut), rle);
          if (bz2::rotation_period(rle) < rle.size()) ++tied;
          at += cut;
        }
        ASSERT_EQ(st.blocks, blocks);
        if (level == 1) {
          EXPECT_GE(tied, 2u);  // the two blocks of zeros
        }
        EXPECT_EQ(st.gpu_blocks, blocks - tied);
      }
      EXPECT_EQ(run(false, got, cpu), in);
    }
  }
}

// Many small GPU batches with blocks of equal rotations among ordinary ones: the preparer's host
// encodings of them run beside its next batches, and every block still comes out in order as
// libbz2 writes it.
TEST_F(EngineGpu, Bz2BlocksOfEqualRotationsBesideTheGpuKeepTheirPlace) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes in;
  for (int k = 0; k < 16; ++k) {
    in.insert(in.end(), 255 * (19997 + rng() % 30000), static_cast<std::uint8_t>(rng() % 3));  // one or two blocks of runs at level 1
    const Bytes text = datasets::bytes_with_entropy(150000 + rng() % 50000, 4.0, seed + k);
    in.insert(in.end(), text.begin(), text.end());
  }
  engine::Options o = bz2_on_the_gpu_alone(1, 3);
  o.bz2_gpu_lanes = 2;
  engine::Stats st;
  const Bytes got = run(true, in, o, &st);
  const Bytes want = parcomp::testing::libbz2_compress(in, 1);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_TRUE(got == want) << "first difference at byte " << (std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin());
  EXPECT_GT(st.gpu_blocks, 0u);
  EXPECT_LT(st.gpu_blocks, st.blocks);
}

// .bz2 blocks of long runs decoded on the GPU: left compact by its host side and decoded in pieces
// by the writer (no write of more than 8 MiB), the same bytes, every block on the GPU.
TEST_F(EngineGpu, Bz2BlocksOfLongRunsFromTheGpuAreWrittenInPieces) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes in = datasets::bytes_with_entropy(300000 + rng() % 1000, 3.0, seed);
  in.insert(in.end(), 40000000 + rng() % 1000, 0);
  const Bytes text = datasets::bytes_with_entropy(200000, 4.0, seed + 1);
  in.insert(in.end(), text.begin(), text.end());
  in.insert(in.end(), 30000000 + rng() % 1000, 0xFF);
  const Bytes file = parcomp::testing::libbz2_compress(in, 9);
  engine::Options o;
  o.format = engine::Format::bz2;
  o.use_gpus = true;
  o.require_gpu = true;
  o.cpu_threads = 0;
  o.bz2_gpu_batch_blocks = 2;
  Reader r(file);
  parcomp::testing::LargestWriteSink w;
  const engine::Stats st = engine::decompress(r, w, o);
  ASSERT_EQ(w.b.size(), in.size());
  ASSERT_TRUE(w.b == in);
  EXPECT_EQ(st.gpu_blocks, st.blocks);
  EXPECT_LE(w.largest, std::size_t{8} << 20);
}

// Every GPU of the machine takes work by default (run on a two-GPU host), both formats both ways, and the bytes stay the CPU workers' bytes. Many small batches, so
// that no GPU can finish the input before the other's first batch. Skipped with fewer than two GPUs.
TEST_F(EngineGpu, EveryGpuTakesWorkWithTheSameBytes) {
  const int n = cuda_device_count();
  if (n < 2) GTEST_SKIP() << n << " CUDA device(s): this test needs two or more";
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = datasets::bytes_with_entropy((40 << 20) + 999, 3.5, seed);
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) all[static_cast<std::size_t>(d)] = d;
  for (const auto format : {engine::Format::parcomp, engine::Format::bz2}) {
    SCOPED_TRACE(format == engine::Format::bz2 ? "bz2" : "parcomp");
    engine::Options cpu;
    cpu.format = format;
    cpu.level = 1;  // .bz2: 100k blocks, 400 of them
    cpu.block_bytes = 256 << 10;
    cpu.use_gpus = false;
    const Bytes want = run(true, in, cpu);
    engine::Options gpu = cpu;
    gpu.use_gpus = true;
    gpu.require_gpu = true;
    gpu.cpu_threads = 0;
    gpu.gpu_batch_blocks = 2;
    gpu.bz2_gpu_batch_blocks = 4;
    engine::Stats st;
    const Bytes got = run(true, in, gpu, &st);
    ASSERT_TRUE(got == want) << "the stream of " << n << " GPUs differs from the CPU workers'";
    EXPECT_EQ(st.gpu_blocks, st.blocks);
    std::sort(st.gpus.begin(), st.gpus.end());
    EXPECT_EQ(st.gpus, all) << "not every GPU compressed";
    engine::Stats sd;
    EXPECT_EQ(run(false, got, gpu, &sd), in);
    EXPECT_EQ(sd.gpu_blocks, sd.blocks);
    std::sort(sd.gpus.begin(), sd.gpus.end());
    EXPECT_EQ(sd.gpus, all) << "not every GPU decompressed";
  }
}

// .bz2 compression on a GPU holds five batches in flight (one in each of three lanes, one readied,
// one being read; and 4 blocks for the CPU workers it has not got): with the writer held at its
// first write, the reader stops at that room, plus the two pieces it reads ahead. At level 1 (100k
// blocks) and 256-block batches: 1284 blocks, about 128 MB.
TEST_F(EngineGpu, Bz2CompressionHoldsFiveBatchesInFlight) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  // The small-size mode (the sanitizers' runs) keeps the path, not the bound's edge: 32 MiB reads
  // ahead are then most of what is read.
  const std::size_t batch = sized(256, 16);
  const Bytes in = datasets::bytes_with_entropy(sized(200 << 20, 24 << 20), 5.0, seed);
  class Counted : public engine::Source {
   public:
    explicit Counted(const Bytes& b) : b_(b) {}
    std::size_t read(std::uint8_t* buf, std::size_t max) override {
      const std::size_t at = at_.load(), n = std::min(max, b_.size() - at);
      std::copy_n(b_.begin() + static_cast<std::ptrdiff_t>(at), n, buf);
      at_ = at + n;
      return n;
    }
    std::size_t at() const { return at_.load(); }

   private:
    const Bytes& b_;
    std::atomic<std::size_t> at_{0};
  } src(in);
  class Held : public engine::Sink {
   public:
    explicit Held(const Counted& src) : src_(src) {}
    void write(const std::uint8_t*, std::size_t) override {
      if (read_while_held != 0) return;
      std::this_thread::sleep_for(std::chrono::seconds(2));  // the reader fills the room meanwhile
      read_while_held = src_.at();
    }
    std::size_t read_while_held = 0;

   private:
    const Counted& src_;
  } sink(src);
  engine::Options o = bz2_on_the_gpu_alone(1, batch);
  o.input_bytes = in.size();
  const engine::Stats st = engine::compress(src, sink, o);
  EXPECT_EQ(st.gpu_blocks, st.blocks);
  const std::size_t block = bz2::block_limit(1), ahead = std::size_t{66} << 20;  // two reads of 32 MiB, 2 MiB first
  EXPECT_LE(sink.read_while_held, (4 + 5 * batch + 1) * block + ahead);
  EXPECT_GE(sink.read_while_held, 2 * batch * block) << "the lanes' batches were not read while the writer was held";
}

// CUDA's warm-up makes contexts on the devices asked for and no others (--devices 0 on a two-GPU
// host leaves GPU 1 alone), and a later call adds a device. In a fresh process, since the warm-up
// is the process's own: the test runs this binary again (/proc/self/exe, this test alone) with
// PARCOMP_WARMUP_CHILD set, and that child's exit status is the verdict.
TEST_F(EngineGpu, WarmUpStartsOnlyTheDevicesAskedFor) {
  const int n = cuda_device_count();
  if (std::getenv("PARCOMP_WARMUP_CHILD") != nullptr) {
    const auto wait_for = [](int d) {
      for (int i = 0; i < 60000; ++i) {
        const gpu_warmup::State w = gpu_warmup::poll();
        if (w.counted && (w.find(d) == nullptr || w.find(d)->done)) return w;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return gpu_warmup::poll();
    };
    gpu_warmup::start({0});
    gpu_warmup::State w = wait_for(0);
    if (!w.counted || w.count != n) ::_exit(10);
    if (w.devices.size() != 1 || w.devices[0].id != 0 || !w.devices[0].ready) ::_exit(11);
    // The driver's word on it: device 0's primary context is active, device 1's not.
    void* get = nullptr;
    void* state = nullptr;
    if (cudaGetDriverEntryPointByVersion("cuDeviceGet", &get, 12000, cudaEnableDefault, nullptr) != cudaSuccess ||
        cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &state, 12000, cudaEnableDefault, nullptr) != cudaSuccess)
      ::_exit(15);
    const auto active = [&](int d) {
      CUdevice dev = 0;
      unsigned flags = 0;
      int on = 0;
      if (reinterpret_cast<CUresult (*)(CUdevice*, int)>(get)(&dev, d) != CUDA_SUCCESS ||
          reinterpret_cast<CUresult (*)(CUdevice, unsigned*, int*)>(state)(dev, &flags, &on) != CUDA_SUCCESS)
        ::_exit(15);
      return on != 0;
    };
    if (!active(0)) ::_exit(13);
    if (n >= 2 && active(1)) ::_exit(14);
    if (n >= 2) {
      gpu_warmup::start({1});
      w = wait_for(1);
      if (w.devices.size() != 2 || w.find(1) == nullptr || !w.find(1)->ready) ::_exit(12);
    }
    ::_exit(0);
  }
  const std::string filter = "--gtest_filter=EngineGpu.WarmUpStartsOnlyTheDevicesAskedFor";
  char* const argv[] = {const_cast<char*>("parcomp-tests-gpu"), const_cast<char*>(filter.c_str()), nullptr};
  std::vector<std::string> env_s{"PARCOMP_WARMUP_CHILD=1"};
  for (char** e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);
  std::vector<char*> env;
  for (auto& e : env_s) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &quiet, nullptr, argv, env.data());
  posix_spawn_file_actions_destroy(&quiet);
  ASSERT_EQ(rc, 0) << "cannot run /proc/self/exe";
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "exit 10: the device count; 11: devices other than 0 got a context, or 0 none; "
                                       "12: device 1 not added by a later start(); 13: no context on device 0; "
                                       "14: a context on device 1; 15: the driver's entry points";
}

}  // namespace
