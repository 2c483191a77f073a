// Every PAVLE kernel configuration bit-exact against the serial encoder (reference/vle.hpp), and
// every encoded stream decoded on the GPU back to its input.
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
using parcomp::testing::sized;

struct Split {
  std::array<std::uint32_t, 256> codes{};
  std::array<std::uint8_t, 256> lengths{};
};
Split split(const reference::CodeTable& t) {
  Split s;
  for (int i = 0; i < 256; ++i) {
    s.codes[i] = t[i].bits;
    s.lengths[i] = t[i].length;
  }
  return s;
}
vle::PackedTable pack(const reference::CodeTable& t) {
  const Split s = split(t);
  return vle::pack_table(s.codes, s.lengths);
}

// Decodes a stream on the GPU; returns the bytes (throws CorruptDataError on a bad stream).
std::vector<std::uint8_t> gpu_decode(const DeviceBuffer<std::uint32_t>& d_words, std::size_t words,
                                     const DeviceBuffer<std::uint64_t>& d_bits, const DeviceBuffer<std::uint64_t>& d_index,
                                     std::size_t n, const reference::CodeTable& table) {
  const Split s = split(table);
  const vle::DecodeTable dt = vle::make_decode_table(s.codes, s.lengths);
  DeviceBuffer<vle::DecodeTable> d_table(1);
  d_table.upload(std::span<const vle::DecodeTable>(&dt, 1));
  DeviceBuffer<std::uint8_t> d_out(n + 64);
  DeviceBuffer<std::uint32_t> d_status(vle::kDecodeStatusWords);
  d_out.fill_bytes(0xCD);
  vle::decode(d_words.data(), words, d_bits.data(), d_index.data(), n, d_table.data(), d_out.data(), d_status.data(),
              nullptr);
  vle::check_decode_status(d_status.data(), nullptr);
  const auto out = d_out.download();
  for (std::size_t i = n; i < out.size(); ++i)
    if (out[i] != 0xCD) throw std::runtime_error("decode wrote past its output at byte " + std::to_string(i));
  return {out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n)};
}

class VleGpu : public GpuTest, public ::testing::WithParamInterface<vle::Config> {
 protected:
  int limit() const { return vle::max_code_length(GetParam().kernel); }

  void check(const std::vector<std::uint8_t>& in, const reference::CodeTable& table) {
    const auto want = reference::vle_encode(in, table);
    const vle::PackedTable packed = pack(table);
    const std::size_t n = in.size(), words = vle::output_words(n, packed.max_length);
    DeviceBuffer<std::uint8_t> d_in(std::max<std::size_t>(n, 1));
    DeviceBuffer<std::uint32_t> d_table(256), d_out(words + 16);
    DeviceBuffer<std::uint64_t> d_bits(1), d_index(std::max<std::size_t>(vle::index_entries(n), 1));
    d_in.upload(in);
    d_table.upload(std::span<const std::uint32_t>(packed.entries, 256));
    d_out.fill_bytes(0xAB);
    vle::zero_output(GetParam(), d_out.data(), words, nullptr);  // the paper kernels OR into zeros
    DeviceBytes scratch(vle::scratch_bytes(GetParam(), n));
    vle::encode(GetParam(), d_in.data(), n, d_table.data(), packed.max_length, d_out.data(), words, d_bits.data(),
                scratch.data(), scratch.size_bytes(), nullptr, d_index.data());
    PARCOMP_CUDA_CHECK(cudaDeviceSynchronize());
    ASSERT_EQ(d_bits.download()[0], want.bits);
    const auto out = d_out.download();
    for (std::size_t i = 0; i < want.words.size(); ++i) ASSERT_EQ(out[i], want.words[i]) << "word " << i;
    // The paper kernels write only into the zeroed output; gpu.fast writes only the stream's words.
    const std::uint32_t tail = GetParam().kernel == vle::Kernel::fast ? 0xABABABABu : 0u;
    for (std::size_t i = want.words.size(); i < words; ++i) ASSERT_EQ(out[i], tail) << "tail word " << i;
    for (std::size_t i = words; i < out.size(); ++i) ASSERT_EQ(out[i], 0xABABABABu) << "wrote past the output";
    if (n == 0) return;
    // The index, then the GPU round trip.
    const auto index = d_index.download(vle::index_entries(n));
    for (std::size_t k = 0; k < index.size(); ++k) {
      std::uint64_t bit = 0;
      for (std::size_t i = 0; i < k * vle::kIndexStride; ++i) bit += table[in[i]].length;
      ASSERT_EQ(index[k], bit) << "index entry " << k;
      if (k > 64) break;  // the first entries suffice; the decoder checks the rest
    }
    ASSERT_EQ(gpu_decode(d_out, words, d_bits, d_index, n, table), in) << "GPU round trip";
  }
  reference::CodeTable table_for(const std::vector<std::uint8_t>& in, int max_length) {
    return reference::canonical_codes(reference::code_lengths(reference::byte_histogram(in), max_length));
  }
};

