// SHA-256 against the FIPS 180-4 example vectors, and chunked updates.
#include "datasets/sha256.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {
using parcomp::datasets::Sha256;

std::string hash(const std::string& s) {
  Sha256 h;
  h.update(s.data(), s.size());
  return h.hex_digest();
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(hash(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hash(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, ChunkedEqualsWhole) {
  std::string s;
  for (int i = 0; i < 10007; ++i) s += static_cast<char>(i * 31 + 7);
  for (const std::size_t chunk : {1u, 3u, 55u, 56u, 63u, 64u, 65u, 1000u}) {
    Sha256 h;
    for (std::size_t i = 0; i < s.size(); i += chunk) h.update(s.data() + i, std::min(chunk, s.size() - i));
    EXPECT_EQ(h.hex_digest(), hash(s)) << "chunk " << chunk;
  }
}
}  // namespace
