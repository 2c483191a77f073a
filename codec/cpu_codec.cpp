// The CPU codec. See cpu_codec.hpp.
#include "cpu_codec.hpp"
#include "bz2_ties.hpp"

#include "core/bits.hpp"
#include "core/bz2_block.hpp"
#include "core/bz2_encode.hpp"
#include "core/codes.hpp"
#include "core/crc32.hpp"
#include "core/errors.hpp"
#include "core/huge_pages.hpp"
#include "core/parallel.hpp"
#include "core/stages.hpp"

#include <divsufsort.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace parcomp::cpu {

using pipeline::BlockEntry;
using pipeline::Config;

struct Workspace::Buffers {
  // The large ones on huge pages (core/huge_pages.hpp).
  template <typename T>
  using Huge = std::vector<T, HugePageAllocator<T>>;
  Huge<std::int32_t> sa;
  Huge<std::uint8_t> text, last;
  RawBytes moved, symbols, selectors;  // grown without zeroing (core/default_init.hpp)
  std::vector<std::uint8_t> marks;
  Huge<std::uint32_t> words, tt;
  std::vector<std::uint64_t> index;
  bz2::EncodeScratch bz2_encode;
  bz2::DecodeScratch bz2_decode;
  template <typename V>
  static auto* at_least(V& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
    return v.data();
  }
};

Workspace::Workspace() : b_(std::make_unique<Buffers>()) {}
Workspace::~Workspace() = default;

namespace {

[[noreturn]] void corrupt(std::size_t block, const std::string& what) {
  throw CorruptDataError("parcomp container: block " + std::to_string(block) + ": " + what);
}

// ---- forward BWT ---------------------------------------------------------------------------------

}  // namespace

// The start of the least rotation (Duval; cp-algorithms' minimal cyclic shift), O(n), no memory;
// and its smallest period (the last round's j - k): n for a primitive block, a proper divisor of n
// for a power of a shorter string.
std::size_t least_rotation(std::span<const std::uint8_t> t, std::size_t& period) {
  const std::size_t n = t.size();
  // Positions run below 2n: one compare-and-subtract instead of a division (which was most of
  // this function's time, and 14% of a .bz2 block's).
  const auto at = [&](std::size_t x) { return t[x < n ? x : x - n]; };
  const std::uint8_t* tp = t.data();
  std::size_t i = 0, ans = 0;
  while (i < n) {
    ans = i;
    std::size_t j = i + 1, k = i;
    while (j < 2 * n) {
      // Where k is i, every byte greater than t[i] only moves j on (k stays i): skip them eight at
      // a time while no byte of the eight is t[i] or less (a word test, for t[i] below 128).
      if (k == i && tp[i] < 128) {
        const std::uint64_t below = 0x0101010101010101ull * (tp[i] + 1u);
        for (;;) {
          const std::size_t x = j < n ? j : j - n;
          if (x + 8 > n || j + 8 > 2 * n) break;
          std::uint64_t w;
          std::memcpy(&w, tp + x, 8);
          if (((w - below) & ~w & 0x8080808080808080ull) != 0) break;
          j += 8;
        }
        if (j >= 2 * n) break;
      }
      if (at(k) > at(j)) break;
      if (at(k) < at(j))
        k = i;
      else
        ++k;
      ++j;
    }
    period = j - k;
    while (i <= k) i += j - k;
  }
  return ans;
}

namespace {

// ---- the suffix sort of one block on several threads ----------------------------------------------

}  // namespace

namespace {
// Eight-byte steps of the comparisons past the first ten bytes, all of them together: suffixes that
// share long prefixes (repetitive data) make a comparison sort slow, and past this many steps the
// sort gives up and libdivsufsort (one thread, fast on such data) does the block instead. On the
// development VM, for 900 kB: libdivsufsort about 27 ms of one thread; this sort about 40 ms of
// threads plus 2 ms per step a byte, so it wins on t threads below (27 t - 40) / 2 steps a byte:
// the budget, (13 t - 20) steps a byte (6 on two threads, 32 on four, 188 on sixteen). Prose and
// binaries take 0-1.5 steps a byte, osdb and reymont 5-6, XML and source code 20-150, a long
// repeated passage 13-25 (a sample foretells it: below).
std::uint64_t compare_budget(std::size_t n, unsigned threads) {
  return std::uint64_t{n} * (13 * std::uint64_t{threads} - 20) + (std::uint64_t{1} << 16);
}

struct OverBudget {};

// Suffixes i and j of t[0 .. n) known equal in their first `from` bytes: the rest compared, eight
// bytes a step. -1: i first, 1: j first, 0: one is a prefix of the other. `k` ends past the bytes
// looked at (the comparisons' steps are counted from it).
inline int compare_tails(const std::uint8_t* t, std::size_t n, std::size_t i, std::size_t j, std::size_t from, std::size_t& k) {
  const std::size_t lim = n - std::max(i, j);
  for (k = from; k + 8 <= lim; k += 8) {
    std::uint64_t a, b;
    std::memcpy(&a, t + i + k, 8);
    std::memcpy(&b, t + j + k, 8);
    if (a != b) return __builtin_bswap64(a) < __builtin_bswap64(b) ? -1 : 1;
  }
  for (; k < lim; ++k)
    if (t[i + k] != t[j + k]) {
      const int verdict = t[i + k] < t[j + k] ? -1 : 1;
      ++k;
      return verdict;
    }
  return 0;
}

// Whether the first-two-byte pair is one of the sampled ones: one pair in 2^(32 - shift), by a
// multiplicative hash (the sort's sample takes shift 28, the probe's 26).
inline bool sampled_pair(std::uint32_t pair, int shift) { return (pair * 2654435761u) >> shift == 0; }

// t[i ..] big-endian, 8 bytes, zeros past the end.
inline std::uint64_t key8(const std::uint8_t* t, std::size_t n, std::size_t i) {
  if (i + 8 <= n) {
    std::uint64_t v;
    std::memcpy(&v, t + i, 8);
    return __builtin_bswap64(v);
  }
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < 8; ++k) v = v << 8 | (i + k < n ? t[i + k] : 0u);
  return v;
}
// On few threads the budget is small and a repetitive block is declined, but the sample below
// comes after the counting and the scatter: on two threads a 900 kB XML block was declined after
// 5 ms (counting 1.3, scatter 2.5, sample 1.2), a tenth of libdivsufsort's time, while the block's
// other threads waited. So first a probe, before any of it: in the block's first eighth, the
// suffixes of one in 64 first-two-byte pairs, sorted by their bytes as the buckets would be. Their
// steps a suffix, times the block's suffixes, foretell the sort's; past the budget, decline. (A
// pass over the whole block took 1 ms, the probe's sort as long again; an eighth's repeats with the
// rest of the block are still compared, its suffixes only meet fewer peers: the probe foretells
// fewer steps than the sort takes, and the sample below still checks what it lets through.)
bool probe_over_budget(const std::uint8_t* t, std::size_t n, std::uint64_t budget) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> v;  // (bytes 0 .. 7, suffix)
  const std::size_t part = n / 8;
  v.reserve(part / 24 + 16);
  for (std::size_t i = 0; i < part; ++i) {
    const std::uint32_t pair = static_cast<std::uint32_t>(t[i]) << 8 | (i + 1 < n ? t[i + 1] : 0u);
    if (sampled_pair(pair, 26)) v.emplace_back(key8(t, n, i), static_cast<std::uint32_t>(i));
  }
  if (v.size() < 1024) return false;  // too few to foretell anything: the sort's own sample decides
  // The probe's share of the budget: as many steps a suffix as the budget allows a byte.
  const std::uint64_t limit = budget * v.size() / n;
  std::uint64_t steps = 0;
  auto tail_less = [&](std::size_t i, std::size_t j) {  // equal in bytes 0 .. 7
    std::size_t k = 0;
    const int verdict = compare_tails(t, n, i, j, 8, k);
    steps += 1 + (k - 8) / 8;
    if (steps > limit) throw OverBudget{};
    return verdict != 0 ? verdict < 0 : i > j;
  };
  try {
    std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return tail_less(a.second, b.second);
    });
  } catch (const OverBudget&) {
    return true;
  }
  return false;
}

