// Test seeds that replay, and the small-size mode, shared by the CPU and GPU test binaries.
//
// Every test starts from a base seed: a fresh random one, or PARCOMP_TEST_SEED=<n> when set.
// fresh_seed() returns the base first, then seeds derived from it (splitmix64), so one number
// replays every draw a test makes. A failing test that drew a seed prints the one command that
// replays it. PARCOMP_TEST_SMALL=1 shrinks the large inputs of the GPU tests (what the
// compute-sanitizer runs of scripts/gpu-check.sh use); every test still runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace parcomp::testing {

// The next seed of the running test (the base on the first call).
std::uint64_t fresh_seed();

// True under PARCOMP_TEST_SMALL=1.
bool small_sizes();
// `full`, or `small` in the small-size mode.
std::size_t sized(std::size_t full, std::size_t small);

// The folder of the golden files (tests/golden): $PARCOMP_GOLDEN_DIR, else the source tree's path
// compiled in, else tests/golden found upwards of the test binary (a bundle inside a checkout).
std::string golden_dir();

// Installs the listener that draws each test's base seed and prints the replay command; called
// by the test binaries' main() (tests/common/main.cpp).
void install_seed_listener(const char* argv0);

}  // namespace parcomp::testing
