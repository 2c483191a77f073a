#include "file_sink.hpp"

#include "core/parallel.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace parcomp::engine {

namespace {

// Whether this kernel has MADV_POPULATE_WRITE: one anonymous page asked for.
bool populate_supported() {
  const long page = ::sysconf(_SC_PAGESIZE);
  void* p = ::mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = ::madvise(p, static_cast<std::size_t>(page), MADV_POPULATE_WRITE) == 0;
  ::munmap(p, static_cast<std::size_t>(page));
  return ok;
}

}  // namespace

FileSink::FileSink(int fd, std::string name, Mode mode, unsigned threads)
    : fd_(fd), name_(std::move(name)), threads_(threads != 0 ? threads : std::clamp(std::thread::hardware_concurrency(), 1u, 8u)) {
  if (mode == Mode::write) return;
  struct stat st {};
  const int flags = ::fcntl(fd_, F_GETFL);
  map_ok_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0 && flags >= 0 && (flags & O_ACCMODE) == O_RDWR &&
            (flags & O_APPEND) == 0 && ::lseek(fd_, 0, SEEK_CUR) == 0 && populate_supported();
  map_from_ = mode == Mode::map ? 0 : kMapFromBytes;  // where mapping may start (see write())
  if (mode == Mode::automatic && map_ok_) {
    struct statfs sf {};
    const long type = test_fs_type != 0 ? test_fs_type : (::fstatfs(fd_, &sf) == 0 ? static_cast<long>(sf.f_type) : 0);
    map_ok_ = automatic_maps_on(type);
  }
}

bool FileSink::automatic_maps_on(long fs_type) { return fs_type == TMPFS_MAGIC; }

FileSink::~FileSink() {
  stop_filler();
  for (auto& [k, p] : windows_) ::munmap(p, kWindowBytes);
  for (auto* p : retired_) ::munmap(p, kWindowBytes);
}

void FileSink::fail(int err, const std::string& what) const {
  throw std::system_error(err, std::generic_category(), "write failed: " + name_ + (what.empty() ? "" : ": " + what));
}

void FileSink::write_calls(const std::uint8_t* buf, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, buf, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail(errno, errno == EPIPE ? "the reader closed the pipe" : "");
    }
    buf += w;
    n -= static_cast<std::size_t>(w);
    pos_ += static_cast<std::uint64_t>(w);
  }
}

void FileSink::write(const std::uint8_t* buf, std::size_t n) {
  if (finished_) fail(EBADF, "the output was already finished");
  if (!mapping_) {
    // write() up to the first window: map_from_, or the next window's start past it.
    const std::uint64_t start = std::max<std::uint64_t>(map_from_, (pos_ + kWindowBytes - 1) / kWindowBytes * kWindowBytes);
    if (!map_ok_ || pos_ + n <= start) {
      write_calls(buf, n);
      return;
    }
    const std::size_t head = static_cast<std::size_t>(start - pos_);
    write_calls(buf, head);
    buf += head;
    n -= head;
    map_from_ = start;
    mapping_ = true;
    filler_ = std::thread([this] { fill(); });
  }
  while (n > 0) {
    const std::uint64_t rel = pos_ - map_from_;
    const std::uint64_t k = rel / kWindowBytes;
    const std::size_t off = static_cast<std::size_t>(rel % kWindowBytes);
    std::uint8_t* const w = window(k);
    if (w == nullptr) {  // the file system would not map it: write() calls from here on
      write_calls(buf, n);
      return;
    }
    std::uint8_t* p = w + off;
    const std::size_t m = std::min(n, kWindowBytes - off);
    copy_bytes(p, buf, m, std::min(threads_, 4u));
    pos_ += m;
    buf += m;
    n -= m;
    if (off + m == kWindowBytes) {  // full: the filler unmaps it
      const std::lock_guard lock(m_);
      retired_.push_back(windows_.at(k));
      windows_.erase(k);
      cv_.notify_all();
    }
  }
}

