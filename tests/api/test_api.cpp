// The public API (include/parcomp/), through the shared library alone: .bz2 bytes against libbz2
// (the oracle), the parcomp format's round trip, the error hierarchy, two calls at once in one
// process, and the C API's codes, buffers, descriptors and callbacks. CPU workers only: these run
// the same with and without a GPU.
#include <parcomp/parcomp.h>
#include <parcomp/parcomp.hpp>

#include "common/libbz2.hpp"
#include "common/sample_inputs.hpp"
#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace {

using Bytes = std::vector<std::uint8_t>;
using parcomp::testing::fresh_seed;

parcomp::Options cpu(int threads = 2) {
  parcomp::Options o;
  o.use_gpus = false;
  o.threads = threads;
  return o;
}

// Inputs of odd sizes, empty, one byte, all equal, text.
std::vector<Bytes> inputs(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return {Bytes{}, Bytes{'x'}, Bytes(250000 + rng() % 1000, 'a'), parcomp::testing::word_text(1 + rng() % 3000000, seed)};
}

TEST(Api, Bz2IsLibbz2sBytesAndReadsLibbz2sFiles) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  for (const Bytes& in : inputs(seed)) {
    for (const int level : {1, 9}) {
      SCOPED_TRACE(::testing::Message() << in.size() << " bytes, level " << level);
      parcomp::Options o = cpu();
      o.level = level;
      const Bytes ours = parcomp::compress(in, o);
      EXPECT_TRUE(ours == parcomp::testing::libbz2_compress(in, level));
      EXPECT_TRUE(parcomp::decompress(ours, cpu()) == in);
      EXPECT_TRUE(parcomp::decompress(parcomp::testing::libbz2_compress(in, level), cpu(1)) == in);
    }
  }
}

TEST(Api, TheParcompFormatRoundTripsThroughSourcesAndSinks) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = parcomp::testing::word_text(2000000 + seed % 1000, seed);
  parcomp::Options o = cpu();
  o.format = parcomp::Format::parcomp;
  parcomp::MemorySource src(in);
  parcomp::VectorSink packed;
  const parcomp::Stats st = parcomp::compress(src, packed, o);
  EXPECT_EQ(st.original_bytes, in.size());
  EXPECT_EQ(st.compressed_bytes, packed.bytes.size());
  EXPECT_EQ(st.format, parcomp::Format::parcomp);
  std::size_t at = 0;  // a source that gives at most 777 bytes a call
  parcomp::CallbackSource pieces([&](std::uint8_t* buf, std::size_t max) {
    const std::size_t n = std::min({max, std::size_t{777}, packed.bytes.size() - at});
    std::memcpy(buf, packed.bytes.data() + at, n);
    at += n;
    return n;
  });
  Bytes back;
  parcomp::CallbackSink collect([&](const std::uint8_t* buf, std::size_t n) { back.insert(back.end(), buf, buf + n); });
  EXPECT_EQ(parcomp::decompress(pieces, collect, cpu()).format, parcomp::Format::parcomp);
  EXPECT_TRUE(back == in);
}

TEST(Api, ErrorsAreOneHierarchy) {
  const Bytes in = parcomp::testing::word_text(300000, 1);
  Bytes damaged = parcomp::compress(in, cpu());
  damaged[damaged.size() / 2] ^= 0x10;
  EXPECT_THROW(parcomp::decompress(damaged, cpu()), parcomp::CorruptDataError);
  EXPECT_THROW(parcomp::decompress(Bytes{'n', 'o', 't'}, cpu()), parcomp::CorruptDataError);
  parcomp::Options bad = cpu();
  bad.level = 0;
  EXPECT_THROW(parcomp::compress(in, bad), parcomp::ContractError);
  parcomp::MemorySource src(in);
  parcomp::CallbackSink full([](const std::uint8_t*, std::size_t) { throw parcomp::IoError("no space left"); });
  EXPECT_THROW(parcomp::compress(src, full, cpu()), parcomp::IoError);
  try {
    parcomp::decompress(damaged, cpu());
  } catch (const parcomp::Error& e) {  // every kind is a parcomp::Error
    EXPECT_NE(std::string(e.what()).find("CRC"), std::string::npos) << e.what();
  }
  EXPECT_NE(std::string(parcomp::version()).find("0."), std::string::npos);
}

