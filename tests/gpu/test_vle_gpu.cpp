// Every PAVLE kernel configuration bit-exact against the serial encoder (reference/vle.hpp).
#include "datasets/synthetic.hpp"
#include "gpu_test.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/vle/vle.hpp"
#include "reference/huffman.hpp"
#include "reference/vle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace parcomp::vle {
// How gtest prints a parameter (found by argument-dependent lookup).
inline void PrintTo(const Config& c, std::ostream* os) { *os << name(c); }
}  // namespace parcomp::vle

namespace {
using namespace parcomp;
using parcomp::testing::fresh_seed;
using parcomp::testing::GpuTest;

vle::PackedTable pack(const reference::CodeTable& t) {
  std::array<std::uint32_t, 256> codes{};
  std::array<std::uint8_t, 256> lengths{};
  for (int s = 0; s < 256; ++s) {
    codes[s] = t[s].bits;
    lengths[s] = t[s].length;
  }
  return vle::pack_table(codes, lengths);
}

class VleGpu : public GpuTest, public ::testing::WithParamInterface<vle::Config> {
 protected:
  int limit() const { return GetParam().kernel == vle::Kernel::sm64huff ? 16 : 8; }

  void check(const std::vector<std::uint8_t>& in, const reference::CodeTable& table) {
    const auto want = reference::vle_encode(in, table);
    const vle::PackedTable packed = pack(table);
    const std::size_t n = in.size(), words = vle::output_words(n, packed.max_length);
    DeviceBuffer<std::uint8_t> d_in(std::max<std::size_t>(n, 1));
    DeviceBuffer<std::uint32_t> d_table(256), d_out(words + 16);
    DeviceBuffer<std::uint64_t> d_bits(1);
    d_in.upload(in);
    d_table.upload(std::span<const std::uint32_t>(packed.entries, 256));
    d_out.fill_bytes(0xAB);
    DeviceBytes scratch(vle::scratch_bytes(GetParam(), n));
    vle::encode(GetParam(), d_in.data(), n, d_table.data(), packed.max_length, d_out.data(), words, d_bits.data(),
                scratch.data(), scratch.size_bytes(), nullptr);
    PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(d_bits.download()[0], want.bits);
    const auto out = d_out.download();
    for (std::size_t i = 0; i < want.words.size(); ++i) ASSERT_EQ(out[i], want.words[i]) << "word " << i;
    for (std::size_t i = want.words.size(); i < words; ++i) ASSERT_EQ(out[i], 0u) << "tail word " << i << " not zero";
    for (std::size_t i = words; i < out.size(); ++i) ASSERT_EQ(out[i], 0xABABABABu) << "wrote past the output";
  }
  reference::CodeTable table_for(const std::vector<std::uint8_t>& in, int max_length) {
    return reference::canonical_codes(reference::code_lengths(reference::byte_histogram(in), max_length));
  }
};

TEST_P(VleGpu, EntropiesAndOddSizes) {
  for (const double bits : {0.5, 2.2, 5.0, 8.0}) {
    const std::uint64_t seed = fresh_seed();
    const std::size_t n = 1 + seed % 1000003;
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " bits " << bits);
    const auto in = datasets::bytes_with_entropy(n, bits, seed);
    check(in, table_for(in, limit()));
    if (HasFatalFailure()) return;
  }
}

TEST_P(VleGpu, SmallSizes) {
  const auto in = datasets::bytes_with_entropy(5000, 3.0, fresh_seed());
  const auto table = table_for(in, limit());
  for (const std::size_t n : {0u, 1u, 2u, 3u, 4u, 5u, 31u, 33u, 1023u, 1025u, 4097u}) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    check(std::vector<std::uint8_t>(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n)), table);
    if (HasFatalFailure()) return;
  }
}

TEST_P(VleGpu, OneSymbolOnly) {
  const std::vector<std::uint8_t> in(77777, 'q');
  check(in, table_for(in, limit()));
}

// Every symbol of the input has the table's longest codeword: aggregates of 4 x limit bits.
TEST_P(VleGpu, EverySymbolWithTheLongestCode) {
  const auto h = reference::fibonacci_histogram(60);
  const auto lengths = reference::code_lengths(h, limit());
  std::vector<std::uint8_t> longest;
  for (int s = 0; s < 256; ++s)
    if (lengths[s] == limit()) longest.push_back(static_cast<std::uint8_t>(s));
  ASSERT_FALSE(longest.empty());
  std::vector<std::uint8_t> in(300001);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = longest[i % longest.size()];
  check(in, reference::canonical_codes(lengths));
}

TEST_P(VleGpu, TooLongCodesAreRefused) {
  const auto h = reference::fibonacci_histogram(60);
  const auto packed = pack(reference::canonical_codes(reference::code_lengths(h, limit() + 1)));
  DeviceBuffer<std::uint8_t> d_in(64);
  DeviceBuffer<std::uint32_t> d_table(256), d_out(1024);
  DeviceBuffer<std::uint64_t> d_bits(1);
  EXPECT_THROW(vle::encode(GetParam(), d_in.data(), 64, d_table.data(), packed.max_length, d_out.data(), 1024,
                           d_bits.data(), nullptr, 0, nullptr),
               ContractError);
}

vle::Config cfg(vle::Kernel k, unsigned dpt, bool tc, bool ac) { return {k, dpt, tc, ac, 256}; }

INSTANTIATE_TEST_SUITE_P(
    Kernels, VleGpu,
    ::testing::Values(cfg(vle::Kernel::gm32, 1, false, false), cfg(vle::Kernel::gm32, 1, true, false),
                      cfg(vle::Kernel::gm32, 4, true, true), cfg(vle::Kernel::sm32, 1, false, false),
                      cfg(vle::Kernel::sm32, 1, true, false), cfg(vle::Kernel::sm32, 2, true, false),
                      cfg(vle::Kernel::sm32, 4, true, false), cfg(vle::Kernel::sm32, 8, true, false),
                      cfg(vle::Kernel::sm32, 1, true, true), cfg(vle::Kernel::sm32, 4, true, true),
                      cfg(vle::Kernel::sm64huff, 1, false, false), cfg(vle::Kernel::sm64huff, 1, true, false),
                      cfg(vle::Kernel::sm64huff, 4, true, true)),
    [](const auto& info) {
      std::string s = vle::name(info.param).substr(4);
      std::replace(s.begin(), s.end(), '.', '_');
      return s;
    });
}  // namespace
