// Golden files (tests/golden/README.md): every committed file decodes to input.bin, and
// input.bin encodes to the same bytes again. Pins the formats field by field.
#include "core/container.hpp"
#include "codec/engine.hpp"
#include "reference/pipeline.hpp"

#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {
using namespace parcomp;
namespace fs = std::filesystem;

std::vector<std::uint8_t> slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

const fs::path kDir = parcomp::testing::golden_dir();

struct Golden {
  const char* file;
  pipeline::Config config;
  std::size_t block;
};
const Golden kGolden[] = {{"input.bin.paper-16k.pcmp", pipeline::Config::paper, 16384},
                          {"input.bin.fast-16k.pcmp", pipeline::Config::fast, 16384}};

TEST(Golden, DecodeToTheInputAndEncodeByteForByte) {
  const auto input = slurp(kDir / "input.bin");
  ASSERT_EQ(input.size(), 40956u);
  for (const Golden& g : kGolden) {
    SCOPED_TRACE(g.file);
    const auto golden = slurp(kDir / g.file);
    EXPECT_EQ(reference::pipeline_decompress(golden), input);
    const auto again = reference::pipeline_compress(input, g.block, 0, g.config);
    ASSERT_EQ(again.size(), golden.size());
    for (std::size_t i = 0; i < golden.size(); ++i) ASSERT_EQ(again[i], golden[i]) << "byte " << i;
  }
}

class Reader : public engine::Source {
 public:
  explicit Reader(const std::vector<std::uint8_t>& b) : b_(b) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    const std::size_t n = std::min(max, b_.size() - at_);
    std::copy_n(b_.begin() + static_cast<std::ptrdiff_t>(at_), n, buf);
    at_ += n;
    return n;
  }

 private:
  const std::vector<std::uint8_t>& b_;
  std::size_t at_ = 0;
};
class Writer : public engine::Sink {
 public:
  void write(const std::uint8_t* buf, std::size_t n) override { b.insert(b.end(), buf, buf + n); }
  std::vector<std::uint8_t> b;
};

TEST(Golden, StreamsDecodeAndEncodeByteForByte) {
  const auto input = slurp(kDir / "input.bin");
  for (const auto& [file, config] : {std::pair{"input.bin.stream-fast-16k.pcmp", pipeline::Config::fast},
                                     std::pair{"input.bin.stream-paper-16k.pcmp", pipeline::Config::paper}}) {
    SCOPED_TRACE(file);
    const auto golden = slurp(kDir / file);
    engine::Options o;
    o.config = config;
    o.block_bytes = 16384;
    o.use_gpus = false;
    o.cpu_threads = 2;
    Reader packed(golden);
    Writer back;
    engine::decompress(packed, back, o);
    EXPECT_EQ(back.b, input);
    Reader raw(input);
    Writer again;
    engine::compress(raw, again, o);
    ASSERT_EQ(again.b.size(), golden.size());
    EXPECT_TRUE(again.b == golden);
  }
}

}  // namespace
