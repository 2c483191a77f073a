// The GPU encoders and decoder against the golden files (tests/golden/README.md): the GPU writes
// the committed bytes and reads them back.
#include "gpu_test.hpp"
#include "codec/engine.hpp"
#include "codec/gpu_pipeline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace {
using namespace parcomp;
namespace fs = std::filesystem;

std::vector<std::uint8_t> slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string() + " (set PARCOMP_GOLDEN_DIR)");
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

class GoldenGpu : public parcomp::testing::GpuTest {};

TEST_F(GoldenGpu, GpuWritesAndReadsTheGoldenContainers) {
  const fs::path dir = parcomp::testing::golden_dir();
  const auto input = slurp(dir / "input.bin");
  for (const auto& [file, config] : {std::pair{"input.bin.paper-16k.pcmp", pipeline::Config::paper},
                                     std::pair{"input.bin.fast-16k.pcmp", pipeline::Config::fast}}) {
    SCOPED_TRACE(file);
    const auto golden = slurp(dir / file);
    EXPECT_EQ(pipeline::compress_gpu(config, input, 16384), golden);
    EXPECT_EQ(pipeline::decompress_gpu(golden), input);
  }
}

class Reader : public engine::Source {
 public:
  explicit Reader(const std::vector<std::uint8_t>& b) : b_(b) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    const std::size_t n = std::min(max, b_.size() - at_);
    std::copy_n(b_.begin() + static_cast<std::ptrdiff_t>(at_), n, buf);
    at_ += n;
    return n;
  }

 private:
  const std::vector<std::uint8_t>& b_;
  std::size_t at_ = 0;
};
class Writer : public engine::Sink {
 public:
  void write(const std::uint8_t* buf, std::size_t n) override { b.insert(b.end(), buf, buf + n); }
  std::vector<std::uint8_t> b;
};

// The engine with GPU workers only (--gpu) writes the committed stream bytes and reads them back.
TEST_F(GoldenGpu, GpuEngineWritesAndReadsTheGoldenStreams) {
  const fs::path dir = parcomp::testing::golden_dir();
  const auto input = slurp(dir / "input.bin");
  for (const auto& [file, config] : {std::pair{"input.bin.stream-fast-16k.pcmp", pipeline::Config::fast},
                                     std::pair{"input.bin.stream-paper-16k.pcmp", pipeline::Config::paper}}) {
    SCOPED_TRACE(file);
    const auto golden = slurp(dir / file);
    engine::Options o;
    o.config = config;
    o.block_bytes = 16384;
    o.cpu_threads = 0;
    o.require_gpu = true;
    Reader raw(input);
    Writer packed;
    const engine::Stats st = engine::compress(raw, packed, o);
    EXPECT_EQ(st.gpu_blocks, st.blocks) << "every block on the GPU";
    EXPECT_TRUE(packed.b == golden);
    Reader in(golden);
    Writer back;
    engine::decompress(in, back, o);
    EXPECT_EQ(back.b, input);
  }
}

}  // namespace
