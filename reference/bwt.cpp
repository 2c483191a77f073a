#include "bwt.hpp"

#include "blocks.hpp"

#include <divsufsort.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>

namespace parcomp::reference {

namespace {

// Suffix array of TT (the block twice) restricted to starts < n: a sorted order of the rotations.
std::vector<std::int32_t> rotation_order(std::span<const std::uint8_t> block, std::vector<std::int32_t>* sa_out = nullptr,
                                         std::vector<std::uint8_t>* tt_out = nullptr) {
  const std::size_t n = block.size();
  if (n == 0 || n >= (std::size_t{1} << 30)) throw std::invalid_argument("bwt: block size must be in 1 .. 2^30-1");
  std::vector<std::uint8_t> tt(2 * n);
  std::copy(block.begin(), block.end(), tt.begin());
  std::copy(block.begin(), block.end(), tt.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<std::int32_t> sa(2 * n);
  if (divsufsort(tt.data(), sa.data(), static_cast<saidx_t>(2 * n)) != 0) throw std::runtime_error("divsufsort failed");
  std::vector<std::int32_t> order;
  order.reserve(n);
  for (const std::int32_t s : sa)
    if (static_cast<std::size_t>(s) < n) order.push_back(s);
  if (sa_out) *sa_out = std::move(sa);
  if (tt_out) *tt_out = std::move(tt);
  return order;
}

}  // namespace

RotationBwt bwt_rotations(std::span<const std::uint8_t> block, std::size_t sample_stride) {
  const std::size_t n = block.size();
  const auto order = rotation_order(block);
  RotationBwt out;
  out.last.resize(n);
  if (sample_stride != 0) out.samples.resize((n + sample_stride - 1) / sample_stride);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t start = static_cast<std::size_t>(order[i]);
    out.last[i] = block[(start + n - 1) % n];
    if (start == 0) out.primary = static_cast<std::uint32_t>(i);
    if (sample_stride != 0 && start % sample_stride == 0) out.samples[start / sample_stride] = static_cast<std::uint32_t>(i);
  }
  return out;
}

std::vector<std::uint8_t> inverse_bwt(std::span<const std::uint8_t> last, std::uint32_t primary) {
  const std::size_t n = last.size();
  if (n == 0) return {};
  if (primary >= n) throw std::invalid_argument("inverse_bwt: primary index out of range");
  std::size_t count[256] = {}, first[256] = {};
  std::vector<std::uint32_t> rank(n);  // occurrences of last[i] in last[0..i-1]
  for (std::size_t i = 0; i < n; ++i) rank[i] = static_cast<std::uint32_t>(count[last[i]]++);
  for (int c = 1; c < 256; ++c) first[c] = first[c - 1] + count[c - 1];
  std::vector<std::uint8_t> out(n);
  std::size_t row = primary;
  for (std::size_t k = n; k-- > 0;) {  // row holds the rotation starting at k + 1 (mod n)
    const std::uint8_t c = last[row];
    out[k] = c;
    row = first[c] + rank[row];
  }
  return out;
}

int tie_bucket(std::uint64_t tie) {
  if (tie < 4) return 0;
  int b = 1;
  for (std::uint64_t lo = 8; tie >= lo && b < kTieBuckets - 1; lo <<= 1) ++b;
  return b;
}

void TieHistogram::add(const TieHistogram& o) {
  pairs += o.pairs;
  for (int i = 0; i < kTieBuckets; ++i) buckets[i] += o.buckets[i];
  max_tie = std::max(max_tie, o.max_tie);
  sum_tie += o.sum_tie;
}

TieHistogram rotation_ties(std::span<const std::uint8_t> block) {
  const std::size_t n = block.size();
  std::vector<std::int32_t> sa;
  std::vector<std::uint8_t> tt;
  rotation_order(block, &sa, &tt);
  // Kasai's LCP of adjacent suffixes of TT; adjacent rotations are separated in SA(TT) by
  // suffixes starting >= n, so their LCP is the minimum over the gap (capped at n).
  const std::size_t m = 2 * n;
  std::vector<std::int32_t> rank(m);
  for (std::size_t i = 0; i < m; ++i) rank[static_cast<std::size_t>(sa[i])] = static_cast<std::int32_t>(i);
  std::vector<std::int32_t> lcp(m, 0);  // lcp[i] = LCP(sa[i-1], sa[i])
  std::size_t h = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const auto r = static_cast<std::size_t>(rank[i]);
    if (r == 0) {
      h = 0;
      continue;
    }
    const auto j = static_cast<std::size_t>(sa[r - 1]);
    while (i + h < m && j + h < m && tt[i + h] == tt[j + h]) ++h;
    lcp[r] = static_cast<std::int32_t>(h);
    if (h > 0) --h;
  }
  TieHistogram hist;
  bool seen = false;
  std::uint64_t running = UINT64_MAX;
  for (std::size_t i = 0; i < m; ++i) {
    if (seen) running = std::min<std::uint64_t>(running, static_cast<std::uint64_t>(lcp[i]));
    if (static_cast<std::size_t>(sa[i]) < n) {
      if (seen) {
        const std::uint64_t tie = std::min<std::uint64_t>(running, n);
        ++hist.pairs;
        ++hist.buckets[tie_bucket(tie)];
        hist.max_tie = std::max(hist.max_tie, tie);
        hist.sum_tie += static_cast<double>(tie);
      }
      seen = true;
      running = UINT64_MAX;
    }
  }
  return hist;
}

