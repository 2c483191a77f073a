#include "synthetic.hpp"

#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace parcomp::datasets {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::array<double, 256> geometric_weights(double r) {
  std::array<double, 256> p{};
  double w = 1.0, sum = 0.0;
  for (double& v : p) {
    v = w;
    sum += w;
    w *= r;
  }
  for (double& v : p) v /= sum;
  return p;
}
}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

std::vector<std::int32_t> random_int32(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::int32_t> out(n);
  std::size_t i = 0;
  for (; i + 1 < n; i += 2) {
    const std::uint64_t v = rng.next();
    out[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    out[i + 1] = static_cast<std::int32_t>(static_cast<std::uint32_t>(v >> 32));
  }
  if (i < n) out[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng.next()));
  return out;
}

std::vector<std::int32_t> runs_int32(std::size_t n, double mean_run_length, std::uint64_t seed) {
  if (!(mean_run_length >= 1.0)) throw std::invalid_argument("runs_int32: mean run length must be >= 1");
  Rng rng(seed);
  std::vector<std::int32_t> out(n);
  // Geometric on {1, 2, ...} with mean m: P(L = k) = p (1-p)^(k-1), p = 1/m.
  const double log_q = std::log1p(-1.0 / mean_run_length);
  std::int32_t value = static_cast<std::int32_t>(rng.next());
  std::size_t i = 0;
  while (i < n) {
    std::size_t length = 1;
    if (mean_run_length > 1.0) {
      const double u = 1.0 - rng.uniform();  // (0, 1]
      length += static_cast<std::size_t>(std::floor(std::log(u) / log_q));
    }
    const std::size_t end = std::min(n, i + length);
    for (; i < end; ++i) out[i] = value;
    std::int32_t next = value;
    while (next == value) next = static_cast<std::int32_t>(rng.next());
    value = next;
  }
  return out;
}

double entropy_bits(std::span<const double> probabilities) {
  double h = 0.0;
  for (const double p : probabilities)
    if (p > 0.0) h -= p * std::log2(p);
  return h;
}

std::array<double, 256> entropy_distribution(double bits, std::uint64_t seed) {
  if (!(bits >= 0.0 && bits <= 8.0))
    throw std::invalid_argument("bytes_with_entropy: bits/symbol must be in [0, 8], got " + std::to_string(bits));
  // Entropy of p_k ~ r^k rises monotonically from 0 (r -> 0) to 8 (r = 1).
  double lo = 0.0, hi = 1.0;
  for (int iter = 0; iter < 200; ++iter) {
    const double mid = 0.5 * (lo + hi);
    const auto p = geometric_weights(mid);
    (entropy_bits(p) < bits ? lo : hi) = mid;
  }
  const auto ranked = geometric_weights(bits >= 8.0 ? 1.0 : 0.5 * (lo + hi));
  // Seeded permutation: which byte value gets which probability.
  std::array<int, 256> symbol{};
  std::iota(symbol.begin(), symbol.end(), 0);
  Rng rng(seed ^ 0x5eed5eed5eed5eedULL);
  for (int k = 255; k > 0; --k) std::swap(symbol[k], symbol[rng.next() % static_cast<std::uint64_t>(k + 1)]);
  std::array<double, 256> p{};
  for (int k = 0; k < 256; ++k) p[symbol[k]] = ranked[k];
  return p;
}

std::vector<std::uint8_t> bytes_with_entropy(std::size_t n, double bits, std::uint64_t seed) {
  const auto p = entropy_distribution(bits, seed);
  // Walker/Vose alias table: O(1) per draw.
  std::array<double, 256> prob{};
  std::array<std::uint8_t, 256> alias{};
  std::vector<int> small, large;
  std::array<double, 256> scaled{};
  for (int k = 0; k < 256; ++k) {
    scaled[k] = p[k] * 256.0;
    (scaled[k] < 1.0 ? small : large).push_back(k);
  }
  while (!small.empty() && !large.empty()) {
    const int s = small.back(), l = large.back();
    small.pop_back();
    prob[s] = scaled[s];
    alias[s] = static_cast<std::uint8_t>(l);
    scaled[l] = scaled[l] + scaled[s] - 1.0;
    if (scaled[l] < 1.0) {
      large.pop_back();
      small.push_back(l);
    }
  }
  for (const int k : large) prob[k] = 1.0;
  for (const int k : small) prob[k] = 1.0;

  Rng rng(seed);
  std::vector<std::uint8_t> out(n);
  for (auto& byte : out) {
    const std::uint64_t v = rng.next();
    const auto column = static_cast<std::uint8_t>(v >> 56);
    const double u = static_cast<double>(v & ((1ULL << 53) - 1)) * 0x1.0p-53;
    byte = u < prob[column] ? column : alias[column];
  }
  return out;
}

double empirical_entropy_bits(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return 0.0;
  std::array<std::uint64_t, 256> counts{};
  for (const std::uint8_t b : bytes) ++counts[b];
  std::array<double, 256> p{};
  for (int k = 0; k < 256; ++k) p[k] = static_cast<double>(counts[k]) / static_cast<double>(bytes.size());
  return entropy_bits(p);
}

double mean_run_length(std::span<const std::int32_t> values) {
  if (values.empty()) return 0.0;
  std::size_t runs = 1;
  for (std::size_t i = 1; i < values.size(); ++i) runs += values[i] != values[i - 1];
  return static_cast<double>(values.size()) / static_cast<double>(runs);
}

}  // namespace parcomp::datasets