// Two calls at once in one process, each on its own threads, give each its own bytes.
TEST(Api, TwoCompressionsAtOnce) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes a = parcomp::testing::word_text(2500000, seed), b = parcomp::testing::word_text(1800000, seed + 1);
  Bytes pa, pb;
  std::thread t([&] { pa = parcomp::compress(a, cpu(2)); });
  pb = parcomp::compress(b, cpu(2));
  t.join();
  EXPECT_TRUE(pa == parcomp::testing::libbz2_compress(a, 9));
  EXPECT_TRUE(pb == parcomp::testing::libbz2_compress(b, 9));
}

// Incremental work: pieces of random sizes pushed, the output taken as it comes, then the rest;
// the bytes are libbz2's, and decompression gives the input back.
TEST(Api, StreamsInPiecesGiveTheWholeCallsBytes) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (const Bytes& in : inputs(seed)) {
    SCOPED_TRACE(::testing::Message() << in.size() << " bytes");
    const auto run = [&](parcomp::Stream::Direction d, const Bytes& from) {
      parcomp::Stream s(d, cpu());
      Bytes out;
      for (std::size_t at = 0; at < from.size();) {
        const std::size_t n = std::min<std::size_t>(from.size() - at, 1 + rng() % 300000);
        const Bytes part = s.push(std::span(from).subspan(at, n));
        out.insert(out.end(), part.begin(), part.end());
        at += n;
      }
      const Bytes rest = s.finish();
      out.insert(out.end(), rest.begin(), rest.end());
      EXPECT_EQ(s.stats().original_bytes, d == parcomp::Stream::Direction::compress ? from.size() : out.size());
      return out;
    };
    const Bytes packed = run(parcomp::Stream::Direction::compress, in);
    EXPECT_TRUE(packed == parcomp::testing::libbz2_compress(in, 9));
    EXPECT_TRUE(run(parcomp::Stream::Direction::decompress, packed) == in);
  }
}

TEST(Api, StreamsReportErrorsAndMayBeAbandoned) {
  const Bytes in = parcomp::testing::word_text(2000000, 7);
  Bytes damaged = parcomp::compress(in, cpu());
  damaged[damaged.size() / 3] ^= 0x08;
  {
    parcomp::Stream s(parcomp::Stream::Direction::decompress, cpu());
    EXPECT_THROW({
      s.push(damaged);
      s.finish();
    }, parcomp::CorruptDataError);
  }
  {
    parcomp::Stream s(parcomp::Stream::Direction::compress, cpu());
    s.push(in);
    EXPECT_FALSE(s.finish().empty());
    EXPECT_THROW(s.finish(), parcomp::ContractError);
    EXPECT_THROW(s.push(in), parcomp::ContractError);
  }
  for (int k = 0; k < 3; ++k) {  // destroyed before finish(): the work stops, nothing hangs
    parcomp::Stream s(parcomp::Stream::Direction::compress, cpu());
    s.push(std::span(in).subspan(0, 100000 * static_cast<std::size_t>(k)));
  }
}

// A Reader's output taken in reads of odd sizes is the whole call's, both ways; its memory waits
// for read() (a large output through a small read); an error comes after the output before it;
// a Reader destroyed half read abandons its work.
TEST(Api, FdSourceReadsAFileInPiecesOnThreadsAndNamesItsFailures) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes data((5u << 20) + rng() % 100000);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  char path[] = "/tmp/parcomp-fdsource-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  const std::size_t skip = 1 + rng() % 1000;  // read_full starts where the file stands
  ASSERT_EQ(::lseek(fd, static_cast<off_t>(skip), SEEK_SET), static_cast<off_t>(skip));
  parcomp::FdSource src(fd, "the file");
  Bytes got(data.size() + 12345);
  const std::size_t first = (2u << 20) + rng() % 4096;
  ASSERT_EQ(src.read_full(got.data(), first, 1 + static_cast<unsigned>(rng() % 8)), first);
  const std::size_t rest = src.read_full(got.data() + first, got.size() - first, 4);  // past the end: short
  ASSERT_EQ(first + rest, data.size() - skip);
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(first + rest), data.begin() + static_cast<std::ptrdiff_t>(skip)));
  EXPECT_EQ(src.read(got.data(), got.size()), 0u);  // the offset moved past what was read
  ::close(fd);
  const int wfd = ::open(path, O_WRONLY);
  ASSERT_GE(wfd, 0);
  parcomp::FdSource bad(wfd, "the file");
  try {
    bad.read(got.data(), 10);
    ADD_FAILURE() << "a read from a write-only descriptor succeeded";
  } catch (const parcomp::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("read failed: the file: "), std::string::npos) << e.what();
  }
  ::close(wfd);
  ::unlink(path);
}