TEST_P(VleGpu, EntropiesAndOddSizes) {
  for (const double bits : {0.5, 2.2, 5.0, 8.0}) {
    const std::uint64_t seed = fresh_seed();
    const std::size_t n = 1 + seed % sized(1000003, 30003);
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
  const std::vector<std::uint8_t> in(sized(77777, 7777), 'q');
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
  std::vector<std::uint8_t> in(sized(300001, 20001));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = longest[i % longest.size()];
  check(in, reference::canonical_codes(lengths));
}

// Past 2^31 symbols (64-bit offsets and indices): gpu.fast and one paper kernel (the oracle takes
// seconds per run), instantiated for those two alone below; skips only for lack of device memory.
class VleLargeGpu : public VleGpu {};
TEST_P(VleLargeGpu, LargeBeyondTwoGiB) {
  const std::size_t n = (std::size_t{1} << 31) + 13;
  std::size_t free_bytes = 0, total_bytes = 0;
  PARCOMP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < 4 * n) GTEST_SKIP() << "needs " << 4 * n << " bytes of free device memory";
  static const std::vector<std::uint8_t> in = datasets::bytes_with_entropy(n, 2.2, fresh_seed());
  check(in, table_for(in, 8));
}

TEST_P(VleGpu, TooLongCodesAreRefused) {
  const auto h = reference::fibonacci_histogram(60);
  const auto table = reference::canonical_codes(reference::code_lengths(h, limit() + 1));
  if (limit() + 1 > 24) return;  // gpu.fast: the packed table itself refuses them (VleContract below)
  const auto packed = pack(table);
  DeviceBuffer<std::uint8_t> d_in(64);
  DeviceBuffer<std::uint32_t> d_table(256), d_out(1024);
  DeviceBuffer<std::uint64_t> d_bits(1);
  EXPECT_THROW(vle::encode(GetParam(), d_in.data(), 64, d_table.data(), packed.max_length, d_out.data(), 1024,
                           d_bits.data(), nullptr, 0, nullptr),
               ContractError);
}

// Checked on the host: runs without a GPU too (CI).
TEST(VleContract, CodesOver24BitsAreRefusedByThePackedTable) {
  const auto table = reference::canonical_codes(reference::code_lengths(reference::fibonacci_histogram(60), 25));
  EXPECT_THROW(pack(table), ContractError);
}

vle::Config cfg(vle::Kernel k, unsigned dpt, bool tc, bool ac) { return {k, dpt, tc, ac, 256}; }

// A damaged stream or index is a CorruptDataError naming the subsequence, never a crash.
class VleDecodeGpu : public GpuTest {};