// Threads up to which the probe runs (about 0.3 ms of one thread for 900 kB of prose, on a 2-core host):
// above, the budget is large, few blocks are declined, and the probe would be a larger share of
// the sort's shorter time. On a 2-core host a 900 kB XML block was declined in 0.5 ms instead of 4.5-4.9
// on two threads, 0.7-1.0 instead of 9.5-11 on four (oversubscribed); prose and book1 accepted
// within the runs' noise.
constexpr unsigned kProbeUpToThreads = 8;
}  // namespace

bool parallel_suffix_sort(std::span<const std::uint8_t> text, std::int32_t* sa, unsigned threads) {
  const std::size_t n = text.size();
  const std::uint8_t* t = text.data();
  if (threads < 2 || n < 2 || n > static_cast<std::size_t>(INT32_MAX)) return false;
  if (threads <= kProbeUpToThreads && probe_over_budget(t, n, compare_budget(n, threads))) return false;
  // Buckets by the first two bytes (a zero after the last byte: the one-byte suffix x shares the
  // bucket of the suffixes "x\0...", and the comparison below puts it first, as the shorter).
  auto b2 = [&](std::size_t i) { return static_cast<std::uint32_t>(t[i]) << 8 | (i + 1 < n ? t[i + 1] : 0u); };
  // Counted and scattered on the threads too (a slice of the text each, a row of counts each):
  // on one thread these passes took about 3 ms of a 900 kB block, what 16 threads sort it in.
  const unsigned parts = static_cast<unsigned>(std::clamp<std::size_t>(n >> 16, 1, threads));
  constexpr std::size_t kBuckets = 65536;
  std::unique_ptr<std::uint32_t[]> counts(new std::uint32_t[parts * kBuckets]);  // then each slice's next row
  auto slice = [&](unsigned k) { return std::pair{n * k / parts, n * (k + 1) / parts}; };
  for_each_block(parts, parts, [&](std::size_t k) {
    std::uint32_t* c = counts.get() + k * kBuckets;
    std::fill(c, c + kBuckets, 0u);
    const auto [i0, i1] = slice(static_cast<unsigned>(k));
    for (std::size_t i = i0; i < i1; ++i) ++c[b2(i)];
  });
  std::vector<std::uint32_t> start(kBuckets + 1, 0);
  std::vector<std::uint64_t> range_sum(parts + 1, 0);
  std::vector<std::uint32_t> range_largest(parts, 0);
  auto range = [&](std::size_t r) { return std::pair{kBuckets * r / parts, kBuckets * (r + 1) / parts}; };
  for_each_block(parts, parts, [&](std::size_t r) {
    const auto [k0, k1] = range(r);
    std::uint64_t sum = 0;
    for (std::size_t k = k0; k < k1; ++k) {
      std::uint32_t total = 0;
      for (unsigned q = 0; q < parts; ++q) total += counts[q * kBuckets + k];
      range_largest[r] = std::max(range_largest[r], total);
      sum += total;
    }
    range_sum[r + 1] = sum;
  });
  if (*std::max_element(range_largest.begin(), range_largest.end()) > n / 4)
    return false;  // a bucket of a quarter of the block: little to share out
  for (unsigned r = 0; r < parts; ++r) range_sum[r + 1] += range_sum[r];
  for_each_block(parts, parts, [&](std::size_t r) {
    const auto [k0, k1] = range(r);
    auto at = static_cast<std::uint32_t>(range_sum[r]);
    for (std::size_t k = k0; k < k1; ++k) {
      start[k] = at;
      for (unsigned q = 0; q < parts; ++q) {
        const std::uint32_t c = counts[q * kBuckets + k];
        counts[q * kBuckets + k] = at;
        at += c;
      }
    }
  });
  start[kBuckets] = static_cast<std::uint32_t>(n);
  for_each_block(parts, parts, [&](std::size_t k) {
    std::uint32_t* next = counts.get() + k * kBuckets;
    const auto [i0, i1] = slice(static_cast<unsigned>(k));
    for (std::size_t i = i0; i < i1; ++i) sa[next[b2(i)]++] = static_cast<std::int32_t>(i);
  });
  // The buckets of two or more: the large ones first, largest first (they end last), then the rest.
  std::vector<std::uint32_t> order, large;
  const std::size_t large_from = std::max<std::size_t>(2, n / (8 * std::size_t{threads}));
  for (std::uint32_t k = 0; k < kBuckets; ++k) {
    const std::uint32_t size = start[k + 1] - start[k];
    if (size >= large_from)
      large.push_back(k);
    else if (size >= 2)
      order.push_back(k);
  }
  std::sort(large.begin(), large.end(), [&](std::uint32_t a, std::uint32_t b) {
    return start[a + 1] - start[a] > start[b + 1] - start[b];
  });
  order.insert(order.begin(), large.begin(), large.end());
  // A sample first: the buckets of one in 16 first-two-byte pairs (by a hash of the pair), sorted
  // for good. Their steps a suffix, times the suffixes of all buckets, foretell the block's: past
  // the budget the block goes to libdivsufsort having spent about a sixteenth of the budget, not
  // all of it. A repeat the sample missed still meets the hard limit for the rest, twice the budget
  // (at least 8 steps a byte).
  std::vector<std::uint32_t> sample, rest;
  std::uint64_t sample_suffixes = 0, all_suffixes = 0;
  for (const std::uint32_t k : order) {
    const std::uint32_t size = start[k + 1] - start[k];
    all_suffixes += size;
    if (sampled_pair(k, 28)) {
      sample.push_back(k);
      sample_suffixes += size;
    } else {
      rest.push_back(k);
    }
  }
  const std::uint64_t budget = compare_budget(n, threads);
  // During the sample, the sample's share of the budget: past it the foretold steps are past the
  // budget, and the sample stops there.
  std::uint64_t limit = all_suffixes > 0 ? budget * sample_suffixes / all_suffixes : 0;
  std::atomic<std::uint64_t> spent{0};
  std::atomic<bool> over{false};
  const std::vector<std::uint32_t>* pass = &sample;
  auto sort_bucket = [&](std::size_t o) {
    if (over.load(std::memory_order_relaxed)) throw OverBudget{};
    const std::uint32_t s = start[(*pass)[o]], e = start[(*pass)[o] + 1];
    std::vector<std::pair<std::uint64_t, std::uint32_t>> v(e - s);  // (bytes 2 .. 9, suffix)
    for (std::uint32_t k = s; k < e; ++k) {
      const auto i = static_cast<std::uint32_t>(sa[k]);
      v[k - s] = {key8(t, n, std::size_t{i} + 2), i};
    }
    std::uint64_t looked = 0;
    // Two suffixes equal in their first 10 bytes (zeros past the end): the rest compared; where
    // one is a prefix of the other, the shorter (the later start) is the smaller.
    auto tail_less = [&](std::size_t i, std::size_t j) {
      std::size_t k = 0;
      const int verdict = compare_tails(t, n, i, j, 10, k);
      looked += 1 + (k - 10) / 8;
      if (looked > (std::uint64_t{1} << 14)) {  // the shared count, now and then
        if (spent.fetch_add(looked) + looked > limit) over.store(true);
        looked = 0;
        if (over.load(std::memory_order_relaxed)) throw OverBudget{};
      }
      return verdict != 0 ? verdict < 0 : i > j;
    };
    std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return tail_less(a.second, b.second);
    });
    if (spent.fetch_add(looked) + looked > limit) over.store(true);
    for (std::uint32_t k = s; k < e; ++k) sa[k] = static_cast<std::int32_t>(v[k - s].second);
  };
  try {
    for_each_block(sample.size(), threads, sort_bucket);
    if (over.load()) return false;
    limit = std::max<std::uint64_t>(2 * budget, 8 * std::uint64_t{n});
    pass = &rest;
    for_each_block(rest.size(), threads, sort_bucket);
  } catch (const OverBudget&) {
    return false;
  }
  return !over.load();
}