TEST(Api, ReadersGiveTheWholeCallsBytesAsTheyAreRead) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (const Bytes& in : inputs(seed)) {
    const Bytes z = parcomp::testing::libbz2_compress(in, 9);
    for (const auto direction : {parcomp::Stream::Direction::compress, parcomp::Stream::Direction::decompress}) {
      const bool compress = direction == parcomp::Stream::Direction::compress;
      parcomp::MemorySource src(compress ? std::span<const std::uint8_t>(in) : std::span<const std::uint8_t>(z));
      parcomp::Reader r(src, direction, cpu());
      Bytes got, piece(1 + rng() % 70000);
      for (std::size_t n; (n = r.read(piece.data(), 1 + rng() % piece.size())) != 0;) got.insert(got.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_TRUE(got == (compress ? z : in)) << in.size() << " bytes, " << (compress ? "compress" : "decompress");
      EXPECT_EQ(r.read(piece.data(), piece.size()), 0u);
      EXPECT_EQ(r.stats().original_bytes, in.size());
    }
  }
  Bytes z = parcomp::testing::libbz2_compress(parcomp::testing::word_text(3000000, seed), 1);
  // Damage that libbz2 rejects (a flipped bit in a table or selector no symbol uses goes unseen by
  // any reader): a bit flipped in the middle, then further on until libbz2 says so.
  for (std::size_t at = z.size() / 2;; at += 97) {
    ASSERT_LT(at, z.size());
    z[at] ^= 0x10;
    if (!parcomp::testing::libbz2_decompress(z, 4000000).has_value()) break;
    z[at] ^= 0x10;
  }
  parcomp::MemorySource bad(z);
  parcomp::Reader r(bad, parcomp::Stream::Direction::decompress, cpu());
  Bytes piece(1 << 16);
  EXPECT_THROW(
      while (r.read(piece.data(), piece.size()) != 0) {}, parcomp::CorruptDataError);
  const Bytes zeros(300'000'000, 0);  // 300 MB of output from a small input: read 1 MiB, then dropped
  const Bytes small = parcomp::compress(zeros, cpu());
  parcomp::MemorySource zs(small);
  parcomp::Reader half(zs, parcomp::Stream::Direction::decompress, cpu());
  EXPECT_GT(half.read(piece.data(), piece.size()), 0u);
}

