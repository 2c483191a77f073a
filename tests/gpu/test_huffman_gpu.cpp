// The Huffman stage on the GPU against the serial reference: histograms, the tree's code lengths
// (both tree kernels), the thesis's byte-aligned block encoding bit for bit, and decoding.
#include "datasets/synthetic.hpp"
#include "gpu_test.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/huffman/huffman.hpp"
#include "reference/huffman.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {
using namespace parcomp;
using parcomp::testing::fresh_seed;
using parcomp::testing::GpuTest;
using parcomp::testing::sized;

class HuffmanGpu : public GpuTest {};

std::array<std::uint8_t, 256> gpu_tree(huffman::Variant v, const reference::Histogram& h, std::uint32_t* depth_out) {
  DeviceBuffer<std::uint64_t> d_hist(256);
  DeviceBuffer<std::uint8_t> d_lengths(256);
  DeviceBuffer<std::uint32_t> d_depth(1);
  d_hist.upload(std::span<const std::uint64_t>(h.data(), 256));
  huffman::tree(v, d_hist.data(), d_lengths.data(), d_depth.data(), nullptr);
  const auto l = d_lengths.download();
  *depth_out = d_depth.download()[0];
  std::array<std::uint8_t, 256> out{};
  std::copy(l.begin(), l.end(), out.begin());
  return out;
}

TEST_F(HuffmanGpu, HistogramsMatch) {
  for (const auto v : {huffman::Variant::paper, huffman::Variant::fast}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097}, sized(3000017, 300017)}) {
      const std::uint64_t seed = fresh_seed();
      SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " variant " << static_cast<int>(v));
      const auto in = datasets::bytes_with_entropy(n, 3.0, seed);
      DeviceBuffer<std::uint8_t> d_in(std::max<std::size_t>(n, 1));
      DeviceBuffer<std::uint64_t> d_hist(256);
      d_in.upload(in);
      d_hist.fill_bytes(0xAB);
      DeviceBytes scratch(huffman::histogram_scratch_bytes(v, n));
      huffman::histogram(v, d_in.data(), n, d_hist.data(), scratch.data(), scratch.size_bytes(), nullptr);
      const auto got = d_hist.download();
      const auto want = reference::byte_histogram(in);
      ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
    }
  }
}

TEST_F(HuffmanGpu, TreesMatchTheReference) {
  std::vector<reference::Histogram> cases;
  reference::Histogram h{};
  h['x'] = 5;
  cases.push_back(h);  // one symbol
  h['y'] = 5;
  cases.push_back(h);  // two, tied
  h.fill(7);
  cases.push_back(h);  // all 256 equal: ties everywhere
  cases.push_back(reference::fibonacci_histogram(60));  // deepest tree (59 levels)
  cases.push_back(reference::byte_histogram(datasets::bytes_with_entropy(1 << 20, 2.0, fresh_seed())));
  for (int r = 0; r < 5; ++r) {
    datasets::Rng rng(fresh_seed());
    reference::Histogram random{};
    for (auto& c : random) c = rng.next() % 4 == 0 ? 0 : rng.next() % 1000;  // many repeated weights
    cases.push_back(random);
  }
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto want = reference::huffman_lengths_unlimited(cases[k]);
    const auto depth_want = *std::max_element(want.begin(), want.end());
    for (const auto v : {huffman::Variant::paper, huffman::Variant::fast}) {
      SCOPED_TRACE(::testing::Message() << "case " << k << " variant " << static_cast<int>(v));
      std::uint32_t depth = 0;
      const auto got = gpu_tree(v, cases[k], &depth);
      EXPECT_EQ(got, want);
      EXPECT_EQ(depth, depth_want);
      // The stage's code from the GPU tree's lengths: limited to 16 bits when the tree is deeper.
      const auto code = huffman::code_from_lengths(got, cases[k]);
      EXPECT_EQ(code.lengths, reference::huffman_code_lengths(cases[k], huffman::kMaxCodeLength));
    }
  }
}

