// tool.e2e (ours): the wall time a user waits, one process per run, from its start to its exit:
// the input file in the page cache, the output written to a file on the same file system (no
// fsync). Benchmarks tool.e2e/<program>.<mode>/<dataset>/n=<bytes>/real_time:
//   parcomp.fast.compress / .decompress    the parcomp program in the parcomp format (--format parcomp), every CPU core and GPU
//   parcomp.fast.cpu.compress / ...        the same on the CPU workers alone (--cpu)
//   parcomp.paper.compress / ...           the thesis's configuration
//   parcomp.bz2.compress / .decompress     .bz2 at -9 (bzip2's bytes; the program's default)
//   parcomp.bz2.lbzip2-made.decompress     reading the .bz2 lbzip2 -9 wrote
//   lbzip2, bzip2 (-9), zstd.l3 / zstd.l19 (-T0), pigz (or gzip): the CPU programs a user would pick
//   copy.cat (cat in > out) and copy.write (writing that many bytes): the host's own ceiling
//   <program>.<mode>.stdin                 parcomp.bz2, parcomp.bz2.lbzip2-made, parcomp.fast and
//                                          lbzip2 reading a pipe (cat in | program -c > out), whose
//                                          size they cannot know, beside the same rows by name (the
//                                          tarballs, Silesia xml and dickens)
//   <program>.decompress.null              parcomp.bz2, parcomp.bz2.lbzip2-made, parcomp.fast,
//                                          lbzip2 and zstd.l3 decompressing to /dev/null, so that the
//                                          disk does not hide the decoder (the check before the runs
//                                          still compares a file with the input)
// tool.load/<program>/jobs=<N>[.gpu-busy]/<dataset> (ours): N processes of parcomp.bz2, parcomp.fast
// or lbzip2 at once (1, 4, 16; and 16 beside a GPU another process holds but 2 GiB of), each on a
// different file, compress then decompress; counters jobs, jobs_ok, bytes_per_second (both batches),
// compress_/decompress_bytes_per_second, peak_host_rss_bytes and peak_device_bytes of one process.
// Datasets: the Linux tarball, the tarball 25 times (linux-2.6.11.1.tar.x25, 5.2 GB, made on the
// fly in the work folder and checked by sha256), and small files (Calgary book1, Silesia xml and
// dickens). Every output is checked: a compressor's by decompressing it, a decompressor's against
// the input. Counters: bytes_per_second (uncompressed bytes per wall second), ratio, threads,
// peak_host_rss_bytes (the process's), and for parcomp (its --stats): gpus, gpu_share (blocks on
// GPUs), startup_s (to the first GPU ready), peak_device_bytes.
// Programs are found next to parcomp-bench (the bundle carries them) or on PATH; a missing one is
// reported skipped. The work folder is $PARCOMP_TOOL_DIR (kept), else $TMPDIR/parcomp-tool-PID,
// removed at exit, with those that processes no longer running left behind.
// The same machinery times the .bz2 programs of bz2.compress and bz2.decompress (parcomp as it
// chooses, with --cpu and with --gpu, lbzip2, bzip2, pbzip2; decompression of bzip2's and lbzip2's
// files, by parcomp the same three ways too), and
// the CPU programs of codecs.landscape (bzip2, lbzip2, zstd -3 / -19,
// xz -6, pigz; every host thread where the program has threads) on its datasets.
#include "common/harness.hpp"
#include "common/metadata.hpp"
#include "datasets/dataset.hpp"
#include "datasets/sha256.hpp"
#include "datasets/tar.hpp"
#include "common/inputs.hpp"

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

namespace parcomp::bench {

namespace {

namespace fs = std::filesystem;

constexpr const char* kX25 = "linux-2.6.11.1.tar.x25";
constexpr int kX25Copies = 25;
constexpr const char* kX25Sha256 = "38c300e781183049947322434faaaea94c88f8387769c0ab8421dc10fb92d57b";

// The work folder of this process when it is ours to remove (no destructor: the exit handler that
// removes it runs after static destructors may have).
char g_own_work_dir[4096] = {};

// Removes the work folders, $TMPDIR/parcomp-tool-PID, of processes no longer running (a bench
// stopped by a signal, or killed at a deadline, leaves its own: 5.2 GB with the 25-fold tarball).
void remove_stale_work_dirs(const fs::path& tmp) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(tmp, ec)) {
    const std::string name = e.path().filename().string();
    constexpr std::string_view prefix = "parcomp-tool-";
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid = name.substr(prefix.size());
    if (pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH) {
      std::error_code rm;
      fs::remove_all(e.path(), rm);
    }
  }
}

// $PARCOMP_TOOL_DIR (the user's: kept), else $TMPDIR/parcomp-tool-PID, removed when the process
// exits normally.
fs::path work_dir() {
  static const fs::path dir = [] {
    const char* env = std::getenv("PARCOMP_TOOL_DIR");
    if (env != nullptr && *env != '\0') {
      fs::create_directories(env);
      return fs::path(env);
    }
    const fs::path tmp = fs::temp_directory_path();
    remove_stale_work_dirs(tmp);
    fs::path d = tmp / fmt::format("parcomp-tool-{}", ::getpid());
    fs::create_directories(d);
    if (d.string().size() < sizeof g_own_work_dir) {
      std::strncpy(g_own_work_dir, d.c_str(), sizeof g_own_work_dir - 1);
      std::atexit([] {
        std::error_code ec;
        fs::remove_all(g_own_work_dir, ec);
      });
    }
    return d;
  }();
  fs::create_directories(dir);
  return dir;
}

