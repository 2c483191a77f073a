// Every GPU RLE variant bit-exact against the serial oracle, and decode(encode(x)) == x on the GPU.
// Outputs are poisoned before each run and guard elements past the end must stay untouched.
#include "datasets/synthetic.hpp"
#include "gpu_test.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/rle/rle.hpp"
#include "reference/rle.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <vector>

namespace {
using namespace parcomp;
using parcomp::testing::fresh_seed;
using parcomp::testing::GpuTest;
using parcomp::testing::sized;

constexpr std::size_t kGuard = 64;
constexpr std::int32_t kPoison = static_cast<std::int32_t>(0xABABABABu);

bool guard_intact(const std::vector<std::int32_t>& v, std::size_t from) {
  for (std::size_t i = from; i < v.size(); ++i)
    if (v[i] != kPoison) return false;
  return true;
}

struct Variants {
  rle::EncodeVariant encode;
  rle::DecodeVariant decode;
};

void PrintTo(const Variants& v, std::ostream* os) {
  *os << "encode " << rle::name(v.encode) << ", decode " << rle::name(v.decode);
}

// Work runs on a non-blocking stream, as in the benchmarks: the entry points must honour it.
class RleGpu : public GpuTest, public ::testing::WithParamInterface<Variants> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (!IsSkipped()) PARCOMP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_ != nullptr) PARCOMP_CUDA_CHECK_NOTHROW(cudaStreamDestroy(stream_));
  }
  cudaStream_t stream_ = nullptr;

  // GPU encode of `in`, checked against the oracle; returns the device pairs for a round trip.
  void check(const std::vector<std::int32_t>& in) {
    const std::size_t n = in.size();
    const auto want = reference::rle_encode(in);
    const std::size_t runs = want.symbols.size();

    DeviceBuffer<std::int32_t> d_in(n), d_symbols(n + kGuard), d_counts(n + kGuard), d_runs(1), d_out(n + kGuard);
    d_in.upload(in);
    d_symbols.fill_bytes(0xAB);
    d_counts.fill_bytes(0xAB);
    d_runs.fill_bytes(0xAB);
    d_out.fill_bytes(0xAB);
    DeviceBytes enc_scratch(rle::encode_scratch_bytes(GetParam().encode, n));
    rle::encode(GetParam().encode, d_in.data(), n, d_symbols.data(), d_counts.data(), d_runs.data(),
                enc_scratch.data(), enc_scratch.size_bytes(), stream_);
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ASSERT_EQ(static_cast<std::size_t>(d_runs.download()[0]), runs);
    const auto symbols = d_symbols.download(), counts = d_counts.download();
    ASSERT_TRUE(std::equal(want.symbols.begin(), want.symbols.end(), symbols.begin())) << "symbols differ";
    ASSERT_TRUE(std::equal(want.counts.begin(), want.counts.end(), counts.begin())) << "counts differ";
    ASSERT_TRUE(guard_intact(symbols, n)) << "encode wrote past the symbols' capacity";
    ASSERT_TRUE(guard_intact(counts, n)) << "encode wrote past the counts' capacity";

    // Round trip on the GPU from the GPU's own encoding.
    DeviceBytes dec_scratch(rle::decode_scratch_bytes(GetParam().decode, runs, n));
    rle::decode(GetParam().decode, d_symbols.data(), d_counts.data(), runs, n, d_out.data(), dec_scratch.data(),
                dec_scratch.size_bytes(), stream_);
    PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const auto out = d_out.download();
    ASSERT_TRUE(std::equal(in.begin(), in.end(), out.begin())) << "decode(encode(x)) != x";
    ASSERT_TRUE(guard_intact(out, n)) << "decode wrote past the output";
  }
};

TEST_P(RleGpu, Empty) { check({}); }
TEST_P(RleGpu, OneElement) { check({INT_MIN}); }
TEST_P(RleGpu, BlogExample) { check({1, 2, 3, 6, 6, 6, 5, 5}); }
TEST_P(RleGpu, AllEqualOddSize) { check(std::vector<std::int32_t>(sized(1000003, 100003), 7)); }
TEST_P(RleGpu, OneHugeRun) { check(std::vector<std::int32_t>(sized(std::size_t{1} << 24, std::size_t{1} << 18) + 3, INT_MAX)); }

