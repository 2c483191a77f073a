// The shared code builder (length-limited canonical Huffman) and the serial VLE oracle.
#include "datasets/synthetic.hpp"
#include "reference/huffman.hpp"
#include "reference/vle.hpp"

#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace {
using namespace parcomp::reference;

constexpr std::uint64_t kOne = std::uint64_t{1} << 32;  // Kraft sum 1, scaled

void expect_prefix_free_canonical(const CodeTable& t) {
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; ++b) {
      if (a == b || t[a].length == 0 || t[b].length == 0 || t[a].length > t[b].length) continue;
      ASSERT_NE(t[b].bits >> (t[b].length - t[a].length), t[a].bits) << a << " is a prefix of " << b;
    }
}

TEST(HuffmanReference, KraftSumIsOneAndLimitHolds) {
  for (int trial = 0; trial < 20; ++trial) {
    const std::uint64_t seed = parcomp::testing::fresh_seed();
    const double bits = static_cast<double>(seed % 75) / 10.0 + 0.5;
    const auto h = byte_histogram(parcomp::datasets::bytes_with_entropy(100000, bits, seed));
    for (const int limit : {8, 9, 11, 12, 15, 20}) {
      SCOPED_TRACE(::testing::Message() << "seed " << seed << " bits " << bits << " limit " << limit);
      const auto lengths = code_lengths(h, limit);
      int used = 0;
      for (int s = 0; s < 256; ++s) {
        ASSERT_LE(lengths[s], limit);
        ASSERT_EQ(lengths[s] == 0, h[s] == 0);
        used += h[s] != 0;
      }
      if (used >= 2) {
        ASSERT_EQ(kraft_sum_scaled(lengths), kOne);
      }
      expect_prefix_free_canonical(canonical_codes(lengths));
    }
  }
}

TEST(HuffmanReference, EqualsUnlimitedHuffmanWhenTheLimitDoesNotBind) {
  const auto h = byte_histogram(parcomp::datasets::bytes_with_entropy(1 << 20, 5.0, 3));
  const auto unlimited = huffman_lengths_unlimited(h);
  int deepest = 0;
  for (const auto l : unlimited) deepest = std::max<int>(deepest, l);
  EXPECT_EQ(encoded_bits(h, code_lengths(h, deepest)), encoded_bits(h, unlimited));
  EXPECT_EQ(encoded_bits(h, code_lengths(h, 32)), encoded_bits(h, unlimited));
  EXPECT_GE(encoded_bits(h, code_lengths(h, deepest - 1)), encoded_bits(h, unlimited));
}

TEST(HuffmanReference, DegenerateHistograms) {
  Histogram one{};
  one[42] = 1000;
  EXPECT_EQ(code_lengths(one, 12)[42], 1);
  Histogram two{};
  two[0] = 1;
  two[255] = 1000000;
  const auto l2 = code_lengths(two, 12);
  EXPECT_EQ(l2[0], 1);
  EXPECT_EQ(l2[255], 1);
  Histogram flat{};
  flat.fill(7);
  for (const auto l : code_lengths(flat, 12)) EXPECT_EQ(l, 8);
  EXPECT_THROW(code_lengths(flat, 7), std::invalid_argument);  // 256 symbols need 8 bits
  EXPECT_THROW(code_lengths(flat, 0), std::invalid_argument);
  // Fibonacci frequencies make an unlimited Huffman tree as deep as possible: the limit binds.
  const auto fib = fibonacci_histogram(40);
  const auto deep = huffman_lengths_unlimited(fib);
  EXPECT_EQ(*std::max_element(deep.begin(), deep.end()), 39);
  const auto limited = code_lengths(fib, 12);
  EXPECT_EQ(*std::max_element(limited.begin(), limited.end()), 12);
  EXPECT_EQ(kraft_sum_scaled(limited), kOne);
}

TEST(VleReference, BitOrderIsMsbFirst) {
  std::array<std::uint8_t, 256> lengths{};
  lengths['a'] = 1;
  lengths['b'] = 2;
  lengths['c'] = 2;
  const auto table = canonical_codes(lengths);  // a = 0, b = 10, c = 11
  EXPECT_EQ(table['b'].bits, 2u);
  const std::vector<std::uint8_t> in{'b', 'c', 'a', 'b'};
  const auto s = vle_encode(in, table);
  EXPECT_EQ(s.bits, 7u);
  ASSERT_EQ(s.words.size(), 1u);
  EXPECT_EQ(s.words[0], 0b1011010u << 25);
  EXPECT_EQ(vle_decode(s, in.size(), table), in);
}