// Python's bz2.BZ2Decompressor's contract: one stream, eof and the bytes after it, output in
// pieces of at most max_length, needs_input, input in pieces of any size (one byte too).
TEST(Api, Bz2DecompressorReadsOneStreamInPieces) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  for (const Bytes& in : inputs(seed)) {
    const Bytes z = parcomp::testing::libbz2_compress(in, 1 + static_cast<int>(rng() % 9));
    Bytes file = z;
    const Bytes after = {'B', 'Z', 'h', '9', 1, 2, 3};
    file.insert(file.end(), after.begin(), after.end());
    for (const std::size_t piece : {std::size_t{1} << 30, std::size_t{1} + rng() % 5000, std::size_t{1}}) {
      if (piece == 1 && file.size() > 200000) continue;  // a byte at a time: small inputs only
      SCOPED_TRACE(::testing::Message() << in.size() << " bytes, pieces of " << piece);
      parcomp::Bz2Decompressor d;
      Bytes got;
      const std::size_t max_length = rng() % 2 ? SIZE_MAX : 1 + rng() % 100000;
      std::size_t at = 0;
      while (!d.eof()) {
        std::span<const std::uint8_t> next;
        if (d.needs_input()) {
          ASSERT_LT(at, file.size()) << "input ended before the stream did";
          next = std::span<const std::uint8_t>(file).subspan(at, std::min(piece, file.size() - at));
          at += next.size();
        }
        const Bytes out = d.decompress(next, max_length);
        EXPECT_LE(out.size(), max_length);
        got.insert(got.end(), out.begin(), out.end());
      }
      EXPECT_TRUE(got == in);
      Bytes unused = d.unused_data();
      unused.insert(unused.end(), file.begin() + static_cast<std::ptrdiff_t>(at), file.end());
      EXPECT_TRUE(unused == after);
      EXPECT_FALSE(d.needs_input());
      EXPECT_THROW(d.decompress(after), parcomp::ContractError);
    }
  }
  // Truncated: never eof, and it asks for input; damaged: CorruptDataError.
  const Bytes z = parcomp::testing::libbz2_compress(parcomp::testing::word_text(500000, seed), 9);
  parcomp::Bz2Decompressor cut;
  cut.decompress(std::span<const std::uint8_t>(z).first(z.size() - 3));
  EXPECT_FALSE(cut.eof());
  EXPECT_TRUE(cut.needs_input());
  Bytes bad = z;
  // Damage that libbz2 reports as an error (see above), not as input ending inside the stream: a
  // decoder fed in pieces waits for more there, as libbz2 and Python's bz2 do.
  const auto data_error = [](const Bytes& b) {
    Bytes out;
    return parcomp::testing::libbz2_stream(b, 1000000, out).rc < 0;
  };
  for (std::size_t at = bad.size() / 2;; at += 97) {
    ASSERT_LT(at, bad.size());
    bad[at] ^= 0x20;
    if (data_error(bad)) break;
    bad[at] ^= 0x20;
  }
  parcomp::Bz2Decompressor d;
  EXPECT_THROW(d.decompress(bad), parcomp::CorruptDataError);
  parcomp::Bz2Decompressor not_bz2;
  EXPECT_THROW(not_bz2.decompress(Bytes{'n', 'o', 'p', 'e', '!'}), parcomp::CorruptDataError);
}

// A file split at any bytes: each piece's blocks (those starting in it, followed on the chain) put
// together are the whole file's output, from the whole file or from the piece and a margin alone;
// one block at a time from next_bit goes on where a piece stopped.
TEST(Api, Bz2RangesSplitAFileAnywhere) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes file, all;
  for (int k = 0; k < 4; ++k) {  // several streams, as pbzip2 and lbzip2 write them
    const Bytes part = parcomp::testing::word_text(50000 + rng() % 400000, seed + static_cast<std::uint64_t>(k));
    const Bytes z = parcomp::testing::libbz2_compress(part, 1 + static_cast<int>(rng() % 2));
    file.insert(file.end(), z.begin(), z.end());
    all.insert(all.end(), part.begin(), part.end());
  }
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<std::size_t> cuts = {0, file.size()};
    for (int k = 0, n = 1 + static_cast<int>(rng() % 12); k < n; ++k) cuts.push_back(rng() % file.size());
    std::sort(cuts.begin(), cuts.end());
    Bytes whole, pieces;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      const parcomp::Bz2Range r = parcomp::bz2_decode_range(file, cuts[k] * 8, cuts[k + 1] * 8, true, UINT64_MAX, trial % 2 ? 3 : 1);
      EXPECT_FALSE(r.need_input);
      whole.insert(whole.end(), r.bytes.begin(), r.bytes.end());
      const std::size_t end = std::min(file.size(), cuts[k + 1] + 300000);
      const std::span<const std::uint8_t> piece = std::span<const std::uint8_t>(file).subspan(cuts[k], end - cuts[k]);
      const parcomp::Bz2Range p = parcomp::bz2_decode_range(piece, 0, (cuts[k + 1] - cuts[k]) * 8, end == file.size(), UINT64_MAX, trial % 2 ? 1 : 0);
      EXPECT_FALSE(p.need_input);
      EXPECT_EQ(p.blocks, r.blocks);
      pieces.insert(pieces.end(), p.bytes.begin(), p.bytes.end());
    }
    EXPECT_TRUE(whole == all) << "trial " << trial;
    EXPECT_TRUE(pieces == all) << "trial " << trial;
  }
  // Block by block from the first.
  Bytes one;
  parcomp::Bz2Range r = parcomp::bz2_decode_range(file, 0, 33, true, 1);  // the first block: after the header
  one = r.bytes;
  while (r.more) {
    r = parcomp::bz2_decode_range(file, r.next_bit, r.next_bit + 1, true, 1);
    one.insert(one.end(), r.bytes.begin(), r.bytes.end());
  }
  EXPECT_TRUE(one == all);
  // A piece too short for its first block says so.
  const parcomp::Bz2Range short_piece = parcomp::bz2_decode_range(std::span<const std::uint8_t>(file).first(1000), 0, 8000, false);
  EXPECT_TRUE(short_piece.need_input);
  EXPECT_EQ(short_piece.blocks, 0u);
}

