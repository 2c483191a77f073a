// What every result carries: the device (read with cudaDeviceGetAttribute), the host, the build,
// the commit, argv, and each dataset's sha256, as one JSON object under context.parcomp.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace parcomp::bench {

inline constexpr int kSchemaVersion = 1;

nlohmann::json host_metadata();
nlohmann::json build_metadata();
// Properties of the current device, with the measured copy bandwidth; null without a device.
nlohmann::json device_metadata(double measured_bandwidth_bytes_per_second);

// Datasets used in this run: key (e.g. "runs-mean8/n=65536") -> {sha256, bytes, generator...}.
void record_dataset(const std::string& key, nlohmann::json record);
nlohmann::json recorded_datasets();

// The whole context.parcomp object. `device` is device_metadata() or null, `device_note` says why
// a null device (e.g. "no CUDA device: ...").
nlohmann::json parcomp_context(const std::vector<std::string>& argv, nlohmann::json device,
                               const std::string& device_note);

// Adds context.parcomp to a Google Benchmark JSON output file in place (throws on an unreadable file).
void merge_into_benchmark_json(const std::filesystem::path& file, const nlohmann::json& parcomp);

// A filesystem-friendly slug of a GPU name: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3".
std::string device_slug(const std::string& name);

}  // namespace parcomp::bench
