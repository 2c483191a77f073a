#include "bz2_ties.hpp"

#include "bz2.hpp"
#include "core/parallel.hpp"

#include <bzlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace parcomp::bz2 {

std::size_t rotation_period(std::span<const std::uint8_t> t) {
  const std::size_t n = t.size();
  // The periods dividing n are closed under gcd (rotations by p and q compose to one by gcd(p, q)),
  // so the smallest is n divided by every prime factor for as long as the quotient is a period.
  const auto is_period = [&](std::size_t p) { return p < n && std::memcmp(t.data(), t.data() + p, n - p) == 0; };
  std::size_t period = n, rest = n;
  for (std::size_t q = 2; rest > 1; ++q) {
    if (q * q > rest) q = rest;  // what is left is prime
    if (rest % q != 0) continue;
    while (rest % q == 0) rest /= q;
    while (period % q == 0 && is_period(period / q)) period /= q;
  }
  return period;
}

namespace {

// libbz2 on the block's input alone: the stream's first 18 bytes are its header (4), the block
// magic (6), the block CRC (4), then the randomised bit and the 24-bit origPtr. One block: the
// input is what bzip2's program put in one block, and level 9's blocks are the largest.
std::uint32_t ask_libbz2(std::span<const std::uint8_t> input) {
  bz_stream s{};
  if (BZ2_bzCompressInit(&s, 9, 0, 30) != BZ_OK) throw std::bad_alloc();
  std::array<char, 4096> out;
  s.next_in = const_cast<char*>(reinterpret_cast<const char*>(input.data()));
  s.next_out = out.data();
  s.avail_out = static_cast<unsigned>(out.size());
  std::size_t left = input.size();
  int rc = BZ_RUN_OK;
  while (s.total_out_lo32 < 18) {  // a block's input is at most 45.9 MB: one call
    const auto take = static_cast<unsigned>(std::min<std::size_t>(left, std::size_t{1} << 30));
    s.avail_in = take;
    rc = BZ2_bzCompress(&s, take == left ? BZ_FINISH : BZ_RUN);
    left -= take - s.avail_in;
    if ((rc != BZ_RUN_OK && rc != BZ_FINISH_OK) || s.avail_out == 0) break;
  }
  const bool ok = (rc == BZ_RUN_OK || rc == BZ_FINISH_OK || rc == BZ_STREAM_END) && s.total_out_lo32 >= 18;
  BZ2_bzCompressEnd(&s);
  if (!ok) throw std::logic_error("libbz2 gave no block for a block's input (" + std::to_string(rc) + ")");
  const auto byte = [&](int i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(out[static_cast<std::size_t>(i)])); };
  return ((byte(14) << 24 | byte(15) << 16 | byte(16) << 8 | byte(17)) >> 7) & 0xFFFFFFu;
}

struct Kept {
  std::mutex m;
  std::map<std::pair<std::string, std::size_t>, std::shared_future<std::uint32_t>> rows;  // (one period, length)
  pid_t pid = 0;  // the process they were asked in: a forked one drops those still being asked
};

std::uint32_t ask_here(std::span<const std::uint8_t> rle, std::span<const std::uint8_t> input) {
  if (!input.empty()) return ask_libbz2(input);
  std::vector<std::uint8_t> decoded;
  if (!rle1_decode(rle, decoded)) throw std::logic_error("bz2::bzip2_primary: a block's run-length bytes do not decode");
  return ask_libbz2(decoded);
}

// The thread of start_asking: one ask at a time, handed over only while it is free. Never
// destroyed (a detached thread may still wait on it at the process's exit). A process forked
// after it was started has no such thread (`pid` is the parent's): it asks on the asking thread
// until it starts its own.
struct Asker {
  std::mutex m;
  std::condition_variable cv;
  bool busy = false;
  std::function<void()> task;
  std::atomic<std::uint64_t> done{0};
  pid_t pid = 0;
};
std::atomic<Asker*> g_asker{nullptr};

