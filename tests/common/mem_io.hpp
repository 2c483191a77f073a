// Memory as the engine's source and sink (codec/engine.hpp), for the CPU and GPU tests.
#pragma once

#include "codec/engine.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace parcomp::testing {

// Reads in pieces of random sizes (1 .. max_piece), as pipes deliver them.
class MemSource : public engine::Source {
 public:
  MemSource(const std::vector<std::uint8_t>& b, std::uint64_t seed, std::size_t max_piece = 1 << 20) : b_(b), rng_(seed), max_(max_piece) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    const std::size_t n = std::min({max, b_.size() - at_, 1 + static_cast<std::size_t>(rng_() % max_)});
    std::memcpy(buf, b_.data() + at_, n);
    at_ += n;
    return n;
  }
  std::size_t at() const { return at_; }

 private:
  const std::vector<std::uint8_t>& b_;
  std::size_t at_ = 0;
  std::mt19937_64 rng_;
  std::size_t max_;
};

class MemSink : public engine::Sink {
 public:
  void write(const std::uint8_t* buf, std::size_t n) override { b.insert(b.end(), buf, buf + n); }
  std::vector<std::uint8_t> b;
};

// A MemSink that keeps its largest single write (a writer that should hand on pieces).
class LargestWriteSink : public MemSink {
 public:
  void write(const std::uint8_t* buf, std::size_t n) override {
    largest = std::max(largest, n);
    MemSink::write(buf, n);
  }
  std::size_t largest = 0;
};

}  // namespace parcomp::testing