TEST(VleReference, RoundTripsFreshSeeds) {
  for (const double bits : {0.5, 2.2, 7.9}) {
    const std::uint64_t seed = parcomp::testing::fresh_seed();
    const std::size_t n = 1 + seed % 50001;
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " bits " << bits);
    const auto in = parcomp::datasets::bytes_with_entropy(n, bits, seed);
    const auto table = canonical_codes(code_lengths(byte_histogram(in), 12));
    const auto s = vle_encode(in, table);
    ASSERT_EQ(vle_decode(s, n, table), in);
    ASSERT_EQ(s.bits, encoded_bits(byte_histogram(in), code_lengths(byte_histogram(in), 12)));
    // The benchmarks' one-pass baseline writes the same stream into a preallocated output.
    std::vector<std::uint32_t> out(s.words.size() + 1, 0xDEADBEEFu);
    ASSERT_EQ(vle_encode_into(in, table, out), s.bits);
    ASSERT_TRUE(std::equal(s.words.begin(), s.words.end(), out.begin()));
    ASSERT_EQ(out.back(), 0xDEADBEEFu) << "vle_encode_into wrote past the stream";
    std::vector<std::uint32_t> out2(s.words.size() + 1, 0xDEADBEEFu);
    ASSERT_EQ(vle_encode_into_branchless(in, table, out2), s.bits);
    ASSERT_TRUE(std::equal(s.words.begin(), s.words.end(), out2.begin()));
    ASSERT_EQ(out2.back(), 0xDEADBEEFu) << "vle_encode_into_branchless wrote past the stream";
  }
}

// The branch-free encoder at its edges: empty input, one symbol, streams of fewer than 32 bits,
// exactly whole words, and codewords of up to 32 bits (words filled by one codeword, two words
// crossed by none), against the oracle; the word after the stream is never written.
TEST(VleReference, BranchFreeEncoderAtItsEdges) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const auto check = [](const std::vector<std::uint8_t>& in, const CodeTable& table) {
    const auto s = vle_encode(in, table);
    std::vector<std::uint32_t> out(s.words.size() + 1, 0xDEADBEEFu);
    ASSERT_EQ(vle_encode_into_branchless(in, table, out), s.bits);
    ASSERT_TRUE(std::equal(s.words.begin(), s.words.end(), out.begin())) << in.size() << " symbols, " << s.bits << " bits";
    ASSERT_EQ(out.back(), 0xDEADBEEFu) << "wrote past the stream";
  };
  // Lengths 1..32 on symbols 0..31 (a code table need not be a prefix code for the encoder).
  CodeTable wide{};
  for (int s = 0; s < 32; ++s) wide[static_cast<std::size_t>(s)] = {static_cast<std::uint32_t>(rng() & ((std::uint64_t{1} << (s + 1)) - 1)), static_cast<std::uint8_t>(s + 1)};
  check({}, wide);
  for (int s = 0; s < 32; ++s) check({static_cast<std::uint8_t>(s)}, wide);
  check({31, 31, 31}, wide);           // whole words, one codeword each
  check({0, 30}, wide);                // 1 + 31 bits: exactly one word
  check({15, 15, 0}, wide);            // 33 bits
  check(std::vector<std::uint8_t>(64, 7), wide);  // all equal: 8 bits each, whole words
  for (int round = 0; round < 200; ++round) {
    std::vector<std::uint8_t> in(rng() % 300);
    for (auto& b : in) b = static_cast<std::uint8_t>(rng() % 32);
    check(in, wide);
  }
}

TEST(VleReference, BadInputsAreErrors) {
  std::array<std::uint8_t, 256> lengths{};
  lengths['a'] = 1;
  lengths['b'] = 1;
  const auto table = canonical_codes(lengths);
  EXPECT_THROW(vle_encode(std::vector<std::uint8_t>{'z'}, table), std::invalid_argument);
  const auto s = vle_encode(std::vector<std::uint8_t>{'a', 'b'}, table);
  EXPECT_THROW(vle_decode(s, 3, table), std::invalid_argument);
}
}  // namespace

namespace {
using namespace parcomp::reference;

TEST(HuffmanStage, CodeRuleLimitsOnlyWhenNeeded) {
  Histogram h{};
  for (int s = 0; s < 40; ++s) h[s * 3] = 100 + static_cast<std::uint64_t>(s % 7);  // a shallow tree
  EXPECT_EQ(huffman_code_lengths(h, 16), huffman_lengths_unlimited(h));  // the limit does not bind
  const auto fib = fibonacci_histogram(40);
  const auto limited = huffman_code_lengths(fib, 16);
  EXPECT_EQ(*std::max_element(limited.begin(), limited.end()), 16);
  EXPECT_EQ(kraft_sum_scaled(limited), std::uint64_t{1} << 32);
  EXPECT_EQ(limited, code_lengths(fib, 16));
}

TEST(HuffmanStage, BlocksRoundTripAndDetectDamage) {
  const auto in = parcomp::datasets::bytes_with_entropy(3 * 4096 + 17, 2.5, 5);
  const auto table = canonical_codes(huffman_code_lengths(byte_histogram(in), 16));
  const auto enc = huffman_blocks_encode(in, table, 4096);
  ASSERT_EQ(enc.block_bytes.size(), 4u);
  std::size_t total = 0;
  for (const auto b : enc.block_bytes) total += b;
  EXPECT_EQ(total, enc.bytes.size());
  EXPECT_EQ(huffman_blocks_decode(enc, in.size(), 4096, table), in);
  auto bad = enc;
  bad.block_bytes[1] += 1;
  EXPECT_THROW(huffman_blocks_decode(bad, in.size(), 4096, table), std::invalid_argument);
  EXPECT_TRUE(huffman_blocks_encode({}, table, 4096).bytes.empty());
}
}  // namespace