namespace {

constexpr std::size_t kParallelSortFrom = std::size_t{1} << 16;  // bytes of a block (forward_bwt)

// L, the primary row and (stride != 0) the rows of every stride-th rotation, as the oracle
// (reference::bwt_rotations) defines them; *period_out (optional): t's smallest period dividing its
// length (its length when no two rotations are equal).
std::uint32_t forward_bwt(std::span<const std::uint8_t> t, std::uint8_t* last, std::vector<std::uint32_t>* samples,
                          std::size_t stride, Workspace::Buffers& b, unsigned threads = 1, std::size_t* period_out = nullptr) {
  const std::size_t n = t.size();
  if (samples != nullptr) samples->assign((n + stride - 1) / stride, 0);
  std::uint32_t primary = 0;
  if (n == 0) return primary;
  std::size_t period = 0;
  const std::size_t least = least_rotation(t, period);
  if (period_out != nullptr) *period_out = period;
  // t is w = t[0 .. p) repeated k times, w primitive (k = 1: no two rotations of t are equal). The
  // least rotation R of w is a Lyndon word: its rotations sort as its suffixes, one suffix sort of
  // p bytes. Row i of w's rotations starts at R position sa[i], w position (sa[i] + shift) mod p;
  // its last byte is R[sa[i] - 1], read from rp = R[p-1] R.
  const std::size_t p = period, k = n / p, shift = least % p;
  std::uint8_t* rp = Workspace::Buffers::at_least(b.text, p + 1);
  std::uint8_t* r = rp + 1;
  std::memcpy(r, t.data() + shift, p - shift);
  std::memcpy(r + (p - shift), t.data(), shift);
  rp[0] = r[p - 1];
  std::int32_t* sa = Workspace::Buffers::at_least(b.sa, p);
  // Below 64 KiB libdivsufsort takes a millisecond or two on one thread, less than the parallel
  // sort's set-up (its bucket counts zeroed and faulted in: 0.5 MiB, most of a 1 kB file's block).
  const unsigned sort_threads = p >= kParallelSortFrom ? threads : 1;
  if (!parallel_suffix_sort({r, p}, sa, sort_threads) && divsufsort(r, sa, static_cast<saidx_t>(p)) != 0)
    throw std::runtime_error("divsufsort failed");
  if (k == 1) {
    // The R positions of the original rotations wanted: 0 (the primary) and every stride-th.
    const std::size_t to_r = (n - shift) % n;  // original position 0 in R
    if (samples == nullptr) {  // the primary alone (.bz2): one compare a row, no bitmap
      for (std::size_t i = 0; i < n; ++i) {
        const auto pos = static_cast<std::size_t>(sa[i]);
        last[i] = rp[pos];
        if (pos == to_r) primary = static_cast<std::uint32_t>(i);
      }
      return primary;
    }
    std::vector<std::uint8_t>& marks = b.marks;  // one bit per R position
    marks.assign(n / 8 + 1, 0);
    const std::size_t wanted = samples != nullptr ? samples->size() : 1;
    for (std::size_t j = 0; j < wanted; ++j) {
      std::size_t pos = to_r + j * (samples != nullptr ? stride : 0);
      if (pos >= n) pos -= n;
      marks[pos >> 3] = static_cast<std::uint8_t>(marks[pos >> 3] | (1u << (pos & 7)));
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto pos = static_cast<std::size_t>(sa[i]);
      last[i] = rp[pos];
      if (((marks[pos >> 3] >> (pos & 7)) & 1u) != 0) {
        std::size_t s = pos + shift;
        if (s >= n) s -= n;
        if (s == 0) primary = static_cast<std::uint32_t>(i);
        if (samples != nullptr) (*samples)[s / stride] = static_cast<std::uint32_t>(i);
      }
    }
    return primary;
  }
  // Equal rotations (k > 1): those from x, x + p, ... take k rows together, where w's rotation x
  // sorts among w's; the oracle orders them by descending start (rotation x + j p at row
  // k row_w(x) + k - 1 - j), and their last byte is w's.
  std::vector<std::uint32_t> row_w;  // w's row of each rotation of w (for the samples)
  if (samples != nullptr) row_w.resize(p);
  for (std::size_t i = 0; i < p; ++i) {
    const auto q = static_cast<std::size_t>(sa[i]);
    std::memset(last + i * k, rp[q], k);
    std::size_t w_at = q + shift;
    if (w_at >= p) w_at -= p;
    if (w_at == 0) primary = static_cast<std::uint32_t>(i * k + k - 1);
    if (samples != nullptr) row_w[w_at] = static_cast<std::uint32_t>(i);
  }
  if (samples != nullptr)
    for (std::size_t x = 0; x < n; x += stride)
      (*samples)[x / stride] = static_cast<std::uint32_t>(row_w[x % p] * k + k - 1 - x / p);
  return primary;
}

// ---- MTF and zero runs --------------------------------------------------------------------------

void mtf_encode(const std::uint8_t* in, std::size_t n, std::uint8_t* out) {
  std::uint8_t list[256];
  for (int i = 0; i < 256; ++i) list[i] = static_cast<std::uint8_t>(i);
  std::uint64_t yy[bz2::kMtfWords];  // the list as words, moved eight places a step (the .bz2 writer's)
  bz2::mtf_list_words(list, 256, yy);
  std::uint64_t front = yy[0];
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint8_t c = in[j];
    out[j] = (front & 0xffu) == c ? 0 : static_cast<std::uint8_t>(bz2::mtf_move(front, yy, c));
  }
}

