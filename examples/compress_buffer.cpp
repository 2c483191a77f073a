// Compresses a buffer to .bz2 and back through parcomp's C++ API, and checks the round trip.
#include <parcomp/parcomp.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  std::string text;
  for (int i = 0; i < 100000; ++i) text += "line " + std::to_string(i % 977) + " of a log file\n";
  const std::vector<std::uint8_t> data(text.begin(), text.end());
  try {
    parcomp::Options options;  // .bz2 at level 9, every CPU core and GPU
    const std::vector<std::uint8_t> packed = parcomp::compress(data, options);
    const std::vector<std::uint8_t> back = parcomp::decompress(packed);
    std::printf("parcomp %s: %zu bytes -> %zu bytes of .bz2 -> %zu bytes\n", parcomp::version(), data.size(), packed.size(),
                back.size());
    if (back != data) {
      std::fprintf(stderr, "the round trip differs\n");
      return 1;
    }
    parcomp::decompress(std::vector<std::uint8_t>{'B', 'Z', 'h', '9', 1, 2, 3});
  } catch (const parcomp::CorruptDataError& e) {
    std::printf("a damaged stream is an error: %s\n", e.what());
    return 0;
  }
  return 1;  // the damaged stream was not an error
}
