// Byte inputs of the benchmarks: real datasets from the verified cache (datasets/dataset.hpp) or
// synthetic ones, raw or as CPU-made BWT blocks (libdivsufsort, 1 MiB blocks) -- what MTF and
// Huffman see in the pipeline. Each is recorded with its sha256 in the result's metadata.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace parcomp::bench {

struct ByteInputSpec {
  std::string label;   // the name in benchmark names: "linux-2.6.11.1.tar.bwt", "random-numbers"
  std::string source;  // a manifest file name ("silesia/dickens") or "synthetic:random-numbers"
  bool bwt = false;    // transform in BWT blocks first
  bool mtf = false;    // then move-to-front (list restarting every BWT block): the Huffman stage's input
};

struct ByteInput {
  std::string label;
  std::vector<std::uint8_t> bytes;
  std::string unavailable;  // non-empty: why there are no bytes (e.g. dataset not fetched)
};

inline constexpr std::size_t kBwtBlockBytes = std::size_t{1} << 20;

// The real datasets the byte benchmarks use (manifest names), and the synthetic ones.
std::vector<ByteInputSpec> standard_byte_inputs();

// The datasets of codecs.landscape: the Linux tarball, every Silesia file of the manifest, and the
// Calgary and Canterbury corpora as one ustar archive each (datasets/tar.hpp).
std::vector<ByteInputSpec> landscape_byte_inputs();
// Those of them this manifest knows, with their sizes (spec_size): what benchmarks register.
std::vector<std::pair<ByteInputSpec, std::size_t>> landscape_inputs_sized();

// The input's size in bytes, known before loading (the manifest's size; 16 MiB for synthetic ones).
std::size_t spec_size(const ByteInputSpec& spec);

// Loads (or makes) the input; the last one is cached, as benchmarks of one input run together.
std::shared_ptr<const ByteInput> byte_input(const ByteInputSpec& spec);

}  // namespace parcomp::bench
