// MSB-first bit input from a byte span, shared by the CPU codec's payload decoders and the .bz2
// reader: a 64-bit window refilled four bytes at a time where it can, else a byte at a time,
// starting at any bit of the span. Bits past the span's end read as zero and are counted
// (past_end()), so a decoder checks once, after a symbol, instead of at every refill. Host and
// device code (the GPU .bz2 decoder reads with it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#if defined(__CUDACC__)
#define PARCOMP_HD __host__ __device__
#else
#define PARCOMP_HD
#endif
// A rarely taken call kept out of line in device code, so that its registers and stack do not
// weigh on the hot loop around it (the GPU .bz2 decoder's fallback and header).
#if defined(__CUDA_ARCH__)
#define PARCOMP_COLD __noinline__
#define PARCOMP_NO_UNROLL _Pragma("unroll 1")
#else
#define PARCOMP_COLD
#define PARCOMP_NO_UNROLL
#endif

namespace parcomp {

class BitReader {
 public:
  explicit BitReader(std::span<const std::uint8_t> in, std::uint64_t start_bit = 0) : BitReader(in.data(), in.size(), start_bit) {}
  PARCOMP_HD BitReader(const std::uint8_t* in, std::size_t size, std::uint64_t start_bit)
      : in_(in), size_(size), pos_(static_cast<std::size_t>(start_bit >> 3)), used_(start_bit) {
    refill();
    const int skip_bits = static_cast<int>(start_bit & 7);
    buf_ <<= skip_bits;
    avail_ -= skip_bits;
  }
  // The next bits, left-aligned (at least 32 valid).
  PARCOMP_HD std::uint64_t window() const { return buf_; }
  PARCOMP_HD void skip(int n) {
    buf_ <<= n;
    avail_ -= n;
    used_ += static_cast<std::uint64_t>(n);
    if (avail_ < 32) refill();
  }
  // n (1..32) bits as a number, and skips them.
  PARCOMP_HD std::uint32_t take(int n) {
    const auto v = static_cast<std::uint32_t>(buf_ >> (64 - n));
    skip(n);
    return v;
  }
  // The bit position in the span of the next bit.
  PARCOMP_HD std::uint64_t used() const { return used_; }
  // True once a bit at or past the span's end has been consumed.
  PARCOMP_HD bool past_end() const { return used_ > static_cast<std::uint64_t>(size_) * 8; }

