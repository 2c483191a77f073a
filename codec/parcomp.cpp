// parcomp: compress and decompress files with the papers' pipeline on every CPU core and GPU of
// the host (the streaming engine, codec/engine.hpp). The habits of gzip, bzip2 and zstd:
//
//   parcomp [OPTIONS] [FILE...]        compress each FILE to FILE.bz2, bzip2 -9's bytes (the input
//                                      is kept); -1 .. -9 as bzip2's levels
//   parcomp --format parcomp FILE...   compress to FILE.pcmp, the thesis's container (our format)
//   parcomp -d [OPTIONS] [FILE...]     decompress FILE.pcmp or FILE.bz2 to FILE (FILE.out without
//                                      a known suffix)
//   parcomp -t FILE...                 test: decompress and check, write nothing
//   ... | parcomp | ...                no FILE, or "-": standard input to standard output
//
// Exit status as bzip2's: 0 done; 1 an environment problem (usage, a missing, unreadable or
// existing file, an I/O error, no GPU for --gpu); 2 a corrupt or truncated compressed file;
// 3 an internal error. Several files: each is tried, the status is the worst.
// A partial output file is never left behind: output goes to a temporary file beside the target
// (created 0600), renamed into place when complete, removed on any error or signal. As bzip2 and
// gzip, the output file gets the input's owner and group (where permitted), mode bits and times;
// a symbolic link is refused without -f (followed with -c or -t), a device or FIFO without -f.
#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "core/container.hpp"
#include "codec/engine.hpp"
#include "codec/file_sink.hpp"
#include "codec/gpu_warmup.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace parcomp::bench {
extern const char* const kGitSha;  // generated gitinfo.cpp (cmake/gitinfo.cmake)
extern const bool kGitDirty;
}

