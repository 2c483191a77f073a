// The CPU codec (codec/cpu_codec.hpp) against the serial oracle pipeline: the same container bytes
// for both configurations on every kind of block (text, random, low entropy, periodic blocks with
// equal rotations, one byte, all equal), decoding back, and damage as errors.
#include "codec/common/errors.hpp"
#include "codec/cpu_codec.hpp"
#include "datasets/synthetic.hpp"
#include "reference/pipeline.hpp"

#include "common/sample_inputs.hpp"
#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {
using parcomp::testing::periodic;
using parcomp::testing::word_text;
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;

std::vector<std::pair<std::string, Bytes>> inputs(std::uint64_t seed) {
  return {{"empty", {}},
          {"one byte", {'q'}},
          {"two bytes", {'b', 'a'}},
          {"all equal", Bytes(100000, 'z')},
          {"periodic ab", periodic(65536, "ab")},          // equal rotations in every block
          {"periodic abc", periodic(100003, "abc")},       // and in the last, shorter one
          {"text", word_text(300007, seed)},
          {"random", datasets::bytes_with_entropy(150001, 8.0, seed)},
          {"low entropy", datasets::bytes_with_entropy(200003, 0.7, seed + 1)},
          {"skewed", datasets::bytes_with_entropy(99999, 2.0, seed + 2)}};
}

TEST(CpuCodec, BitIdenticalToTheOracleAndRoundTrips) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const auto config : {pipeline::Config::fast, pipeline::Config::paper}) {
    for (const auto& [label, in] : inputs(seed)) {
      for (const std::size_t block : {std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20}) {
        SCOPED_TRACE(::testing::Message() << pipeline::config_name(config) << " " << label << " n " << in.size() << " block " << block);
        const Bytes ours = cpu::compress(config, in, block, 2);
        const Bytes oracle = reference::pipeline_compress(in, block, 1, config);
        ASSERT_EQ(ours.size(), oracle.size());
        ASSERT_TRUE(ours == oracle) << "the CPU codec's container differs from the oracle's";
        ASSERT_EQ(cpu::decompress(ours, 2), in);
      }
    }
  }
}

TEST(CpuCodec, DamageIsAnErrorNeverWrongOutput) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = word_text(200000, seed);
  std::mt19937_64 rng(seed);
  for (const auto config : {pipeline::Config::fast, pipeline::Config::paper}) {
    const Bytes file = cpu::compress(config, in, 32768, 2);
    for (int k = 0; k < 300; ++k) {
      Bytes bad = file;
      const std::size_t bit = rng() % (bad.size() * 8);
      bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      SCOPED_TRACE(::testing::Message() << pipeline::config_name(config) << " flipped bit " << bit);
      try {
        EXPECT_EQ(cpu::decompress(bad, 2), in) << "a damaged container decoded to wrong output";
      } catch (const CorruptDataError&) {
      }
    }
  }
}

}  // namespace
