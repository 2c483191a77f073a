// libFuzzer target: the one-core .bz2 writer (testing::bz2_compress) against libbz2 on any
// bytes, at the level the first byte picks: libbz2 reads the file back to the input, and the bytes
// are libbz2's, except that a periodic block (a rotation equal to another) may differ in origPtr
// alone, where the sizes still agree. Built and run by scripts/fuzz.sh.
#include "codec/bz2.hpp"
#include "common/bz2_writer.hpp"

#include "common/libbz2.hpp"

#include <cstdio>
#include <cstdlib>

namespace {
[[noreturn]] void disagree(const char* what) {
  std::fprintf(stderr, "fuzz_bz2_write: %s\n", what);
  std::abort();
}

// True when the block (after the initial run-length stage) equals a rotation of itself.
bool periodic(std::span<const std::uint8_t> block) {
  const std::size_t n = block.size();
  for (std::size_t p = 1; p < n; ++p) {
    if (n % p != 0) continue;
    bool same = true;
    for (std::size_t i = p; i < n && same; ++i) same = block[i] == block[i - p];
    if (same) return true;
  }
  return false;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int level = 1 + data[0] % 9;
  const std::span<const std::uint8_t> in(data + 1, size - 1);
  const std::vector<std::uint8_t> ours = parcomp::testing::bz2_compress(in, level);
  const std::optional<std::vector<std::uint8_t>> back = parcomp::testing::libbz2_decompress(ours, in.size());
  if (!back || !std::equal(back->begin(), back->end(), in.begin(), in.end())) disagree("libbz2 does not read the input back");
  const std::vector<std::uint8_t> theirs = parcomp::testing::libbz2_compress(in, level);
  if (ours == theirs) return 0;
  if (ours.size() != theirs.size()) disagree("another size than libbz2's");
  // Bytes may differ only where a block is periodic (origPtr): check every block of the input.
  bool any_periodic = false;
  std::vector<std::uint8_t> rle;
  for (std::size_t at = 0; at < in.size();) {
    const std::size_t n = parcomp::bz2::cut_block(in.subspan(at), level, true);
    rle.clear();
    parcomp::bz2::rle1_encode(in.subspan(at, n), rle);
    any_periodic = any_periodic || periodic(rle);
    at += n;
  }
  if (!any_periodic) disagree("other bytes than libbz2's, no block periodic");
  return 0;
}