// The block index a decompression collects: each block's and end marker's bit with the output's
// byte there; its blocks decoded again on their own, on many threads, are the whole output.
TEST(Api, BlockOffsetsIndexEveryBlock) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Bytes file, all;
  for (int k = 0; k < 3; ++k) {
    const Bytes part = parcomp::testing::word_text(150000 + 100000 * static_cast<std::size_t>(k), seed + static_cast<std::uint64_t>(k));
    const Bytes z = parcomp::testing::libbz2_compress(part, 1);
    file.insert(file.end(), z.begin(), z.end());
    all.insert(all.end(), part.begin(), part.end());
  }
  parcomp::Options o = cpu();
  o.collect_block_offsets = true;
  parcomp::MemorySource src(file);
  parcomp::VectorSink out;
  const parcomp::Stats st = parcomp::decompress(src, out, o);
  ASSERT_TRUE(out.bytes == all);
  const auto& idx = st.block_offsets;
  ASSERT_GE(idx.size(), 2u);
  EXPECT_EQ(idx.front(), (std::pair<std::uint64_t, std::uint64_t>{32, 0}));
  EXPECT_EQ(idx.back().second, all.size());
  std::vector<std::uint64_t> blocks;
  for (std::size_t k = 0; k + 1 < idx.size(); ++k) {
    EXPECT_LT(idx[k].first, idx[k + 1].first);
    EXPECT_LE(idx[k].second, idx[k + 1].second);
    if (idx[k + 1].second > idx[k].second) blocks.push_back(idx[k].first);  // an end marker's next entry has its byte
  }
  EXPECT_EQ(idx.size() - blocks.size(), 3u);  // an end marker per stream
  Bytes again;
  for (const auto& b : parcomp::bz2_decode_blocks(file, blocks, 3)) again.insert(again.end(), b.begin(), b.end());
  EXPECT_TRUE(again == all);
  std::vector<std::uint64_t> off_by_one = blocks;
  off_by_one[1] += 1;
  EXPECT_THROW(parcomp::bz2_decode_blocks(file, off_by_one), parcomp::CorruptDataError);
}

// The tuning knobs reach the work: the parcomp format's block size shows in the block count, and
// one block in flight still gives the same bytes; a block size past 16 MiB is refused.
TEST(Api, TuningKnobsTakeEffect) {
  const std::uint64_t seed = fresh_seed();
  const Bytes in = parcomp::testing::word_text(1'000'003, seed);
  parcomp::Tuning t;
  t.block_bytes = 1 << 16;
  t.max_blocks_in_flight = 1;
  parcomp::Options o = cpu();
  o.format = parcomp::Format::parcomp;
  o.tuning = &t;
  parcomp::MemorySource src(in);
  parcomp::VectorSink out;
  const parcomp::Stats st = parcomp::compress(src, out, o);
  EXPECT_EQ(st.blocks, (in.size() + t.block_bytes - 1) / t.block_bytes);
  EXPECT_TRUE(parcomp::decompress(out.bytes, o) == in);
  parcomp::Options d = cpu();
  d.format = parcomp::Format::parcomp;
  EXPECT_EQ(parcomp::compress(in, d).size() == out.bytes.size(), false) << "the default block size wrote the same file";
  t.block_bytes = (std::size_t{1} << 24) + 1;
  EXPECT_THROW(parcomp::compress(in, o), parcomp::ContractError);
  // .bz2 decompression with room for one decoded byte: the block the writer waits for is decoded.
  parcomp::Tuning one;
  one.bz2_decoded_in_flight = 1;
  parcomp::Options z = cpu();
  z.format = parcomp::Format::bz2;
  z.level = 1;
  const Bytes file = parcomp::compress(in, z);
  z.tuning = &one;
  EXPECT_TRUE(parcomp::decompress(file, z) == in);
}

