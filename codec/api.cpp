// The public C++ API (include/parcomp/parcomp.hpp) over the engine: user-level options mapped to
// the engine's, the engine's errors mapped to the public hierarchy.
#include "parcomp/parcomp.hpp"

#include "engine.hpp"
#include "gpu_warmup.hpp"
#include "kernels/common/device_buffer.hpp"
#include "kernels/common/nvtx.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace parcomp {

namespace bench {
extern const char* const kGitSha;  // generated gitinfo.cpp (cmake/gitinfo.cmake)
}  // namespace bench

const char* version() noexcept {
  static const std::string v = std::string(PARCOMP_VERSION) + " (commit " + std::string(bench::kGitSha).substr(0, 10) + ")";
  return v.c_str();
}

std::size_t FdSource::read(std::uint8_t* buf, std::size_t max) {
  for (;;) {
    const ssize_t r = ::read(fd_, buf, max);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) throw IoError(std::string("read: ") + std::strerror(errno));
  }
}

void FdSink::write(const std::uint8_t* buf, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::write(fd_, buf, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw IoError(std::string("write: ") + std::strerror(errno));
    }
    buf += r;
    n -= static_cast<std::size_t>(r);
  }
}

namespace {

engine::Options engine_options(const Options& o) {
  if (o.level < 1 || o.level > 9) throw ContractError("level must be 1 to 9, not " + std::to_string(o.level));
  if (o.require_gpu && !o.use_gpus) throw ContractError("require_gpu needs use_gpus");
  if (o.threads < -1) throw ContractError("threads must be -1 (every hardware thread) or more, not " + std::to_string(o.threads));
  engine::Options e;
  e.format = o.format == Format::bz2 ? engine::Format::bz2 : engine::Format::parcomp;
  e.level = o.level;
  e.cpu_threads = o.threads;
  e.use_gpus = o.use_gpus;
  e.require_gpu = o.require_gpu;
  e.devices = o.devices;
  e.input_bytes = o.input_size;
  if (o.on_progress) e.on_progress = [f = o.on_progress](const engine::Progress& p) { f(p.bytes_in, p.bytes_out); };
  e.on_note = o.on_note;
  return e;
}

Stats public_stats(const engine::Stats& s) {
  Stats r;
  r.original_bytes = s.original_bytes;
  r.compressed_bytes = s.compressed_bytes;
  r.blocks = s.blocks;
  r.gpu_blocks = s.gpu_blocks;
  r.cpu_workers = s.cpu_workers;
  r.gpus = s.gpus;
  r.peak_device_bytes = s.peak_device_bytes;
  r.seconds = s.seconds;
  r.format = s.format == engine::Format::bz2 ? Format::bz2 : Format::parcomp;
  r.streams = s.streams;
  r.trailing_bytes = s.trailing_bytes;
  return r;
}

// The engine's errors as the public ones: parcomp::Error passes; the system's I/O errors become
// IoError; the standard library's argument errors ContractError.
// Every call waits for CUDA's start-up, where it began one, before it returns (gpu_warmup::wait):
// a program may then end at once.
template <typename F>
Stats guarded(F&& f) {
  struct AfterCuda {
    ~AfterCuda() { gpu_warmup::wait(); }
  } after_cuda;
  try {
    return public_stats(f());
  } catch (const Error&) {
    throw;
  } catch (const std::system_error& e) {
    throw IoError(e.what());
  } catch (const std::invalid_argument& e) {
    throw ContractError(e.what());
  }
}

}  // namespace

Stats compress(Source& in, Sink& out, const Options& options) {
  PARCOMP_NVTX_RANGE("parcomp::compress");
  return guarded([&] { return engine::compress(in, out, engine_options(options)); });
}

Stats decompress(Source& in, Sink& out, const Options& options) {
  PARCOMP_NVTX_RANGE("parcomp::decompress");
  return guarded([&] { return engine::decompress(in, out, engine_options(options)); });
}

namespace {

// A whole buffer through compress() or decompress(), its size the input's.
std::vector<std::uint8_t> whole(std::span<const std::uint8_t> bytes, const Options& options, Stats (*run)(Source&, Sink&, const Options&)) {
  MemorySource in(bytes);
  VectorSink out;
  Options o = options;
  if (o.input_size == 0) o.input_size = bytes.size();
  run(in, out, o);
  return std::move(out.bytes);
}

}  // namespace

std::vector<std::uint8_t> compress(std::span<const std::uint8_t> bytes, const Options& options) {
  return whole(bytes, options, static_cast<Stats (*)(Source&, Sink&, const Options&)>(&compress));
}

std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> bytes, const Options& options) {
  return whole(bytes, options, static_cast<Stats (*)(Source&, Sink&, const Options&)>(&decompress));
}

void set_gpu_memory_limit(std::uint64_t bytes_per_device) { device_memory::set_limit(bytes_per_device); }

}  // namespace parcomp