TEST_F(VleDecodeGpu, CorruptStreamsAreReported) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const auto in = datasets::bytes_with_entropy(100000, 3.0, seed);
  // A code that does not fill the code space (Kraft sum < 1): some bit patterns match nothing.
  auto lengths = reference::code_lengths(reference::byte_histogram(in), 12);
  for (auto& l : lengths)
    if (l != 0 && l < 12) ++l;
  const auto table = reference::canonical_codes(lengths);
  const auto want = reference::vle_encode(in, table);
  const vle::PackedTable packed = pack(table);
  const vle::Config c = cfg(vle::Kernel::fast, 1, false, false);
  const std::size_t words = vle::output_words(in.size(), packed.max_length);
  DeviceBuffer<std::uint8_t> d_in(in.size());
  DeviceBuffer<std::uint32_t> d_table(256), d_out(words);
  DeviceBuffer<std::uint64_t> d_bits(1), d_index(vle::index_entries(in.size()));
  DeviceBytes scratch(vle::scratch_bytes(c, in.size()));
  d_in.upload(in);
  d_table.upload(std::span<const std::uint32_t>(packed.entries, 256));
  vle::encode(c, d_in.data(), in.size(), d_table.data(), packed.max_length, d_out.data(), words, d_bits.data(),
              scratch.data(), scratch.size_bytes(), nullptr, d_index.data());
  ASSERT_EQ(gpu_decode(d_out, words, d_bits, d_index, in.size(), table), in);
  const auto index = d_index.download();
  // A wrong index entry, a wrong bit count, flipped stream bits: each is reported.
  auto shifted = index;
  shifted[7] += 3;
  d_index.upload(shifted);
  EXPECT_THROW(gpu_decode(d_out, words, d_bits, d_index, in.size(), table), CorruptDataError);
  d_index.upload(index);
  const std::vector<std::uint64_t> short_bits{want.bits - 40};
  d_bits.upload(short_bits);
  EXPECT_THROW(gpu_decode(d_out, words, d_bits, d_index, in.size(), table), CorruptDataError);
  const std::vector<std::uint64_t> huge_bits{std::uint64_t{1} << 40};
  d_bits.upload(huge_bits);
  EXPECT_THROW(gpu_decode(d_out, words, d_bits, d_index, in.size(), table), CorruptDataError);
  d_bits.upload(std::vector<std::uint64_t>{want.bits});
  auto stream = want.words;
  for (std::size_t i = 100; i < stream.size(); i += 97) stream[i] = ~stream[i];
  d_out.upload(stream);
  EXPECT_THROW(gpu_decode(d_out, words, d_bits, d_index, in.size(), table), CorruptDataError);
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, VleGpu,
    ::testing::Values(cfg(vle::Kernel::gm32, 1, false, false), cfg(vle::Kernel::gm32, 1, true, false),
                      cfg(vle::Kernel::gm32, 4, true, true), cfg(vle::Kernel::sm32, 1, false, false),
                      cfg(vle::Kernel::sm32, 1, true, false), cfg(vle::Kernel::sm32, 2, true, false),
                      cfg(vle::Kernel::sm32, 4, true, false), cfg(vle::Kernel::sm32, 8, true, false),
                      cfg(vle::Kernel::sm32, 1, true, true), cfg(vle::Kernel::sm32, 4, true, true),
                      cfg(vle::Kernel::sm64huff, 1, false, false), cfg(vle::Kernel::sm64huff, 1, true, false),
                      cfg(vle::Kernel::sm64huff, 4, true, true), cfg(vle::Kernel::fast, 1, false, false),
                      vle::Config{vle::Kernel::fast, 1, false, false, 256, 32}),
    [](const auto& info) {
      std::string s = vle::name(info.param).substr(4);
      std::replace(s.begin(), s.end(), '.', '_');
      return s;
    });
INSTANTIATE_TEST_SUITE_P(Kernels, VleLargeGpu,
                         ::testing::Values(cfg(vle::Kernel::fast, 1, false, false), cfg(vle::Kernel::sm32, 4, true, false)),
                         [](const auto& info) {
                           std::string s = vle::name(info.param).substr(4);
                           std::replace(s.begin(), s.end(), '.', '_');
                           return s;
                         });
}  // namespace
