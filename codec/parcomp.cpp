// parcomp: compress or decompress a file with the GPU pipeline (or the CPU reference).
//
//   parcomp [--config paper|fast] [--block BYTES] [-o OUT] [--verbose] [--cpu] [-f] FILE
//   parcomp -d [-o OUT] [--verbose] [--cpu] [-f] FILE.pcmp
//
// Compression writes FILE.pcmp unless -o; decompression strips .pcmp (or writes FILE.out).
// --cpu uses the serial reference pipeline (either configuration).
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device.hpp"
#include "codec/container.hpp"
#include "codec/gpu_pipeline.hpp"
#include "reference/pipeline.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace parcomp;
namespace fs = std::filesystem;

int usage(int rc) {
  std::fprintf(rc == 0 ? stdout : stderr,
               "usage: parcomp [--config paper|fast] [--block BYTES] [-o OUT] [--verbose] [--cpu] [-f] FILE\n"
               "       parcomp -d [-o OUT] [--verbose] [--cpu] [-f] FILE.pcmp\n"
               "Compresses FILE in blocks (default 1 MiB) with BWT, MTF and Huffman on the GPU into FILE.pcmp;\n"
               "-d decompresses. --cpu: the serial reference pipeline. --verbose: sizes and stage timings.\n");
  return rc;
}

std::vector<std::uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + p.string());
  std::vector<std::uint8_t> v((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return v;
}

void write_file(const fs::path& p, const std::vector<std::uint8_t>& v, bool force) {
  if (fs::exists(p) && !force) throw std::runtime_error(p.string() + " exists (use -f to overwrite)");
  const fs::path tmp = p.string() + ".partial";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f) throw std::runtime_error("cannot write " + tmp.string());
    f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
    if (!f) throw std::runtime_error("write failed: " + tmp.string());
  }
  fs::rename(tmp, p);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  bool decompress = false, verbose = false, cpu = false, force = false;
  pipeline::Config config = pipeline::Config::fast;
  std::size_t block = std::size_t{1} << 20;
  std::string out, in;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "-d" || a == "--decompress") decompress = true;
      else if (a == "-o") out = value();
      else if (a == "--verbose" || a == "-v") verbose = true;
      else if (a == "--cpu") cpu = true;
      else if (a == "-f") force = true;
      else if (a == "--block") block = std::stoull(value());
      else if (a == "--config") {
        const std::string c = value();
        if (c == "paper") config = pipeline::Config::paper;
        else if (c == "fast") config = pipeline::Config::fast;
        else throw std::invalid_argument("--config must be paper or fast");
      } else if (a == "-h" || a == "--help") return usage(0);
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else if (in.empty()) in = a;
      else throw std::invalid_argument("one input file only");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "parcomp: %s\n", e.what());
      return usage(2);
    }
  }
  if (in.empty()) return usage(2);
  if (out.empty()) {
    if (!decompress) out = in + ".pcmp";
    else out = fs::path(in).extension() == ".pcmp" ? fs::path(in).replace_extension().string() : in + ".out";
  }
  try {
    if (!cpu && cuda_device_count() == 0)
      throw std::runtime_error("no CUDA device (" + cuda_unavailable_reason() + "); --cpu runs the reference pipeline");
    auto t0 = std::chrono::steady_clock::now();
    const auto data = read_file(in);
    if (verbose) std::fprintf(stderr, "parcomp: read %s (%zu bytes) in %.3f s\n", in.c_str(), data.size(), since(t0));
    t0 = std::chrono::steady_clock::now();
    std::vector<std::uint8_t> result;
    pipeline::StageTimes st;
    if (!decompress) {
      if (verbose || data.size() > (std::size_t{64} << 20))
        std::fprintf(stderr, "parcomp: compressing %zu blocks (%s, %s)...\n", (data.size() + block - 1) / block,
                     cpu ? "CPU reference" : "GPU", pipeline::config_name(config).c_str());
      if (cpu) {
        result = reference::pipeline_compress(data, block, 0, config);
      } else {
        result = pipeline::compress_gpu(config, data, block, &st);
      }
    } else {
      if (verbose || data.size() > (std::size_t{16} << 20)) std::fprintf(stderr, "parcomp: decompressing...\n");
      result = cpu ? reference::pipeline_decompress(data) : pipeline::decompress_gpu(data, &st);
    }
    const double seconds = since(t0);
    write_file(out, result, force);
    if (verbose) {
      const double raw = static_cast<double>(decompress ? result.size() : data.size());
      std::fprintf(stderr, "parcomp: wrote %s (%zu bytes, ratio %.4f) in %.3f s (%.1f MB/s of uncompressed data)\n",
                   out.c_str(), result.size(), decompress ? static_cast<double>(data.size()) / raw : static_cast<double>(result.size()) / raw,
                   seconds, raw / seconds / 1e6);
      if (!cpu)
        std::fprintf(stderr, "parcomp: GPU stages: BWT %.3f ms, MTF %.3f ms, zero runs %.3f ms, Huffman %.3f ms\n",
                     st.bwt * 1e3, st.mtf * 1e3, st.zrle * 1e3, st.huffman * 1e3);
    }
  } catch (const CorruptDataError& e) {
    std::fprintf(stderr, "parcomp: %s: %s\n", in.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parcomp: %s\n", e.what());
    return 1;
  }
  return 0;
}
