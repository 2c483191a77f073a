// Processes that share a GPU (ours): before its lanes start, a job takes one of the device's
// slots, an advisory lock (flock) on a file named after the device's PCI bus id; a job that finds
// every slot taken keeps its blocks on CPU workers or waits, and tries again. The kernel drops a
// lock with its process, so a killed job never holds a GPU. Without the lock, jobs that start
// together each size their batches from the same free memory and most fail their allocations
// (docs/field.md has the measurements behind the default).
#pragma once

#include <optional>
#include <string>

namespace parcomp::gpu_share {

struct Policy {
  unsigned slots = 2;              // jobs per GPU at once; 0: no lock (every job sizes from free memory)
  bool cpu_while_waiting = false;  // a job that was to run on the GPUs alone works on CPU workers while it waits
};
// The default, or PARCOMP_GPU_SLOTS (a count, 0 for none) and PARCOMP_GPU_WAIT ("queue" or "cpu").
Policy policy();

// The lock files' folder: PARCOMP_LOCK_DIR, else /dev/shm where it is a folder, else /tmp.
std::string lock_dir();

class Slot {
 public:
  // One of `slots` slots of `device` (the current CUDA device's numbering), or nothing when all are
  // taken. A lock file that cannot be opened gives a slot without a lock (`why` says so).
  static std::optional<Slot> try_take(int device, unsigned slots, std::string* why = nullptr);
  Slot(Slot&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Slot& operator=(Slot&& o) noexcept;
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot();

 private:
  explicit Slot(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace parcomp::gpu_share
