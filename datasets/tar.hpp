// A deterministic POSIX ustar archive of named byte strings: the corpora of many small files
// (Calgary, Canterbury) as one input, the way codec benchmarks usually take them ("calgary.tar").
// The bytes depend on the names and contents alone: entries in the order given (callers sort),
// mode 0644, uid and gid 0, owner names empty, mtime 0, regular files only, each header and body
// padded to 512 bytes, two zero blocks at the end, no padding to tar's 10240-byte records. GNU
// tar, bsdtar and Python's tarfile read it.
#pragma once

#include "dataset.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace parcomp::datasets {

struct TarEntry {
  std::string name;  // at most 100 bytes (ustar's name field; no prefix field used)
  std::span<const std::uint8_t> bytes;
};

std::vector<std::uint8_t> ustar(const std::vector<TarEntry>& entries);

// The archive's size for files of these sizes, known before any file is read.
std::uint64_t ustar_size(const std::vector<std::uint64_t>& file_sizes);

// A corpus as one archive: "calgary.tar" is every manifest file under "calgary/" (names sorted,
// kept as they are: "calgary/bib", ...), each loaded and verified from the cache; its sha256 is
// the archive's.
bool is_corpus_tar(std::string_view name);
Dataset load_corpus_tar(std::string_view name);
std::uint64_t corpus_tar_size(std::string_view name);  // without reading a file

}  // namespace parcomp::datasets
