// The engine where the GPU is shared: a GPU whose memory is short (the process's cap,
// device_memory::set_limit, which is what PARCOMP_GPU_MEMORY_LIMIT and --gpu-memory set) leaves
// its blocks to the CPU workers, at the start or in the middle of a job, and the output is the
// CPU engine's bytes, for both formats both ways; with --gpu that is an error; bzip2 0.9.0's
// randomised blocks decode on the GPU as on the CPU.
#include "core/errors.hpp"
#include "codec/engine.hpp"
#include "datasets/synthetic.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device.hpp"
#include "kernels/common/device_buffer.hpp"

#include "common/bz2_blocks.hpp"
#include "common/libbz2.hpp"
#include "common/mem_io.hpp"
#include "gpu_test.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <random>
#include <string>

namespace {
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;
using parcomp::testing::fresh_seed;
using parcomp::testing::sized;

class FieldGpu : public parcomp::testing::GpuTest {
 protected:
  void TearDown() override { device_memory::set_limit(0); }
};

// A sink that calls `first` once, when 1 KiB has been written (past any header: a GPU's first
// results, in a GPU-only job).
class FirstWriteSink : public engine::Sink {
 public:
  explicit FirstWriteSink(std::function<void()> first) : first_(std::move(first)) {}
  void write(const std::uint8_t* buf, std::size_t n) override {
    b.insert(b.end(), buf, buf + n);
    if (first_ && b.size() >= 1024) std::exchange(first_, nullptr)();
  }
  Bytes b;

 private:
  std::function<void()> first_;
};

struct Outcome {
  Bytes out;
  engine::Stats st;
  std::vector<std::string> notes;
};
Outcome run(bool compress, const Bytes& in, engine::Options o, std::uint64_t seed, std::function<void()> at_first_write = nullptr) {
  Outcome r;
  std::mutex m;
  o.on_note = [&](const std::string& s) {
    const std::lock_guard lock(m);
    r.notes.push_back(s);
  };
  parcomp::testing::MemSource src(in, seed);
  FirstWriteSink sink(std::move(at_first_write));
  r.st = compress ? engine::compress(src, sink, o) : engine::decompress(src, sink, o);
  r.out = std::move(sink.b);
  return r;
}
bool said(const Outcome& r, const std::string& what) {
  for (const auto& n : r.notes)
    if (n.find(what) != std::string::npos) return true;
  return false;
}

// Every job kind with GPUs by default (the input's size sends .bz2 to the GPUs alone).
std::vector<std::pair<std::string, engine::Options>> jobs(std::size_t in_bytes) {
  engine::Options bz2;
  bz2.format = engine::Format::bz2;
  bz2.level = 1;
  bz2.input_bytes = in_bytes;
  bz2.bz2_gpu_from_bytes = bz2.bz2_gpu_decompress_from_bytes = 1;  // the GPUs alone, CPU workers if they cannot
  bz2.bz2_gpu_batch_blocks = 4;
  engine::Options pcmp;
  pcmp.block_bytes = 1 << 16;
  pcmp.frame_blocks = 4;  // written batch by batch
  pcmp.gpu_batch_blocks = 4;
  pcmp.gpu_from_bytes = pcmp.gpu_decompress_from_bytes = 1;
  pcmp.input_bytes = in_bytes;
  return {{".bz2", bz2}, {"parcomp", pcmp}};
}

// A cap below the smallest batch: the GPU never starts a lane, the CPU workers write every block,
// the bytes are the CPU engine's, and -v's note says why.
TEST_F(FieldGpu, AGpuWithoutRoomLeavesTheJobToTheCpuWorkers) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = datasets::bytes_with_entropy(sized(3 << 20, 1 << 20) + 321, 3.0, seed);
  for (auto [name, o] : jobs(in.size())) {
    SCOPED_TRACE(name);
    engine::Options cpu = o;
    cpu.use_gpus = false;
    const Bytes want = run(true, in, cpu, seed).out;
    device_memory::set_limit(1 << 20);
    const Outcome c = run(true, in, o, seed);
    EXPECT_TRUE(c.out == want);
    EXPECT_EQ(c.st.gpu_blocks, 0u);
    EXPECT_TRUE(said(c, "MiB of device memory to use")) << "no note of the GPU's memory";
    o.input_bytes = want.size();
    const Outcome d = run(false, want, o, seed);
    EXPECT_TRUE(d.out == in);
    EXPECT_EQ(d.st.gpu_blocks, 0u);
    EXPECT_LE(d.st.peak_device_bytes, std::uint64_t{1} << 20);
    // --gpu: an error, never silently the CPU.
    engine::Options strict = o;
    strict.require_gpu = true;
    strict.cpu_threads = 0;
    EXPECT_THROW(run(true, in, strict, seed), DeviceMemoryError);
    device_memory::set_limit(0);
  }
}

