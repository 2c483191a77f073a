// The public file-descriptor source and sink (include/parcomp/parcomp.hpp): in the codec, where the
// program and the library both take them.
#include "parcomp/parcomp.hpp"
#include "core/parallel.hpp"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace parcomp {

FdSource::FdSource(int fd, std::string name) : fd_(fd), name_(std::move(name)) {
  struct stat st {};
  const bool known = ::fstat(fd_, &st) == 0;
  regular_ = known && S_ISREG(st.st_mode);
  // A pipe of 1 MiB rather than 64 KiB: the writer on the other side and this reader switch 16
  // times less often (the most an unprivileged process may ask; a refusal leaves it as it is).
  if (known && S_ISFIFO(st.st_mode)) (void)::fcntl(fd_, F_SETPIPE_SZ, 1 << 20);
}

void FdSource::fail(const char* what, int error) const {
  throw IoError(std::string(what) + " failed: " + (name_.empty() ? std::string() : name_ + ": ") + std::strerror(error));
}

std::size_t FdSource::read(std::uint8_t* buf, std::size_t max) {
  for (;;) {
    const ssize_t r = ::read(fd_, buf, max);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno != EINTR) fail("read", errno);
  }
}

// A regular file: pieces of at least 1 MiB read with pread() on several threads from where the
// file stands, then the file's offset moved past what they got (into fresh memory a read is mostly
// page faults, which the threads take in parallel).
std::size_t FdSource::read_full(std::uint8_t* buf, std::size_t n, unsigned threads) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  const off_t at = regular_ && threads > 1 && n >= 2 * kPiece ? ::lseek(fd_, 0, SEEK_CUR) : -1;
  if (at < 0) return Source::read_full(buf, n, threads);
  const std::size_t pieces = std::min<std::size_t>(threads, n / kPiece), size = (n + pieces - 1) / pieces;
  std::vector<std::size_t> got(pieces, 0);
  std::vector<int> error(pieces, 0);
  for_each_block(pieces, static_cast<unsigned>(pieces), [&](std::size_t k) {
    const std::size_t from = k * size, len = std::min(size, n - from);
    while (got[k] < len) {
      const ssize_t r = ::pread(fd_, buf + from + got[k], len - got[k], at + static_cast<off_t>(from + got[k]));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) error[k] = errno;
      if (r <= 0) break;
      got[k] += static_cast<std::size_t>(r);
    }
  });
  std::size_t total = 0;  // what is there from the start on: pieces after a short one are past the end
  for (std::size_t k = 0; k < pieces; ++k) {
    if (error[k] != 0) fail("read", error[k]);
    total += got[k];
    if (got[k] < std::min(size, n - k * size)) break;
  }
  if (::lseek(fd_, at + static_cast<off_t>(total), SEEK_SET) < 0) fail("seek", errno);
  return total;
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

}  // namespace parcomp
