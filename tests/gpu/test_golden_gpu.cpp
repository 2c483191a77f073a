// The GPU encoders and decoder against the golden files (tests/golden/README.md): the GPU writes
// the committed bytes and reads them back.
#include "gpu_test.hpp"
#include "codec/gpu_pipeline.hpp"

#include <gtest/gtest.h>

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

}  // namespace
