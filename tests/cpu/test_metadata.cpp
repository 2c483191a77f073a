// The metadata every result carries, and its merge into Google Benchmark's JSON.
#include "common/metadata.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace {
using namespace parcomp::bench;

TEST(Metadata, ContextWithoutDevice) {
  record_dataset("test/x", {{"sha256", std::string(64, 'a')}, {"bytes", 4}});
  const auto ctx = parcomp_context({"parcomp-bench", "--x"}, nullptr, "no CUDA device: test");
  EXPECT_EQ(ctx.at("schema_version"), kSchemaVersion);
  EXPECT_EQ(ctx.at("suite"), "parcomp");
  EXPECT_TRUE(ctx.at("device").is_null());
  EXPECT_EQ(ctx.at("device_note"), "no CUDA device: test");
  EXPECT_EQ(ctx.at("argv").size(), 2u);
  for (const char* key : {"version", "build_type", "cuda_architectures", "cuda_toolkit", "git_sha", "git_dirty"})
    EXPECT_TRUE(ctx.at("build").contains(key)) << key;
  const auto sha = ctx.at("build").at("git_sha").get<std::string>();
  EXPECT_TRUE(sha.size() == 40 || sha == "unknown") << sha;
  EXPECT_FALSE(ctx.at("host").at("cpu_model").get<std::string>().empty());
  EXPECT_EQ(ctx.at("datasets").at("test/x").at("bytes"), 4);
}

TEST(Metadata, MergeIntoBenchmarkJson) {
  const auto file = std::filesystem::temp_directory_path() / ("parcomp-meta-" + std::to_string(std::random_device{}()) + ".json");
  std::ofstream(file) << R"({"context": {"host_name": "h"}, "benchmarks": [{"name": "a"}]})";
  merge_into_benchmark_json(file, {{"schema_version", 1}});
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("context").at("host_name"), "h");
  EXPECT_EQ(doc.at("context").at("parcomp").at("schema_version"), 1);
  EXPECT_EQ(doc.at("benchmarks").size(), 1u);
  std::filesystem::remove(file);
  EXPECT_THROW(merge_into_benchmark_json(file, {}), std::runtime_error);
}

TEST(Metadata, DeviceSlug) {
  EXPECT_EQ(device_slug("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(device_slug("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(device_slug("  GeForce GTX 960 "), "geforce-gtx-960");
  EXPECT_EQ(device_slug(""), "unknown-gpu");
}
}  // namespace
