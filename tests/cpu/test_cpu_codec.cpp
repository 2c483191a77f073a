// The CPU codec (codec/cpu_codec.hpp) against the serial oracle pipeline: the same container bytes
// for both configurations on every kind of block (text, random, low entropy, periodic blocks with
// equal rotations, one byte, all equal), decoding back, and damage as errors.
#include "core/errors.hpp"
#include "codec/cpu_codec.hpp"
#include "datasets/synthetic.hpp"
#include "reference/pipeline.hpp"

#include <divsufsort.h>

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

// ---- the suffix sort of one block on several threads (cpu::parallel_suffix_sort) -----------------

std::vector<std::int32_t> divsufsort_of(const Bytes& t) {
  std::vector<std::int32_t> sa(t.size());
  EXPECT_EQ(divsufsort(t.data(), sa.data(), static_cast<saidx_t>(t.size())), 0);
  return sa;
}

TEST(CpuCodec, ParallelSuffixSortIsLibdivsufsorts) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<std::pair<std::string, Bytes>> texts;
  for (const std::size_t n : {std::size_t{2}, std::size_t{3}, std::size_t{11}, std::size_t{257}, std::size_t{65537},
                              std::size_t{300007}, std::size_t{900001}}) {
    Bytes random(n), three(n), zeros_and_ones(n);
    for (auto& b : random) b = static_cast<std::uint8_t>(rng());
    for (auto& b : three) b = static_cast<std::uint8_t>('a' + rng() % 3);  // shared prefixes past 10 bytes, 9 buckets
    for (auto& b : zeros_and_ones) b = static_cast<std::uint8_t>(rng() % 16 == 0 ? 0 : 1 + rng() % 7);  // zeros: the pad's value
    texts.emplace_back("random", std::move(random));
    texts.emplace_back("a/b/c", std::move(three));
    texts.emplace_back("zeros", std::move(zeros_and_ones));
    texts.emplace_back("text", word_text(n, seed + n));  // nine words: repetitive, may be declined
    Bytes prose;  // words of a 3000-word vocabulary, as prose has them
    std::vector<std::string> vocabulary(3000);
    for (auto& w : vocabulary)
      for (std::size_t k = 0, len = 2 + rng() % 8; k < len; ++k) w += static_cast<char>('a' + rng() % 26);
    while (prose.size() < n) {
      const std::string& w = vocabulary[rng() % vocabulary.size()];
      prose.insert(prose.end(), w.begin(), w.end());
      prose.push_back(rng() % 12 == 0 ? '\n' : ' ');
    }
    prose.resize(n);
    texts.emplace_back("prose", std::move(prose));
  }
  Bytes distinct(65536);  // every two-byte bucket holds one suffix
  for (std::size_t i = 0; i < distinct.size(); ++i) distinct[i] = static_cast<std::uint8_t>(i >> 8 ^ i * 7);
  texts.emplace_back("distinct", std::move(distinct));
  texts.emplace_back("ends in zeros", Bytes{'b', 'a', 0, 0, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  int sorted = 0;
  for (const auto& [label, t] : texts) {
    const auto want = divsufsort_of(t);
    for (const unsigned threads : {2u, 3u, 8u}) {
      SCOPED_TRACE(::testing::Message() << label << " n " << t.size() << " threads " << threads);
      std::vector<std::int32_t> sa(t.size(), -1);
      if (!cpu::parallel_suffix_sort(t, sa.data(), threads)) {  // declined: the caller sorts
        if (t.size() >= 257 && label != "text") ADD_FAILURE() << "declined";
        continue;
      }
      ++sorted;
      ASSERT_TRUE(sa == want) << "the suffix array differs from libdivsufsort's";
    }
  }
  EXPECT_GE(sorted, 3 * 17);  // at least the 17 of 257 bytes or more that are not the nine-word text
}

TEST(CpuCodec, ParallelSuffixSortDeclinesWhatItCannotShareOrWouldTakeLong) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> sa(400000);
  EXPECT_FALSE(cpu::parallel_suffix_sort(Bytes(1000, 'a'), sa.data(), 4)) << "one bucket";
  EXPECT_FALSE(cpu::parallel_suffix_sort(word_text(1000, seed), sa.data(), 1)) << "one thread";
  Bytes unit(2000);  // 200 copies of 2000 random bytes: even buckets, suffixes sharing up to 398,000 bytes
  for (auto& b : unit) b = static_cast<std::uint8_t>(rng());
  Bytes repeated;
  for (int k = 0; k < 200; ++k) repeated.insert(repeated.end(), unit.begin(), unit.end());
  EXPECT_FALSE(cpu::parallel_suffix_sort(repeated, sa.data(), 4)) << "past the comparison budget";
  // Sixteen threads: no probe before the sort (cpu_codec.cpp), the sample and the hard limit decline it.
  EXPECT_FALSE(cpu::parallel_suffix_sort(repeated, sa.data(), 16)) << "past the comparison budget, sixteen threads";
}