std::string find_program(const std::string& name) {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& p : {self.parent_path() / name, self.parent_path().parent_path() / "codec" / name})
      if (fs::exists(p)) return p.string();
  }
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::string all = path;
    for (std::size_t at = 0; at <= all.size();) {
      const std::size_t colon = std::min(all.find(':', at), all.size());
      const fs::path p = fs::path(all.substr(at, colon - at)) / name;
      if (!all.substr(at, colon - at).empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
      at = colon + 1;
    }
  }
  return {};
}

struct Run {
  double seconds = 0;
  long max_rss_kib = 0;
  int status = -1;
};

// Starts argv with its standard input and output redirected: to a file ("" leaves it), or to the
// descriptor given (in_fd / out_fd, e.g. a pipe's end; the caller closes its own copy).
pid_t spawn(const std::vector<std::string>& argv, const std::string& stdin_path, const std::string& stdout_path, int in_fd = -1,
            int out_fd = -1) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // A bench killed (at a deadline, by timeout) takes its jobs and the GPU holder with it.
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(126);
    if (in_fd >= 0 && ::dup2(in_fd, 0) < 0) ::_exit(126);
    if (out_fd >= 0 && ::dup2(out_fd, 1) < 0) ::_exit(126);
    if (!stdin_path.empty()) {
      const int fd = ::open(stdin_path.c_str(), O_RDONLY);
      if (fd < 0 || ::dup2(fd, 0) < 0) ::_exit(126);
    }
    if (!stdout_path.empty()) {
      const int fd = ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || ::dup2(fd, 1) < 0) ::_exit(126);
    }
    // A peer carried in the bundle finds its shared libraries beside it.
    const fs::path dir = fs::path(args[0]).parent_path();
    if (fs::exists(dir / "parcomp-bench")) ::setenv("LD_LIBRARY_PATH", dir.c_str(), 1);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for a process started at t0: its wall time to now, peak RSS and exit status.