 private:
  PARCOMP_HD void refill() {
    if (avail_ <= 32 && pos_ <= size_ && size_ - pos_ >= 4) {  // four loads at once: one wait, not four (a GPU thread)
      const std::uint64_t w = static_cast<std::uint64_t>(in_[pos_]) << 24 | static_cast<std::uint64_t>(in_[pos_ + 1]) << 16 |
                              static_cast<std::uint64_t>(in_[pos_ + 2]) << 8 | in_[pos_ + 3];
      buf_ |= w << (32 - avail_);
      pos_ += 4;
      avail_ += 32;
    }
    while (avail_ <= 56) {
      const std::uint8_t b = pos_ < size_ ? in_[pos_] : 0;
      ++pos_;
      buf_ |= static_cast<std::uint64_t>(b) << (56 - avail_);
      avail_ += 8;
    }
  }
  const std::uint8_t* in_ = nullptr;
  std::size_t size_ = 0, pos_ = 0;
  std::uint64_t buf_ = 0, used_ = 0;
  int avail_ = 0;
};

// MSB-first bits for one GPU thread's long serial walk (the .bz2 decoder's walk of a block's codes,
// ours): the next bits are a 96-bit window of three registers, shifted left as bits are taken, so
// that the next 32 bits are always the first register (no offset to add on the walk's chain); the
// window is refilled a whole word at a time at its valid end, from the word after it, which is
// loaded ahead (two words), and holds 64 to 96 valid bits (zeros after them) after each refill. Words are read
// aligned (one 32-bit load, byte-swapped) where they lie inside the span, byte by byte at its two
// ends; bits past the end read as zero, as BitReader's. The same bits, positions and past_end() as
// BitReader.
class WordBits {
 public:
  // refill()'s prefetch distance on the GPU: a cache line.
  static constexpr unsigned kPrefetchBytes = 128;
  PARCOMP_HD WordBits(const std::uint8_t* in, std::size_t size, std::uint64_t start_bit) : in_(in), size_(size) {
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(in) + static_cast<std::uintptr_t>(start_bit >> 3);
    base_ = at & ~std::uintptr_t{3};
    const auto lead = static_cast<int>(at & 3u);
    const int o = lead * 8 + static_cast<int>(start_bit & 7);  // 0..31
    base_bit_ = static_cast<std::int64_t>(start_bit) - o;       // the bit of base_ in the span (may be below 0)
    // Words [k_lo_, k_hi_) lie whole in the span.
    const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(in), hi = lo + size;
    k_lo_ = base_ >= lo ? 0 : (lo - base_ + 3) / 4;
    k_hi_ = hi >= base_ + 4 ? (hi - base_) / 4 : 0;
    const std::uint32_t w0 = swap(load(0)), w1 = swap(load(1)), w2 = swap(load(2));
    hi_ = shl(w0, w1, o);
    lo_ = shl(w1, w2, o);
    w2_ = shl(w2, 0, o);
    valid_ = 96 - o;
    k_ = 3;
    next_ = load(3);
    next2_ = load(4);
  }
  // The next 32 bits, left-aligned.
  PARCOMP_HD std::uint32_t peek32() const { return hi_; }
  // The next bits as BitReader::window() gives them (at least 32 of them valid after a refill).
  PARCOMP_HD std::uint64_t window() const { return static_cast<std::uint64_t>(hi_) << 32 | lo_; }
  PARCOMP_HD void skip(int n) {  // 0 <= n <= 32
    move(n);
    if (valid_ <= 64) {  // the word ahead at the valid end: bits [valid_, valid_ + 32) of the window
      const std::uint64_t placed = (static_cast<std::uint64_t>(swap(next_)) << 32) >> (valid_ - 32);  // 32 <= valid_ <= 64
      lo_ |= static_cast<std::uint32_t>(placed >> 32);
      w2_ = static_cast<std::uint32_t>(placed);
      valid_ += 32;
      ++k_;
      next_ = next2_;
      next2_ = load(k_ + std::uint64_t{1});
    }
  }
  // skip() without a branch on the GPU (ours): move(n), then refill(). On the host: skip().
  PARCOMP_HD void skip_ahead(int n) {  // 0 <= n <= 32
#if defined(__CUDA_ARCH__)
    move(n);
    refill();
#else
    skip(n);
#endif
  }
  // The walk's common step (ours): the window moves by the low five bits of e (0..31) and is not
  // refilled: its funnel shifts take their count mod 32 from e itself, so the step adds no
  // instruction between the lookup that gives e and the next lookup's bits. Steps of at most 32
  // bits in all between refill()s (the walk: two of at most 12 bits).
  PARCOMP_HD void take_low5(std::uint32_t e) {
#if defined(__CUDA_ARCH__)
    hi_ = __funnelshift_l(lo_, hi_, e);
    lo_ = __funnelshift_l(w2_, lo_, e);
    w2_ = __funnelshift_l(0u, w2_, e);
    valid_ -= static_cast<int>(e & 31u);
#else
    move(static_cast<int>(e & 31u));
#endif
  }
  // The word ahead OR'd in at the valid end where 64 or fewer bits are left, as skip() does. On the
  // GPU without a branch: clamped funnel shifts, whose counts past 32 give zero where no word is
  // due, and the second word ahead loaded at every call (the same word again where none was taken:
  // an L1 hit), so that a word is loaded two refills before the window takes it and its load's wait
  // falls off the walk's chain. Needs the span readable kPrefetchBytes and a few words past its end
  // there (bz2gpu::kWindowPad): the words there are loaded as they lie, not as zeros, so bits past the
  // end are not BitReader's (callers hand a block whose codes reach them to a reader that checks
  // every bit).
  PARCOMP_HD void refill() {
#if defined(__CUDA_ARCH__)
    const auto v = static_cast<unsigned>(valid_);
    const std::uint32_t word = swap(next_);  // byte-swapped here, where it is needed
    lo_ |= __funnelshift_rc(word, 0u, v - 32u);  // 0 for valid_ > 64 (a count of 33..64 clamps to 32)
    w2_ |= __funnelshift_lc(0u, word, 64u - v);  // 0 for valid_ > 64 (the count wraps past 32)
    const bool due = valid_ <= 64;
    valid_ += due ? 32 : 0;
    k_ += due ? 1u : 0u;
    next_ = due ? next2_ : next_;
    next2_ = __ldg(reinterpret_cast<const unsigned*>(base_ + 4 * (std::uintptr_t{k_} + 1)));
    // The bytes kPrefetchBytes ahead into L1, so that the walk's loads hit there: else each new
    // line was a wait on the chain for L2 or DRAM. Within the readable pad past the span's end.
    asm volatile("prefetch.global.L1 [%0+%1];" ::"l"(base_ + 4 * (std::uintptr_t{k_} + 1)), "n"(kPrefetchBytes));
#else
    skip(0);
#endif
  }
  // The bit position in the span of the next bit.
  PARCOMP_HD std::uint64_t used() const { return static_cast<std::uint64_t>(base_bit_ + 32 * static_cast<std::int64_t>(k_) - valid_); }
  PARCOMP_HD bool past_end() const { return used() > static_cast<std::uint64_t>(size_) * 8; }

