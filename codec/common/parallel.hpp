// Independent blocks of an input processed on several CPU threads: the one worker pool of the host
// code (oracles, the CPU codec, checksums of many blocks).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace parcomp {

// Calls body(b) for b in [0, blocks) on up to `threads` threads (0 = all hardware threads);
// each thread gets its blocks one at a time. The first exception thrown by a body is rethrown.
template <typename Body>
void for_each_block(std::size_t blocks, unsigned threads, Body&& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    try {
      for (std::size_t b = next++; b < blocks; b = next++) body(b);
    } catch (...) {
      const std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = blocks;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t + 1 < std::min<std::size_t>(threads, blocks); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace parcomp