std::uint8_t* FileSink::window(std::uint64_t k) {
  std::unique_lock lock(m_);
  if (want_to_ < k + 1 + kWindowsAhead) {
    want_to_ = k + 1 + kWindowsAhead;
    cv_.notify_all();
  }
  cv_.wait(lock, [&] { return error_ != 0 || mapped_to_ > k; });
  if (error_ != 0 && mapped_to_ == 0 && error_ != ENOSPC && error_ != ENOMEM && error_ != EFBIG && error_ != EDQUOT) {
    // The first window could not be mapped, not for want of room: nothing went through a window,
    // and write() continues at pos_ (the file offset). The file was lengthened: cut at finish().
    lock.unlock();
    stop_filler();
    mapping_ = false;
    map_ok_ = false;
    extended_ = true;
    error_ = 0;
    return nullptr;
  }
  if (error_ != 0) fail(error_, error_what_);
  return windows_.at(k);
}

void FileSink::fill() {
  std::unique_lock lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !retired_.empty() || mapped_to_ < want_to_; });
    if (stop_) return;
    std::deque<std::uint8_t*> done;
    done.swap(retired_);
    const bool more = mapped_to_ < want_to_;
    const std::uint64_t k = mapped_to_;
    lock.unlock();
    for (auto* p : done) ::munmap(p, kWindowBytes);
    int err = 0;
    std::string what;
    std::uint8_t* p = nullptr;
    if (more) {
      const auto off = static_cast<off_t>(map_from_ + k * kWindowBytes);
      if (::ftruncate(fd_, off + static_cast<off_t>(kWindowBytes)) != 0) {
        err = errno;
      } else {
        void* v = k == 0 && test_first_map_errno != 0 ? MAP_FAILED : ::mmap(nullptr, kWindowBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, off);
        if (v == MAP_FAILED && k == 0 && test_first_map_errno != 0) errno = test_first_map_errno;
        if (v == MAP_FAILED) {
          err = errno;
          what = "cannot map the output";
        } else {
          p = static_cast<std::uint8_t*>(v);
          std::vector<int> errs(kWindowBytes / kPopulatePiece, 0);
          for_each_block(errs.size(), threads_, [&](std::size_t b) {
            if (stopping_.load(std::memory_order_relaxed)) return;  // the output ended: no byte comes here
            if (::madvise(p + b * kPopulatePiece, kPopulatePiece, MADV_POPULATE_WRITE) != 0) errs[b] = errno;
          });
          if (stopping_.load()) {
            ::munmap(p, kWindowBytes);
            return;
          }
          for (const int e : errs) {
            if (e == 0) continue;
            err = e == EFAULT ? ENOSPC : e;  // EFAULT: a fault would have raised SIGBUS (no room)
            what = e == EFAULT ? "the file system could not take the output's pages (is it full?)" : "";
            break;
          }
          if (err != 0) {
            ::munmap(p, kWindowBytes);
            p = nullptr;
          }
        }
      }
    }
    lock.lock();
    if (err != 0) {
      error_ = err;
      error_what_ = what;
      cv_.notify_all();
      return;
    }
    if (p != nullptr) {
      windows_[k] = p;
      mapped_to_ = k + 1;
      cv_.notify_all();
    }
  }
}

void FileSink::stop_filler() {
  if (!filler_.joinable()) return;
  {
    const std::lock_guard lock(m_);
    stop_ = true;
    stopping_ = true;
    cv_.notify_all();
  }
  filler_.join();
}

void FileSink::finish() {
  if (finished_) return;
  finished_ = true;
  stop_filler();
  for (auto& [k, p] : windows_) ::munmap(p, kWindowBytes);
  for (auto* p : retired_) ::munmap(p, kWindowBytes);
  windows_.clear();
  retired_.clear();
  if (error_ != 0) fail(error_, error_what_);
  // The windows populated past the end are cut off: the file's size is what was written.
  if ((mapping_ || extended_) && ::ftruncate(fd_, static_cast<off_t>(pos_)) != 0) fail(errno, "");
}

}  // namespace parcomp::engine