Run wait_process(pid_t pid, std::chrono::steady_clock::time_point t0) {
  int status = 0;
  struct rusage ru {};
  if (::wait4(pid, &status, 0, &ru) < 0) throw std::runtime_error("wait4 failed");
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.max_rss_kib = ru.ru_maxrss;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// One process: argv with its standard input and output redirected to files ("" leaves them).
Run run_process(const std::vector<std::string>& argv, const std::string& stdin_path, const std::string& stdout_path) {
  const auto t0 = std::chrono::steady_clock::now();
  return wait_process(spawn(argv, stdin_path, stdout_path), t0);
}

// `cat in | argv > out`: the program reads a pipe, as from `tar cf - dir | ...` or `curl ... | ...`,
// where it cannot know the input's size. The time is to the exit of both; the status the first
// non-zero of the program's and cat's; the RSS the program's.
Run run_piped(const std::vector<std::string>& argv, const std::string& in_path, const std::string& out_path) {
  static const std::string cat = find_program("cat");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t feeder = spawn({cat}, in_path, "", -1, fds[1]);
  const pid_t program = spawn(argv, "", out_path, fds[0], -1);
  ::close(fds[0]);
  ::close(fds[1]);
  Run r = wait_process(program, t0);
  const Run c = wait_process(feeder, t0);
  r.seconds = std::max(r.seconds, c.seconds);
  if (r.status == 0) r.status = c.status;
  return r;
}

std::string sha256_file(const fs::path& p) {
  datasets::Sha256 h;
  std::ifstream f(p, std::ios::binary);
  std::vector<char> buf(1 << 20);
  while (f) {
    f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(buf.data(), static_cast<std::size_t>(f.gcount()));
  }
  return h.hex_digest();
}

// Whether two files hold the same bytes: sizes, then 8 MiB at a time compared. The outputs are
// checked this way against the input whose sha256 was verified once (the 25-fold copy's 5.2 GB in
// about 2 s from the page cache, where hashing them took seconds more each repetition).
bool same_bytes(const fs::path& a, const fs::path& b) {
  std::error_code ea, eb;
  const auto na = fs::file_size(a, ea), nb = fs::file_size(b, eb);
  if (ea || eb || na != nb) return false;
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  std::vector<char> ba(8 << 20), bb(8 << 20);
  while (fa && fb) {
    fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    if (fa.gcount() != fb.gcount() || std::memcmp(ba.data(), bb.data(), static_cast<std::size_t>(fa.gcount())) != 0) return false;
  }
  return fa.eof() && fb.eof();
}

struct Input {
  fs::path path;
  std::uint64_t bytes = 0;
  std::string sha256;
  std::string unavailable;
};

// The work folder's file system, by statfs's magic number: the programs' outputs go there, and a
// mapped or written 5.2 GB output costs more on a disk's file system than on tmpfs.
std::string file_system_of(const fs::path& dir) {
  struct statfs st {};
  if (::statfs(dir.c_str(), &st) != 0) return "unknown";
  switch (static_cast<unsigned long>(st.f_type)) {
    case 0x01021994UL: return "tmpfs";
    case 0xEF53UL: return "ext2/3/4";
    case 0x58465342UL: return "xfs";
    case 0x9123683EUL: return "btrfs";
    case 0x794C7630UL: return "overlayfs";
    case 0x6969UL: return "nfs";
    case 0x65735546UL: return "fuse";
    default: return fmt::format("f_type 0x{:x}", static_cast<unsigned long>(st.f_type));
  }
}

// Every tool/ dataset record says where the inputs made here and the programs' outputs lived.
void record_tool_input(const std::string& label, nlohmann::json record) {
  record["work_dir"] = work_dir().string();
  record["work_fs"] = file_system_of(work_dir());
  record_dataset("tool/" + label, std::move(record));
}

// The dataset's file (the cache's, or the 25-fold tarball made in the work folder), read once so
// that it is in the page cache.
const Input& input_for(const std::string& label, const std::string& source) {
  static std::map<std::string, Input> cache;
  if (auto it = cache.find(label); it != cache.end()) return it->second;
  Input in;
  try {
    if (datasets::is_corpus_tar(source)) {  // made from the corpus's verified files, written once
      const datasets::Dataset d = datasets::load_corpus_tar(source);
      in.path = work_dir() / label;
      if (!fs::exists(in.path) || sha256_file(in.path) != d.sha256)
        std::ofstream(in.path, std::ios::binary).write(reinterpret_cast<const char*>(d.bytes.data()), static_cast<std::streamsize>(d.bytes.size()));
      in.sha256 = sha256_file(in.path);
      if (in.sha256 != d.sha256) throw std::runtime_error(in.path.string() + " could not be written whole");
      in.bytes = d.bytes.size();
      record_tool_input(label, {{"dataset", d.name}, {"bytes", in.bytes}, {"sha256", in.sha256},
                                       {"made", "datasets::load_corpus_tar: ustar of every manifest file of the corpus, sorted"}});
      return cache.emplace(label, std::move(in)).first->second;
    }
    const auto& entry = datasets::find_manifest_file(label == kX25 ? "linux-2.6.11.1.tar" : source);
    const fs::path file = datasets::data_dir() / entry.name;
    if (!fs::exists(file))
      throw std::runtime_error(fmt::format("dataset '{}' is not at {}; get it with: python3 datasets/fetch.py {} --cache {}", entry.name,
                                           file.string(), entry.name, datasets::data_dir().string()));
    if (label == kX25) {
      // The tarball verified by its sha256 (0.2 GB), then the copy compared with it byte for byte:
      // hashing the 5.2 GB copy cost about 17 s in every bench process that used it.
      in.path = work_dir() / kX25;
      std::ifstream src(file, std::ios::binary);
      const std::vector<char> whole((std::istreambuf_iterator<char>(src)), {});
      datasets::Sha256 h;
      h.update(whole.data(), whole.size());
      if (h.hex_digest() != entry.sha256) throw std::runtime_error(file.string() + " is corrupt: sha256 differs from the manifest's");
      auto is_copies = [&] {
        std::ifstream f(in.path, std::ios::binary);
        std::vector<char> buf(whole.size());
        for (int i = 0; i < kX25Copies; ++i)
          if (!f.read(buf.data(), static_cast<std::streamsize>(buf.size())) || buf != whole) return false;
        return f.peek() == std::char_traits<char>::eof();
      };
      if (!fs::exists(in.path) || fs::file_size(in.path) != kX25Copies * entry.size || !is_copies()) {
        fmt::print(stderr, "parcomp-bench: writing {} ({} copies of the tarball) ...\n", in.path.string(), kX25Copies);
        {
          std::ofstream out(in.path, std::ios::binary | std::ios::trunc);
          for (int i = 0; i < kX25Copies; ++i) out.write(whole.data(), static_cast<std::streamsize>(whole.size()));
        }
        if (!is_copies()) throw std::runtime_error(in.path.string() + " could not be written whole");
      }
      in.sha256 = kX25Sha256;  // of 25 copies of the verified tarball (the copy is compared with them above)
    } else {
      in.path = file;
      in.sha256 = sha256_file(in.path);  // also reads it into the page cache
      if (in.sha256 != entry.sha256) throw std::runtime_error(file.string() + " is corrupt: sha256 differs from the manifest's");
    }
    in.bytes = fs::file_size(in.path);
    record_tool_input(label, {{"dataset", entry.name}, {"bytes", in.bytes}, {"sha256", in.sha256},
                                     {"made", label == kX25 ? fmt::format("{} copies of {}", kX25Copies, entry.name) : "the cache's file"}});
  } catch (const std::exception& e) {
    in.unavailable = e.what();
  }
  return cache.emplace(label, std::move(in)).first->second;
}

unsigned threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// A dataset's size from the manifest, before any file is read (the x25 copy: 25 times the
// tarball); 0 when this manifest does not know it.
std::uint64_t dataset_bytes(const std::string& label, const std::string& source) {
  try {
    return datasets::find_manifest_file(source).size * (label == kX25 ? kX25Copies : 1);
  } catch (const std::exception&) {
    return 0;
  }
}

// A program's command lines; {in} and {out} are replaced by paths. stdin/stdout redirections are
// the Run's (a compressor writing to standard output gets its output file as stdout).
struct Program {
  std::string variant;     // "lbzip2" ...
  std::string executable;  // its name, found at registration
  std::vector<std::string> compress, decompress;  // arguments after the executable
  bool to_stdout = true;   // output on standard output (else through {out})
  unsigned thread_count = 1;
  bool parcomp = false;
  std::string suffix = ".z";
  // Decompression of another program's file: its executable and arguments make the compressed
  // file (standard input to standard output), and only decompression is timed.
  std::string packer;
  std::vector<std::string> packer_args;
  bool needs_gpu = false;  // skipped without a CUDA device (parcomp --gpu)
  bool piped = false;      // the input through a pipe (run_piped): standard input to standard output
  // Where set, decompression's timed runs are these arguments with standard output /dev/null
  // (the .null rows); the check still decompresses to a file with `decompress`.
  std::vector<std::string> null_decompress{};
};

// The same program reading a pipe: `cat in | program -c > out` (to_stdout and the same bytes).
Program through_pipe(Program p, std::vector<std::string> compress, std::vector<std::string> decompress) {
  p.variant += ".stdin";
  if (p.packer.empty() || !compress.empty()) p.compress = std::move(compress);
  p.decompress = std::move(decompress);
  p.to_stdout = true;
  p.piped = true;
  return p;
}

std::vector<std::string> expand(const Program& p, const std::string& exe, const std::vector<std::string>& args, const fs::path& in,
                                const fs::path& out, const fs::path& stats) {
  std::vector<std::string> v{exe};
  for (std::string a : args) {
    if (a == "{in}") a = in.string();
    if (a == "{out}") a = out.string();
    if (a == "{stats}") a = stats.string();
    v.push_back(a);
  }
  (void)p;
  return v;
}

void tool_run(benchmark::State& state, Program p, bool decompress, std::string label, std::string source) {
  if (p.needs_gpu && !require_gpu(state)) return;
  const Input& in = input_for(label, source);
  if (!in.unavailable.empty()) return state.SkipWithError(("skipped: " + in.unavailable).c_str());
  const std::string exe = find_program(p.executable);
  if (exe.empty()) return state.SkipWithError(("skipped: " + p.executable + " not found (apt-get install it, or carry it in the bundle)").c_str());
  const fs::path dir = work_dir();
  const fs::path packed = dir / (label + "." + p.variant + p.suffix), back = dir / (label + "." + p.variant + ".back");
  const fs::path stats = dir / (p.variant + ".stats.json");
  const std::string packer = p.packer.empty() ? std::string() : find_program(p.packer);
  if (!p.packer.empty() && packer.empty()) return state.SkipWithError(("skipped: " + p.packer + " not found").c_str());
  auto compress_to = [&](const fs::path& out) {
    fs::remove(out);
    if (!packer.empty()) return run_process(expand(p, packer, p.packer_args, in.path, out, stats), in.path.string(), out.string());
    if (p.piped) return run_piped(expand(p, exe, p.compress, in.path, out, stats), in.path.string(), out.string());
    return run_process(expand(p, exe, p.compress, in.path, out, stats), p.to_stdout ? in.path.string() : "",
                       p.to_stdout ? out.string() : "");
  };
  auto decompress_null = [&] { return run_process(expand(p, exe, p.null_decompress, packed, fs::path(), stats), "", "/dev/null"); };
  auto decompress_to = [&](const fs::path& out) {
    fs::remove(out);
    if (p.piped) return run_piped(expand(p, exe, p.decompress, packed, out, stats), packed.string(), out.string());
    return run_process(expand(p, exe, p.decompress, packed, out, stats), p.to_stdout ? packed.string() : "",
                       p.to_stdout ? out.string() : "");
  };
  // The check, once per program and input (not per repetition): compress, decompress, compare. A
  // compressed file left by a failed or interrupted run is never trusted. A compression
  // benchmark's first repetition is its check's compression (timed like the others, then
  // decompressed and compared untimed): zstd -19 and xz take seconds a pass, and a pass less per
  // program and dataset is minutes less for codecs.landscape on one host.
  static std::map<std::string, bool> checked;
  auto check = [&]() -> bool {
    const Run r = decompress_to(back);
    const bool same = r.status == 0 && same_bytes(back, in.path);
    fs::remove(back);
    if (!same) state.SkipWithError(fmt::format("FAILED: {} did not give the input back (exit {})", p.variant, r.status).c_str());
    else checked[packed.string()] = true;
    return same;
  };
  if (decompress && !checked.contains(packed.string())) {  // decompression alone in this process
    const Run r = compress_to(packed);
    if (r.status != 0) return state.SkipWithError(fmt::format("FAILED: {} exited with {} compressing", p.variant, r.status).c_str());
    if (!check()) return;
  }
  Run last;
  for (auto _ : state) {
    last = !decompress ? compress_to(packed) : p.null_decompress.empty() ? decompress_to(back) : decompress_null();
    state.SetIterationTime(last.seconds);
    if (last.status != 0) return state.SkipWithError(fmt::format("FAILED: {} exited with {}", p.variant, last.status).c_str());
  }
  if (!decompress && !checked.contains(packed.string()) && !check()) return;
  if (decompress && p.null_decompress.empty() && !same_bytes(back, in.path)) return state.SkipWithError("FAILED: the decompressed output differs");
  fs::remove(back);
  set_throughput_counters(state, in.bytes);
  state.counters["ratio"] = static_cast<double>(fs::file_size(packed)) / static_cast<double>(std::max<std::uint64_t>(in.bytes, 1));
  state.counters["threads"] = p.thread_count;
  state.counters["peak_host_rss_bytes"] = static_cast<double>(last.max_rss_kib) * 1024.0;
  if (p.parcomp && fs::exists(stats)) {
    std::ifstream f(stats);
    const auto j = nlohmann::json::parse(f, nullptr, false);
    if (!j.is_discarded() && !j.value("gpus", nlohmann::json::array()).empty()) {
      const double blocks = j.value("blocks", 0.0), gpu_blocks = j.value("gpu_blocks", 0.0);
      state.counters["gpus"] = static_cast<double>(j.value("gpus", nlohmann::json::array()).size());
      state.counters["gpu_share"] = blocks > 0 ? gpu_blocks / blocks : 0.0;
      state.counters["startup_s"] = j.value("first_gpu_ready_s", -1.0);
      state.counters["peak_device_bytes"] = j.value("peak_device_bytes", 0.0);
    }
    if (!j.is_discarded()) state.counters["threads"] = j.value("cpu_workers", 0.0);
  }
}

// tool.load's inputs: `jobs` different files, each the dataset twice and a line that tags it
// (different bytes, so that no job's output can stand for another's), made once per process.
std::vector<fs::path> load_inputs(const Input& in, const std::string& label, unsigned jobs) {
  static std::map<std::string, unsigned> made;  // label: how many are written
  const fs::path dir = work_dir() / "load";
  fs::create_directories(dir);
  std::vector<fs::path> v;
  std::vector<char> whole;
  for (unsigned k = 0; k < jobs; ++k) {
    v.push_back(dir / fmt::format("{}.{}", label, k));
    if (k < made[label]) continue;
    if (whole.empty()) {
      std::ifstream f(in.path, std::ios::binary);
      whole.assign(std::istreambuf_iterator<char>(f), {});
      if (whole.size() != in.bytes) throw std::runtime_error(in.path.string() + " could not be read whole");
    }
    std::ofstream out(v.back(), std::ios::binary | std::ios::trunc);
    out.write(whole.data(), static_cast<std::streamsize>(whole.size()));
    out.write(whole.data(), static_cast<std::streamsize>(whole.size()));
    out << fmt::format("parcomp load test, file {}\n", k);
    if (!out.flush()) throw std::runtime_error(v.back().string() + " could not be written");
    made[label] = k + 1;
  }
  if (jobs > 0)
    record_tool_input("load/" + label, {{"dataset", in.path.filename().string()}, {"sha256", in.sha256}, {"files", made[label]},
                                         {"bytes_each", 2 * in.bytes + fmt::format("parcomp load test, file {}\n", 0).size()},
                                         {"made", "the dataset twice, then the line \"parcomp load test, file K\\n\""}});
  return v;
}

// Another process's job on the GPU: parcomp-gpu-hold holding all of device 0's memory but `leave`,
// until it is killed (the destructor).
class GpuHold {
 public:
  explicit GpuHold(const std::string& leave) {
    const std::string exe = find_program("parcomp-gpu-hold");
    if (exe.empty()) throw std::runtime_error("parcomp-gpu-hold not found (it is built with parcomp-bench)");
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    pid_ = spawn({exe, "--leave", leave}, "", "", -1, fds[1]);
    ::close(fds[1]);
    char c = 0;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') said_ += c;  // "held H bytes, F free", or EOF at its exit
    ::close(fds[0]);
    if (said_.rfind("held ", 0) != 0) {
      stop();
      throw std::runtime_error("parcomp-gpu-hold --leave " + leave + " did not hold the GPU");
    }
  }
  GpuHold(const GpuHold&) = delete;
  GpuHold& operator=(const GpuHold&) = delete;
  ~GpuHold() { stop(); }
  const std::string& said() const { return said_; }

 private:
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  pid_t pid_ = -1;
  std::string said_;
};

// tool.load (ours): `jobs` processes of one program at once, each on a different file (load_inputs):
// all compress, then all decompress, every output compared with its input. The row's time is the
// two batches' wall times; bytes_per_second all jobs' uncompressed bytes, both ways, over it.
// gpu_busy: beside parcomp-gpu-hold, which leaves the GPU 2 GiB free.
void load_run(benchmark::State& state, Program p, unsigned jobs, bool gpu_busy, std::string label, std::string source) {
  if (gpu_busy && !require_gpu(state)) return;
  const Input& in = input_for(label, source);
  if (!in.unavailable.empty()) return state.SkipWithError(("skipped: " + in.unavailable).c_str());
  const std::string exe = find_program(p.executable);
  if (exe.empty()) return state.SkipWithError(("skipped: " + p.executable + " not found").c_str());
  std::vector<fs::path> inputs;
  std::optional<GpuHold> hold;
  try {
    inputs = load_inputs(in, label, jobs);
    if (gpu_busy) hold.emplace("2G");
  } catch (const std::exception& e) {
    return state.SkipWithError(fmt::format("FAILED: {}", e.what()).c_str());
  }
  const fs::path dir = work_dir() / "load";
  auto packed = [&](unsigned k) { return fs::path(inputs[k].string() + "." + p.variant + p.suffix); };
  auto back = [&](unsigned k) { return fs::path(inputs[k].string() + "." + p.variant + ".back"); };
  auto stats = [&](unsigned k) { return dir / fmt::format("{}.{}.stats.json", p.variant, k); };
  // One batch: every job started at once, the wall time to the last exit.
  auto batch = [&](bool decompress, std::vector<Run>& runs) {
    std::vector<pid_t> pids;
    const auto t0 = std::chrono::steady_clock::now();
    for (unsigned k = 0; k < jobs; ++k) {
      const fs::path from = decompress ? packed(k) : inputs[k], to = decompress ? back(k) : packed(k);
      fs::remove(to);
      const auto argv = expand(p, exe, decompress ? p.decompress : p.compress, from, to, stats(k));
      pids.push_back(spawn(argv, p.to_stdout ? from.string() : "", p.to_stdout ? to.string() : ""));
    }
    runs.clear();
    for (const pid_t pid : pids) runs.push_back(wait_process(pid, t0));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double compress_s = 0, decompress_s = 0, rss = 0, device = 0;
  unsigned ok = 0;
  std::string first_error;
  for (auto _ : state) {
    std::vector<Run> zr, dr;
    compress_s = batch(false, zr);
    decompress_s = batch(true, dr);
    state.SetIterationTime(compress_s + decompress_s);
    ok = 0;
    for (unsigned k = 0; k < jobs; ++k) {
      const bool good = zr[k].status == 0 && dr[k].status == 0 && same_bytes(back(k), inputs[k]);
      ok += good ? 1 : 0;
      if (!good && first_error.empty())
        first_error = fmt::format("job {}: exit {} compressing, {} decompressing{}", k, zr[k].status, dr[k].status,
                                  zr[k].status == 0 && dr[k].status == 0 ? ", and its output differs" : "");
      rss = std::max({rss, zr[k].max_rss_kib * 1024.0, dr[k].max_rss_kib * 1024.0});
      if (p.parcomp && fs::exists(stats(k))) {
        std::ifstream f(stats(k));
        const auto j = nlohmann::json::parse(f, nullptr, false);
        if (!j.is_discarded()) device = std::max(device, j.value("peak_device_bytes", 0.0));
      }
      fs::remove(back(k));
    }
  }
  for (unsigned k = 0; k < jobs; ++k) fs::remove(packed(k));
  const std::uint64_t bytes = std::uint64_t{jobs} * fs::file_size(inputs.at(0));  // one batch's uncompressed bytes
  const double total = static_cast<double>(bytes);
  set_throughput_counters(state, 2 * bytes);  // both batches
  state.counters["jobs"] = jobs;
  state.counters["jobs_ok"] = ok;
  state.counters["compress_bytes_per_second"] = compress_s > 0 ? total / compress_s : 0.0;
  state.counters["decompress_bytes_per_second"] = decompress_s > 0 ? total / decompress_s : 0.0;
  state.counters["compress_s"] = compress_s;
  state.counters["decompress_s"] = decompress_s;
  state.counters["peak_host_rss_bytes"] = rss;
  state.counters["peak_device_bytes"] = device;
  if (ok != jobs) state.SkipWithError(fmt::format("FAILED: {} of {} jobs ok ({})", ok, jobs, first_error).c_str());
}

// copy.cat: cat in > out; copy.write: this process writes that many bytes to a file.
void copy_run(benchmark::State& state, bool cat, std::string label, std::string source) {
  const Input& in = input_for(label, source);
  if (!in.unavailable.empty()) return state.SkipWithError(("skipped: " + in.unavailable).c_str());
  const fs::path out = work_dir() / (label + ".copy");
  const std::string cat_exe = find_program("cat");
  std::vector<char> buf(std::size_t{16} << 20, 'x');
  for (auto _ : state) {
    fs::remove(out);
    double seconds = 0;
    if (cat) {
      const Run r = run_process({cat_exe}, in.path.string(), out.string());
      seconds = r.seconds;
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      for (std::uint64_t left = in.bytes; left > 0;) {
        const ssize_t w = ::write(fd, buf.data(), std::min<std::uint64_t>(left, buf.size()));
        if (w <= 0) break;
        left -= static_cast<std::uint64_t>(w);
      }
      ::close(fd);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    state.SetIterationTime(seconds);
  }
  fs::remove(out);
  set_throughput_counters(state, in.bytes);
}

const Program& program_named(const std::vector<Program>& programs, const std::string& variant) {
  for (const auto& p : programs)
    if (p.variant == variant) return p;
  throw std::logic_error("register_tool: no program " + variant);
}

}  // namespace

void register_tool() {
  const unsigned t = threads();
  const std::string ts = std::to_string(t);
  std::vector<Program> programs = {
      {"parcomp.fast", "parcomp", {"--format", "parcomp", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, {"-d", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, false, t, true, ".pcmp", "", {}},
      {"parcomp.fast.cpu", "parcomp", {"--format", "parcomp", "-q", "-f", "--cpu", "--stats", "{stats}", "-o", "{out}", "{in}"}, {"-d", "-q", "-f", "--cpu", "--stats", "{stats}", "-o", "{out}", "{in}"}, false, t, true, ".pcmp", "", {}},
      {"parcomp.paper", "parcomp", {"--format", "parcomp", "-q", "-f", "--config", "paper", "--stats", "{stats}", "-o", "{out}", "{in}"}, {"-d", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, false, t, true, ".pcmp", "", {}},
      // .bz2: bzip2's format and bytes (-9), and reading what lbzip2 wrote.
      {"parcomp.bz2", "parcomp", {"-9", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, {"-d", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, false, t, true, ".bz2", "", {}},
      {"parcomp.bz2.lbzip2-made", "parcomp", {}, {"-d", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, false, t, true, ".bz2", "lbzip2", {"-9", "-n", ts, "-c"}},
      {"lbzip2", "lbzip2", {"-9", "-n", ts, "-c"}, {"-d", "-n", ts, "-c"}, true, t, false, ".bz2", "", {}},
      {"bzip2", "bzip2", {"-9", "-c"}, {"-d", "-c"}, true, 1, false, ".bz2", "", {}},
      {"zstd.l3", "zstd", {"-3", "-T0", "-q", "-c"}, {"-d", "-q", "-c"}, true, t, false, ".zst", "", {}},
      {"zstd.l19", "zstd", {"-19", "-T0", "-q", "-c"}, {"-d", "-q", "-c"}, true, t, false, ".zst", "", {}},
      {"pigz", "pigz", {"-6", "-p", ts, "-c"}, {"-d", "-c"}, true, t, false, ".gz", "", {}},
  };
  if (find_program("pigz").empty()) programs.back() = {"gzip", "gzip", {"-6", "-c"}, {"-d", "-c"}, true, 1, false, ".gz", "", {}};
  // tool.e2e/<program>.decompress.null: the file read by name, the output to /dev/null.
  const std::vector<std::pair<std::string, std::vector<std::string>>> null_rows = {
      {"parcomp.bz2", {"-d", "-q", "-c", "--stats", "{stats}", "{in}"}},
      {"parcomp.bz2.lbzip2-made", {"-d", "-q", "-c", "--stats", "{stats}", "{in}"}},
      {"parcomp.fast", {"-d", "-q", "-c", "--stats", "{stats}", "{in}"}},
      {"lbzip2", {"-d", "-n", ts, "-c", "{in}"}},
      {"zstd.l3", {"-d", "-q", "-c", "{in}"}}};
  const std::vector<std::pair<std::string, std::string>> datasets = {
      {"calgary-book1", "calgary/book1"}, {"silesia-xml", "silesia/xml"}, {"silesia-dickens", "silesia/dickens"},
      {"linux-2.6.11.1.tar", "linux-2.6.11.1.tar"}, {kX25, "linux-2.6.11.1.tar"}};
  for (const auto& [label, source] : datasets) {
    const std::uint64_t n = dataset_bytes(label, source);
    if (n == 0) continue;  // not in this manifest
    const bool huge = label == kX25;
    for (const auto& p : programs) {
      if (huge && (p.variant == "bzip2" || p.variant == "zstd.l19" || p.variant == "gzip" || p.variant == "parcomp.paper")) continue;  // hours
      for (const bool d : {false, true}) {
        if (!d && !p.packer.empty()) continue;  // another program's file: decompression only
        const std::string name = fmt::format("tool.e2e/{}.{}/{}/n={}", p.variant, d ? "decompress" : "compress", label, n);
        auto* b = benchmark::RegisterBenchmark(name.c_str(), tool_run, p, d, label, source);
        b->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);  // repetitions: the command line's (default 5)
      }
    }
    for (const auto& [variant, args] : null_rows) {
      Program p = program_named(programs, variant);
      p.null_decompress = args;
      const std::string name = fmt::format("tool.e2e/{}.decompress.null/{}/n={}", variant, label, n);
      benchmark::RegisterBenchmark(name.c_str(), tool_run, p, true, label, source)
          ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
    for (const bool cat : {true, false}) {
      const std::string name = fmt::format("tool.e2e/{}/{}/n={}", cat ? "copy.cat" : "copy.write", label, n);
      benchmark::RegisterBenchmark(name.c_str(), copy_run, cat, label, source)
          ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
  // tool.e2e/<program>.<mode>.stdin: the same programs reading a pipe (cat in | program -c > out).
  const std::vector<Program> piped = {
      through_pipe(program_named(programs, "parcomp.bz2"), {"-9", "-q", "-c", "--stats", "{stats}"}, {"-d", "-q", "-c", "--stats", "{stats}"}),
      through_pipe(program_named(programs, "parcomp.bz2.lbzip2-made"), {}, {"-d", "-q", "-c", "--stats", "{stats}"}),
      through_pipe(program_named(programs, "parcomp.fast"), {"--format", "parcomp", "-q", "-c", "--stats", "{stats}"},
                   {"-d", "-q", "-c", "--stats", "{stats}"}),
      through_pipe(program_named(programs, "lbzip2"), {"-9", "-n", ts, "-c"}, {"-d", "-n", ts, "-c"})};
  // Silesia xml and dickens: small inputs past a pipe's first GPU threshold, where CUDA's start
  // and exit would cost more than the work.
  const std::vector<std::pair<std::string, std::string>> piped_datasets = {
      {"silesia-xml", "silesia/xml"}, {"silesia-dickens", "silesia/dickens"}, {"linux-2.6.11.1.tar", "linux-2.6.11.1.tar"}, {kX25, "linux-2.6.11.1.tar"}};
  for (const auto& [label, source] : piped_datasets) {
    const std::uint64_t n = dataset_bytes(label, source);
    if (n == 0) continue;
    for (const auto& p : piped)
      for (const bool d : {false, true}) {
        if (!d && !p.packer.empty()) continue;
        const std::string mode = d ? "decompress" : "compress";
        const std::string base = p.variant.substr(0, p.variant.size() - 6);  // less ".stdin"
        const std::string name = fmt::format("tool.e2e/{}.{}.stdin/{}/n={}", base, mode, label, n);
        benchmark::RegisterBenchmark(name.c_str(), tool_run, p, d, label, source)
            ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
      }
  }
  // tool.load/<program>/jobs=<N>/<dataset>: N processes at once; jobs=16.gpu-busy beside a GPU
  // that another process holds but 2 GiB of.
  for (const std::string variant : {"parcomp.bz2", "parcomp.fast", "lbzip2"}) {
    const Program p = program_named(programs, variant);
    const std::string label = "linux-2.6.11.1.tar";
    if (dataset_bytes(label, label) == 0) break;
    for (const auto& [jobs, busy] : {std::pair{1u, false}, {4u, false}, {16u, false}, {16u, true}}) {
      const std::string name = fmt::format("tool.load/{}/jobs={}{}/{}", variant, jobs, busy ? ".gpu-busy" : "", label);
      benchmark::RegisterBenchmark(name.c_str(), load_run, p, jobs, busy, label, label)
          ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    }
  }
  // bz2.compress / bz2.decompress: the .bz2 programs, wall time. Compression: parcomp -9 as it
  // chooses (the GPUs from 128 MiB of input, else the CPU workers), with --cpu (CPU workers alone)
  // and with --gpu (the GPUs sort and write the blocks), lbzip2 -9, bzip2 -9, pbzip2 -9.
  // Decompression of the files bzip2 -9 and lbzip2 -9 wrote: parcomp -d as it chooses (the GPUs
  // from 64 MiB of .bz2), with --cpu and with --gpu, lbzip2 -d, bzip2 -d, pbzip2 -d.
  const std::vector<std::string> parcomp_d = {"-d", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"};
  const std::vector<std::string> parcomp_cpu_d = {"-d", "--cpu", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"};
  const std::vector<std::string> parcomp_gpu_d = {"-d", "--gpu", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"};
  const std::vector<Program> bz2_compressors = {
      {"bz2c.parcomp", "parcomp", {"-9", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, parcomp_d, false, t, true, ".bz2", "", {}},
      {"bz2c.parcomp.cpu", "parcomp", {"-9", "--cpu", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, parcomp_d, false, t, true, ".bz2", "", {}},
      {"bz2c.parcomp.gpu", "parcomp", {"-9", "--gpu", "-q", "-f", "--stats", "{stats}", "-o", "{out}", "{in}"}, parcomp_d, false, t, true, ".bz2", "", {}, true},
      {"bz2c.lbzip2", "lbzip2", {"-9", "-n", ts, "-c"}, {"-d", "-n", ts, "-c"}, true, t, false, ".bz2", "", {}},
      {"bz2c.bzip2", "bzip2", {"-9", "-c"}, {"-d", "-c"}, true, 1, false, ".bz2", "", {}},
      {"bz2c.pbzip2", "pbzip2", {"-9", "-p" + ts, "-c"}, {"-d", "-p" + ts, "-c"}, true, t, false, ".bz2", "", {}}};
  std::vector<Program> bz2_decompressors;
  for (const auto& [maker, maker_args] : {std::pair<std::string, std::vector<std::string>>{"bzip2", {"-9", "-c"}},
                                          {"lbzip2", {"-9", "-n", ts, "-c"}}}) {
    bz2_decompressors.push_back({"bz2d.parcomp." + maker + "-made", "parcomp", {}, parcomp_d, false, t, true, ".bz2", maker, maker_args});
    bz2_decompressors.push_back({"bz2d.parcomp.cpu." + maker + "-made", "parcomp", {}, parcomp_cpu_d, false, t, true, ".bz2", maker, maker_args});
    bz2_decompressors.push_back({"bz2d.parcomp.gpu." + maker + "-made", "parcomp", {}, parcomp_gpu_d, false, t, true, ".bz2", maker, maker_args, true});
    bz2_decompressors.push_back({"bz2d.lbzip2." + maker + "-made", "lbzip2", {}, {"-d", "-n", ts, "-c"}, true, t, false, ".bz2", maker, maker_args});
    bz2_decompressors.push_back({"bz2d.bzip2." + maker + "-made", "bzip2", {}, {"-d", "-c"}, true, 1, false, ".bz2", maker, maker_args});
    bz2_decompressors.push_back({"bz2d.pbzip2." + maker + "-made", "pbzip2", {}, {"-d", "-p" + ts, "-c"}, true, t, false, ".bz2", maker, maker_args});
  }
  std::vector<std::pair<std::string, std::string>> bz2_datasets = {{"linux-2.6.11.1.tar", "linux-2.6.11.1.tar"}, {kX25, "linux-2.6.11.1.tar"}};
  for (const ByteInputSpec& spec : landscape_byte_inputs())
    if (spec.source.starts_with("silesia/")) bz2_datasets.emplace_back(spec.label, spec.source);
  for (const auto& [label, source] : bz2_datasets) {
    const std::uint64_t n = dataset_bytes(label, source);
    if (n == 0) continue;  // not in this manifest
    const bool huge = label == kX25;
    auto add = [&](const std::string& experiment, const Program& p, bool d) {
      const std::string program = p.variant.substr(5);  // after "bz2c." / "bz2d."
      // bzip2 is single-threaded: most of an hour on 5.2 GB, to run it or to make its file.
      if (huge && (program.starts_with("bzip2") || p.packer == "bzip2")) return;
      const std::string name = fmt::format("{}/{}/{}/n={}", experiment, program, label, n);
      benchmark::RegisterBenchmark(name.c_str(), tool_run, p, d, label, source)->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
    };
    for (const auto& p : bz2_compressors) add("bz2.compress", p, false);
    for (const auto& p : bz2_decompressors) add("bz2.decompress", p, true);
  }
  // codecs.landscape: the CPU programs on every host thread, wall time, beside the GPU codecs
  // (bench/codecs.cpp) on the landscape's datasets.
  auto program = [&](const std::string& variant) { return program_named(programs, variant); };
  const std::string gz = programs.back().variant;  // pigz, or gzip where pigz is missing
  const std::vector<std::pair<std::string, Program>> landscape = {
      {"bzip2.l9", program("bzip2")}, {"lbzip2.l9", program("lbzip2")}, {"zstd.l3", program("zstd.l3")}, {"zstd.l19", program("zstd.l19")},
      {"xz.l6", {"xz.l6", "xz", {"-6", "-T0", "-q", "-c"}, {"-d", "-q", "-c"}, true, t, false, ".xz", "", {}}},
      {gz + ".l6", program(gz)}};
  for (const auto& [spec, n] : landscape_inputs_sized()) {
    for (const auto& [name_in_landscape, p] : landscape)
      for (const bool d : {false, true}) {
        const std::string name = fmt::format("codecs.landscape/{}.{}/{}/n={}", name_in_landscape, d ? "decompress" : "compress", spec.label, n);
        benchmark::RegisterBenchmark(name.c_str(), tool_run, p, d, spec.label, spec.source)
            ->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
      }
  }
}

}  // namespace parcomp::bench
