// Every GPU MTF variant and configuration bit-exact against the serial oracle in both directions,
// and reverse(forward(x)) == x on the GPU. Outputs are poisoned before each run.
#include "datasets/synthetic.hpp"
#include "gpu_test.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/mtf/mtf.hpp"
#include "reference/bwt_cpu.hpp"
#include "reference/mtf.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
using namespace parcomp;
using parcomp::testing::fresh_seed;
using parcomp::testing::GpuTest;
using parcomp::testing::sized;

struct Case {
  const char* label;
  mtf::Variant variant;
  unsigned chars_per_thread;     // 0 = the variant's default
  unsigned shared_list_entries;  // 0 = default
  unsigned block_threads;        // 0 = default
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

mtf::Config config_for(const Case& c, mtf::Direction d, std::size_t segment) {
  mtf::Config cfg = mtf::default_config(c.variant, d);
  if (c.chars_per_thread) cfg.chars_per_thread = c.chars_per_thread;
  if (c.shared_list_entries) cfg.shared_list_entries = c.shared_list_entries;
  if (c.block_threads) cfg.block_threads = c.block_threads;
  cfg.segment_bytes = segment;
  return cfg;
}

class MtfGpu : public GpuTest, public ::testing::WithParamInterface<Case> {
 protected:
  std::vector<std::uint8_t> run(mtf::Direction d, const std::vector<std::uint8_t>& in, std::size_t segment) {
    const mtf::Config cfg = config_for(GetParam(), d, segment);
    const std::size_t n = in.size();
    DeviceBuffer<std::uint8_t> d_in(n), d_out(n + 64);
    d_in.upload(in);
    d_out.fill_bytes(0xAB);
    DeviceBytes scratch(mtf::scratch_bytes(GetParam().variant, d, n, cfg));
    mtf::transform(GetParam().variant, d, d_in.data(), n, d_out.data(), scratch.data(), scratch.size_bytes(), cfg, nullptr);
    PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
    auto out = d_out.download();
    for (std::size_t i = n; i < out.size(); ++i) EXPECT_EQ(out[i], 0xAB) << "wrote past the output at " << i;
    out.resize(n);
    return out;
  }
  void check(const std::vector<std::uint8_t>& in, std::size_t segment = std::size_t{1} << 20) {
    const auto want = reference::mtf_encode(in, segment);
    const auto got = run(mtf::Direction::forward, in, segment);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "forward differs at " << i;
    const auto back = run(mtf::Direction::reverse, got, segment);
    for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(back[i], in[i]) << "reverse(forward(x)) differs at " << i;
  }
};

TEST_P(MtfGpu, Empty) { check({}); }
TEST_P(MtfGpu, OneCharacter) { check({'x'}); }
TEST_P(MtfGpu, AllEqual) { check(std::vector<std::uint8_t>(sized(100003, 3001), 0)); }

TEST_P(MtfGpu, AllSymbolsCycling) {
  std::vector<std::uint8_t> in(sized(70001, 3001));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(255 - i % 256);
  check(in);
}

TEST_P(MtfGpu, RandomFreshSeedsOddSizes) {
  for (const double bits : {8.0, 4.0, 1.0}) {
    const std::uint64_t seed = fresh_seed();
    const std::size_t n = 1 + seed % sized(300000, 5000);
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " bits " << bits);
    check(datasets::bytes_with_entropy(n, bits, seed));
    if (HasFatalFailure()) return;
  }
}

TEST_P(MtfGpu, ManySegmentsNotMultiplesOfTheSubstring) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  check(datasets::bytes_with_entropy(sized(250007, 10007), 5.0, seed), 9973);
}

TEST_P(MtfGpu, BwtOutputOfText) {
  std::string text;
  const std::uint64_t seed = fresh_seed();
  datasets::Rng rng(seed);
  const char* words[] = {"compression ", "graphics ", "processing ", "unit ", "scan ", "list ", "the ", "of "};
  while (text.size() < sized(1500000, 20000)) text += words[rng.next() % 8];
  const auto bwt = reference::bwt_blocks_divsufsort({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()},
                                                    std::size_t{1} << 20);
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  check(bwt.bytes);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, MtfGpu,
    ::testing::Values(Case{"paper", mtf::Variant::paper, 0, 0, 0}, Case{"paper_list8", mtf::Variant::paper, 0, 8, 0},
                      Case{"paper_list256", mtf::Variant::paper, 0, 256, 0},
                      Case{"paper_chars40_block32", mtf::Variant::paper, 40, 0, 32},
                      Case{"paper_chars76_block128", mtf::Variant::paper, 76, 76, 128},
                      Case{"naive", mtf::Variant::naive, 0, 0, 0}, Case{"fast", mtf::Variant::fast, 0, 0, 0},
                      Case{"fast_chars100_block16", mtf::Variant::fast, 100, 0, 16}),
    [](const auto& info) { return std::string(info.param.label); });

TEST(MtfContract, BadConfigurations) {
  mtf::Config c = mtf::default_config(mtf::Variant::paper, mtf::Direction::forward);
  c.block_threads = 48;
  EXPECT_THROW(mtf::scratch_bytes(mtf::Variant::paper, mtf::Direction::forward, 100, c), ContractError);
  c = mtf::default_config(mtf::Variant::paper, mtf::Direction::forward);
  c.shared_list_entries = 300;
  EXPECT_THROW(mtf::scratch_bytes(mtf::Variant::paper, mtf::Direction::forward, 100, c), ContractError);
  c.shared_list_entries = 40;
  c.chars_per_thread = 0;
  EXPECT_THROW(mtf::scratch_bytes(mtf::Variant::paper, mtf::Direction::reverse, 100, c), ContractError);
}
}  // namespace