TEST(Api, ParcompFramesDecodeOneByOneFromTheIndex) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  const Bytes in = parcomp::testing::word_text(700'001 + seed % 5000, seed);
  parcomp::Tuning t;
  t.block_bytes = 1 << 14;
  t.frame_blocks = 5;  // frames of 80 KiB: several, the last one short
  parcomp::Options o = cpu();
  o.format = parcomp::Format::parcomp;
  o.tuning = &t;
  const Bytes z = parcomp::compress(in, o);
  const std::span<const std::uint8_t> all(z);
  const parcomp::ParcompEnd end = parcomp::parcomp_stream_end(all.last(36));
  EXPECT_EQ(end.original_bytes, in.size());
  ASSERT_GT(end.index_offset, 0u);
  const auto frames = parcomp::parcomp_stream_index(all.subspan(end.index_offset, z.size() - 36 - end.index_offset), end.index_offset);
  ASSERT_EQ(frames.size(), end.frames);
  ASSERT_EQ(frames.size(), (in.size() + 5 * t.block_bytes - 1) / (5 * t.block_bytes));
  Bytes back;
  for (std::size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(frames[k].second, back.size());
    const std::uint64_t next = k + 1 < frames.size() ? frames[k + 1].first : end.index_offset;
    const Bytes part = parcomp::parcomp_decode_frame(all.first(16), all.subspan(frames[k].first, next - frames[k].first), frames[k].first, k % 3);
    back.insert(back.end(), part.begin(), part.end());
  }
  EXPECT_TRUE(back == in);
  // Damage: a payload byte of frame 1 (its block's CRC), a cut frame, a bad end marker.
  Bytes bad = z;
  bad[frames[1].first + 28 + 200] ^= 0x10;
  EXPECT_THROW(parcomp::parcomp_decode_frame(all.first(16), std::span<const std::uint8_t>(bad).subspan(frames[1].first), frames[1].first),
               parcomp::CorruptDataError);
  EXPECT_THROW(parcomp::parcomp_decode_frame(all.first(16), all.subspan(frames[1].first, 100), frames[1].first), parcomp::CorruptDataError);
  Bytes bad_end(all.last(36).begin(), all.last(36).end());
  bad_end[10] ^= 1;
  EXPECT_THROW(parcomp::parcomp_stream_end(bad_end), parcomp::CorruptDataError);
}

// decompress_to_device, or a skip where this host has no GPU it can use.
parcomp::DeviceOutput to_device_or_skip(std::span<const std::uint8_t> packed, const parcomp::Options& o, bool& skipped) {
  parcomp::MemorySource src(packed);
  try {
    skipped = false;
    return parcomp::decompress_to_device(src, 0, o);
  } catch (const parcomp::GpuError& e) {
    if (std::string(e.what()).find("no usable GPU") == std::string::npos) throw;
    skipped = true;
    return {};
  }
}

Bytes to_host(const parcomp::DeviceOutput& d) {
  Bytes back(d.size());
  parcomp::copy_to_host(back.data(), d.data(), d.size());
  return back;
}

TEST(Api, DecompressToDeviceLeavesTheBytesOnTheGpu) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  Bytes random(9000000 + rng() % 4096);  // past one staging buffer (8 MiB), odd
  for (auto& b : random) b = static_cast<std::uint8_t>(rng());
  std::vector<Bytes> ins = inputs(seed);
  ins.push_back(std::move(random));
  ins.push_back(Bytes(60000000 + rng() % 1000, 'q'));  // tiny input, large output: the buffer doubles
  for (const Bytes& in : ins) {
    SCOPED_TRACE(::testing::Message() << in.size() << " bytes");
    const Bytes packed = parcomp::testing::libbz2_compress(in, 9);
    parcomp::Options o = cpu();
    o.input_size = packed.size();
    bool skipped = false;
    const parcomp::DeviceOutput d = to_device_or_skip(packed, o, skipped);
    if (skipped) GTEST_SKIP() << "no usable GPU";
    EXPECT_EQ(d.size(), in.size());
    EXPECT_GE(d.capacity(), d.size());
    EXPECT_EQ(d.device(), 0);
    EXPECT_TRUE(to_host(d) == in);
  }
}