// One move-to-front step: the byte at place m (1..255) goes to the front; returns it.
inline std::uint8_t mtf_to_front(std::uint8_t* list, std::uint8_t m) {
  const std::uint8_t c = list[m];
  bz2::shift_up_256(list, m);
  list[0] = c;
  return c;
}

void mtf_decode(const std::uint8_t* in, std::size_t n, std::uint8_t* out) {
  std::uint8_t list[256];
  for (int i = 0; i < 256; ++i) list[i] = static_cast<std::uint8_t>(i);
  for (std::size_t j = 0; j < n; ++j) out[j] = in[j] == 0 ? list[0] : mtf_to_front(list, in[j]);
}

std::size_t zrle_encode(const std::uint8_t* mtf, std::size_t n, std::uint8_t* out) {
  std::size_t o = 0, i = 0;
  while (i < n) {
    if (mtf[i] == 0) {
      std::uint64_t run = 0;
      while (i < n && mtf[i] == 0) ++run, ++i;
      for (; run > 0; run = (run - 1) / 2) out[o++] = (run & 1) != 0 ? stages::kRunA : stages::kRunB;
      continue;
    }
    const std::uint8_t v = mtf[i++];
    if (v <= 253) {
      out[o++] = static_cast<std::uint8_t>(v + 1);
    } else {
      out[o++] = stages::kZrleEscape;
      out[o++] = static_cast<std::uint8_t>(v - 254);
    }
  }
  return o;
}