namespace {

using namespace parcomp;
namespace fs = std::filesystem;

constexpr const char* kSuffix = ".pcmp";
constexpr const char* kBz2Suffix = ".bz2";
constexpr const char* kVersion = "parcomp " PARCOMP_VERSION " (stream format 3; reads containers of version 2; reads and writes .bz2)";

enum Exit { kOk = 0, kEnvironment = 1, kCorrupt = 2, kInternal = 3 };

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct EnvironmentError : IoError {  // the program's own (its files' names, modes, paths)
  using IoError::IoError;
};

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: parcomp [-z|-d|-t] [-c] [-f] [-k|--rm] [-q|-v] [--progress] [-o OUT] [FILE...]\n"
               "Compresses each FILE to FILE.bz2, the bytes of bzip2 -9 (decompresses with -d, tests with -t),\n"
               "on every CPU core and GPU; --format parcomp writes FILE%s, the parcomp format.\n"
               "With no FILE, or FILE \"-\", reads standard input and writes standard output.\n"
               "\n"
               "  -z, --compress      compress (the default)\n"
               "  -d, --decompress    decompress: parcomp streams, version-2 containers, and .bz2 (bzip2, lbzip2,\n"
               "                      pbzip2: several streams; trailing bytes ignored with a warning)\n"
               "  -t, --test          decompress and check every block and the stream, write nothing\n"
               "  -c, --stdout        write to standard output\n"
               "  -o, --output FILE   write to FILE (one input)\n"
               "  -f, --force         overwrite existing output; write compressed data to a terminal\n"
               "  -k, --keep          keep the input files (the default)\n"
               "      --rm            remove each input file after its output is complete\n"
               "  -q, --quiet         no messages but errors\n"
               "  -v, --verbose       sizes, ratio, rate and what ran where, per file\n"
               "      --progress      a progress line on standard error (the default when it is a terminal)\n"
               "      --no-progress   none\n"
               "  -1 .. -9            .bz2 blocks of 100k .. 900k (bzip2 -N's bytes; default -9)\n"
               "      --format F      bz2 (the default) or parcomp (the thesis's pipeline in parcomp's container)\n"
               "      --config C      parcomp format: paper (the thesis's kernels) or fast (ours, the default)\n"
               "      --block BYTES   parcomp format: block size (default 1M, 512K for an input that ends within 16M;\n"
               "                      K and M suffixes are powers of 1024)\n"
               "      --cpu           CPU workers only\n"
               "      --gpu           GPU workers only (an error without a GPU); with -1 .. -9 the GPUs sort and\n"
               "                      write the .bz2 blocks, with -d they decode them. By default .bz2 files of\n"
               "                      128 MiB and more (64 MiB to decompress) go to the GPUs (to the CPU\n"
               "                      workers if none starts), smaller ones to the CPU workers; parcomp files\n"
               "                      of 32 MiB and more (64 MiB compressed) to both, smaller ones to the CPU\n"
               "                      workers. Standard input goes to the CPU workers, and to the GPUs once\n"
               "                      the CPU workers fall behind it (docs/field.md). Parcomp jobs take turns\n"
               "                      on a GPU, two at a time. A GPU short of memory (another job holds it)\n"
               "                      leaves its blocks to the CPU workers, and rejoins when memory frees up;\n"
               "                      with --gpu that is an error\n"
               "      --gpu-memory SIZE  device memory this process may hold on each GPU (K, M, G, T: powers of\n"
               "                      1024; default: what the GPU has free when it joins, less 512 MiB)\n"
               "      --devices LIST  the GPUs to use, e.g. 0,1 (default: every GPU)\n"
               "      --threads N     CPU workers (default: one per hardware thread)\n"
               "      --cpu-beside-gpus N  CPU workers that keep taking blocks once a GPU works\n"
               "                      (default 0: they work while CUDA starts, then leave it to the GPUs;\n"
               "                      .bz2 decompression starts them with CUDA only where N > 0)\n"
               "      --gpu-batch N   blocks the GPUs take at a time, split among them (default 64; .bz2: 128, and 192 in\n"
               "                      decompression, whose GPU stages give a block one thread); larger batches use\n"
               "                      more memory, more GPUs do not\n"
               "      --gpu-lanes N   batches each GPU works on at once, each with its own stream and buffers\n"
               "                      (default 4; .bz2: 3 in compression, 1 in decompression)\n"
               "      --blocks-in-flight N  blocks read and not yet written, at most (memory); default: 4 per\n"
               "                      CPU worker, and the batches each GPU works on and has queued\n"
               "      --gpu-walk BxT  .bz2 decompression: the GPU's walk to each group of codes, a lookup of B bits\n"
               "                      in CTAs of T threads: 12x256 (default), 12x64, 11x256 or 11x64\n"
               "      --gpu-host-piece N  .bz2 decompression: MiB of decoded bytes each GPU slot brings back\n"
               "                      and ends at a time, in pinned memory (default 32)\n"
               "      --decoded-in-flight N  .bz2 decompression: MiB of decoded blocks waiting for a slower\n"
               "                      writer, at most (memory; default 512)\n"
               "      --output-io M   how an output file is written: auto (the default: write() calls, and on tmpfs\n"
               "                      past the first 64 MiB mapped windows that helper threads fill with pages\n"
               "                      ahead of the writer), write (write() calls only) or map (windows from the\n"
               "                      first byte, on any file system);\n"
               "                      standard output always takes write() calls\n"
               "      --stats FILE    the run's numbers as JSON (for benchmarks): sizes, seconds, GPUs, start-up\n"
               "      --trace FILE    the run's timeline as JSON: what the reader, each CPU worker, each GPU and\n"
               "                      the writer did when (plots/tool_timeline.py draws it)\n"
               "  -h, --help          this text\n"
               "  -V, --version       the version\n"
               "Exit status: 0 done, 1 an environment problem, 2 a corrupt input, 3 an internal error.\n",
               kSuffix);
}

std::size_t parse_size(const std::string& s) {
  std::size_t pos = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &pos);
  } catch (const std::exception&) {
    throw UsageError("not a size: " + s);
  }
  std::string unit = s.substr(pos);
  std::transform(unit.begin(), unit.end(), unit.begin(), ::tolower);
  if (unit == "k" || unit == "ki" || unit == "kib") v <<= 10;
  else if (unit == "m" || unit == "mi" || unit == "mib") v <<= 20;
  else if (!unit.empty()) throw UsageError("not a size: " + s);
  return static_cast<std::size_t>(v);
}

struct Cli {
  enum class Mode { compress, decompress, test } mode = Mode::compress;
  bool to_stdout = false, force = false, remove_input = false, quiet = false, verbose = false;
  int progress = -1;  // -1: when standard error is a terminal
  std::string output, stats_file, trace_file;
  std::vector<std::string> files;
  engine::Options engine;
  engine::FileSink::Mode output_io = engine::FileSink::Mode::automatic;
  std::uint64_t gpu_memory = 0;  // --gpu-memory: device_memory::set_limit
};

