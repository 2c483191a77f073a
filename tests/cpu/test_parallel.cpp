// The host's worker pool (core/parallel.hpp): every block exactly once, on up to the threads
// asked for, from several callers at once and from inside a body (which must not deadlock with the
// pool's threads all busy), the first exception rethrown; copy_bytes's pieces.
#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {
using parcomp::for_each_block;

TEST(Parallel, EveryBlockOnceOnAtMostTheThreadsAsked) {
  for (const std::size_t blocks : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{1000}, std::size_t{100000}}) {
    for (const unsigned threads : {0u, 1u, 2u, 3u, 64u}) {
      std::vector<std::atomic<int>> seen(blocks);
      std::mutex m;
      std::set<std::thread::id> ids;
      for_each_block(blocks, threads, [&](std::size_t b) {
        seen[b].fetch_add(1);
        const std::lock_guard lock(m);
        ids.insert(std::this_thread::get_id());
      });
      for (std::size_t b = 0; b < blocks; ++b) ASSERT_EQ(seen[b].load(), 1) << "block " << b << " of " << blocks << ", " << threads << " threads";
      const unsigned limit = threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads;
      EXPECT_LE(ids.size(), std::max<std::size_t>(1, std::min<std::size_t>(limit, blocks)));
      if (threads == 1) {
        EXPECT_LE(ids.size(), 1u);
      }
    }
  }
}

TEST(Parallel, CallsFromManyThreadsAndFromInsideABodyEnd) {
  std::atomic<std::size_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 6; ++c)
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round)
        for_each_block(8, 0, [&](std::size_t) {
          for_each_block(16, 3, [&](std::size_t) { total.fetch_add(1); });  // nested, every pool thread possibly busy
        });
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), std::size_t{6} * 50 * 8 * 16);
}

TEST(Parallel, TheFirstExceptionIsRethrown) {
  for (int round = 0; round < 20; ++round) {
    std::atomic<std::size_t> ran{0};
    EXPECT_THROW(for_each_block(10000, 0,
                                [&](std::size_t b) {
                                  ran.fetch_add(1);
                                  if (b == 17) throw std::runtime_error("block 17");
                                }),
                 std::runtime_error);
  }
  // The pool still works after a failure.
  std::atomic<std::size_t> n{0};
  for_each_block(100, 0, [&](std::size_t) { n.fetch_add(1); });
  EXPECT_EQ(n.load(), 100u);
}

TEST(Parallel, CopyBytesCopiesEveryByteAndNoMore) {
  constexpr std::size_t kPiece = std::size_t{4} << 20;
  std::mt19937_64 rng(std::random_device{}());
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, kPiece - 1, kPiece, kPiece + 1, 2 * kPiece + 12345}) {
    for (const unsigned threads : {0u, 1u, 3u}) {
      std::vector<std::uint8_t> src(n), dst(n + 2, 0xEE);
      for (auto& b : src) b = static_cast<std::uint8_t>(rng());
      parcomp::copy_bytes(dst.data() + 1, src.data(), n, threads);
      ASSERT_EQ(dst.front(), 0xEE) << n << " bytes";
      ASSERT_EQ(dst.back(), 0xEE) << n << " bytes";
      ASSERT_TRUE(std::equal(src.begin(), src.end(), dst.begin() + 1)) << n << " bytes on " << threads << " threads";
    }
  }
}

}  // namespace