 private:
  // The window moved by n bits (0..32), not refilled.
  PARCOMP_HD void move(int n) {
    hi_ = shl(hi_, lo_, n);
    lo_ = shl(lo_, w2_, n);
    w2_ = shl(w2_, 0, n);
    valid_ -= n;
  }
  // The high word of (a:b) << n, 0 <= n <= 32.
  PARCOMP_HD static std::uint32_t shl(std::uint32_t a, std::uint32_t b, int n) {
#if defined(__CUDA_ARCH__)
    return __funnelshift_lc(b, a, static_cast<unsigned>(n));
#else
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(a) << 32 | b) << n >> 32);
#endif
  }
  PARCOMP_HD static std::uint32_t swap(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(v, 0, 0x0123);
#else
    return v >> 24 | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24;
#endif
  }
  // Word k after base_ as it lies in memory (bytes in order, as a little-endian word: swap() makes
  // it big-endian); bytes outside the span read as zero.
  PARCOMP_HD std::uint32_t load(std::uint64_t k) const {
    if (k >= k_lo_ && k < k_hi_) {
#if defined(__CUDA_ARCH__)
      return __ldg(reinterpret_cast<const unsigned*>(base_ + 4 * k));
#else
      const auto* b = reinterpret_cast<const std::uint8_t*>(base_ + 4 * k);
      return static_cast<std::uint32_t>(b[3]) << 24 | static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[1]) << 8 | b[0];
#endif
    }
    return load_edge(in_, size_, base_ + 4 * k);
  }
  // Static, its arguments by value: a call out of line with `this` would keep the reader in memory
  // (ncu showed its offset stored to the stack at every step).
  PARCOMP_HD PARCOMP_COLD static std::uint32_t load_edge(const std::uint8_t* in, std::size_t size, std::uintptr_t p) {
    const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(in), hi = lo + size;
    std::uint32_t v = 0;
    for (std::uintptr_t i = p + 4; i-- > p;) v = v << 8 | (i >= lo && i < hi ? in[i - lo] : 0u);
    return v;
  }
  const std::uint8_t* in_ = nullptr;
  std::uintptr_t base_ = 0;
  std::size_t size_ = 0;
  std::int64_t base_bit_ = 0;
  std::uint64_t k_lo_ = 0, k_hi_ = 0;
  std::uint32_t k_ = 0;                               // the word ahead's index after base_ (a span of at most 16 GiB)
  std::uint32_t hi_ = 0, lo_ = 0, w2_ = 0;  // the window, hi_ first
  std::uint32_t next_ = 0, next2_ = 0;      // the two words after it, as they lie in memory
  int valid_ = 0;                                     // the window's valid bits
};

}  // namespace parcomp
