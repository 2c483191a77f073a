#include "inputs.hpp"

#include "common/defaults.hpp"
#include "common/metadata.hpp"
#include "datasets/dataset.hpp"
#include "datasets/sha256.hpp"
#include "datasets/synthetic.hpp"
#include "datasets/tar.hpp"
#include "reference/bwt_cpu.hpp"
#include "reference/mtf.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <span>

namespace parcomp::bench {

namespace {

constexpr std::size_t kSyntheticBytes = std::size_t{16} << 20;

std::string slug(std::string name) {
  std::replace(name.begin(), name.end(), '/', '-');
  return name;
}

// ASCII decimal random numbers, one per line: a stand-in for the thesis's "random numbers" file.
std::vector<std::uint8_t> random_numbers_text(std::size_t bytes, std::uint64_t seed) {
  datasets::Rng rng(seed);
  std::vector<std::uint8_t> out;
  out.reserve(bytes + 16);
  while (out.size() < bytes) {
    const std::string number = fmt::format("{}\n", rng.next() % 1000000);
    out.insert(out.end(), number.begin(), number.end());
  }
  out.resize(bytes);
  return out;
}

}  // namespace

std::vector<ByteInputSpec> standard_byte_inputs() {
  std::vector<ByteInputSpec> specs;
  const std::vector<std::string> real = {"linux-2.6.11.1.tar", "enwik8",          "silesia/dickens", "silesia/mr",
                                         "silesia/nci",        "silesia/ooffice", "silesia/osdb",    "silesia/reymont",
                                         "silesia/x-ray",      "silesia/xml",     "calgary/book1"};
  for (const auto& name : real) {
    specs.push_back({slug(name) + ".bwt", name, true});
    specs.push_back({slug(name), name, false});
  }
  specs.push_back({"random-numbers.bwt", "synthetic:random-numbers", true});
  specs.push_back({"random-numbers", "synthetic:random-numbers", false});
  return specs;
}

std::vector<ByteInputSpec> landscape_byte_inputs() {
  std::vector<ByteInputSpec> specs = {{"linux-2.6.11.1.tar", "linux-2.6.11.1.tar"}};
  for (const auto& f : datasets::builtin_manifest())
    if (f.name.starts_with("silesia/")) specs.push_back({slug(f.name), f.name});
  for (const char* corpus : {"calgary.tar", "canterbury.tar"}) specs.push_back({corpus, corpus});
  return specs;
}

std::vector<std::pair<ByteInputSpec, std::size_t>> landscape_inputs_sized() {
  std::vector<std::pair<ByteInputSpec, std::size_t>> out;
  for (const ByteInputSpec& spec : landscape_byte_inputs()) {
    try {
      out.emplace_back(spec, spec_size(spec));
    } catch (const std::exception&) {
      // not in this manifest: not registered
    }
  }
  return out;
}

std::size_t spec_size(const ByteInputSpec& spec) {
  if (spec.source.rfind("synthetic:", 0) == 0) return kSyntheticBytes;
  if (datasets::is_corpus_tar(spec.source)) return datasets::corpus_tar_size(spec.source);
  return datasets::find_manifest_file(spec.source).size;
}

std::shared_ptr<const ByteInput> byte_input(const ByteInputSpec& spec) {
  static std::shared_ptr<const ByteInput> cached;
  if (cached && cached->label == spec.label) return cached;
  cached.reset();
  auto in = std::make_shared<ByteInput>();
  in->label = spec.label;
  nlohmann::json record;
  try {
    if (spec.source == "synthetic:random-bytes") {
      in->bytes = datasets::bytes_with_entropy(kSyntheticBytes, 8.0, defaults::kSeed);
      record = {{"generator", "bytes_with_entropy, 8 bits/symbol (uniform random bytes)"}, {"seed", defaults::kSeed}};
    } else if (spec.source == "synthetic:random-numbers") {
      in->bytes = random_numbers_text(kSyntheticBytes, defaults::kSeed);
      record = {{"generator", "random decimal numbers < 10^6, one per line"}, {"seed", defaults::kSeed}};
    } else if (datasets::is_corpus_tar(spec.source)) {
      fmt::print(stderr, "parcomp-bench: making {} (ustar of the corpus's files) ...\n", spec.source);
      datasets::Dataset d = datasets::load_corpus_tar(spec.source);
      record = {{"dataset", d.name}, {"made", "datasets::load_corpus_tar: ustar of every manifest file of the corpus, sorted, each verified"},
                {"source_sha256", d.sha256}};
      in->bytes = std::move(d.bytes);
    } else {
      fmt::print(stderr, "parcomp-bench: loading {} ...\n", spec.source);
      datasets::Dataset d = datasets::load_dataset(spec.source);
      record = {{"dataset", d.name}, {"source_sha256", d.sha256}};
      in->bytes = std::move(d.bytes);
    }
    if (spec.bwt) {
      fmt::print(stderr, "parcomp-bench: BWT of {} in {} KiB blocks (libdivsufsort) ...\n", spec.source, kBwtBlockBytes >> 10);
      in->bytes = reference::bwt_blocks_divsufsort(in->bytes, kBwtBlockBytes).bytes;
      record["transform"] = fmt::format("BWT in blocks of {} bytes (libdivsufsort divbwt)", kBwtBlockBytes);
    }
    if (spec.mtf) {
      in->bytes = reference::mtf_encode(in->bytes, kBwtBlockBytes);
      record["transform2"] = fmt::format("move-to-front, list restarted every {} bytes", kBwtBlockBytes);
    }
    record["bytes"] = in->bytes.size();
    record["sha256"] = datasets::sha256_hex_of(std::span<const std::uint8_t>(in->bytes));
    record_dataset(spec.label, record);
  } catch (const datasets::DatasetError& e) {
    in->bytes.clear();
    in->unavailable = e.what();
  }
  cached = std::move(in);
  return cached;
}

}  // namespace parcomp::bench