// A .bz2 block on threads: the same bits as on one (the parallel sort, and from four threads the
// encoder's pieces), on text, random data, a repetitive block (the sort declines) and one value.
TEST(CpuCodec, Bz2BlockOnThreadsIsOneThreadsBits) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Bytes repeated;
  const Bytes unit = datasets::bytes_with_entropy(3001, 8.0, seed);
  for (int k = 0; k < 250; ++k) repeated.insert(repeated.end(), unit.begin(), unit.end());
  const std::vector<std::pair<std::string, Bytes>> blocks = {
      {"text", word_text(850001, seed)}, {"random", datasets::bytes_with_entropy(700001, 8.0, seed + 1)},
      {"low entropy", datasets::bytes_with_entropy(500003, 0.7, seed + 2)}, {"repeated", repeated},
      {"one value", Bytes(4000, 'q')}, {"two bytes", {'b', 'a'}}};
  cpu::Workspace one, many;
  for (const auto& [label, in] : blocks) {
    bz2::BlockBits want, got;
    cpu::bz2_compress_block(in, want, one, 1);
    for (const unsigned threads : {2u, 3u, 4u, 9u}) {
      SCOPED_TRACE(::testing::Message() << label << " threads " << threads);
      cpu::bz2_compress_block(in, got, many, threads);
      ASSERT_EQ(got.bits, want.bits);
      ASSERT_TRUE(got.bytes == want.bytes) << "the block's bits differ from one thread's";
      ASSERT_EQ(got.crc, want.crc);
    }
  }
}

// A parcomp-format block on threads (the parallel sort): the same entry and payload as on one.
TEST(CpuCodec, BlockOnThreadsIsOneThreadsBytes) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  cpu::Workspace one, many;
  for (const auto config : {pipeline::Config::fast, pipeline::Config::paper}) {
    for (const auto& [label, in] : inputs(seed)) {
      if (in.empty()) continue;
      pipeline::BlockEntry want, got;
      Bytes want_payload, got_payload;
      cpu::compress_block(config, in, want, want_payload, one, 1);
      for (const unsigned threads : {2u, 3u, 8u}) {
        SCOPED_TRACE(::testing::Message() << pipeline::config_name(config) << " " << label << " threads " << threads);
        cpu::compress_block(config, in, got, got_payload, many, threads);
        ASSERT_EQ(got.primary, want.primary);
        ASSERT_EQ(got.crc, want.crc);
        ASSERT_TRUE(got_payload == want_payload) << "the payload differs from one thread's";
      }
    }
  }
}

// The least rotation and the smallest period against the definitions, by brute force: a wrong
// period sends primitive blocks down the doubled sort (same bytes, twice the work), so the codec's
// own tests cannot see it.
TEST(CpuCodec, LeastRotationAndPeriodAreTheDefinitions) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<Bytes> texts;
  for (int k = 0; k < 3000; ++k) {
    Bytes t(1 + rng() % 40);
    const unsigned alphabet = 1 + static_cast<unsigned>(rng() % 3);
    for (auto& b : t) b = static_cast<std::uint8_t>('a' + rng() % alphabet);
    if (rng() % 4 == 0) {  // a power of a shorter string
      const Bytes unit = t;
      for (int r = 1 + static_cast<int>(rng() % 3); r > 0; --r) t.insert(t.end(), unit.begin(), unit.end());
    }
    texts.push_back(std::move(t));
  }
  Bytes big(200);  // bytes below 128 and past it, for the eight-byte skip
  for (auto& b : big) b = static_cast<std::uint8_t>(rng() % 3 == 0 ? 'a' : 200 + rng() % 50);
  texts.push_back(big);
  for (const Bytes& t : texts) {
    const std::size_t n = t.size();
    std::size_t want_period = n;
    for (std::size_t p = 1; p < n; ++p)
      if (n % p == 0 && std::equal(t.begin() + static_cast<std::ptrdiff_t>(p), t.end(), t.begin())) {
        want_period = p;
        break;
      }
    auto rotation = [&](std::size_t s) {
      Bytes r(t.begin() + static_cast<std::ptrdiff_t>(s), t.end());
      r.insert(r.end(), t.begin(), t.begin() + static_cast<std::ptrdiff_t>(s));
      return r;
    };
    Bytes least = t;
    for (std::size_t s = 1; s < n; ++s) least = std::min(least, rotation(s));
    std::size_t period = 0;
    const std::size_t start = cpu::least_rotation(t, period);
    ASSERT_LT(start, n);
    ASSERT_TRUE(rotation(start) == least) << "not the least rotation, n " << n;
    ASSERT_EQ(period, want_period) << "n " << n;
  }
}
