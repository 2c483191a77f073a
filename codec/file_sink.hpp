// The program's output: a file descriptor as an engine::Sink.
//
// write() into one file is serial in the kernel (the inode's lock), so a tool's output stream tops
// out at what one thread can allocate and copy into the page cache, the bound of decompressing
// large inputs (docs/defaults.md). A regular file opened for
// reading and writing is therefore written, past its first kMapFromBytes, through mapped windows:
// helper threads fault each window's pages in ahead of the writer (madvise MADV_POPULATE_WRITE,
// pieces on several threads: page faults of one file run in parallel), and the writer only
// copies into pages that are there. Mode::automatic maps only on tmpfs: on a disk file system
// (ext4) a shared writable mapping costs a block allocation and journal work per faulted page and
// the windows' writeback on unmap. MADV_POPULATE_WRITE reports what would otherwise be a SIGBUS
// (a full file system) as an error, which write() throws as a std::system_error. Pipes, terminals,
// files opened write-only, kernels without MADV_POPULATE_WRITE (before Linux 5.14), file systems
// that refuse the first window's mapping for another reason than room (shared writable mappings
// are not everywhere) and Mode::write take write() calls.
#pragma once

#include "engine.hpp"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace parcomp::engine {

class FileSink : public Sink {
 public:
  enum class Mode { automatic, write, map };
  // For tests: the errno the first window's mapping fails with (0: none), as a file system that
  // refuses shared writable mappings would.
  static inline int test_first_map_errno = 0;
  // For tests: the file system type (statfs's f_type) Mode::automatic decides by (0: the file's).
  static inline long test_fs_type = 0;
  // Whether Mode::automatic maps a file on a file system of this statfs f_type: tmpfs only.
  static bool automatic_maps_on(long fs_type);
  static constexpr std::size_t kWindowBytes = std::size_t{16} << 20;
  static constexpr std::size_t kWindowsAhead = 4;           // populated ahead of the writer
  static constexpr std::size_t kMapFromBytes = std::size_t{64} << 20;  // written with write() first
  // Pieces of a window's population: several threads take them in turn, and each piece checks
  // whether the output ended, so that finish() does not wait for a window no byte will reach
  // (tmpfs allocates one file's pages one at a time however many threads fault them: a 16 MiB
  // window took 3-7 ms that finish() waited for, on a 2-core host).
  static constexpr std::size_t kPopulatePiece = std::size_t{256} << 10;

  // `fd` stays the caller's (not closed here). Mode::map maps from the first byte (tests) where
  // the file allows it, Mode::automatic from kMapFromBytes on, on tmpfs only.
  FileSink(int fd, std::string name, Mode mode = Mode::automatic, unsigned threads = 0);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  void write(const std::uint8_t* buf, std::size_t n) override;
  // Ends the output: unmaps every window and gives the file its size (what was written). Call it
  // before closing the file; writes after it are refused.
  void finish();
  // Whether bytes went through mapped windows (false: write() calls only).
  bool mapped() const { return mapping_; }
  std::uint64_t written() const { return pos_; }

 private:
  void write_calls(const std::uint8_t* buf, std::size_t n);
  std::uint8_t* window(std::uint64_t k);  // waits until window k is populated; nullptr: take write() calls instead
  void fill();                            // the filler thread
  [[noreturn]] void fail(int err, const std::string& what) const;
  void stop_filler();

  int fd_;
  std::string name_;
  unsigned threads_;
  bool map_ok_ = false;   // a regular file, readable and writable, at offset 0 and empty
  bool mapping_ = false;  // windows in use from map_from_ on
  bool finished_ = false;
  bool extended_ = false;       // the file was made longer than what was written (cut at finish)
  std::uint64_t map_from_ = 0;  // the first mapped byte (a multiple of kWindowBytes)
  std::uint64_t pos_ = 0;       // bytes written

  std::mutex m_;
  std::condition_variable cv_;
  std::thread filler_;
  bool stop_ = false;
  std::atomic<bool> stopping_{false};  // stop_, read by the population's pieces without the lock
  int error_ = 0;
  std::string error_what_;
  std::uint64_t want_to_ = 0;    // windows [0, want_to_) wanted populated (counted from map_from_)
  std::uint64_t mapped_to_ = 0;  // windows [0, mapped_to_) mapped and populated
  std::map<std::uint64_t, std::uint8_t*> windows_;
  std::deque<std::uint8_t*> retired_;  // written windows, for the filler to unmap
};

}  // namespace parcomp::engine
