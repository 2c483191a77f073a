// libFuzzer target: the one-core .bz2 reader (bz2::decompress) against bzip2's program over
// libbz2 (tests/common/libbz2.hpp), on any bytes. Where bzip2 -d succeeds the reader gives the
// same bytes, streams and trailing-byte count; where it fails the reader throws CorruptDataError;
// never a crash, a sanitizer report or another exception. Inputs whose output would pass 64 MiB
// are skipped (libbz2 stops there first). Built and run by scripts/fuzz.sh.
#include "codec/bz2.hpp"
#include "core/errors.hpp"

#include "common/libbz2.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
[[noreturn]] void disagree(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "fuzz_bz2_read: %s %s\n", what, detail.c_str());
  std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  constexpr std::size_t kCap = std::size_t{64} << 20;
  const parcomp::testing::Bzip2Verdict theirs = parcomp::testing::bzip2_program_decompress(in, kCap);
  if (theirs.kind == parcomp::testing::Bzip2Verdict::over_cap) return 0;
  parcomp::bz2::DecodeStats st;
  std::vector<std::uint8_t> ours;
  try {
    ours = parcomp::bz2::decompress(in, &st);
  } catch (const parcomp::CorruptDataError& e) {
    const std::string what = e.what();
    if (theirs.kind == parcomp::testing::Bzip2Verdict::ok) disagree("the reader rejected what bzip2 reads:", what);
    return 0;
  }
  if (theirs.kind != parcomp::testing::Bzip2Verdict::ok) disagree("the reader accepted what bzip2 rejects");
  if (ours != theirs.bytes) disagree("other bytes than bzip2's");
  if (st.streams != theirs.streams) disagree("another count of streams");
  if (st.trailing_bytes != theirs.trailing_bytes) disagree("another count of trailing bytes");
  return 0;
}