Asker* this_process_asker() {
  Asker* a = g_asker.load(std::memory_order_acquire);
  return a != nullptr && a->pid == ::getpid() ? a : nullptr;
}

std::uint32_t ask_for(std::span<const std::uint8_t> rle, std::span<const std::uint8_t> input) {
  Asker* a = this_process_asker();
  if (a != nullptr) {
    auto job = std::make_shared<std::packaged_task<std::uint32_t()>>([rle, input] { return ask_here(rle, input); });
    std::future<std::uint32_t> row = job->get_future();
    bool handed = false;
    {
      const std::lock_guard lock(a->m);
      if (!a->busy) {
        a->busy = handed = true;
        a->task = [job] { (*job)(); };
      }
    }
    if (handed) {
      a->cv.notify_one();
      return row.get();  // the ask's error, if any, comes back here
    }
  }
  return ask_here(rle, input);
}

}  // namespace

void start_asking() {
  static std::mutex starting;  // taken only here, briefly
  const std::lock_guard lock(starting);
  if (this_process_asker() != nullptr) return;
  auto* a = new Asker;
  a->pid = ::getpid();
  std::thread([a] {
    name_this_thread("parcomp-ask");
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(a->m);
        a->cv.wait(lock, [a] { return static_cast<bool>(a->task); });
        task = std::move(a->task);
        a->task = nullptr;
      }
      a->done.fetch_add(1, std::memory_order_relaxed);  // before the row is there for the asker
      task();
      const std::lock_guard lock(a->m);
      a->busy = false;
    }
  }).detach();
  g_asker.store(a, std::memory_order_release);
}

std::uint64_t asks_aside() {
  const Asker* a = this_process_asker();
  return a != nullptr ? a->done.load(std::memory_order_relaxed) : 0;
}

std::optional<std::uint32_t> bzip2_primary_now(std::span<const std::uint8_t> rle, std::size_t period, std::span<const std::uint8_t> input,
                                               std::shared_future<std::uint32_t>& later) {
  constexpr std::size_t kKeptPeriod = 64, kKeptRows = 256;
  if (period > kKeptPeriod) return ask_for(rle, input);
  static Kept kept;
  std::pair<std::string, std::size_t> key{std::string(reinterpret_cast<const char*>(rle.data()), period), rle.size()};
  std::promise<std::uint32_t> mine;
  std::shared_future<std::uint32_t> theirs;
  bool full = false;
  {
    const std::lock_guard lock(kept.m);
    if (kept.pid != ::getpid()) {  // forked while its parent asked: those rows never come here
      for (auto it = kept.rows.begin(); it != kept.rows.end();)
        it = it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready ? std::next(it) : kept.rows.erase(it);
      kept.pid = ::getpid();
    }
    if (const auto it = kept.rows.find(key); it != kept.rows.end())
      theirs = it->second;
    else if (kept.rows.size() >= kKeptRows)
      full = true;
    else
      kept.rows.emplace(key, mine.get_future().share());
  }
  if (theirs.valid()) {  // asked for already, or being asked for on another thread
    if (theirs.wait_for(std::chrono::seconds(0)) == std::future_status::ready) return theirs.get();
    later = theirs;
    return std::nullopt;
  }
  if (full) return ask_for(rle, input);
  try {
    const std::uint32_t row = ask_for(rle, input);
    mine.set_value(row);
    return row;
  } catch (...) {
    mine.set_exception(std::current_exception());  // the waiters get the error; a later call asks again
    const std::lock_guard lock(kept.m);
    kept.rows.erase(key);
    throw;
  }
}

std::uint32_t bzip2_primary(std::span<const std::uint8_t> rle, std::size_t period, std::span<const std::uint8_t> input) {
  std::shared_future<std::uint32_t> later;
  const std::optional<std::uint32_t> now = bzip2_primary_now(rle, period, input, later);
  return now ? *now : later.get();
}

}  // namespace parcomp::bz2