// The zero-run stage's inverse and the MTF's in one pass (mtf_decode of zrle_decode's bytes): a run
// of zeros is a run of the front byte, each value a move to the front.
void zrle_mtf_decode(const std::uint8_t* sym, std::size_t m, std::uint8_t* out, std::size_t n, std::size_t block) {
  std::uint8_t list[256];
  for (int i = 0; i < 256; ++i) list[i] = static_cast<std::uint8_t>(i);
  std::size_t o = 0;
  std::uint64_t run = 0, weight = 1;
  auto flush = [&] {
    if (run > n - o) corrupt(block, "zero-run stage: a run past the block's end");
    if (run <= 8) {  // most runs are short: a byte loop beats a call
      for (std::uint64_t k = 0; k < run; ++k) out[o + k] = list[0];
    } else {
      std::memset(out + o, list[0], run);
    }
    o += run;
    run = 0;
    weight = 1;
  };
  for (std::size_t i = 0; i < m; ++i) {
    const std::uint8_t s = sym[i];
    if (s <= stages::kRunB) {
      if (weight > (std::uint64_t{1} << 40)) corrupt(block, "zero-run stage: a run too long");
      run += weight << s;  // RUNA = 1 x weight, RUNB = 2 x weight
      weight *= 2;
      continue;
    }
    flush();
    std::uint8_t v;
    if (s == stages::kZrleEscape) {
      if (i + 1 >= m || sym[i + 1] > 1) corrupt(block, "zero-run stage: a bad escape");
      v = static_cast<std::uint8_t>(254 + sym[++i]);
    } else {
      v = static_cast<std::uint8_t>(s - 1);
    }
    if (o >= n) corrupt(block, "zero-run stage: a value past the block's end");
    out[o++] = mtf_to_front(list, v);  // v >= 1: zeros come as runs
  }
  flush();
  if (o != n) corrupt(block, "zero-run stage: decodes to " + std::to_string(o) + " bytes, the block has " + std::to_string(n));
}

// ---- the multi-table code (stages.hpp; reference::multi_choose's steps) ------------------------

struct MultiCode {
  int tables = 0;
  std::vector<codes::Lengths> lengths;
};

MultiCode choose_tables(const std::uint8_t* sym, std::size_t m, std::uint8_t* selectors) {
  const codes::Histogram hist = codes::byte_histogram({sym, m});
  MultiCode code;
  code.tables = stages::multi_table_count(m);
  code.lengths = stages::multi_initial_costs(hist, code.tables);
  const std::size_t groups = stages::multi_groups(m);
  std::array<std::uint64_t, 256> lane_a{}, lane_b{};  // costs of tables 0-3 and 4-5, 16 bits each
  std::vector<codes::Histogram> counts(static_cast<std::size_t>(code.tables));
  for (int it = 0; it < stages::kTableIterations; ++it) {
    for (int c = 0; c < 256; ++c) {
      std::uint64_t a = 0, b = 0;
      for (int t = 0; t < code.tables; ++t) {
        const std::uint64_t cost = code.lengths[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)];
        if (t < 4)
          a |= cost << (16 * t);
        else
          b |= cost << (16 * (t - 4));
      }
      lane_a[static_cast<std::size_t>(c)] = a;
      lane_b[static_cast<std::size_t>(c)] = b;
    }
    for (auto& h : counts) h.fill(0);
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t first = g * stages::kGroupSymbols, last = std::min(m, first + stages::kGroupSymbols);
      std::uint64_t a = 0, b = 0;
      for (std::size_t i = first; i < last; ++i) {
        a += lane_a[sym[i]];
        b += lane_b[sym[i]];
      }
      int pick = 0;
      std::uint32_t best = static_cast<std::uint32_t>(a & 0xFFFFu);
      for (int t = 1; t < code.tables; ++t) {
        const auto cost = static_cast<std::uint32_t>((t < 4 ? a >> (16 * t) : b >> (16 * (t - 4))) & 0xFFFFu);
        if (cost < best) best = cost, pick = t;
      }
      selectors[g] = static_cast<std::uint8_t>(pick);
      codes::Histogram& h = counts[static_cast<std::size_t>(pick)];
      for (std::size_t i = first; i < last; ++i) ++h[sym[i]];
    }
    for (int t = 0; t < code.tables; ++t) {
      codes::Histogram h = counts[static_cast<std::size_t>(t)];
      for (int c = 0; c < 256; ++c)
        if (hist[static_cast<std::size_t>(c)] != 0 && h[static_cast<std::size_t>(c)] == 0) h[static_cast<std::size_t>(c)] = 1;
      code.lengths[static_cast<std::size_t>(t)] = stages::huffman_lengths_rescaled(h, stages::kMultiMaxLength);
    }
  }
  return code;
}

// ---- bit output and input -----------------------------------------------------------------------

// Codewords MSB-first into 32-bit words through a 64-bit accumulator.
class WordWriter {
 public:
  explicit WordWriter(std::uint32_t* out) : out_(out) {}
  void put(std::uint32_t bits, int length) {
    acc_ = (acc_ << length) | bits;
    pending_ += length;
    total_ += static_cast<std::uint64_t>(length);
    if (pending_ >= 32) {
      pending_ -= 32;
      *out_++ = static_cast<std::uint32_t>(acc_ >> pending_);
    }
  }
  std::uint64_t bits() const { return total_; }
  std::uint32_t* finish() {
    if (pending_ > 0) *out_++ = static_cast<std::uint32_t>(acc_ << (32 - pending_));
    pending_ = 0;
    return out_;
  }

 private:
  std::uint32_t* out_;
  std::uint64_t acc_ = 0, total_ = 0;
  int pending_ = 0;
};