TEST_P(RleGpu, AllDistinct) {
  std::vector<std::int32_t> in(sized(std::size_t{1} << 20, std::size_t{1} << 16) + 1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::int32_t>(i * 2654435761u);
  check(in);
}

TEST_P(RleGpu, RandomOddSizesFreshSeeds) {
  for (int trial = 0; trial < 6; ++trial) {
    const std::uint64_t seed = fresh_seed();
    const std::size_t n = (seed % sized(3000000, 100000)) | 1;
    const double mean = trial == 0 ? 1.0 : static_cast<double>(1 + seed % 300);
    SCOPED_TRACE(::testing::Message() << "seed " << seed << " n " << n << " mean run " << mean);
    check(trial == 0 ? datasets::random_int32(n, seed) : datasets::runs_int32(n, mean, seed));
    if (HasFatalFailure()) return;
  }
}

TEST_P(RleGpu, SmallSizesAroundBlockBoundaries) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const std::size_t n : {2u, 3u, 31u, 32u, 33u, 255u, 256u, 257u, 4095u, 4096u, 4097u}) {
    check(datasets::runs_int32(n, 2.0, seed + n));
    if (HasFatalFailure()) return;
  }
}

// Past 2^31 bytes of input (2^29 + 7 int32 elements), where 32-bit byte offsets would overflow.
TEST_P(RleGpu, LargeBeyondTwoGiB) {
  std::size_t free_bytes = 0, total = 0;
  PARCOMP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const std::size_t n = (std::size_t{1} << 29) + 7;
  if (free_bytes < 16 * n * sizeof(std::int32_t)) GTEST_SKIP() << "needs 32 GiB of free device memory";
  check(datasets::runs_int32(n, 5.0, fresh_seed()));
}

// Counts that sum past n (a corrupt stream) must not write past the output.
TEST_P(RleGpu, CorruptCountsNeverWritePastOutput) {
  const std::size_t n = 1000, runs = 10;
  const std::vector<std::int32_t> symbols{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, counts(runs, 150);
  DeviceBuffer<std::int32_t> d_symbols(runs), d_counts(runs), d_out(n + kGuard);
  d_symbols.upload(symbols);
  d_counts.upload(counts);
  d_out.fill_bytes(0xAB);
  DeviceBytes scratch(rle::decode_scratch_bytes(GetParam().decode, runs, n));
  rle::decode(GetParam().decode, d_symbols.data(), d_counts.data(), runs, n, d_out.data(), scratch.data(),
              scratch.size_bytes(), stream_);
  PARCOMP_CUDA_CHECK(cudaStreamSynchronize(stream_));
  EXPECT_TRUE(guard_intact(d_out.download(), n));
}

TEST_P(RleGpu, TooSmallScratchIsAnError) {
  DeviceBuffer<std::int32_t> d(16);
  DeviceBytes scratch(16);
  EXPECT_THROW(rle::encode(GetParam().encode, d.data(), 16, d.data(), d.data(), d.data(), scratch.data(), 16, stream_),
               ContractError);
}

INSTANTIATE_TEST_SUITE_P(Variants, RleGpu,
                         ::testing::Values(Variants{rle::EncodeVariant::paper, rle::DecodeVariant::paper},
                                           Variants{rle::EncodeVariant::cub, rle::DecodeVariant::cub},
                                           Variants{rle::EncodeVariant::paper, rle::DecodeVariant::cub},
                                           Variants{rle::EncodeVariant::cub, rle::DecodeVariant::paper}),
                         [](const auto& info) {
                           auto clean = [](std::string_view s) { return std::string(s.substr(4)); };
                           return "encode_" + clean(rle::name(info.param.encode)) + "_decode_" +
                                  clean(rle::name(info.param.decode));
                         });

// Contracts are checked before any device work: these run without a GPU too.
TEST(RleContract, TooManyElements) {
  EXPECT_THROW(rle::encode_scratch_bytes(rle::EncodeVariant::paper, rle::kMaxElements + 1), ContractError);
  EXPECT_THROW(rle::decode_scratch_bytes(rle::DecodeVariant::cub, 5, 4), ContractError);
  EXPECT_THROW(rle::decode(rle::DecodeVariant::paper, nullptr, nullptr, 0, 4, nullptr, nullptr, 0, nullptr), ContractError);
}
}  // namespace
