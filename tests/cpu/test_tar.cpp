// datasets/tar: the ustar writer's bytes are fixed by names and contents, its size is known in
// advance, and tar programs read it back (GNU tar and Python's tarfile, where installed).
#include "datasets/tar.hpp"
#include "datasets/synthetic.hpp"

#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {
using namespace parcomp;
using Bytes = std::vector<std::uint8_t>;

TEST(Tar, HeadersFieldsAndSizes) {
  const Bytes a = {'h', 'i', '\n'}, empty;
  const Bytes big(1025, 'x');
  const Bytes tar = datasets::ustar({{"dir/a", a}, {"dir/empty", empty}, {"dir/big", big}});
  ASSERT_EQ(tar.size(), datasets::ustar_size({3, 0, 1025}));
  EXPECT_EQ(tar.size(), 512u + 512 + 512 + 512 + 1536 + 1024);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(tar.data()), 5), "dir/a");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(tar.data() + 124), 11), "00000000003");  // size
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(tar.data() + 100), 7), "0000644");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(tar.data() + 257), 5), "ustar");
  EXPECT_EQ(tar[156], '0');
  // The checksum: the header's bytes summed with its own field as spaces.
  unsigned sum = 0;
  for (std::size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : tar[i];
  EXPECT_EQ(std::strtoul(reinterpret_cast<const char*>(tar.data() + 148), nullptr, 8), sum);
  EXPECT_EQ(Bytes(tar.begin() + 512, tar.begin() + 515), a);
  for (std::size_t i = tar.size() - 1024; i < tar.size(); ++i) ASSERT_EQ(tar[i], 0) << i;
  EXPECT_EQ(datasets::ustar({{"dir/a", a}, {"dir/empty", empty}, {"dir/big", big}}), tar) << "not deterministic";
  EXPECT_THROW(datasets::ustar({{std::string(101, 'n'), a}}), datasets::DatasetError);
  EXPECT_THROW(datasets::ustar({{"", a}}), datasets::DatasetError);
}

TEST(Tar, CorpusNames) {
  EXPECT_TRUE(datasets::is_corpus_tar("calgary.tar"));
  EXPECT_TRUE(datasets::is_corpus_tar("canterbury.tar"));
  EXPECT_FALSE(datasets::is_corpus_tar("linux-2.6.11.1.tar")) << "a file of its own";
  EXPECT_FALSE(datasets::is_corpus_tar("nonesuch.tar"));
  EXPECT_FALSE(datasets::is_corpus_tar("calgary"));
  EXPECT_GT(datasets::corpus_tar_size("calgary.tar"), 3'000'000u);
}

TEST(Tar, TarProgramsReadItBack) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  const Bytes one = datasets::bytes_with_entropy(70001, 5.0, seed), two = datasets::bytes_with_entropy(512, 8.0, seed + 1);
  const Bytes tar = datasets::ustar({{"c/one", one}, {"c/two", two}});
  const auto dir = std::filesystem::temp_directory_path() / ("parcomp-tar-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.tar", std::ios::binary).write(reinterpret_cast<const char*>(tar.data()), static_cast<std::streamsize>(tar.size()));
  int ran = 0;
  const std::string cmds[] = {"tar -C '" + dir.string() + "/x' -xf '" + dir.string() + "/t.tar'",
                              "python3 -c \"import tarfile,sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])\" '" + dir.string() +
                                  "/t.tar' '" + dir.string() + "/x'"};
  for (const std::string& cmd : cmds) {
    std::filesystem::remove_all(dir / "x");
    std::filesystem::create_directories(dir / "x");
    if (std::system((cmd + " 2>/dev/null").c_str()) != 0) continue;
    ++ran;
    for (const auto& [name, bytes] : {std::pair{"c/one", &one}, {"c/two", &two}}) {
      std::ifstream f(dir / "x" / name, std::ios::binary);
      EXPECT_EQ(Bytes((std::istreambuf_iterator<char>(f)), {}), *bytes) << cmd << ": " << name;
    }
  }
  std::filesystem::remove_all(dir);
  if (ran == 0) GTEST_SKIP() << "neither tar nor python3 could run";
}

}  // namespace