// Canonical decoding: a 12-bit lookup table, and per length the first code, the count and the
// symbols in code order for the longer codes.
struct Decoder {
  static constexpr int kLut = 12;
  std::array<std::uint16_t, 1 << kLut> lut{};  // (symbol << 5) | length, 0 = longer code or none
  std::array<std::uint32_t, 33> first{}, count{}, offset{};
  std::array<std::uint8_t, 256> symbols{};
  int max_length = 0;
  explicit Decoder(const codes::Lengths& lengths) {
    const codes::CodeTable table = codes::canonical_codes(lengths);
    for (int c = 0; c < 256; ++c) {
      const int l = lengths[static_cast<std::size_t>(c)];
      if (l == 0) continue;
      max_length = std::max(max_length, l);
      ++count[static_cast<std::size_t>(l)];
      if (l <= kLut) {
        const std::uint32_t lo = table[static_cast<std::size_t>(c)].bits << (kLut - l), span = 1u << (kLut - l);
        for (std::uint32_t i = 0; i < span; ++i) lut[lo + i] = static_cast<std::uint16_t>((c << 5) | l);
      }
    }
    std::uint32_t code = 0, pos = 0;
    for (int l = 1; l <= 32; ++l) {
      first[static_cast<std::size_t>(l)] = code;
      offset[static_cast<std::size_t>(l)] = pos;
      code = (code + count[static_cast<std::size_t>(l)]) << 1;
      pos += count[static_cast<std::size_t>(l)];
    }
    std::array<std::uint32_t, 33> fill = offset;
    for (int c = 0; c < 256; ++c) {  // canonical order: by length, then by symbol
      const int l = lengths[static_cast<std::size_t>(c)];
      if (l != 0) symbols[fill[static_cast<std::size_t>(l)]++] = static_cast<std::uint8_t>(c);
    }
  }
  // The next symbol of a left-aligned window; false when no codeword matches.
  bool next(std::uint64_t window, std::uint32_t& symbol, int& length) const {
    const std::uint16_t e = lut[window >> (64 - kLut)];
    if (e != 0) {
      symbol = e >> 5;
      length = e & 31;
      return true;
    }
    for (int l = kLut + 1; l <= max_length; ++l) {
      const auto c = static_cast<std::uint32_t>(window >> (64 - l));
      if (c - first[static_cast<std::size_t>(l)] < count[static_cast<std::size_t>(l)]) {
        symbol = symbols[offset[static_cast<std::size_t>(l)] + c - first[static_cast<std::size_t>(l)]];
        length = l;
        return true;
      }
    }
    return false;
  }
};


// ---- reverse BWT --------------------------------------------------------------------------------

// out[0..n) from L: bzip2's packed array (row of rotation s - 1 << 8 | T[s - 1], at the row of
// rotation s), walked backwards: chain k writes out[begins[k], ends[k]) from its end, starting at
// rows[k] (the row of the rotation that starts at ends[k]); eight chains of equal length advance
// together so that their loads overlap.
void reverse_bwt(const std::uint8_t* last, std::size_t n, std::uint32_t* tt, std::span<const std::uint32_t> rows,
                 std::span<const std::size_t> begins, std::span<const std::size_t> ends, std::uint8_t* out) {
  std::array<std::uint32_t, 256> next{};
  for (std::size_t i = 0; i < n; ++i) ++next[last[i]];
  std::uint32_t sum = 0;
  for (auto& c : next) sum += std::exchange(c, sum);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t c = last[i];
    tt[i] = (next[c]++ << 8) | c;
  }
  constexpr std::size_t kLanes = 8;
  std::size_t k0 = 0;
  for (; k0 + kLanes <= rows.size(); k0 += kLanes) {
    const std::size_t length = ends[k0] - begins[k0];
    bool equal = true;
    for (std::size_t j = 1; j < kLanes; ++j) equal = equal && ends[k0 + j] - begins[k0 + j] == length;
    if (!equal) break;
    std::uint32_t row[kLanes];
    std::size_t pos[kLanes];
    for (std::size_t j = 0; j < kLanes; ++j) {
      row[j] = rows[k0 + j];
      pos[j] = ends[k0 + j];
    }
    for (std::size_t step = 0; step < length; ++step) {
#pragma GCC unroll 8
      for (std::size_t j = 0; j < kLanes; ++j) {
        const std::uint32_t x = tt[row[j]];
        out[--pos[j]] = static_cast<std::uint8_t>(x);
        row[j] = x >> 8;
      }
    }
  }
  for (std::size_t k = k0; k < rows.size(); ++k) {  // the rest one at a time
    std::uint32_t row = rows[k];
    for (std::size_t pos = ends[k]; pos > begins[k];) {
      const std::uint32_t x = tt[row];
      out[--pos] = static_cast<std::uint8_t>(x);
      row = x >> 8;
    }
  }
}

// ---- blocks ---------------------------------------------------------------------------------------

void compress_fast(std::span<const std::uint8_t> block, BlockEntry& e, std::vector<std::uint8_t>& payload, unsigned threads,
                   Workspace::Buffers& b) {
  const std::size_t n = block.size();
  std::uint8_t* last = Workspace::Buffers::at_least(b.last, n);
  std::uint8_t* moved = Workspace::Buffers::at_least(b.moved, n);
  std::uint8_t* sym = Workspace::Buffers::at_least(b.symbols, stages::zrle_max_symbols(n));
  pipeline::FastPayload p;
  e.primary = forward_bwt(block, last, &p.samples, pipeline::kFastSampleStride, b, threads);
  mtf_encode(last, n, moved);
  const std::size_t m = zrle_encode(moved, n, sym);
  std::uint8_t* selectors = Workspace::Buffers::at_least(b.selectors, stages::multi_groups(m));
  const MultiCode code = choose_tables(sym, m, selectors);
  std::array<codes::CodeTable, stages::kMaxTables> tables{};
  for (int t = 0; t < code.tables; ++t) tables[static_cast<std::size_t>(t)] = codes::canonical_codes(code.lengths[static_cast<std::size_t>(t)]);
  std::uint32_t* words = Workspace::Buffers::at_least(b.words, (m * stages::kMultiMaxLength + 31) / 32 + 1);
  WordWriter w(words);
  p.index.clear();
  p.index.reserve(m / pipeline::kStride + 1);
  for (std::size_t i = 0; i < m; ++i) {
    if (i % pipeline::kStride == 0) p.index.push_back(w.bits());
    const codes::Codeword cw = tables[selectors[i / stages::kGroupSymbols]][sym[i]];
    w.put(cw.bits, cw.length);
  }
  p.bits = w.bits();
  const std::size_t nwords = static_cast<std::size_t>(w.finish() - words);
  p.symbols = static_cast<std::uint32_t>(m);
  p.lengths = code.lengths;
  p.selectors.assign(selectors, selectors + stages::multi_groups(m));
  pipeline::put_fast(payload, p, std::span<const std::uint32_t>(words, nwords), static_cast<std::uint32_t>(n));
}

