// Independent blocks of an input processed on several CPU threads: the one worker pool of the host
// code (oracles, the CPU codec, checksums of many blocks, bzip2's block cut, the .bz2 GPU paths'
// host stages).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <thread>

namespace parcomp {

// Names the calling thread (at most 15 characters are kept) for top -H, /proc/PID/task/*/comm,
// debuggers and profilers: the library names the threads it starts, never its caller's.
void name_this_thread(const char* name);

namespace detail {
// Runs body(b) for b in [0, blocks) on the calling thread and up to `helpers` threads of a pool
// kept for the process (hardware threads - 1 of them, started at the first call): threads were
// started afresh at every call before, 20-50 us each, which a call of a few ms (the cut of a 32 MiB
// read on 16 threads) paid 15 times. The caller works too, so a call made from inside a body (or
// while every pool thread is busy) still ends: it waits only for the helpers that joined it.
void run_parallel(std::size_t blocks, unsigned helpers, const std::function<void(std::size_t)>& body);
}  // namespace detail

// Calls body(b) for b in [0, blocks) on up to `threads` threads (0 = all hardware threads);
// each thread gets its blocks one at a time. The first exception thrown by a body is rethrown.
template <typename Body>
void for_each_block(std::size_t blocks, unsigned threads, Body&& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t use = std::min<std::size_t>(threads, blocks);
  if (use <= 1) {
    for (std::size_t b = 0; b < blocks; ++b) body(b);
    return;
  }
  detail::run_parallel(blocks, static_cast<unsigned>(use - 1), std::function<void(std::size_t)>(std::ref(body)));
}

// n bytes from src to dst (not overlapping) in pieces of 4 MiB on up to `threads` threads (0 = all
// hardware threads): one thread's copy runs at a fraction of the host's memory bandwidth.
inline void copy_bytes(void* dst, const void* src, std::size_t n, unsigned threads) {
  constexpr std::size_t kPiece = std::size_t{4} << 20;
  auto* const to = static_cast<unsigned char*>(dst);
  const auto* const from = static_cast<const unsigned char*>(src);
  for_each_block((n + kPiece - 1) / kPiece, threads, [&](std::size_t k) {
    const std::size_t at = k * kPiece;
    std::memcpy(to + at, from + at, std::min(kPiece, n - at));
  });
}

}  // namespace parcomp
