#include "bwt_cpu.hpp"

#include "blocks.hpp"

#include <divsufsort.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace parcomp::reference {

BwtBlocks bwt_blocks_divsufsort(std::span<const std::uint8_t> in, std::size_t block_bytes, unsigned threads) {
  if (block_bytes == 0 || block_bytes > static_cast<std::size_t>(std::numeric_limits<saidx_t>::max()))
    throw std::invalid_argument("bwt_blocks_divsufsort: block size must be in 1 .. 2^31-1");
  BwtBlocks out;
  out.block_bytes = block_bytes;
  out.bytes.resize(in.size());
  const std::size_t blocks = (in.size() + block_bytes - 1) / block_bytes;
  out.primary.resize(blocks);
  for_each_block(blocks, threads, [&](std::size_t b) {
    thread_local std::vector<saidx_t> scratch;
    scratch.resize(block_bytes);
    const std::size_t first = b * block_bytes, len = std::min(block_bytes, in.size() - first);
    const saidx_t primary = divbwt(in.data() + first, out.bytes.data() + first, scratch.data(), static_cast<saidx_t>(len));
    if (primary < 0) throw std::runtime_error("divbwt failed on block " + std::to_string(b));
    out.primary[b] = primary;
  });
  return out;
}

}  // namespace parcomp::reference
