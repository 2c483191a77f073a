// Host scaling probe: the pool's for_each_block on this host's threads.
#include "codec/bz2.hpp"
#include "codec/common/parallel.hpp"
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>
using namespace parcomp;
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary);
  std::vector<std::uint8_t> d(64u << 20);
  f.read(reinterpret_cast<char*>(d.data()), d.size());
  std::span<const std::uint8_t> c32(d.data(), 32u << 20);
  const unsigned hw = std::thread::hardware_concurrency();
  std::printf("hardware_concurrency %u\n", hw);
  for (unsigned th : {1u, 2u, 4u, 8u, 16u, 32u}) {
    if (th > hw) break;
    double best = 1e9;
    for (int r = 0; r < 15; ++r) { double t = now(); auto c = bz2::cut_blocks(c32, 9, false, th); best = std::min(best, now() - t); }
    std::vector<std::vector<std::uint8_t>> rle(64);
    double bp = 1e9;
    for (int r = 0; r < 7; ++r) {
      double t = now();
      for_each_block(64, th, [&](std::size_t i) { rle[i].clear(); bz2::rle1_encode(std::span<const std::uint8_t>(d).subspan((i % 70) * 900000, 900000), rle[i]); volatile auto x = bz2::block_crc(std::span<const std::uint8_t>(d).subspan((i % 70) * 900000, 900000)); (void)x; });
      bp = std::min(bp, now() - t);
    }
    std::atomic<std::uint64_t> sink{0};
    double bs = 1e9;
    for (int r = 0; r < 7; ++r) {
      double t = now();
      for_each_block(th, th, [&](std::size_t i) { std::uint64_t s = 0; const std::size_t per = d.size() / th; for (std::size_t k = i * per; k < (i + 1) * per; k += 64) s += d[k]; sink += s; });
      bs = std::min(bs, now() - t);
    }
    std::printf("threads %2u: cut 32 MiB %.2f ms (%.2f GB/s); rle1+crc 64 blocks %.2f ms (%.2f GB/s); touch 64 MiB %.2f ms (%.1f GB/s)\n", th, best * 1e3,
                c32.size() / best / 1e9, bp * 1e3, 64 * 900000 / bp / 1e9, bs * 1e3, d.size() / bs / 1e9);
  }
  // The same rle1+crc with plain threads, no pool.
  for (unsigned th : {8u, 32u}) {
    if (th > hw) break;
    std::vector<std::vector<std::uint8_t>> rle(64);
    double bp = 1e9;
    for (int r = 0; r < 7; ++r) {
      double t = now();
      std::atomic<std::size_t> next{0};
      std::vector<std::thread> ts;
      for (unsigned k = 0; k < th; ++k) ts.emplace_back([&] { for (std::size_t i = next++; i < 64; i = next++) { rle[i].clear(); bz2::rle1_encode(std::span<const std::uint8_t>(d).subspan((i % 70) * 900000, 900000), rle[i]); } });
      for (auto& x : ts) x.join();
      bp = std::min(bp, now() - t);
    }
    std::printf("plain threads %2u: rle1 64 blocks %.2f ms (%.2f GB/s)\n", th, bp * 1e3, 64 * 900000 / bp / 1e9);
  }
}
