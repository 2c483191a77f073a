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

}  // namespace parcomp
