// Named real datasets (datasets/manifest.json, embedded at build time) and their verified loading.
// Files are fetched by `datasets/fetch.py` into a cache folder; this loader never downloads and
// never substitutes: a missing or corrupt file is a DatasetError that says how to get it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace parcomp::datasets {

class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ManifestFile {
  std::string name;    // e.g. "linux-2.6.11.1.tar", "silesia/dickens", "canterbury/alice29.txt"
  std::string source;  // the manifest source (archive) it comes from
  std::uint64_t size = 0;
  std::string sha256;  // of the uncompressed bytes
};

// Parses a manifest document (throws DatasetError on a malformed one).
std::vector<ManifestFile> parse_manifest(std::string_view json_text);
// The manifest compiled into this binary.
const std::vector<ManifestFile>& builtin_manifest();
const ManifestFile& find_manifest_file(std::string_view name);

// The cache folder: $PARCOMP_DATA if set, else <source tree>/datasets/cache.
std::filesystem::path data_dir();

struct Dataset {
  std::string name;
  std::vector<std::uint8_t> bytes;
  std::string sha256;
};

// Reads <data_dir>/<name>, checks size and sha256 against the built-in manifest.
Dataset load_dataset(std::string_view name);
// Reads <dir>/<entry.name>, checks size and sha256 against entry.
Dataset load_dataset(const ManifestFile& entry, const std::filesystem::path& dir);

}  // namespace parcomp::datasets