// An option's whole number from lo to hi (a usage error otherwise).
std::size_t count_in(const std::string& option, const std::string& v, std::size_t lo, std::size_t hi) {
  std::size_t n = 0, pos = 0;
  try {
    n = std::stoul(v, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != v.size() || v[0] == '-' || n < lo || n > hi)
    throw UsageError(option + " takes a number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not " + v);
  return n;
}

Cli parse_args(int argc, char** argv) {
  Cli c;
  c.engine.format = engine::Format::bz2;  // bzip2's format at -9, as bzip2 writes by default
  bool options_done = false, level_given = false, parcomp_options = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (options_done || a == "-" || a.empty() || a[0] != '-') {
      c.files.push_back(a);
      continue;
    }
    if (a == "--") options_done = true;
    else if (a == "--compress") c.mode = Cli::Mode::compress;
    else if (a == "--decompress" || a == "--uncompress") c.mode = Cli::Mode::decompress;
    else if (a == "--test") c.mode = Cli::Mode::test;
    else if (a == "--stdout") c.to_stdout = true;
    else if (a == "--force") c.force = true;
    else if (a == "--keep") c.remove_input = false;
    else if (a == "--rm") c.remove_input = true;
    else if (a == "--quiet") c.quiet = true;
    else if (a == "--verbose") c.verbose = true;
    else if (a == "--progress") c.progress = 1;
    else if (a == "--no-progress") c.progress = 0;
    else if (a == "-o" || a == "--output") c.output = value();
    else if (a == "--stats") c.stats_file = value();
    else if (a == "--trace") c.trace_file = value();
    else if (a == "--format") {
      const std::string v = value();
      if (v == "bz2") c.engine.format = engine::Format::bz2;
      else if (v == "parcomp") c.engine.format = engine::Format::parcomp;
      else throw UsageError("--format must be bz2 or parcomp, not " + v);
    }
    else if (a == "--config") {
      const std::string v = value();
      if (v == "paper") c.engine.config = pipeline::Config::paper;
      else if (v == "fast") c.engine.config = pipeline::Config::fast;
      else throw UsageError("--config must be paper or fast, not " + v);
      parcomp_options = true;
    } else if (a == "--block") {
      c.engine.block_bytes = parse_size(value());
      c.engine.small_input_bytes = 0;  // the size asked for, whatever the input's
      parcomp_options = true;
    }
    else if (a == "--cpu") c.engine.use_gpus = false;
    else if (a == "--gpu") {
      c.engine.require_gpu = true;
      c.engine.cpu_threads = 0;
    } else if (a == "--devices") {
      const std::string v = value();
      std::size_t at = 0;
      while (at <= v.size()) {
        const std::size_t comma = std::min(v.find(',', at), v.size());
        try {
          c.engine.devices.push_back(std::stoi(v.substr(at, comma - at)));
        } catch (const std::exception&) {
          throw UsageError("--devices takes numbers separated by commas, not " + v);
        }
        at = comma + 1;
      }
    } else if (a == "--threads") {
      try {
        c.engine.cpu_threads = std::stoi(value());
      } catch (const std::exception&) {
        throw UsageError("--threads takes a number");
      }
      if (c.engine.cpu_threads < 0) throw UsageError("--threads takes a number >= 0");
    } else if (a == "--cpu-beside-gpus") {
      c.engine.cpu_beside_gpus = static_cast<int>(count_in(a, value(), 0, 4096));
    } else if (a == "--gpu-batch") {
      const std::size_t n = count_in(a, value(), 1, std::size_t{1} << 20);
      c.engine.gpu_batch_blocks = n;
      c.engine.bz2_gpu_batch_blocks = n;
    } else if (a == "--gpu-lanes") {
      c.engine.bz2_gpu_lanes = static_cast<unsigned>(count_in(a, value(), 1, 8));
      c.engine.gpu_lanes = c.engine.bz2_gpu_lanes;
      c.engine.bz2_gpu_decode_lanes = c.engine.bz2_gpu_lanes;
    } else if (a == "--gpu-walk") {
      const std::string v = value();
      if (v != "12x256" && v != "12x64" && v != "11x256" && v != "11x64")
        throw UsageError("--gpu-walk takes 12x256, 12x64, 11x256 or 11x64, not " + v);
      c.engine.bz2_gpu_walk_bits = v[1] == '2' ? 12 : 11;
      c.engine.bz2_gpu_walk_threads = v.ends_with("x256") ? 256u : 64u;
    } else if (a == "--gpu-host-piece") {
      c.engine.bz2_gpu_host_piece = count_in(a, value(), 1, 4096) << 20;
    } else if (a == "--decoded-in-flight") {
      c.engine.bz2_decoded_in_flight = std::uint64_t{count_in(a, value(), 1, 65536)} << 20;
    } else if (a == "--output-io") {
      const std::string v = value();
      if (v == "auto") c.output_io = engine::FileSink::Mode::automatic;
      else if (v == "write") c.output_io = engine::FileSink::Mode::write;
      else if (v == "map") c.output_io = engine::FileSink::Mode::map;
      else throw UsageError("--output-io must be auto, write or map, not " + v);
    } else if (a == "--gpu-memory") {
      try {
        c.gpu_memory = device_memory::parse_bytes(value());
      } catch (const ContractError& e) {
        throw UsageError(std::string("--gpu-memory: ") + e.what());
      }
      if (c.gpu_memory == 0) throw UsageError("--gpu-memory takes a size above 0");
    } else if (a == "--blocks-in-flight") {
      c.engine.max_blocks_in_flight = count_in(a, value(), 1, std::size_t{1} << 20);
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(kOk);
    } else if (a == "-V" || a == "--version") {
      std::printf("%s\nbuilt from commit %s%s\n", kVersion, bench::kGitSha, bench::kGitDirty ? " (with uncommitted changes)" : "");
      std::exit(kOk);
    } else if (a.size() >= 2 && a[1] != '-') {  // combined short flags: -dc, -kv
      for (std::size_t k = 1; k < a.size(); ++k) {
        switch (a[k]) {
          case 'z': c.mode = Cli::Mode::compress; break;
          case 'd': c.mode = Cli::Mode::decompress; break;
          case 't': c.mode = Cli::Mode::test; break;
          case 'c': c.to_stdout = true; break;
          case 'f': c.force = true; break;
          case 'k': c.remove_input = false; break;
          case 'q': c.quiet = true; break;
          case 'v': c.verbose = true; break;
          case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
            c.engine.level = a[k] - '0';
            level_given = true;
            break;
          case 'o':
            if (k + 1 != a.size()) throw UsageError("-o takes a value: -o FILE");
            c.output = value();
            break;
          default: throw UsageError(std::string("unknown option -") + a[k]);
        }
      }
    } else {
      throw UsageError("unknown option " + a);
    }
  }
  if (c.files.empty()) c.files.push_back("-");
  if (!c.output.empty() && c.files.size() > 1) throw UsageError("-o takes one input file");
  if (!c.output.empty() && c.to_stdout) throw UsageError("-o and -c both name the output");
  if (!c.stats_file.empty() && c.files.size() > 1) throw UsageError("--stats takes one input file");
  if (c.engine.require_gpu && !c.engine.use_gpus) throw UsageError("--cpu and --gpu exclude each other");
  if (level_given && c.engine.format == engine::Format::parcomp)
    throw UsageError("-1 .. -9 are .bz2 levels: they do not go with --format parcomp");
  if (parcomp_options && c.engine.format != engine::Format::parcomp && c.mode == Cli::Mode::compress)
    throw UsageError("--config and --block are options of the parcomp format: add --format parcomp");
  return c;
}

