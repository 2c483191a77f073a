// Deterministic synthetic data: the same (kind, parameters, seed, size) always gives the same bytes,
// on every machine (own PRNG, no std:: distributions, whose output is implementation-defined).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace parcomp::datasets {

// xoshiro256** seeded through splitmix64.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::array<std::uint64_t, 4> s_{};
};

// Uniform random int32 values over the full range (mean run length just above 1).
std::vector<std::int32_t> random_int32(std::size_t n, std::uint64_t seed);

// Runs of one value, with lengths drawn geometrically with the given mean (>= 1); each run's value
// differs from the previous run's, so the measured mean run length is the requested one.
std::vector<std::int32_t> runs_int32(std::size_t n, double mean_run_length, std::uint64_t seed);

// Bytes drawn i.i.d. from a 256-symbol distribution whose Shannon entropy is `bits_per_symbol`
// (0..8): p_k proportional to r^k over a seeded permutation of the symbols, r solved by bisection.
std::vector<std::uint8_t> bytes_with_entropy(std::size_t n, double bits_per_symbol, std::uint64_t seed);

// The symbol probabilities bytes_with_entropy draws from (index = symbol).
std::array<double, 256> entropy_distribution(double bits_per_symbol, std::uint64_t seed);

// Shannon entropy in bits/symbol of a distribution, and the empirical one of a byte sequence.
double entropy_bits(std::span<const double> probabilities);
double empirical_entropy_bits(std::span<const std::uint8_t> bytes);

// Mean run length of a sequence (n / runs; 0 for empty input).
double mean_run_length(std::span<const std::int32_t> values);

}  // namespace parcomp::datasets
