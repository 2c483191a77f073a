#include "seeds.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>

namespace parcomp::testing {

namespace {

struct SeedState {
  std::uint64_t base = 0;
  std::uint64_t draws = 0;
  std::string argv0 = "TEST_BINARY";
};
SeedState& state() {
  static SeedState s;
  return s;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// PARCOMP_TEST_SEED when set (a decimal number; anything else stops the run), else a random seed.
std::uint64_t base_seed() {
  if (const char* env = std::getenv("PARCOMP_TEST_SEED"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end == env || *end != '\0') throw std::invalid_argument(std::string("PARCOMP_TEST_SEED is not a number: ") + env);
    return v;
  }
  std::random_device rd;
  return (std::uint64_t{rd()} << 32) | rd();
}

class SeedListener : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override {
    state().base = base_seed();
    state().draws = 0;
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (!info.result()->Failed() || state().draws == 0) return;
    std::cout << "[  REPLAY  ] " << (small_sizes() ? "PARCOMP_TEST_SMALL=1 " : "") << "PARCOMP_TEST_SEED=" << state().base
              << " " << state().argv0 << " --gtest_filter='" << info.test_suite_name() << "." << info.name() << "'"
              << std::endl;
  }
};

}  // namespace

std::uint64_t fresh_seed() {
  SeedState& s = state();
  const std::uint64_t k = s.draws++;
  return k == 0 ? s.base : splitmix64(s.base + k);
}

bool small_sizes() {
  const char* env = std::getenv("PARCOMP_TEST_SMALL");
  return env != nullptr && *env != '\0' && std::string(env) != "0";
}

std::size_t sized(std::size_t full, std::size_t small) { return small_sizes() ? small : full; }

std::string golden_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("PARCOMP_GOLDEN_DIR"); env != nullptr && *env != '\0') return env;
#ifdef PARCOMP_GOLDEN_DIR
  if (fs::is_directory(PARCOMP_GOLDEN_DIR)) return PARCOMP_GOLDEN_DIR;
#endif
  std::error_code ec;
  for (fs::path p = fs::read_symlink("/proc/self/exe", ec).parent_path(); !ec && !p.empty() && p != p.root_path(); p = p.parent_path())
    if (fs::is_directory(p / "tests" / "golden")) return (p / "tests" / "golden").string();
  return "tests/golden";
}

void install_seed_listener(const char* argv0) {
  state().argv0 = argv0 != nullptr ? argv0 : "TEST_BINARY";
  ::testing::UnitTest::GetInstance()->listeners().Append(new SeedListener);
}

}  // namespace parcomp::testing
