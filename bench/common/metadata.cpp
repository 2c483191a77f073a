#include "metadata.hpp"

#include "kernels/common/cuda_check.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <regex>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#ifndef PARCOMP_BUILD_TYPE
#define PARCOMP_BUILD_TYPE "unknown"
#endif
#ifndef PARCOMP_CUDA_ARCHITECTURES
#define PARCOMP_CUDA_ARCHITECTURES "unknown"
#endif
#ifndef PARCOMP_VERSION
#define PARCOMP_VERSION "unknown"
#endif

namespace parcomp::bench {

extern const char* const kGitSha;  // generated gitinfo.cpp
extern const bool kGitDirty;

namespace {
std::mutex g_datasets_mutex;
std::map<std::string, nlohmann::json>& datasets() {
  static std::map<std::string, nlohmann::json> map;
  return map;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        return value;
      }
    }
  }
  return "unknown";
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  PARCOMP_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

// The kernel driver's release ("580.159.04"), which the CUDA API does not report: the first word
// of /proc/driver/nvidia/version that looks like a version number.
std::string nvidia_driver_release() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(in, line)) return "unknown";
  std::istringstream words(line);
  for (std::string word; words >> word;)
    if (std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos) return word;
  return "unknown";
}

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }
}  // namespace

nlohmann::json host_metadata() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return {{"cpu_model", cpu_model()},
          {"logical_cpus", std::thread::hardware_concurrency()},
          {"hostname", host}};
}

nlohmann::json build_metadata() {
  return {{"version", PARCOMP_VERSION},
          {"build_type", PARCOMP_BUILD_TYPE},
          {"cuda_architectures", PARCOMP_CUDA_ARCHITECTURES},
          {"cuda_toolkit", version_string(CUDART_VERSION)},
          {"cxx_compiler", __VERSION__},
          {"git_sha", kGitSha},
          {"git_dirty", kGitDirty}};
}

nlohmann::json device_metadata(double measured_bandwidth) {
  int device = 0;
  PARCOMP_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  PARCOMP_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  const int memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, device);
  const int bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  // Double data rate: two transfers per memory clock.
  const double theoretical = 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0);
  int driver = 0, runtime = 0;
  PARCOMP_CUDA_CHECK(cudaDriverGetVersion(&driver));
  PARCOMP_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  char pci[32] = {};
  PARCOMP_CUDA_CHECK(cudaDeviceGetPCIBusId(pci, sizeof pci, device));
  std::ostringstream uuid;
  for (int i = 0; i < 16; ++i) {
    uuid << std::hex << ((prop.uuid.bytes[i] >> 4) & 15) << (prop.uuid.bytes[i] & 15);
    if (i == 3 || i == 5 || i == 7 || i == 9) uuid << '-';
  }
  return {{"index", device},
          {"name", prop.name},
          {"slug", device_slug(prop.name)},
          {"uuid", "GPU-" + uuid.str()},
          {"pci_bus_id", pci},
          {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
          {"sm_count", prop.multiProcessorCount},
          {"sm_clock_khz", attribute(cudaDevAttrClockRate, device)},
          {"memory_clock_khz", memory_clock_khz},
          {"memory_bus_width_bits", bus_width_bits},
          {"global_memory_bytes", prop.totalGlobalMem},
          {"l2_cache_bytes", prop.l2CacheSize},
          {"shared_memory_per_sm_bytes", prop.sharedMemPerMultiprocessor},
          {"theoretical_bandwidth_bytes_per_second", theoretical},
          {"measured_bandwidth_bytes_per_second", measured_bandwidth},
          {"measured_bandwidth_method", "median of device-to-device cudaMemcpyAsync of 1 GiB, bytes read + written"},
          {"driver_version", version_string(driver)},
          {"nvidia_driver_release", nvidia_driver_release()},
          {"runtime_version", version_string(runtime)}};
}

void record_dataset(const std::string& key, nlohmann::json record) {
  const std::lock_guard lock(g_datasets_mutex);
  datasets()[key] = std::move(record);
}

nlohmann::json recorded_datasets() {
  const std::lock_guard lock(g_datasets_mutex);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, record] : datasets()) out[key] = record;
  return out;
}

nlohmann::json parcomp_context(const std::vector<std::string>& argv, nlohmann::json device,
                               const std::string& device_note) {
  nlohmann::json ctx;
  ctx["schema_version"] = kSchemaVersion;
  ctx["suite"] = "parcomp";
  ctx["date_utc"] = utc_now();
  ctx["argv"] = argv;
  ctx["build"] = build_metadata();
  ctx["host"] = host_metadata();
  ctx["device"] = std::move(device);
  if (!device_note.empty()) ctx["device_note"] = device_note;
  ctx["datasets"] = recorded_datasets();
  return ctx;
}

void merge_into_benchmark_json(const std::filesystem::path& file, const nlohmann::json& parcomp) {
  nlohmann::json doc;
  {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read benchmark output " + file.string());
    std::string text((std::istreambuf_iterator<char>(in)), {});
    // Google Benchmark writes a counter's undefined statistic (the cv of a counter that is zero in
    // every repetition) as a bare NaN or inf, which JSON does not have: those become null.
    static const std::regex not_json(R"(:\s*-?(NaN|nan|inf|Infinity)\b)");
    text = std::regex_replace(text, not_json, ": null");
    doc = nlohmann::json::parse(text);
  }
  doc["context"]["parcomp"] = parcomp;
  const auto tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << doc.dump(2) << '\n';
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, file);
}

std::string device_slug(const std::string& name) {
  std::string slug;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-gpu" : slug;
}

}  // namespace parcomp::bench