void compress_paper(std::span<const std::uint8_t> block, BlockEntry& e, std::vector<std::uint8_t>& payload, unsigned threads,
                    Workspace::Buffers& b) {
  const std::size_t n = block.size();
  std::uint8_t* last = Workspace::Buffers::at_least(b.last, n);
  std::uint8_t* moved = Workspace::Buffers::at_least(b.moved, n);
  e.primary = forward_bwt(block, last, nullptr, 0, b, threads);
  mtf_encode(last, n, moved);
  e.lengths = codes::huffman_code_lengths(codes::byte_histogram({moved, n}), 16);
  const codes::CodeTable table = codes::canonical_codes(e.lengths);
  const std::size_t arrays = (n + pipeline::kHuffmanBlockSymbols - 1) / pipeline::kHuffmanBlockSymbols;
  std::vector<std::uint32_t> sizes(arrays);
  std::vector<std::uint8_t> data;
  data.reserve(n);
  std::uint32_t* words = Workspace::Buffers::at_least(b.words, (pipeline::kHuffmanBlockSymbols * 16 + 31) / 32 + 1);
  for (std::size_t a = 0; a < arrays; ++a) {  // each 4096-symbol array byte-aligned on its own
    WordWriter w(words);
    const std::size_t first = a * pipeline::kHuffmanBlockSymbols, end = std::min(n, first + pipeline::kHuffmanBlockSymbols);
    for (std::size_t i = first; i < end; ++i) w.put(table[moved[i]].bits, table[moved[i]].length);
    const std::uint64_t bits = w.bits();
    w.finish();
    const std::size_t bytes = static_cast<std::size_t>((bits + 7) / 8);
    for (std::size_t k = 0; k < bytes; ++k) data.push_back(static_cast<std::uint8_t>(words[k / 4] >> (24 - 8 * (k % 4))));
    sizes[a] = static_cast<std::uint32_t>(bytes);
  }
  pipeline::put_u32s(payload, sizes);
  payload.insert(payload.end(), data.begin(), data.end());
}

void decompress_fast(const BlockEntry& e, std::span<const std::uint8_t> payload, std::size_t index, std::span<std::uint8_t> out,
                     Workspace::Buffers& b) {
  const std::size_t n = e.original_bytes;
  const pipeline::FastPayload p = pipeline::split_fast(payload, e.original_bytes, index);
  std::vector<Decoder> decoders;
  decoders.reserve(p.lengths.size());
  for (const auto& l : p.lengths) decoders.emplace_back(l);
  // The stream's words are little-endian u32 values, MSB-first bits: as big-endian bytes.
  std::uint8_t* be = Workspace::Buffers::at_least(b.text, p.words_raw.size());
  for (std::size_t i = 0; i < p.words_raw.size(); i += 4) {
    be[i] = p.words_raw[i + 3];
    be[i + 1] = p.words_raw[i + 2];
    be[i + 2] = p.words_raw[i + 1];
    be[i + 3] = p.words_raw[i];
  }
  BitReader r(std::span<const std::uint8_t>(be, p.words_raw.size()));
  std::uint8_t* sym = Workspace::Buffers::at_least(b.symbols, p.symbols);
  for (std::uint32_t g = 0; g < p.symbols; g += stages::kGroupSymbols) {  // a group's symbols share a table
    const Decoder& d = decoders[p.selectors[g / stages::kGroupSymbols]];
    const std::uint32_t end = std::min<std::uint32_t>(p.symbols, g + stages::kGroupSymbols);
    for (std::uint32_t i = g; i < end; ++i) {
      std::uint32_t s;
      int length;
      if (!d.next(r.window(), s, length)) corrupt(index, "no codeword matches at symbol " + std::to_string(i));
      r.skip(length);
      sym[i] = static_cast<std::uint8_t>(s);
    }
    // Past the stream, the reader gives zeros; the count only grows, so once a group is enough.
    if (r.used() > p.bits) corrupt(index, "the coded symbols run past the stream's bit count");
  }
  if (r.used() != p.bits) corrupt(index, "the stream has bits left after its last symbol");
  std::uint8_t* last = Workspace::Buffers::at_least(b.last, n);
  zrle_mtf_decode(sym, p.symbols, last, n, index);
  // Chain k writes out[k * stride, min((k + 1) * stride, n)), from the row of rotation (k + 1) *
  // stride (the next start row; rotation 0, the primary, for the last chain).
  const std::size_t stride = pipeline::kFastSampleStride, chains = p.samples.size();
  std::vector<std::uint32_t> rows(chains);
  std::vector<std::size_t> begins(chains), ends(chains);
  for (std::size_t k = 0; k < chains; ++k) {
    rows[k] = k + 1 < chains ? p.samples[k + 1] : e.primary;
    begins[k] = k * stride;
    ends[k] = std::min(n, (k + 1) * stride);
  }
  std::uint32_t* tt = Workspace::Buffers::at_least(b.tt, n);
  reverse_bwt(last, n, tt, rows, begins, ends, out.data());
}