TieHistogram rotation_ties_blocks(std::span<const std::uint8_t> in, std::size_t block_bytes, unsigned threads) {
  if (block_bytes == 0) throw std::invalid_argument("rotation_ties_blocks: block size must be >= 1");
  const std::size_t blocks = (in.size() + block_bytes - 1) / block_bytes;
  TieHistogram total;
  std::mutex mutex;
  for_each_block(blocks, threads, [&](std::size_t b) {
    const std::size_t first = b * block_bytes;
    const TieHistogram h = rotation_ties(in.subspan(first, std::min(block_bytes, in.size() - first)));
    const std::lock_guard lock(mutex);
    total.add(h);
  });
  return total;
}

RotationBlocks bwt_rotation_blocks(std::span<const std::uint8_t> in, std::size_t block_bytes, std::size_t sample_stride,
                                   unsigned threads) {
  if (block_bytes == 0 || sample_stride == 0) throw std::invalid_argument("bwt_rotation_blocks: block size and stride must be >= 1");
  const std::size_t blocks = (in.size() + block_bytes - 1) / block_bytes;
  const std::size_t per_block = (block_bytes + sample_stride - 1) / sample_stride;
  RotationBlocks out;
  out.block_bytes = block_bytes;
  out.sample_stride = sample_stride;
  out.last.resize(in.size());
  out.primary.resize(blocks);
  out.samples.assign(blocks * per_block, 0xFFFFFFFFu);
  for_each_block(blocks, threads, [&](std::size_t b) {
    const std::size_t first = b * block_bytes;
    const RotationBwt r = bwt_rotations(in.subspan(first, std::min(block_bytes, in.size() - first)), sample_stride);
    std::copy(r.last.begin(), r.last.end(), out.last.begin() + static_cast<std::ptrdiff_t>(first));
    out.primary[b] = r.primary;
    std::copy(r.samples.begin(), r.samples.end(), out.samples.begin() + static_cast<std::ptrdiff_t>(b * per_block));
  });
  return out;
}

std::vector<std::uint8_t> inverse_bwt_blocks(const RotationBlocks& t) {
  std::vector<std::uint8_t> out(t.last.size());
  for (std::size_t b = 0; b < t.primary.size(); ++b) {
    const std::size_t first = b * t.block_bytes, len = std::min(t.block_bytes, t.last.size() - first);
    const auto block = inverse_bwt(std::span(t.last).subspan(first, len), t.primary[b]);
    std::copy(block.begin(), block.end(), out.begin() + static_cast<std::ptrdiff_t>(first));
  }
  return out;
}

}  // namespace parcomp::reference
