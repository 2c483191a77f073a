// The container format and the CPU reference pipeline: round trips, and every damaged container
// (flipped bits, truncation, wrong sizes) is a CorruptDataError, never a crash or wrong output.
#include "datasets/synthetic.hpp"
#include "kernels/common/cuda_check.hpp"
#include "core/container.hpp"
#include "reference/pipeline.hpp"

#include "common/sample_inputs.hpp"
#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace {
using parcomp::testing::word_text;
using namespace parcomp;

const pipeline::Config kConfigs[] = {pipeline::Config::paper, pipeline::Config::fast};

TEST(Pipeline, RoundTrips) {
  const std::vector<std::vector<std::uint8_t>> inputs = {
      {}, {'x'}, {0}, std::vector<std::uint8_t>(70000, 'a'), word_text(200003, 1), datasets::bytes_with_entropy(150001, 8.0, 2),
      datasets::bytes_with_entropy(99999, 1.0, 3)};
  for (const auto config : kConfigs) {
    for (const auto& in : inputs) {
      for (const std::size_t block : {std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 20}) {
        SCOPED_TRACE(::testing::Message() << pipeline::config_name(config) << " n " << in.size() << " block " << block);
        const auto file = reference::pipeline_compress(in, block, 0, config);
        EXPECT_EQ(reference::pipeline_decompress(file), in);
        const auto layout = pipeline::parse(file);
        EXPECT_EQ(layout.config, config);
        EXPECT_EQ(layout.blocks.size(), (in.size() + block - 1) / block);
      }
    }
  }
}

TEST(Pipeline, CompressesText) {
  const auto in = word_text(1 << 20, 4);
  const auto paper = reference::pipeline_compress(in, 1 << 20);
  EXPECT_LT(paper.size(), in.size() / 4) << "BWT + MTF + Huffman should shrink repetitive text";
  // The zero-run stage and several tables beat one table's floor of one bit per MTF symbol.
  const auto fast = reference::pipeline_compress(in, 1 << 20, 0, pipeline::Config::fast);
  EXPECT_LT(fast.size(), paper.size() * 9 / 10);
}

TEST(Pipeline, FastPayloadFieldsRoundTrip) {
  // Every field of the fast payload survives put_fast / split_fast.
  pipeline::FastPayload p;
  p.symbols = 3000;
  std::array<std::uint8_t, 256> a{}, b{};
  a['a'] = 1, a['b'] = 2, a['c'] = 3, a['d'] = 3;
  b['a'] = 3, b['b'] = 3, b['c'] = 2, b['d'] = 1;
  p.lengths = {a, b};
  for (std::size_t g = 0; g < 47; ++g) p.selectors.push_back(static_cast<std::uint8_t>(g % 3 == 0));
  p.samples = {7, 19999, 12345};
  p.index = {0, 1500, 3100};
  p.bits = 4000;
  const std::vector<std::uint32_t> words(125, 0xABCD1234u);
  std::vector<std::uint8_t> out;
  pipeline::put_fast(out, p, words, 20000);
  const auto q = pipeline::split_fast(out, 20000, 0);
  EXPECT_EQ(q.symbols, p.symbols);
  EXPECT_EQ(q.lengths, p.lengths);
  EXPECT_EQ(q.selectors, p.selectors);
  EXPECT_EQ(q.samples, p.samples);
  EXPECT_EQ(q.index, p.index);
  EXPECT_EQ(q.bits, p.bits);
  EXPECT_EQ(q.words_raw.size(), words.size() * 4);
}

class PipelineDamage : public ::testing::TestWithParam<pipeline::Config> {};
INSTANTIATE_TEST_SUITE_P(Configs, PipelineDamage, ::testing::ValuesIn(kConfigs),
                         [](const auto& info) { return pipeline::config_name(info.param); });

TEST_P(PipelineDamage, AreErrors) {
  const auto in = word_text(300001, 5);
  const auto file = reference::pipeline_compress(in, 65536, 0, GetParam());
  std::mt19937_64 rng(parcomp::testing::fresh_seed());
  for (int k = 0; k < 300; ++k) {
    auto bad = file;
    const std::size_t bit = rng() % (bad.size() * 8);
    bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    SCOPED_TRACE(::testing::Message() << "flipped bit " << bit << " of " << bad.size() * 8);
    // An error, or (a flipped padding bit after a block's last codeword) the original bytes.
    try {
      EXPECT_EQ(reference::pipeline_decompress(bad), in) << "a damaged container decoded to wrong output";
    } catch (const CorruptDataError&) {
    }
  }
  for (const std::size_t keep : {std::size_t{0}, std::size_t{10}, std::size_t{31}, std::size_t{200}, file.size() / 2, file.size() - 1}) {
    SCOPED_TRACE(::testing::Message() << "truncated to " << keep);
    EXPECT_THROW(reference::pipeline_decompress(std::span(file).first(keep)), CorruptDataError);
  }
  auto longer = file;
  longer.push_back(0);
  EXPECT_THROW(reference::pipeline_decompress(longer), CorruptDataError);
}

TEST(Pipeline, Crc32KnownValue) {
  const std::string s = "123456789";
  EXPECT_EQ(pipeline::crc32(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size())), 0xCBF43926u);
}

}  // namespace