// ---- files --------------------------------------------------------------------------------------

std::string errno_text(int e) { return std::strerror(e); }

class NullSink : public engine::Sink {
 public:
  void write(const std::uint8_t*, std::size_t) override {}
};

// The temporary output of the file being written, removed on any error and on a signal.
char g_partial[4096] = {0};
mode_t g_umask = 022;  // read once at start: what a file written from standard input gets

void on_signal(int sig) {
  if (g_partial[0] != '\0') ::unlink(g_partial);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

class PartialFile {
 public:
  explicit PartialFile(const fs::path& target) : target_(target) {
    tmp_ = target.string() + ".parcomp-partial-" + std::to_string(::getpid());
    if (tmp_.size() >= sizeof g_partial) throw EnvironmentError("output path too long: " + target.string());
    // Private while it is written (read too: FileSink maps it); the input's mode comes at commit().
    fd_ = ::open(tmp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd_ < 0) throw EnvironmentError("cannot create " + tmp_ + ": " + errno_text(errno));
    std::strcpy(g_partial, tmp_.c_str());
  }
  ~PartialFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_.c_str());
    g_partial[0] = '\0';
  }
  int fd() const { return fd_; }
  // Complete: as bzip2 and gzip do, the output gets the input's owner and group (where permitted),
  // then its mode bits, then its access and modification times; then it takes the target's name.
  void commit(const struct stat* like) {
    if (like == nullptr && ::fchmod(fd_, 0666 & ~g_umask) != 0)  // from standard input: as a file created anew
      throw EnvironmentError("cannot set the mode of " + tmp_ + ": " + errno_text(errno));
    if (like != nullptr) {
      if (::fchown(fd_, like->st_uid, like->st_gid) != 0 && errno != EPERM && errno != EINVAL)
        throw EnvironmentError("cannot set the owner of " + tmp_ + ": " + errno_text(errno));
      if (::fchmod(fd_, like->st_mode & 07777) != 0)
        throw EnvironmentError("cannot set the mode of " + tmp_ + ": " + errno_text(errno));
      const struct timespec times[2] = {like->st_atim, like->st_mtim};
      if (::futimens(fd_, times) != 0) throw EnvironmentError("cannot set the times of " + tmp_ + ": " + errno_text(errno));
    }
    if (::close(fd_) != 0) {
      fd_ = -1;
      throw EnvironmentError("write failed: " + tmp_ + ": " + errno_text(errno));
    }
    fd_ = -1;
    if (::rename(tmp_.c_str(), target_.c_str()) != 0) throw EnvironmentError("cannot rename to " + target_.string() + ": " + errno_text(errno));
    committed_ = true;
  }

 private:
  fs::path target_;
  std::string tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