TEST(Api, DecompressToDeviceSaysWhenTheOutputDoesNotFit) {
  const Bytes in(64000000, 'z');
  const Bytes packed = parcomp::testing::libbz2_compress(in, 9);
  parcomp::set_gpu_memory_limit(std::uint64_t{32} << 20);
  bool skipped = false;
  try {
    (void)to_device_or_skip(packed, cpu(), skipped);
    if (!skipped) ADD_FAILURE() << "64 MB fitted under a cap of 32 MiB";
  } catch (const parcomp::DeviceMemoryError&) {
  }
  parcomp::set_gpu_memory_limit(0);
  if (skipped) GTEST_SKIP() << "no usable GPU";
  parcomp::MemorySource src(packed);
  EXPECT_THROW((void)parcomp::decompress_to_device(src, 1 << 20, cpu()), parcomp::ContractError);
}

TEST(CApi, BuffersCodesAndMessages) {
  const Bytes in = parcomp::testing::word_text(1200000 + fresh_seed() % 999, 3);
  parcomp_options o;
  parcomp_options_init(&o);
  o.use_gpus = 0;
  o.threads = 2;
  void* packed = nullptr;
  std::size_t packed_size = 0;
  ASSERT_EQ(parcomp_compress_buffer(in.data(), in.size(), &packed, &packed_size, &o), PARCOMP_OK) << parcomp_last_error();
  EXPECT_STREQ(parcomp_last_error(), "");
  const Bytes ours(static_cast<std::uint8_t*>(packed), static_cast<std::uint8_t*>(packed) + packed_size);
  EXPECT_TRUE(ours == parcomp::testing::libbz2_compress(in, 9));
  void* back = nullptr;
  std::size_t back_size = 0;
  ASSERT_EQ(parcomp_decompress_buffer(packed, packed_size, &back, &back_size, &o), PARCOMP_OK);
  EXPECT_EQ(back_size, in.size());
  EXPECT_EQ(std::memcmp(back, in.data(), in.size()), 0);
  parcomp_free(back);
  static_cast<std::uint8_t*>(packed)[packed_size / 2] ^= 0x40;
  EXPECT_EQ(parcomp_decompress_buffer(packed, packed_size, &back, &back_size, &o), PARCOMP_ERROR_DATA);
  EXPECT_STRNE(parcomp_last_error(), "");
  EXPECT_EQ(back, nullptr);
  parcomp_free(packed);
  EXPECT_EQ(parcomp_compress_buffer(in.data(), in.size(), nullptr, &packed_size, &o), PARCOMP_ERROR_USAGE);
  o.level = 10;
  EXPECT_EQ(parcomp_compress_buffer(in.data(), in.size(), &packed, &packed_size, &o), PARCOMP_ERROR_USAGE);
  o.level = 9;
  o.format = 7;
  EXPECT_EQ(parcomp_compress_buffer(in.data(), in.size(), &packed, &packed_size, &o), PARCOMP_ERROR_USAGE);
  void* empty = nullptr;  // an empty input is a valid .bz2 stream both ways
  std::size_t empty_size = 1;
  ASSERT_EQ(parcomp_compress_buffer(nullptr, 0, &empty, &empty_size, nullptr), PARCOMP_OK);
  EXPECT_EQ(empty_size, 14u);
  parcomp_free(empty);
}

