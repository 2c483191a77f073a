// The program's output (codec/file_sink.hpp): through mapped windows or write() calls, the file
// holds exactly the bytes written, in order, whatever the sizes of the writes and wherever they
// cross a window; files it cannot map (write-only, pipes) take write() calls; a file that cannot
// grow is an error thrown by write() or finish(), never a crash.
#include "codec/file_sink.hpp"

#include "common/seeds.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <system_error>
#include <vector>

namespace {
using parcomp::engine::FileSink;
namespace fs = std::filesystem;
constexpr std::size_t kW = FileSink::kWindowBytes;

fs::path temp_file(const char* tag) {
  const char* dir = std::getenv("TMPDIR");
  fs::path p = fs::path(dir != nullptr ? dir : "/tmp") / (std::string("parcomp-file-sink-") + tag + "-" + std::to_string(::getpid()));
  fs::remove(p);
  return p;
}

std::vector<std::uint8_t> slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// The sizes of a run of writes adding up to `total`: tiny, odd, window-sized and larger, so that
// writes start and end inside windows, exactly on their edges, and span several.
std::vector<std::size_t> write_sizes(std::size_t total, std::mt19937_64& rng) {
  const std::size_t picks[] = {1, 7, 4095, 4096, 65537, kW - 1, kW, kW + 1, 2 * kW + 4097, 3 * (std::size_t{4} << 20) + 5};
  std::vector<std::size_t> sizes;
  std::size_t at = 0;
  while (at < total) {
    std::size_t n = picks[rng() % std::size(picks)];
    if (rng() % 3 == 0) n = rng() % (3 * kW);
    n = std::min(n, total - at);
    sizes.push_back(n);
    at += n;
  }
  return sizes;
}

void write_and_check(FileSink::Mode mode, std::size_t total, bool expect_map, const char* tag) {
  const std::uint64_t seed = parcomp::testing::fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> data(total);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  const fs::path path = temp_file(tag);
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  {
    FileSink sink(fd, path.string(), mode);
    std::size_t at = 0;
    for (const std::size_t n : write_sizes(total, rng)) {
      sink.write(data.data() + at, n);
      at += n;
    }
    EXPECT_EQ(sink.written(), total);
    sink.finish();
    EXPECT_EQ(sink.mapped(), expect_map) << tag;
  }
  ::close(fd);
  EXPECT_EQ(fs::file_size(path), total) << "seed " << seed;
  EXPECT_TRUE(slurp(path) == data) << "the file differs from the bytes written; seed " << seed;
  fs::remove(path);
}

TEST(FileSink, MappedWindowsHoldTheBytesWritten) {
  for (const std::size_t total : {std::size_t{0}, std::size_t{1}, kW - 1, kW, 3 * kW + 12345, 7 * kW + 1}) {
    SCOPED_TRACE(total);
    write_and_check(FileSink::Mode::map, total, total > 0, "map");
  }
}

// Sets FileSink::test_fs_type for one scope.
struct FsType {
  explicit FsType(long type) { FileSink::test_fs_type = type; }
  ~FsType() { FileSink::test_fs_type = 0; }
};

TEST(FileSink, AutomaticWritesTheStartThenMapsOnTmpfs) {
  const FsType tmpfs(TMPFS_MAGIC);
  write_and_check(FileSink::Mode::automatic, FileSink::kMapFromBytes + 2 * kW + 999, true, "auto");
  write_and_check(FileSink::Mode::automatic, 3 * kW + 3, false, "auto-small");  // below kMapFromBytes: write() only
}

// On a disk file system mapped windows were 2.7 times slower than write() calls (file_sink.hpp):
// Mode::automatic takes write() calls there, Mode::map still maps.
TEST(FileSink, AutomaticTakesWriteCallsOnADiskFileSystem) {
  EXPECT_TRUE(FileSink::automatic_maps_on(TMPFS_MAGIC));
  for (const long type : {long{EXT4_SUPER_MAGIC}, long{XFS_SUPER_MAGIC}, long{BTRFS_SUPER_MAGIC}, long{NFS_SUPER_MAGIC}})
    EXPECT_FALSE(FileSink::automatic_maps_on(type)) << type;
  const FsType disk(EXT4_SUPER_MAGIC);  // the one decision above, taken by the sink for a file
  write_and_check(FileSink::Mode::automatic, FileSink::kMapFromBytes + 2 * kW + 999, false, "auto-disk");
  write_and_check(FileSink::Mode::map, 2 * kW + 5, true, "map-disk");
}

// Without the test hook the decision comes from the output file's own file system.
TEST(FileSink, AutomaticAsksTheFilesOwnFileSystem) {
  const fs::path dir = temp_file("probe").parent_path();
  struct statfs sf {};
  ASSERT_EQ(::statfs(dir.c_str(), &sf), 0);
  const bool tmpfs = static_cast<long>(sf.f_type) == TMPFS_MAGIC;
  write_and_check(FileSink::Mode::automatic, FileSink::kMapFromBytes + kW + 3, tmpfs, tmpfs ? "auto-own-tmpfs" : "auto-own-disk");
}

// A file system that refuses the first window's mapping (no shared writable mappings: some FUSE
// and network file systems) for another reason than room: write() calls take over, the file is
// cut to what was written, and nothing is lost.
TEST(FileSink, AFileSystemThatWillNotMapTakesWriteCalls) {
  for (const int err : {ENODEV, EACCES, EINVAL}) {
    SCOPED_TRACE(err);
    FileSink::test_first_map_errno = err;
    write_and_check(FileSink::Mode::map, 3 * kW + 5, false, "nomap");
    write_and_check(FileSink::Mode::map, 12345, false, "nomap-short");  // ends inside the window the file was lengthened to
    const FsType tmpfs(TMPFS_MAGIC);
    write_and_check(FileSink::Mode::automatic, FileSink::kMapFromBytes + kW + 5, false, "nomap-auto");
  }
  FileSink::test_first_map_errno = 0;
}

TEST(FileSink, WriteCallsHoldTheBytesWritten) { write_and_check(FileSink::Mode::write, 3 * kW + 77, false, "write"); }

TEST(FileSink, AWriteOnlyFileOrAPipeTakesWriteCalls) {
  const fs::path path = temp_file("wronly");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  {
    FileSink sink(fd, path.string(), FileSink::Mode::map);
    EXPECT_FALSE(sink.mapped());
    const std::vector<std::uint8_t> bytes(kW + 5, 0x5a);
    sink.write(bytes.data(), bytes.size());
    sink.finish();
  }
  ::close(fd);
  EXPECT_EQ(fs::file_size(path), kW + 5);
  fs::remove(path);

  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  {
    FileSink sink(p[1], "(pipe)", FileSink::Mode::map);
    EXPECT_FALSE(sink.mapped());
    const std::uint8_t b[3] = {1, 2, 3};
    sink.write(b, 3);
    sink.finish();
  }
  std::uint8_t got[3] = {};
  EXPECT_EQ(::read(p[0], got, 3), 3);
  EXPECT_EQ(got[2], 3);
  ::close(p[0]);
  ::close(p[1]);
}

TEST(FileSink, WritesAfterFinishAreRefused) {
  const fs::path path = temp_file("finished");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  {
    FileSink sink(fd, path.string(), FileSink::Mode::map);
    const std::uint8_t b = 9;
    sink.write(&b, 1);
    sink.finish();
    sink.finish();  // twice: nothing more
    EXPECT_THROW(sink.write(&b, 1), std::system_error);
  }
  ::close(fd);
  EXPECT_EQ(fs::file_size(path), 1u);
  fs::remove(path);
}

// A file that may not grow past a limit (RLIMIT_FSIZE, as a full disk would refuse it): the error
// is thrown, by the write that needs the room or by finish(), and nothing crashes.
TEST(FileSink, AFileThatCannotGrowIsAnError) {
  for (const auto mode : {FileSink::Mode::map, FileSink::Mode::write}) {
    const fs::path path = temp_file("limit");
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    struct rlimit old {};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = old;
    lim.rlim_cur = 2 * kW + 100;
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) GTEST_SKIP() << "cannot set RLIMIT_FSIZE here";
    bool thrown = false;
    try {
      FileSink sink(fd, path.string(), mode);
      const std::vector<std::uint8_t> bytes(kW / 2, 0x33);
      for (int k = 0; k < 12; ++k) sink.write(bytes.data(), bytes.size());
      sink.finish();
    } catch (const std::system_error& e) {
      thrown = true;
      EXPECT_NE(std::string(e.what()).find("write failed: " + path.string()), std::string::npos) << e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    ::close(fd);
    EXPECT_TRUE(thrown) << "6 windows written into a file limited to 2";
    fs::remove(path);
  }
}

}  // namespace
