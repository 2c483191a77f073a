// .bz2 test helpers shared by the CPU and GPU tests of the batch decoder (codec/bz2_gpu.hpp):
// the bits of a file's blocks, the CPU reader's verdict on a candidate block to compare a batch's
// results with (same bytes and fields, or the same message), and a writer of randomised blocks.
#pragma once

#include "codec/bz2.hpp"
#include "codec/bz2_gpu.hpp"
#include "core/errors.hpp"
#include "reference/bwt.hpp"
#include "common/bz2_writer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

// bzip2's table for randomised blocks, as libbz2 exports it (randtable.c).
extern "C" int BZ2_rNums[512];

namespace parcomp::testing {

// A .bz2 file of randomised blocks, as bzip2 0.9.0 and older could write (no bzip2 since 0.9.5
// writes them, and none is committed): the reference writer with libbz2's own table.
inline std::vector<std::uint8_t> randomised_bz2(std::span<const std::uint8_t> in, int level) {
  return testing::bz2_compress(in, level, BZ2_rNums);
}

struct Bz2Verdict {
  bool ok = false;
  std::vector<std::uint8_t> bytes;
  bz2::BlockResult r;
  std::string message;
};

// level: the decoder's (its block limit).
inline Bz2Verdict cpu_block_verdict(const bz2::GpuBlockIn& in, int level = 9) {
  Bz2Verdict v;
  bz2::DecodeScratch scratch;
  try {
    v.r = bz2::decode_block(*in.window, in.bit, level, v.bytes, scratch, in.where, in.window_is_end);
    v.ok = true;
  } catch (const CorruptDataError& e) {
    v.message = e.what();
    v.bytes.clear();
  }
  return v;
}

inline Bz2Verdict batch_verdict(const bz2::GpuBlockOut& o) {
  Bz2Verdict v;
  if (o.error) {
    try {
      std::rethrow_exception(o.error);
    } catch (const CorruptDataError& e) {
      v.message = e.what();
    }
  } else {
    v.ok = true;
    v.bytes = o.bytes;
    v.r = o.r;
  }
  return v;
}

// The bits of every block magic on the chain of `file` (one stream), by the CPU reader.
inline std::vector<std::uint64_t> bz2_block_bits(const std::vector<std::uint8_t>& file) {
  std::vector<std::uint64_t> bits;
  bz2::DecodeScratch scratch;
  std::uint64_t bit = bz2::kHeaderBytes * 8;
  for (;;) {
    std::vector<bz2::Magic> m;
    bz2::find_magics(file, bit, bit + 48, m);
    if (m.empty() || m.front().end) break;
    bits.push_back(bit);
    std::vector<std::uint8_t> sink;
    bit = bz2::decode_block(file, bit, 9, sink, scratch, bz2::Where{}).end_bit;
  }
  return bits;
}

// A batch's results against the CPU reader's verdicts, candidate by candidate.
inline void expect_cpu_verdicts(const std::vector<bz2::GpuBlockIn>& blocks, const std::vector<bz2::GpuBlockOut>& outs, const std::string& what) {
  ASSERT_EQ(outs.size(), blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << what << ", candidate " << i << " at bit " << blocks[i].bit);
    const Bz2Verdict want = cpu_block_verdict(blocks[i]);
    const Bz2Verdict got = batch_verdict(outs[i]);
    ASSERT_EQ(got.ok, want.ok) << "batch: " << (got.ok ? "decoded" : got.message) << "; CPU: " << (want.ok ? "decoded" : want.message);
    if (!want.ok) {
      EXPECT_EQ(got.message, want.message);
      continue;
    }
    ASSERT_EQ(got.bytes.size(), want.bytes.size());
    ASSERT_TRUE(got.bytes == want.bytes) << "first difference at byte "
                                         << (std::mismatch(got.bytes.begin(), got.bytes.end(), want.bytes.begin()).first - got.bytes.begin());
    EXPECT_EQ(got.r.stored_crc, want.r.stored_crc);
    EXPECT_EQ(got.r.end_bit, want.r.end_bit);
    EXPECT_EQ(got.r.nblock, want.r.nblock);
    EXPECT_EQ(got.r.bytes, want.r.bytes);
  }
}

// Blocks as the GPU encoder takes them: each input's first bzip2 -9 block (the input is cut to
// it), after the initial run-length stage, sorted by the oracle, one after the other.
struct Bz2BwtBatch {
  std::vector<std::uint8_t> last;
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint32_t> primary, crc;
};
inline Bz2BwtBatch bz2_bwt_batch(std::vector<std::vector<std::uint8_t>>& inputs) {
  Bz2BwtBatch b;
  for (auto& in : inputs) {
    in.resize(bz2::cut_block(in, 9, true));
    std::vector<std::uint8_t> rle;
    bz2::rle1_encode(in, rle);
    const auto t = reference::bwt_rotations(rle);
    b.last.insert(b.last.end(), t.last.begin(), t.last.end());
    b.offsets.push_back(b.last.size());
    b.primary.push_back(t.primary);
    b.crc.push_back(bz2::block_crc(in));
  }
  return b;
}

}  // namespace parcomp::testing