TEST(CApi, DescriptorsAndCallbacks) {
  const Bytes in = parcomp::testing::word_text(700000, 4);
  parcomp_options o;
  parcomp_options_init(&o);
  o.use_gpus = 0;
  std::FILE* src = std::tmpfile();
  std::FILE* dst = std::tmpfile();
  ASSERT_TRUE(src != nullptr && dst != nullptr);
  ASSERT_EQ(std::fwrite(in.data(), 1, in.size(), src), in.size());
  std::fflush(src);
  std::rewind(src);
  ASSERT_EQ(parcomp_compress_fd(fileno(src), fileno(dst), &o), PARCOMP_OK) << parcomp_last_error();
  std::rewind(dst);
  Bytes packed(1 << 22);
  packed.resize(std::fread(packed.data(), 1, packed.size(), dst));
  EXPECT_TRUE(packed == parcomp::testing::libbz2_compress(in, 9));
  // The reader: the descriptor's output pulled in reads of any size.
  std::rewind(dst);
  parcomp_reader* rd = parcomp_reader_new(fileno(dst), 1, &o);
  ASSERT_NE(rd, nullptr) << parcomp_last_error();
  Bytes pulled, piece(12345);
  for (std::size_t got = 1; got != 0;) {
    ASSERT_EQ(parcomp_reader_read(rd, piece.data(), piece.size(), &got), PARCOMP_OK) << parcomp_last_error();
    pulled.insert(pulled.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(got));
  }
  EXPECT_TRUE(pulled == in);
  std::size_t got = 0;
  EXPECT_EQ(parcomp_reader_read(rd, nullptr, 5, &got), PARCOMP_ERROR_USAGE);
  parcomp_reader_free(rd);
  std::rewind(src);
  parcomp_reader* not_bz2 = parcomp_reader_new(fileno(src), 1, &o);  // the plain text: not a stream
  ASSERT_NE(not_bz2, nullptr);
  EXPECT_EQ(parcomp_reader_read(not_bz2, piece.data(), piece.size(), &got), PARCOMP_ERROR_DATA);
  parcomp_reader_free(not_bz2);
  std::fclose(src);
  std::fclose(dst);
  std::FILE* sink = std::fopen("/dev/null", "wb");
  ASSERT_NE(sink, nullptr);
  EXPECT_EQ(parcomp_compress_fd(-1, fileno(sink), &o), PARCOMP_ERROR_IO);  // a descriptor that is not open
  std::fclose(sink);

  struct Reader {
    const Bytes* bytes;
    std::size_t at;
  } r{&packed, 0};
  Bytes back;
  const auto read = [](void* user, void* buf, std::size_t max) -> long long {
    auto* rd = static_cast<Reader*>(user);
    const std::size_t n = std::min(max, rd->bytes->size() - rd->at);
    std::memcpy(buf, rd->bytes->data() + rd->at, n);
    rd->at += n;
    return static_cast<long long>(n);
  };
  const auto write = [](void* user, const void* buf, std::size_t n) -> int {
    auto* out = static_cast<Bytes*>(user);
    out->insert(out->end(), static_cast<const std::uint8_t*>(buf), static_cast<const std::uint8_t*>(buf) + n);
    return 0;
  };
  ASSERT_EQ(parcomp_decompress_stream(read, &r, write, &back, &o), PARCOMP_OK) << parcomp_last_error();
  EXPECT_TRUE(back == in);
  r.at = 0;
  const auto refuse = [](void*, const void*, std::size_t) -> int { return -1; };
  EXPECT_EQ(parcomp_decompress_stream(read, &r, refuse, nullptr, &o), PARCOMP_ERROR_IO);
  EXPECT_STRNE(parcomp_last_error(), "");

  // A streaming context: pushed in two pieces, finished, the same bytes as the whole call's.
  parcomp_stream* s = parcomp_stream_new(0, &o);
  ASSERT_NE(s, nullptr) << parcomp_last_error();
  Bytes streamed;
  void* part = nullptr;
  std::size_t part_size = 0;
  for (const std::size_t at : {std::size_t{0}, in.size() / 2}) {
    const std::size_t n = at == 0 ? in.size() / 2 : in.size() - at;
    ASSERT_EQ(parcomp_stream_push(s, in.data() + at, n, &part, &part_size), PARCOMP_OK) << parcomp_last_error();
    streamed.insert(streamed.end(), static_cast<std::uint8_t*>(part), static_cast<std::uint8_t*>(part) + part_size);
    parcomp_free(part);
  }
  ASSERT_EQ(parcomp_stream_finish(s, &part, &part_size), PARCOMP_OK);
  streamed.insert(streamed.end(), static_cast<std::uint8_t*>(part), static_cast<std::uint8_t*>(part) + part_size);
  parcomp_free(part);
  EXPECT_EQ(parcomp_stream_finish(s, &part, &part_size), PARCOMP_ERROR_USAGE);
  parcomp_stream_free(s);
  EXPECT_TRUE(streamed == packed);
  o.level = 0;
  EXPECT_EQ(parcomp_stream_new(1, &o), nullptr);
  EXPECT_STRNE(parcomp_last_error(), "");
}

}  // namespace