void decompress_paper(const BlockEntry& e, std::span<const std::uint8_t> payload, std::size_t index, std::span<std::uint8_t> out,
                      Workspace::Buffers& b) {
  const std::size_t n = e.original_bytes;
  if (codes::kraft_sum_scaled(e.lengths) > (std::uint64_t{1} << 32)) corrupt(index, "code lengths are not a prefix code");
  const pipeline::PaperPayload p = pipeline::split_paper(payload, e.original_bytes, index);
  const Decoder d(e.lengths);
  const auto sizes = p.sizes();
  std::uint8_t* moved = Workspace::Buffers::at_least(b.moved, n);
  std::size_t at = 0;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    const auto bytes = p.data.subspan(at, sizes[a]);
    at += sizes[a];
    BitReader r(bytes);
    const std::size_t first = a * pipeline::kHuffmanBlockSymbols, end = std::min(n, first + pipeline::kHuffmanBlockSymbols);
    for (std::size_t i = first; i < end; ++i) {
      std::uint32_t s;
      int length;
      if (!d.next(r.window(), s, length)) corrupt(index, "Huffman array " + std::to_string(a) + ": no codeword matches");
      r.skip(length);
      moved[i] = static_cast<std::uint8_t>(s);
    }
    if ((r.used() + 7) / 8 != sizes[a]) corrupt(index, "Huffman array " + std::to_string(a) + " does not end where its size says");
  }
  std::uint8_t* last = Workspace::Buffers::at_least(b.last, n);
  mtf_decode(moved, n, last);
  std::uint32_t* tt = Workspace::Buffers::at_least(b.tt, n);
  const std::uint32_t rows[1] = {e.primary};
  const std::size_t begins[1] = {0}, ends[1] = {n};
  reverse_bwt(last, n, tt, rows, begins, ends, out.data());
}

// Calls body(item, workspace) for every item on `threads` threads, each with its own workspace.
template <typename Body>
void parallel_blocks(std::size_t items, unsigned threads, Body&& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    Workspace ws;
    try {
      for (std::size_t i = next++; i < items; i = next++) body(i, ws);
    } catch (...) {
      const std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = items;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t + 1 < std::min<std::size_t>(threads, items); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace

void compress_block(Config config, std::span<const std::uint8_t> block, BlockEntry& entry, std::vector<std::uint8_t>& payload,
                    Workspace& ws, unsigned threads) {
  entry.original_bytes = static_cast<std::uint32_t>(block.size());
  entry.crc = crc32(block);
  payload.clear();
  if (block.empty()) throw ContractError("cpu::compress_block: empty block");
  if (config == Config::fast)
    compress_fast(block, entry, payload, threads, ws.buffers());
  else
    compress_paper(block, entry, payload, threads, ws.buffers());
}

void decompress_block(Config config, const BlockEntry& entry, std::span<const std::uint8_t> payload, std::size_t index,
                      std::span<std::uint8_t> out, Workspace& ws) {
  if (out.size() != entry.original_bytes) throw ContractError("cpu::decompress_block: output size differs from the block's");
  if (config == Config::fast)
    decompress_fast(entry, payload, index, out, ws.buffers());
  else
    decompress_paper(entry, payload, index, out, ws.buffers());
  if (crc32(out) != entry.crc) corrupt(index, "CRC-32 of the decoded block does not match");
}

void bz2_compress_block(std::span<const std::uint8_t> input, bz2::BlockBits& out, Workspace& ws, unsigned threads,
                        std::shared_future<std::uint32_t>* row_later) {
  if (input.empty()) throw ContractError("cpu::bz2_compress_block: empty block");
  Workspace::Buffers& b = ws.buffers();
  RawBytes& rle = b.moved;
  rle.clear();
  bz2::rle1_encode(input, rle);
  std::uint8_t* last = Workspace::Buffers::at_least(b.last, rle.size());
  std::size_t period = 0;
  std::uint32_t orig_ptr = forward_bwt(rle, last, nullptr, 0, b, threads, &period);
  if (period < rle.size()) {  // bzip2's row of equal rotations
    if (row_later == nullptr)
      orig_ptr = bz2::bzip2_primary(rle, period, input);
    else if (const std::optional<std::uint32_t> now = bz2::bzip2_primary_now(rle, period, input, *row_later))
      orig_ptr = *now;
  }
  // On two or three threads the encoder's chunked MTF's extra passes ate its gain (Calgary book1
  // on a 2-core host: 48.2 against 47.2 ms, one block); the sort gains from two on.
  bz2::encode_block({last, rle.size()}, orig_ptr, bz2::block_crc(input), out, b.bz2_encode, threads >= 4 ? threads : 1);
}

bz2::BlockResult bz2_decompress_block(std::span<const std::uint8_t> in, std::uint64_t bit, int level, std::vector<std::uint8_t>& out,
                                      Workspace& ws, const bz2::Where& where, bool input_ends_here, bool overwrite, std::size_t compact_over) {
  return bz2::decode_block(in, bit, level, out, ws.buffers().bz2_decode, where, input_ends_here, overwrite, compact_over);
}

std::vector<std::uint8_t> compress(Config config, std::span<const std::uint8_t> in, std::size_t block_bytes, unsigned threads) {
  if (block_bytes == 0 || block_bytes > (std::size_t{1} << 24))
    throw ContractError("cpu::compress: block size must be in 1 .. 2^24, got " + std::to_string(block_bytes));
  pipeline::Layout layout;
  layout.config = config;
  layout.block_bytes = static_cast<std::uint32_t>(block_bytes);
  layout.original_bytes = in.size();
  const std::size_t blocks = (in.size() + block_bytes - 1) / block_bytes;
  layout.blocks.resize(blocks);
  std::vector<std::vector<std::uint8_t>> payloads(blocks);
  parallel_blocks(blocks, threads, [&](std::size_t b, Workspace& ws) {
    compress_block(config, in.subspan(b * block_bytes, std::min(block_bytes, in.size() - b * block_bytes)), layout.blocks[b],
                   payloads[b], ws);
  });
  return pipeline::assemble(std::move(layout), payloads);
}

std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> file, unsigned threads) {
  const pipeline::Layout layout = pipeline::parse(file);
  std::vector<std::uint8_t> out(layout.original_bytes);
  parallel_blocks(layout.blocks.size(), threads, [&](std::size_t b, Workspace& ws) {
    const BlockEntry& e = layout.blocks[b];
    decompress_block(layout.config, e, file.subspan(e.payload_offset, e.payload_bytes), b,
                     std::span(out).subspan(b * std::size_t{layout.block_bytes}, e.original_bytes), ws);
  });
  return out;
}

}  // namespace parcomp::cpu