std::string human(double bytes) {
  char buf[32];
  if (bytes >= 1e9) std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  else if (bytes >= 1e6) std::snprintf(buf, sizeof buf, "%.1f MB", bytes / 1e6);
  else if (bytes >= 1e3) std::snprintf(buf, sizeof buf, "%.1f kB", bytes / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

// Standard input's bytes left when it is a regular file (parcomp < file), else 0 (a pipe: unknown).
std::uint64_t stdin_regular_bytes() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  const off_t at = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
  return at >= 0 && at < st.st_size ? static_cast<std::uint64_t>(st.st_size - at) : 0;
}

// One file (or standard input): returns its exit status, messages on stderr.
int process(const Cli& cli, const std::string& file, bool progress_on) {
  const bool from_stdin = file == "-";
  const std::string name = from_stdin ? "(stdin)" : file;
  try {
    // Everything that can be refused is checked before any work.
    const bool test = cli.mode == Cli::Mode::test;
    const bool decompress = cli.mode != Cli::Mode::compress;
    const bool to_stdout = !test && (cli.to_stdout || (from_stdin && cli.output.empty()));
    int in_fd = STDIN_FILENO;
    std::uint64_t in_size = from_stdin ? stdin_regular_bytes() : 0;
    struct stat in_st {};
    if (!from_stdin) {
      // As bzip2: a symbolic link is followed only with -f, -c or -t; a device or FIFO is read only
      // with -f; the messages are bzip2's.
      const auto cannot_open = [&](int e) { return EnvironmentError("Can't open input file " + file + ": " + errno_text(e) + "."); };
      if (::lstat(file.c_str(), &in_st) != 0) throw cannot_open(errno);
      if (S_ISLNK(in_st.st_mode) && (cli.force || test || to_stdout) && ::stat(file.c_str(), &in_st) != 0) throw cannot_open(errno);
      if (S_ISDIR(in_st.st_mode)) throw EnvironmentError("Input file " + file + " is a directory.");
      if (!S_ISREG(in_st.st_mode) && !cli.force) throw EnvironmentError("Input file " + file + " is not a normal file.");
      in_fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
      if (in_fd < 0) throw cannot_open(errno);
      if (::fstat(in_fd, &in_st) != 0) {
        const int e = errno;
        ::close(in_fd);
        throw cannot_open(e);
      }
      in_size = S_ISREG(in_st.st_mode) ? static_cast<std::uint64_t>(in_st.st_size) : 0;
    }
    struct CloseFd {
      int fd;
      ~CloseFd() {
        if (fd != STDIN_FILENO) ::close(fd);
      }
    } closer{in_fd};
    fs::path target;
    if (!test && !to_stdout) {
      if (!cli.output.empty()) {
        target = cli.output;
      } else if (!decompress) {
        target = file + (cli.engine.format == engine::Format::bz2 ? kBz2Suffix : kSuffix);
      } else {
        // As gzip and bzip2 name outputs: the suffix dropped, .tbz2 / .tbz to .tar.
        const fs::path p(file);
        const std::string ext = p.extension().string();
        if (ext == kSuffix || ext == kBz2Suffix) target = fs::path(p).replace_extension();
        else if (ext == ".tbz2" || ext == ".tbz") target = fs::path(p).replace_extension(".tar");
        else target = fs::path(file + ".out");
      }
      std::error_code ec;
      if (fs::exists(target, ec) && !cli.force) throw EnvironmentError(target.string() + " exists (use -f to overwrite)");
      if (!from_stdin && fs::equivalent(file, target, ec)) throw EnvironmentError("the output would overwrite the input " + file);
    }
    if (to_stdout && !decompress && ::isatty(STDOUT_FILENO) && !cli.force)
      throw EnvironmentError("compressed data not written to a terminal (use -f to force, -h for help)");

    engine::Options options = cli.engine;
    options.input_bytes = in_size;  // picks the workers (engine::Options::gpu_from_bytes, bz2_gpu_from_bytes)
    options.leave_to_exit = &file == &cli.files.back();  // the program exits after its last input
    if (cli.verbose && !cli.quiet) options.on_note = [&](const std::string& s) { std::fprintf(stderr, "parcomp: %s: %s\n", name.c_str(), s.c_str()); };
    if (progress_on) {
      options.on_progress = [&, in_size](const engine::Progress& p) {
        const double rate = p.seconds > 0 ? static_cast<double>(decompress ? p.bytes_out : p.bytes_in) / p.seconds : 0;
        std::string left;
        if (in_size > 0 && p.seconds > 0.5 && p.bytes_in > 0 && p.bytes_in < in_size) {
          const double secs = static_cast<double>(in_size - p.bytes_in) / (static_cast<double>(p.bytes_in) / p.seconds);
          left = ", " + std::to_string(static_cast<long>(secs + 0.5)) + " s left";
        }
        std::fprintf(stderr, "\rparcomp: %s: %s in, %s out, %s/s%s   ", name.c_str(), human(static_cast<double>(p.bytes_in)).c_str(),
                     human(static_cast<double>(p.bytes_out)).c_str(), human(rate).c_str(), left.c_str());
      };
    }
    parcomp::FdSource source(in_fd, name);
    std::optional<PartialFile> partial;
    std::optional<engine::FileSink> sink;
    NullSink null;
    if (!test) {
      if (to_stdout) {
        sink.emplace(STDOUT_FILENO, "(stdout)", engine::FileSink::Mode::write);
      } else {
        partial.emplace(target);
        sink.emplace(partial->fd(), target.string(), cli.output_io);
      }
    }
    engine::Sink& out = test ? static_cast<engine::Sink&>(null) : *sink;
    const engine::Stats st = decompress ? engine::decompress(source, out, options) : engine::compress(source, out, options);
    if (sink) sink->finish();
    if (partial) partial->commit(from_stdin || !S_ISREG(in_st.st_mode) ? nullptr : &in_st);
    if (progress_on) std::fprintf(stderr, "\r\033[K");
    if (cli.remove_input && !from_stdin && !test) {
      std::error_code ec;
      fs::remove(file, ec);
      if (ec) throw EnvironmentError("cannot remove " + file + ": " + ec.message());
    }
    if (st.trailing_bytes > 0 && !cli.quiet)
      std::fprintf(stderr, "parcomp: %s: trailing garbage after the last .bz2 stream ignored (%llu bytes)\n", name.c_str(),
                   static_cast<unsigned long long>(st.trailing_bytes));
    if (test && !cli.quiet) std::fprintf(stderr, "parcomp: %s: ok\n", name.c_str());
    if (!cli.stats_file.empty()) {
      std::FILE* f = std::fopen(cli.stats_file.c_str(), "w");
      if (f == nullptr) throw EnvironmentError("cannot write " + cli.stats_file + ": " + errno_text(errno));
      std::string gpus;
      for (const int g : st.gpus) gpus += (gpus.empty() ? "" : ", ") + std::to_string(g);
      std::fprintf(f,
                   "{\"format\": \"%s\", \"seconds\": %.6f, \"original_bytes\": %llu, \"compressed_bytes\": %llu, \"blocks\": %llu, "
                   "\"gpu_blocks\": %llu, \"gpus\": [%s], \"cpu_workers\": %u, \"first_gpu_ready_s\": %.6f, "
                   "\"peak_device_bytes\": %llu, \"streams\": %llu, \"trailing_bytes\": %llu}\n",
                   st.format == engine::Format::bz2 ? "bz2" : "parcomp", st.seconds, static_cast<unsigned long long>(st.original_bytes), static_cast<unsigned long long>(st.compressed_bytes),
                   static_cast<unsigned long long>(st.blocks), static_cast<unsigned long long>(st.gpu_blocks), gpus.c_str(),
                   st.cpu_workers, st.first_gpu_ready_s, static_cast<unsigned long long>(st.peak_device_bytes),
                   static_cast<unsigned long long>(st.streams), static_cast<unsigned long long>(st.trailing_bytes));
      std::fclose(f);
    }
    if (cli.verbose && !cli.quiet) {
      const double raw = static_cast<double>(st.original_bytes), packed = static_cast<double>(st.compressed_bytes);
      std::fprintf(stderr,
                   "parcomp: %s: %s -> %s (ratio %.4f) in %.3f s, %s/s of uncompressed data; %llu blocks, %llu on %zu GPU(s), "
                   "%llu on the host (%u CPU workers)%s\n",
                   name.c_str(), human(decompress ? packed : raw).c_str(), human(decompress ? raw : packed).c_str(),
                   raw > 0 ? packed / raw : 0.0, st.seconds, human(st.seconds > 0 ? raw / st.seconds : 0).c_str(),
                   static_cast<unsigned long long>(st.blocks), static_cast<unsigned long long>(st.gpu_blocks), st.gpus.size(),
                   static_cast<unsigned long long>(st.blocks > st.gpu_blocks ? st.blocks - st.gpu_blocks : 0), st.cpu_workers,
                   st.first_gpu_ready_s >= 0 ? (", first GPU ready after " + std::to_string(st.first_gpu_ready_s) + " s").c_str() : "");
    }
    return kOk;
  } catch (const CorruptDataError& e) {
    if (progress_on) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "parcomp: %s: corrupt input: %s\n", name.c_str(), e.what());
    return kCorrupt;
  } catch (const IoError& e) {  // the program's EnvironmentError and the input's reads (parcomp::FdSource)
    if (progress_on) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "parcomp: %s\n", e.what());
    return kEnvironment;
  } catch (const ContractError& e) {
    std::fprintf(stderr, "parcomp: %s: %s\n", name.c_str(), e.what());
    return kEnvironment;
  } catch (const std::system_error& e) {  // the output's I/O (engine::FileSink)
    if (progress_on) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "parcomp: %s\n", e.what());
    return kEnvironment;
  } catch (const CudaError& e) {
    std::fprintf(stderr, "parcomp: %s: GPU error: %s\n", name.c_str(), e.what());
    return kEnvironment;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "parcomp: %s: out of memory\n", name.c_str());
    return kEnvironment;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parcomp: %s: internal error: %s\n", name.c_str(), e.what());
    return kInternal;
  }
}

}  // namespace

