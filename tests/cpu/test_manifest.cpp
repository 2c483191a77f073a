// The dataset manifest and the verified loader: known entries, malformed manifests, and the
// missing / wrong-size / corrupt / good cases, each with a message that says what to do.
#include "datasets/dataset.hpp"
#include "datasets/sha256.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace {
using namespace parcomp::datasets;
namespace fs = std::filesystem;

TEST(Manifest, BuiltinHasThePaperDatasets) {
  const auto& linux_tar = find_manifest_file("linux-2.6.11.1.tar");
  EXPECT_EQ(linux_tar.size, 208250880u);
  EXPECT_EQ(linux_tar.sha256, "adeb44540b7c85329f03fd24a78ac14387c8b4f1457a97407cd813d396e78239");
  EXPECT_EQ(find_manifest_file("enwik8").size, 100000000u);
  EXPECT_EQ(find_manifest_file("silesia/dickens").size, 10192446u);
  EXPECT_EQ(find_manifest_file("canterbury/alice29.txt").size, 152089u);
  EXPECT_EQ(find_manifest_file("calgary/book1").size, 768771u);
  EXPECT_THROW(find_manifest_file("no-such-dataset"), DatasetError);
}

TEST(Manifest, MalformedIsAnError) {
  EXPECT_THROW(parse_manifest("{"), DatasetError);
  EXPECT_THROW(parse_manifest(R"({"schema": 2, "sources": []})"), DatasetError);
  EXPECT_THROW(parse_manifest(R"({"schema": 1, "sources": [{"id": "x", "files": [{"name": "a"}]}]})"), DatasetError);
  EXPECT_THROW(parse_manifest(R"({"schema": 1, "sources": [{"id": "x", "files": [{"name": "a", "size": 1, "sha256": "ab"}]}]})"),
               DatasetError);
}

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("parcomp-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir / "corpus");
    content = "the quick brown fox\n";
    entry = {"corpus/fox.txt", "corpus", content.size(), sha256_hex(std::as_bytes(std::span(content)))};
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& bytes) { std::ofstream(dir / entry.name, std::ios::binary) << bytes; }
  std::string error_of() {
    try {
      load_dataset(entry, dir);
    } catch (const DatasetError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir;
  std::string content;
  ManifestFile entry;
};

TEST_F(LoaderTest, Good) {
  write(content);
  const Dataset d = load_dataset(entry, dir);
  EXPECT_EQ(d.bytes.size(), content.size());
  EXPECT_EQ(d.sha256, entry.sha256);
}

TEST_F(LoaderTest, MissingSaysHowToFetch) {
  const std::string e = error_of();
  EXPECT_NE(e.find("is not at"), std::string::npos) << e;
  EXPECT_NE(e.find("datasets/fetch.py corpus"), std::string::npos) << e;
}

TEST_F(LoaderTest, WrongSize) {
  write(content + "x");
  EXPECT_NE(error_of().find("bytes, the manifest says"), std::string::npos) << error_of();
}

TEST_F(LoaderTest, Corrupt) {
  std::string bad = content;
  bad[3] ^= 1;
  write(bad);
  EXPECT_NE(error_of().find("is corrupt"), std::string::npos) << error_of();
}
}  // namespace
