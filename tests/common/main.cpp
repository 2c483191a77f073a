// main() of the test binaries: GoogleTest with the seed listener (seeds.hpp).
#include "seeds.hpp"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  parcomp::testing::install_seed_listener(argv[0]);
  return RUN_ALL_TESTS();
}