// The timeline of --trace as JSON: every span of every file, seconds since the program started.
bool write_trace(const std::string& path, const engine::Trace& trace, const Cli& cli) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "{\"trace\": \"parcomp\", \"version\": 1, \"mode\": \"%s\", \"spans\": [",
               cli.mode == Cli::Mode::compress ? "compress" : cli.mode == Cli::Mode::decompress ? "decompress" : "test");
  bool first = true;
  for (const auto& sp : trace.spans()) {
    std::fprintf(f, "%s\n  {\"lane\": \"%s\", \"what\": \"%s\", \"start\": %.6f, \"end\": %.6f, \"blocks\": %llu}", first ? "" : ",",
                 sp.lane.c_str(), sp.what.c_str(), sp.start, sp.end, static_cast<unsigned long long>(sp.blocks));
    first = false;
  }
  std::fprintf(f, "\n]}\n");
  return std::fclose(f) == 0;
}

// Whether any input may go to a GPU, to start CUDA early (gpu_warmup) only then, by the engine's
// own rule (engine::may_use_gpus): a file by its size and format (.bz2 written, or read: "BZh"
// first); standard input's size is unknown, and so is its format when decompressing. CUDA's
// start-up beside a small job on the CPU workers costs it time (docs/defaults.md).
bool may_use_gpus(const Cli& cli) {
  const bool decompress = cli.mode != Cli::Mode::compress;
  engine::Options o = cli.engine;
  for (const auto& file : cli.files) {
    if (file == "-") {
      o.input_bytes = stdin_regular_bytes();
      if (decompress ? engine::may_use_gpus(o, true, false) || engine::may_use_gpus(o, true, true)
                     : engine::may_use_gpus(o, false, cli.engine.format == engine::Format::bz2))
        return true;
      continue;
    }
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // refused later, or of unknown size
    o.input_bytes = static_cast<std::uint64_t>(st.st_size);
    bool bz2 = cli.engine.format == engine::Format::bz2;
    if (decompress) {
      char magic[3] = {};
      const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      const ssize_t got = ::read(fd, magic, sizeof magic);
      ::close(fd);
      bz2 = got == 3 && magic[0] == 'B' && magic[1] == 'Z' && magic[2] == 'h';
    }
    if (engine::may_use_gpus(o, decompress, bz2)) return true;
  }
  return false;
}