// The cap lowered below what the process holds once the GPU's first results are written: every
// later allocation (another lane's buffers, a batch of another size) fails in the middle of the
// job; those blocks go back to the queue, the CPU workers finish, and the bytes are the same.
TEST_F(FieldGpu, AGpuThatRunsOutOfMemoryMidJobHandsItsBlocksBack) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes in = datasets::bytes_with_entropy(sized(6 << 20, 2 << 20) + 77, 3.0, seed);
  for (std::size_t i = 0; i < in.size(); i += 999) in[i] = static_cast<std::uint8_t>(rng());
  int left = 0;
  for (auto [name, o] : jobs(in.size())) {
    SCOPED_TRACE(name);
    engine::Options cpu = o;
    cpu.use_gpus = false;
    const Bytes want = run(true, in, cpu, seed).out;
    // Below what the lanes of each GPU hold (the cap is per device): each new allocation fails (a
    // lane's next buffer, a smaller last batch's).
    const auto squeeze = [] {
      std::uint64_t least = 0;
      for (int d = 0; d < cuda_device_count(); ++d)
        if (const std::uint64_t held = device_memory::in_use(d); held > 0) least = least == 0 ? held : std::min(least, held);
      device_memory::set_limit(std::max<std::uint64_t>(least / 2, 1));
    };
    const Outcome c = run(true, in, o, seed, squeeze);
    device_memory::set_limit(0);
    EXPECT_TRUE(c.out == want);
    EXPECT_GT(c.st.blocks, 0u);
    if (said(c, " left: ")) ++left;
    o.input_bytes = want.size();
    const Outcome d = run(false, want, o, seed, squeeze);
    device_memory::set_limit(0);
    EXPECT_TRUE(d.out == in);
    if (said(d, " left: ")) ++left;
    RecordProperty(name + "_gpu_blocks", std::to_string(c.st.gpu_blocks) + " of " + std::to_string(c.st.blocks) + ", " +
                                             std::to_string(d.st.gpu_blocks) + " of " + std::to_string(d.st.blocks));
  }
  EXPECT_GT(left, 0) << "no job's GPU ran out of memory in the middle: the test did not test";
}

// Randomised blocks (the tests' writer, which libbz2 reads back) decode on the GPU to libbz2's bytes.
TEST_F(FieldGpu, RandomisedBlocksDecodeOnTheGpu) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = datasets::bytes_with_entropy(sized(900000, 300000) + 13, 2.0, seed);
  const Bytes file = parcomp::testing::randomised_bz2(in, 1);
  const auto theirs = parcomp::testing::libbz2_decompress(file, in.size() + 1000);
  ASSERT_TRUE(theirs.has_value() && *theirs == in);
  engine::Options o;
  o.format = engine::Format::bz2;
  o.require_gpu = true;
  o.cpu_threads = 0;
  o.bz2_gpu_batch_blocks = 2;
  const Outcome d = run(false, file, o, seed);
  EXPECT_TRUE(d.out == in);
  EXPECT_EQ(d.st.gpu_blocks, d.st.blocks);
}

}  // namespace
