// The GPU pipeline: the paper configuration's container bit-identical to the CPU reference
// pipeline's; both configurations round-trip on the GPU and across GPU and CPU; damaged
// containers are errors.
#include "datasets/synthetic.hpp"
#include "gpu_test.hpp"
#include "kernels/common/cuda_check.hpp"
#include "codec/gpu_pipeline.hpp"
#include "reference/pipeline.hpp"

#include "common/sample_inputs.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {
using parcomp::testing::word_text;
using namespace parcomp;
using parcomp::testing::fresh_seed;
using parcomp::testing::GpuTest;
using parcomp::testing::sized;

class PipelineGpu : public GpuTest {};

TEST_F(PipelineGpu, PaperIsBitIdenticalToTheCpuReference) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& in : {word_text(sized(300007, 20011), seed), datasets::bytes_with_entropy(sized(200001, 15001), 4.0, seed),
                         std::vector<std::uint8_t>(sized(20000, 5000), 'z'), std::vector<std::uint8_t>{'q'}}) {
    for (const std::size_t block : {sized(65536, 8192), std::size_t{1} << 20}) {
      SCOPED_TRACE(::testing::Message() << "n " << in.size() << " block " << block);
      const auto gpu = pipeline::compress_gpu(pipeline::Config::paper, in, block);
      const auto cpu = reference::pipeline_compress(in, block);
      ASSERT_EQ(gpu, cpu);
      ASSERT_EQ(pipeline::decompress_gpu(gpu), in);
    }
  }
}

TEST_F(PipelineGpu, FastIsBitIdenticalToTheCpuReference) {
  // Blocks without equal rotations: the BWT's rows are unique, so the whole container must agree.
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& in : {word_text(sized((2 << 20) + 333, 30333), seed), datasets::bytes_with_entropy(sized(700001, 20001), 5.0, seed), std::vector<std::uint8_t>{'q'}}) {
    for (const std::size_t block : {std::size_t{65536}, std::size_t{1} << 20}) {
      SCOPED_TRACE(::testing::Message() << "n " << in.size() << " block " << block);
      const auto gpu = pipeline::compress_gpu(pipeline::Config::fast, in, block);
      const auto cpu = reference::pipeline_compress(in, block, 0, pipeline::Config::fast);
      ASSERT_EQ(gpu, cpu);
      ASSERT_EQ(pipeline::decompress_gpu(cpu), in);
    }
  }
}

TEST_F(PipelineGpu, FastRoundTripsOnGpuAndCpu) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto& in : {word_text(sized((3 << 20) + 5, 30005), seed), datasets::bytes_with_entropy(sized(1000003, 20003), 8.0, seed),
                         datasets::bytes_with_entropy(sized(500000, 10000), 0.5, seed), std::vector<std::uint8_t>(sized(100000, 5000), 7),
                         std::vector<std::uint8_t>{}}) {
    SCOPED_TRACE(::testing::Message() << "n " << in.size());
    const auto file = pipeline::compress_gpu(pipeline::Config::fast, in, std::size_t{1} << 20);
    ASSERT_EQ(pipeline::decompress_gpu(file), in);
    ASSERT_EQ(reference::pipeline_decompress(file), in);
  }
}

TEST_F(PipelineGpu, DamagedContainersAreErrors) {
  const auto in = word_text(sized(400000, 30000), fresh_seed());
  std::mt19937_64 rng(fresh_seed());
  for (const auto config : {pipeline::Config::paper, pipeline::Config::fast}) {
    const auto file = pipeline::compress_gpu(config, in, 65536);
    for (int k = 0; k < static_cast<int>(sized(40, 8)); ++k) {
      auto bad = file;
      const std::size_t bit = rng() % (bad.size() * 8);
      bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      SCOPED_TRACE(::testing::Message() << pipeline::config_name(config) << " flipped bit " << bit);
      // An error, or (a flipped padding bit after a block's last codeword) the original bytes:
      // never a crash and never wrong output.
      try {
        EXPECT_EQ(pipeline::decompress_gpu(bad), in) << "a damaged container decoded to wrong output";
      } catch (const CorruptDataError&) {
      }
    }
    EXPECT_THROW(pipeline::decompress_gpu(std::span(file).first(file.size() - 3)), CorruptDataError);
  }
}

}  // namespace
