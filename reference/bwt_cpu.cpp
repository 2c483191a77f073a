#include "bwt_cpu.hpp"

#include <divsufsort.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

namespace parcomp::reference {

BwtBlocks bwt_blocks_divsufsort(std::span<const std::uint8_t> in, std::size_t block_bytes, unsigned threads) {
  if (block_bytes == 0 || block_bytes > static_cast<std::size_t>(std::numeric_limits<saidx_t>::max()))
    throw std::invalid_argument("bwt_blocks_divsufsort: block size must be in 1 .. 2^31-1");
  BwtBlocks out;
  out.block_bytes = block_bytes;
  out.bytes.resize(in.size());
  const std::size_t blocks = (in.size() + block_bytes - 1) / block_bytes;
  out.primary.resize(blocks);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto worker = [&] {
    std::vector<saidx_t> scratch(block_bytes);
    for (std::size_t b = next++; b < blocks; b = next++) {
      const std::size_t first = b * block_bytes, len = std::min(block_bytes, in.size() - first);
      const saidx_t primary = divbwt(in.data() + first, out.bytes.data() + first, scratch.data(),
                                     static_cast<saidx_t>(len));
      if (primary < 0) failed = true;
      out.primary[b] = primary;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t + 1 < std::min<std::size_t>(threads, blocks); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failed) throw std::runtime_error("divbwt failed on a block");
  return out;
}

}  // namespace parcomp::reference