// A process's exit releases its memory and its GPU contexts before the caller's wait returns.
// PARCOMP_EXIT=child leaves them to a child that shares both (clone with CLONE_VM | CLONE_FILES),
// killed once this process has left, so that the release runs after the exit; standard input,
// output and error are closed first. Not the default: the killed child is an orphan that only an
// init which reaps orphans removes (docs/defaults.md).
namespace {
pid_t g_leaving = 0;
int hold_until_parent_left(void*) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != g_leaving) ::_exit(0);  // it left before the signal was set
  for (;;) ::pause();
}
void leave_release_to_a_child() {
  const char* env = std::getenv("PARCOMP_EXIT");
  if (env == nullptr || std::string_view(env) != "child") return;
  alignas(64) static char stack[1 << 16];
  g_leaving = ::getpid();
  for (int fd = 0; fd <= 2; ++fd) ::close(fd);
  (void)::clone(hold_until_parent_left, stack + sizeof stack, CLONE_VM | CLONE_FILES | SIGCHLD, nullptr);
}
}  // namespace

int main(int argc, char** argv) {
  engine::Trace trace;  // --trace: times from here
  Cli cli;
  try {
    cli = parse_args(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "parcomp: %s\n", e.what());
    usage(stderr);
    return kEnvironment;
  }
  g_umask = ::umask(0);
  ::umask(g_umask);
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error, reported
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_signal);
  if (cli.gpu_memory != 0) device_memory::set_limit(cli.gpu_memory);
  if (may_use_gpus(cli)) {
    // Each context loads all of the program's kernels as it is made (unless the environment says
    // otherwise): loaded on first use instead, the first GPU's first kernels waited for the next
    // GPU's context to be made (docs/defaults.md).
    ::setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    gpu_warmup::start(cli.engine.devices);  // CUDA starts while the first blocks are read
  }
  const bool progress_on = !cli.quiet && (cli.progress == 1 || (cli.progress == -1 && ::isatty(STDERR_FILENO)));
  if (!cli.trace_file.empty()) cli.engine.trace = &trace;
  int status = kOk;
  for (const auto& f : cli.files) status = std::max(status, process(cli, f, progress_on));
  if (!cli.trace_file.empty() && !write_trace(cli.trace_file, trace, cli)) {
    std::fprintf(stderr, "parcomp: cannot write %s: %s\n", cli.trace_file.c_str(), errno_text(errno).c_str());
    status = std::max(status, static_cast<int>(kEnvironment));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  leave_release_to_a_child();
  // Leave without destroying a CUDA runtime that may still be starting (gpu_warmup.hpp).
  std::_Exit(status);
}