void encode_decode_check(const std::vector<std::uint8_t>& in) {
  const auto hist = reference::byte_histogram(in);
  const auto code = huffman::code_from_lengths(reference::huffman_lengths_unlimited(hist), hist);
  const auto want = reference::huffman_blocks_encode(in, code.table, huffman::kBlockSymbols);
  const std::size_t n = in.size(), blocks = huffman::block_count(n);
  const int max_length = std::max(1, code.packed.max_length);
  const std::size_t cap = huffman::paper_output_bytes(n, max_length);
  DeviceBuffer<std::uint8_t> d_in(std::max<std::size_t>(n, 1)), d_out(cap + 16), d_back(n + 16);
  DeviceBuffer<std::uint32_t> d_table(256), d_sizes(blocks + 1), d_status(huffman::kDecodeStatusWords);
  DeviceBuffer<std::uint64_t> d_total(1);
  DeviceBuffer<vle::DecodeTable> d_decode(1);
  d_in.upload(in);
  d_table.upload(std::span<const std::uint32_t>(code.packed.entries, 256));
  d_decode.upload(std::span<const vle::DecodeTable>(&code.decode, 1));
  d_out.fill_bytes(0xAB);
  d_back.fill_bytes(0xCD);
  DeviceBytes scratch(huffman::paper_encode_scratch_bytes(n));
  huffman::encode_paper(d_in.data(), n, d_table.data(), max_length, d_out.data(), cap, d_sizes.data(), d_total.data(),
                        scratch.data(), scratch.size_bytes(), nullptr);
  ASSERT_EQ(d_total.download()[0], want.bytes.size());
  const auto sizes = d_sizes.download(blocks);
  ASSERT_EQ(sizes, want.block_bytes);
  const auto out = d_out.download();
  for (std::size_t i = 0; i < want.bytes.size(); ++i) ASSERT_EQ(out[i], want.bytes[i]) << "byte " << i;
  for (std::size_t i = want.bytes.size(); i < out.size(); ++i) ASSERT_EQ(out[i], 0xAB) << "wrote past the data";
  if (n == 0) return;
  DeviceBytes dscratch(huffman::paper_decode_scratch_bytes(n));
  for (const auto method : {huffman::DecodeMethod::bit_serial, huffman::DecodeMethod::lut}) {
    SCOPED_TRACE(method == huffman::DecodeMethod::bit_serial ? "bit-serial decoder" : "lookup-table decoder");
    d_back.fill_bytes(0xCD);
    huffman::decode_paper(d_out.data(), want.bytes.size(), d_sizes.data(), n, d_decode.data(), d_back.data(),
                          d_status.data(), dscratch.data(), dscratch.size_bytes(), nullptr, method);
    huffman::check_decode_status(d_status.data(), nullptr);
    const auto back = d_back.download();
    ASSERT_TRUE(std::equal(in.begin(), in.end(), back.begin())) << "GPU round trip";
    for (std::size_t i = n; i < back.size(); ++i) ASSERT_EQ(back[i], 0xCD) << "decode wrote past its output";
  }
}

TEST_F(HuffmanGpu, PaperBlocksBitExactAndRoundTrip) {
  for (const double bits : {0.5, 2.0, 5.0, 8.0}) {
    const std::uint64_t seed = fresh_seed();
    const std::size_t n = 4096 * (1 + seed % sized(300, 6)) + seed % 4097;
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " bits " << bits);
    encode_decode_check(datasets::bytes_with_entropy(n, bits, seed));
    if (HasFatalFailure()) return;
  }
  for (const std::size_t n : {0u, 1u, 3u, 4095u, 4096u, 4097u}) {
    SCOPED_TRACE(::testing::Message() << "n " << n);
    encode_decode_check(datasets::bytes_with_entropy(n, 4.0, fresh_seed()));
    if (HasFatalFailure()) return;
  }
  encode_decode_check(std::vector<std::uint8_t>(100000, 'q'));  // one symbol: 1-bit codes
  if (HasFatalFailure()) return;
  // Fibonacci frequencies: the tree is 59 deep, the stage limits the code to 16 bits.
  const auto fib = reference::fibonacci_histogram(40);
  std::vector<std::uint8_t> in;
  for (int s = 0; s < 40; ++s) in.insert(in.end(), std::min<std::uint64_t>(fib[s], 20000), static_cast<std::uint8_t>(s));
  std::shuffle(in.begin(), in.end(), std::mt19937_64(fresh_seed()));
  encode_decode_check(in);
}

TEST_F(HuffmanGpu, CorruptBlocksAreReported) {
  const auto in = datasets::bytes_with_entropy(50000, 3.0, fresh_seed());
  const auto hist = reference::byte_histogram(in);
  const auto code = huffman::code_from_lengths(reference::huffman_lengths_unlimited(hist), hist);
  const auto enc = reference::huffman_blocks_encode(in, code.table, huffman::kBlockSymbols);
  DeviceBuffer<std::uint8_t> d_data(enc.bytes.size()), d_out(in.size());
  DeviceBuffer<std::uint32_t> d_sizes(enc.block_bytes.size()), d_status(huffman::kDecodeStatusWords);
  DeviceBuffer<vle::DecodeTable> d_decode(1);
  d_decode.upload(std::span<const vle::DecodeTable>(&code.decode, 1));
  DeviceBytes scratch(huffman::paper_decode_scratch_bytes(in.size()));
  huffman::DecodeMethod method = huffman::DecodeMethod::bit_serial;
  auto run = [&] {
    huffman::decode_paper(d_data.data(), enc.bytes.size(), d_sizes.data(), in.size(), d_decode.data(), d_out.data(),
                          d_status.data(), scratch.data(), scratch.size_bytes(), nullptr, method);
    huffman::check_decode_status(d_status.data(), nullptr);
  };
  for (const auto m : {huffman::DecodeMethod::bit_serial, huffman::DecodeMethod::lut}) {
    method = m;
    d_data.upload(enc.bytes);
    auto sizes = enc.block_bytes;
    sizes[3] += 1;  // a wrong size
    d_sizes.upload(sizes);
    EXPECT_THROW(run(), CorruptDataError);
    sizes = enc.block_bytes;
    sizes.back() += 100000;  // runs past the data
    d_sizes.upload(sizes);
    EXPECT_THROW(run(), CorruptDataError);
    d_sizes.upload(enc.block_bytes);
    run();  // intact
  }
}

}  // namespace
