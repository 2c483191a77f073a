#include "tar.hpp"

#include "sha256.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace parcomp::datasets {

namespace {
constexpr std::size_t kBlock = 512;

std::uint64_t padded(std::uint64_t n) { return (n + kBlock - 1) / kBlock * kBlock; }

// An octal field of `width` bytes: width - 1 digits, then NUL.
void octal(std::uint8_t* field, std::size_t width, std::uint64_t value) {
  const std::string digits = [&] {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*llo", static_cast<int>(width - 1), static_cast<unsigned long long>(value));
    return std::string(buf);
  }();
  if (digits.size() != width - 1) throw DatasetError("tar: a value does not fit its field: " + std::to_string(value));
  std::memcpy(field, digits.data(), width - 1);
  field[width - 1] = 0;
}
}  // namespace

std::uint64_t ustar_size(const std::vector<std::uint64_t>& file_sizes) {
  std::uint64_t n = 2 * kBlock;
  for (const std::uint64_t s : file_sizes) n += kBlock + padded(s);
  return n;
}

std::vector<std::uint8_t> ustar(const std::vector<TarEntry>& entries) {
  std::vector<std::uint64_t> sizes;
  for (const auto& e : entries) sizes.push_back(e.bytes.size());
  std::vector<std::uint8_t> out;
  out.reserve(ustar_size(sizes));
  for (const auto& e : entries) {
    if (e.name.empty() || e.name.size() > 100) throw DatasetError("tar: a name of 1 to 100 bytes is needed: '" + e.name + "'");
    std::uint8_t h[kBlock] = {};
    std::memcpy(h, e.name.data(), e.name.size());     // name
    octal(h + 100, 8, 0644);                          // mode
    octal(h + 108, 8, 0);                             // uid
    octal(h + 116, 8, 0);                             // gid
    octal(h + 124, 12, e.bytes.size());               // size
    octal(h + 136, 12, 0);                            // mtime
    std::memset(h + 148, ' ', 8);                     // checksum: spaces while summing
    h[156] = '0';                                     // a regular file
    std::memcpy(h + 257, "ustar", 6);                 // magic, NUL-terminated
    std::memcpy(h + 263, "00", 2);                    // version
    unsigned sum = 0;
    for (const std::uint8_t b : h) sum += b;
    std::snprintf(reinterpret_cast<char*>(h + 148), 8, "%06o", sum);  // six digits, NUL, then the space kept
    h[155] = ' ';
    out.insert(out.end(), h, h + kBlock);
    out.insert(out.end(), e.bytes.begin(), e.bytes.end());
    out.resize(padded(out.size()), 0);
  }
  out.resize(out.size() + 2 * kBlock, 0);
  return out;
}

namespace {
// The manifest's files under "<corpus>/" for "<corpus>.tar", sorted by name.
std::vector<const ManifestFile*> corpus_files(std::string_view name) {
  if (!is_corpus_tar(name)) throw DatasetError("not a corpus archive name (<corpus>.tar): " + std::string(name));
  const std::string prefix = std::string(name.substr(0, name.size() - 4)) + "/";
  std::vector<const ManifestFile*> files;
  for (const auto& f : builtin_manifest())
    if (f.name.starts_with(prefix)) files.push_back(&f);
  if (files.empty()) throw DatasetError("no manifest file under " + prefix + " for " + std::string(name));
  std::sort(files.begin(), files.end(), [](const ManifestFile* a, const ManifestFile* b) { return a->name < b->name; });
  return files;
}
}  // namespace

bool is_corpus_tar(std::string_view name) {
  if (name.size() <= 4 || !name.ends_with(".tar") || name.find('/') != std::string_view::npos) return false;
  const std::string prefix = std::string(name.substr(0, name.size() - 4)) + "/";
  bool any = false;
  for (const auto& f : builtin_manifest()) {
    if (f.name == name) return false;  // a file of its own (the Linux tarball)
    any = any || f.name.starts_with(prefix);
  }
  return any;
}

std::uint64_t corpus_tar_size(std::string_view name) {
  std::vector<std::uint64_t> sizes;
  for (const ManifestFile* f : corpus_files(name)) sizes.push_back(f->size);
  return ustar_size(sizes);
}

Dataset load_corpus_tar(std::string_view name) {
  std::vector<Dataset> parts;
  for (const ManifestFile* f : corpus_files(name)) parts.push_back(load_dataset(f->name));
  std::vector<TarEntry> entries;
  for (const auto& d : parts) entries.push_back({d.name, d.bytes});
  Dataset out;
  out.name = std::string(name);
  out.bytes = ustar(entries);
  out.sha256 = sha256_hex_of(std::span<const std::uint8_t>(out.bytes));
  return out;
}

}  // namespace parcomp::datasets
