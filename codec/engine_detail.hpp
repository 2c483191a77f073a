// The engine's machinery shared by its jobs (codec/engine.cpp: parcomp streams; codec/engine_bz2.cpp:
// .bz2): the work queue with flow control, the threads, the GPU start-up. Internal to the engine.
#pragma once

#include "engine.hpp"

#include "core/errors.hpp"
#include "core/parallel.hpp"
#include "cpu_codec.hpp"
#include "gpu_warmup.hpp"
#include "gpu_share.hpp"
#include "kernels/common/cuda_check.hpp"
#include "kernels/common/device_buffer.hpp"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace parcomp::engine::detail {

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;

inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Reads exactly n bytes unless the input ends first; returns how many it got.
inline std::size_t read_full(Source& in, std::uint8_t* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const std::size_t r = in.read(buf + got, n - got);
    if (r == 0) break;
    got += r;
  }
  return got;
}

// A source read on a thread of its own, up to `depth` pieces of `piece` bytes ahead of the caller
// (ours): a pipe's reads, which bound the .bz2 decompression's reader, overlap its scans of the
// bytes before. The destructor waits for the read in progress.
class ReadAhead {
 public:
  ReadAhead(Source& in, std::size_t piece, std::size_t depth) : in_(in), piece_(piece), depth_(depth) {
    thread_ = std::thread([this] {
      name_this_thread("parcomp-readahd");
      run();
    });
  }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  ~ReadAhead() {
    {
      const std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // n bytes into buf, fewer only at the end of the input; rethrows the source's exception.
  std::size_t read_full(std::uint8_t* buf, std::size_t n) {
    std::size_t got = 0;
    std::unique_lock lock(m_);
    while (got < n) {
      cv_.wait(lock, [&] { return !pieces_.empty() || done_; });
      if (pieces_.empty()) {
        if (error_) std::rethrow_exception(error_);
        break;
      }
      Piece& f = pieces_.front();
      const std::size_t k = std::min(n - got, f.bytes.size() - f.at);
      std::memcpy(buf + got, f.bytes.data() + f.at, k);
      got += k;
      f.at += k;
      if (f.at == f.bytes.size()) {
        pieces_.pop_front();
        cv_.notify_all();
      }
    }
    return got;
  }

 private:
  struct Piece {
    Bytes bytes;
    std::size_t at = 0;
  };
  void run() {
    for (bool end = false; !end;) {
      {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return stop_ || pieces_.size() < depth_; });
        if (stop_) break;
      }
      Bytes b(piece_);
      std::size_t got = 0;
      std::exception_ptr error;
      try {
        while (got < piece_) {
          const std::size_t r = in_.read(b.data() + got, piece_ - got);
          if (r == 0) break;
          got += r;
        }
      } catch (...) {
        error = std::current_exception();  // after the bytes read before it
      }
      b.resize(got);
      end = got < piece_;
      const std::lock_guard lock(m_);
      if (!b.empty()) pieces_.push_back({std::move(b), 0});
      error_ = error;
      cv_.notify_all();
    }
    const std::lock_guard lock(m_);
    done_ = true;
    cv_.notify_all();
  }
  Source& in_;
  const std::size_t piece_, depth_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Piece> pieces_;
  bool stop_ = false, done_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

// Large buffers handed back for reuse (ours): a fresh one of tens of MB takes its page faults
// on every use, on the host threads that bound a run (the .bz2 reader's chunks, the .bz2 GPU
// batches' run-length buffers, the parcomp format's GPU output vectors). Up to `keep` are kept,
// of `max_bytes` together at most; take(need) hands out the last given back whose size_of is
// `need` or more; a buffer given back where there is no room replaces the smallest kept ones if it
// is larger than each of them (else it is dropped).
template <typename T>
class Spares {
 public:
  Spares(std::size_t keep, std::function<std::size_t(const T&)> size_of, std::size_t max_bytes = std::numeric_limits<std::size_t>::max())
      : keep_(keep), max_bytes_(max_bytes), size_of_(std::move(size_of)) {}
  std::optional<T> take(std::size_t need = 0) {
    const std::lock_guard lock(m_);
    for (std::size_t k = kept_.size(); k-- > 0;)
      if (size_of_(kept_[k]) >= need) {
        T t = std::move(kept_[k]);
        kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(k));
        bytes_ -= size_of_(t);
        return t;
      }
    return std::nullopt;
  }
  void give_back(T t) {
    const std::lock_guard lock(m_);
    const std::size_t size = size_of_(t);
    if (size > max_bytes_ || keep_ == 0) return;
    while (kept_.size() >= keep_ || bytes_ + size > max_bytes_) {
      auto smallest = std::min_element(kept_.begin(), kept_.end(), [&](const T& a, const T& b) { return size_of_(a) < size_of_(b); });
      if (size_of_(*smallest) >= size) return;
      bytes_ -= size_of_(*smallest);
      kept_.erase(smallest);
    }
    bytes_ += size;
    kept_.push_back(std::move(t));
  }
  std::size_t kept() const {
    const std::lock_guard lock(m_);
    return kept_.size();
  }
  // The process exits next: what is kept is left to the exit, not freed (Options::leave_to_exit).
  void leave_to_exit() {
    const std::lock_guard lock(m_);
    (void)new std::vector<T>(std::move(kept_));
    kept_.clear();
    bytes_ = 0;
  }

 private:
  mutable std::mutex m_;
  std::vector<T> kept_;
  std::size_t keep_, max_bytes_, bytes_ = 0;  // bytes_: size_of over kept_
  std::function<std::size_t(const T&)> size_of_;
};

// What every worker of a job shares: the queue of claimed-by-nobody items, the results, the stop
// flag and the first error.
template <typename Item, typename Result>
class Job {
 public:
  std::mutex m;
  std::condition_variable cv;
  std::deque<Item> pending;
  std::map<std::uint64_t, Result> done;  // by first block
  bool input_done = false, stop = false;
  std::exception_ptr error;
  std::uint64_t read_blocks = 0, written_blocks = 0;
  std::size_t cap = 0;
  // The reader's room in input bytes too (0: blocks alone): the blocks read and not yet written
  // hold at most bytes_cap of them, one block at least. For inputs whose blocks can be large (a
  // .bz2 block of long runs is up to 51 times its block's bytes); bytes_of gives an item's.
  // held_result_bytes_of (optional): a block counts its input until its result is published and
  // that result's bytes from then until written, so that blocks done behind a slow one hold their
  // results, not their inputs, and the reader goes on.
  std::uint64_t bytes_cap = 0;
  std::function<std::uint64_t(const Item&)> bytes_of;
  std::function<std::uint64_t(const Result&)> held_result_bytes_of;
  // The results' room in bytes (0: none): while the results not yet taken by the writer hold
  // result_bytes_cap, workers claim only up to the writer's next item (next_needed, a seq the
  // writer keeps), so that no more results pile up behind it (a .bz2 block of long runs decodes
  // to up to 45.9 MB). For writers that take results with take_done_locked and drop_done_locked.
  std::uint64_t result_bytes_cap = 0, next_needed = 0;
  std::function<std::uint64_t(const Result&)> result_bytes_of;
  unsigned workers_running = 0;
  Trace* trace = nullptr;  // the options' timeline, if any
  // CPU workers beside the GPUs: once a GPU has taken its first batch (gpu_took_work), all but
  // cpu_beside_gpus of the CPU workers leave after the block they hold (cpu_may_claim).
  unsigned cpu_working = 0, cpu_beside_gpus = ~0u;
  bool gpu_working = false;
  // .bz2 compression: once the input is all read, the CPU workers still there keep taking blocks
  // beside the GPUs (at the priority they have): a file read before the first GPU was ready.
  bool cpu_stay_once_read = false;
  // .bz2: a CPU worker beside a working GPU takes the newest item (the queue's back): the GPUs take
  // batches from the front, and a block that takes a CPU worker longer is then far from the one the
  // writer waits for (cpu_claim).
  bool cpu_claims_newest = false;
  // CPU workers started before generation cpu_replaced_below leave after the block they hold: those
  // at SCHED_IDLE where the process may not bring them back, replaced by workers at its priority.
  unsigned cpu_replaced_below = 0, cpu_replaced_gone = 0;  // cpu_replaced_gone: those that have left
  static inline thread_local unsigned cpu_generation = 0;  // the calling worker's, from 1 (set as it starts; 0: never replaced)

  void gpu_took_work() {
    const std::lock_guard lock(m);
    gpu_working = true;
  }
  // Every GPU left (device memory ran out): CPU workers keep claiming.
  void gpu_left() {
    const std::lock_guard lock(m);
    gpu_working = false;
    cv.notify_all();
  }
  // A CPU worker's item: the front's, or beside a working GPU where the job asks for it
  // (cpu_claims_newest) and the results have room, the back's. Empty: nothing left (or stopped).
  std::vector<Item> cpu_claim() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return claimable_locked(1, false, 0); });
    std::vector<Item> out;
    if (stop || replaced_locked() || pending.empty()) return out;
    const bool newest = cpu_claims_newest && gpu_working && pending.size() > 1 && (result_bytes_cap == 0 || done_bytes_ < result_bytes_cap);
    Item& it = newest ? pending.back() : pending.front();
    pending_bytes_ -= size_of(it);
    out.push_back(std::move(it));
    if (newest) pending.pop_back();
    else pending.pop_front();
    traced_claim(out, "cpu");
    cv.notify_all();
    return out;
  }
  // Items a GPU claimed and could not finish, back to the queue in input order, for any worker.
  void give_back(std::vector<Item> items) {
    if (items.empty()) return;
    const std::lock_guard lock(m);
    for (Item& i : items) {
      pending_bytes_ += size_of(i);
      pending.push_back(std::move(i));
    }
    std::sort(pending.begin(), pending.end(), [](const Item& a, const Item& b) { return a.seq < b.seq; });
    cv.notify_all();
  }
  // Whether blocks are left for a worker to take: unclaimed ones, or more to come.
  bool work_left() {
    const std::lock_guard lock(m);
    return !stop && (!input_done || !pending.empty());
  }
  // A CPU worker that starts later (the GPU manager's, while the GPUs are out).
  void cpu_joined() {
    const std::lock_guard lock(m);
    ++cpu_working;
  }
  // False: this CPU worker leaves now (and is no longer counted as working): a GPU works, or its
  // generation (cpu_generation) was replaced by workers at the program's priority.
  bool cpu_may_claim() {
    const std::lock_guard lock(m);
    if (!replaced_locked() && (!gpu_working || cpu_working <= cpu_beside_gpus || (cpu_stay_once_read && input_done))) return true;
    if (replaced_locked()) ++cpu_replaced_gone;
    --cpu_working;
    cv.notify_all();
    return false;
  }
  // A CPU worker that found nothing left to claim.
  void cpu_leaves() {
    const std::lock_guard lock(m);
    if (replaced_locked()) ++cpu_replaced_gone;
    if (cpu_working > 0) --cpu_working;
    cv.notify_all();
  }

  void fail(std::exception_ptr e) {
    const std::lock_guard lock(m);
    if (!error) error = e;
    stop = true;
    cv.notify_all();
  }
  // Under m: whether a claim of up to `max` items may go ahead (or must return: stopped, done,
  // replaced). A GPU takes less than a batch where the reader waits for room (a cap below the
  // batch: --blocks-in-flight, or the bytes' cap): no more blocks come until some are written.
  bool claimable_locked(std::size_t max, bool wait_full, std::uint64_t max_bytes) {
    return stop || (input_done && pending.empty()) || replaced_locked() ||
           (!pending.empty() && room_for_results() &&
            (!wait_full || pending.size() >= max || (max_bytes != 0 && pending_bytes_ >= max_bytes) || input_done || reader_held()));
  }
  // Up to `max` items from the front, and where max_bytes is set, items of up to max_bytes input
  // bytes (one at least). A GPU (wait_full) waits for a full batch while the input is still coming.
  // `run`: only items whose seqs follow one another (a batch published as one result, keyed by its
  // first seq: items given back leave gaps in the queue). Empty: nothing left (or stopped).
  std::vector<Item> claim(std::size_t max, bool wait_full, bool run = false, std::uint64_t max_bytes = 0) {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return claimable_locked(max, wait_full, max_bytes); });
    std::vector<Item> out;
    if (stop || replaced_locked()) return out;
    std::uint64_t taken = 0;
    while (!pending.empty() && out.size() < max && (max_bytes == 0 || out.empty() || taken + size_of(pending.front()) <= max_bytes) &&
           (!run || out.empty() || pending.front().seq == out.back().seq + 1)) {
      taken += size_of(pending.front());
      out.push_back(std::move(pending.front()));
      pending.pop_front();
    }
    pending_bytes_ -= taken;
    traced_claim(out, wait_full ? "gpu" : "cpu");
    cv.notify_all();
    return out;
  }
  // How many items wait to be claimed once the input is all read (before then, nothing): a GPU's
  // lanes share the input's last items.
  std::optional<std::size_t> pending_once_read() {
    const std::lock_guard lock(m);
    if (!input_done) return std::nullopt;
    return pending.size();
  }
  // A full batch (or the input's last items) if one is there now, else nothing: for a GPU that
  // holds a batch not yet published, which must not wait for items that only its own results
  // would make room for.
  std::vector<Item> try_claim(std::size_t max) {
    const std::lock_guard lock(m);
    std::vector<Item> out;
    if (stop || pending.empty() || (pending.size() < max && !input_done)) return out;
    while (!pending.empty() && out.size() < max) {
      pending_bytes_ -= size_of(pending.front());
      out.push_back(std::move(pending.front()));
      pending.pop_front();
    }
    traced_claim(out, "gpu");
    cv.notify_all();
    return out;
  }
  // `blocks`: how many claimed items the result holds from `first` on (the parcomp format's GPU
  // workers publish a whole batch as one result).
  void publish(std::uint64_t first, Result r, std::uint64_t blocks = 1) {
    const std::lock_guard lock(m);
    if (result_bytes_of) done_bytes_ += result_bytes_of(r);
    if (held_result_bytes_of && first >= written_blocks && first - written_blocks + blocks <= unwritten_bytes_.size()) {
      const auto at = static_cast<std::size_t>(first - written_blocks);
      for (std::size_t k = 0; k < blocks; ++k) {
        held_bytes_ -= unwritten_bytes_[at + k];
        unwritten_bytes_[at + k] = 0;
      }
      unwritten_bytes_[at] = held_result_bytes_of(r);
      held_bytes_ += unwritten_bytes_[at];
    }
    done.emplace(first, std::move(r));
    for (std::uint64_t k = 0; k < blocks; ++k) traced_publish(first + k);
    cv.notify_all();
  }
  // The reader's flow control: wait while too many blocks are read and not yet written.
  bool wait_for_room() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return stop || !reader_held(); });
    if (trace != nullptr) room_at_ = trace->now();
    return !stop;
  }
  void push(Item item) {
    const std::lock_guard lock(m);
    if (bytes_of) {
      const std::uint64_t b = bytes_of(item);
      pending_bytes_ += b;
      held_bytes_ += b;
      unwritten_bytes_.push_back(b);
    }
    pending.push_back(std::move(item));
    ++read_blocks;
    if (trace != nullptr) trace->add(trace->lane("reader"), "read", room_at_, trace->now(), 1);
    cv.notify_all();
  }
  void finish_input() {
    const std::lock_guard lock(m);
    input_done = true;
    cv.notify_all();
  }
  // The writer's next result in input order (the one keyed written_blocks); nullopt when every
  // block is written or the job stopped (stopped() tells which).
  std::optional<Result> next_in_order() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] {
      return stop || done.count(written_blocks) != 0 || (input_done && pending.empty() && written_blocks == read_blocks) ||
             (workers_running == 0 && done.empty());
    });
    if (stop) return std::nullopt;
    auto it = done.find(written_blocks);
    if (it == done.end()) {
      if (input_done && written_blocks == read_blocks) return std::nullopt;
      throw std::runtime_error("engine: every worker stopped with blocks left (no CPU worker, and no GPU could start)");
    }
    Result r = std::move(it->second);
    done.erase(it);
    if (result_bytes_of) done_bytes_ -= result_bytes_of(r);
    if (trace != nullptr) got_at_ = trace->now();
    return r;
  }
  // With m held: the result of `key` (there), out of the results; and a result dropped if there.
  Result take_done_locked(std::uint64_t key) {
    auto it = done.find(key);
    Result r = std::move(it->second);
    done.erase(it);
    if (result_bytes_of) done_bytes_ -= result_bytes_of(r);
    cv.notify_all();
    return r;
  }
  void drop_done_locked(std::uint64_t key) {
    auto it = done.find(key);
    if (it == done.end()) return;
    if (result_bytes_of) done_bytes_ -= result_bytes_of(it->second);
    done.erase(it);
    cv.notify_all();
  }
  void mark_written(std::uint64_t blocks) {
    const std::lock_guard lock(m);
    written_blocks += blocks;
    for (std::uint64_t k = 0; k < blocks && !unwritten_bytes_.empty(); ++k) {
      held_bytes_ -= unwritten_bytes_.front();
      unwritten_bytes_.pop_front();
    }
    if (trace != nullptr) trace->add(trace->lane("writer"), "write", got_at_, trace->now(), blocks);
    cv.notify_all();
  }
  bool stopped() {
    const std::lock_guard lock(m);
    return stop;
  }
  // Stops every thread without an error (the writer saw the end of the work).
  void halt() {
    const std::lock_guard lock(m);
    stop = true;
    cv.notify_all();
  }
  void worker_exit() {
    const std::lock_guard lock(m);
    --workers_running;
    cv.notify_all();
  }
  // With m held: the reader waits for room (blocks, or input bytes).
  bool reader_held() const { return read_blocks - written_blocks >= cap || (bytes_cap != 0 && held_bytes_ >= bytes_cap); }

 private:
  // With m held: whether the calling thread is a CPU worker of a replaced generation.
  bool replaced_locked() const { return cpu_generation != 0 && cpu_generation < cpu_replaced_below; }
  std::uint64_t size_of(const Item& i) const { return bytes_of ? bytes_of(i) : 0; }
  // With m held and an item pending: whether a worker may claim (the results' room, or the item
  // the writer waits for, or one before it, at the front).
  bool room_for_results() const { return result_bytes_cap == 0 || done_bytes_ < result_bytes_cap || pending.front().seq <= next_needed; }
  std::uint64_t done_bytes_ = 0;  // the results' bytes not yet taken
  std::uint64_t pending_bytes_ = 0, held_bytes_ = 0;  // the input bytes of the pending items, of those not yet written
  std::deque<std::uint64_t> unwritten_bytes_;         // each block's, in input order, until written

  // The timeline's bookkeeping (with m held): a claim's items until the last is published (a GPU
  // publishes its batch item by item, maybe from another thread than the one that claimed it).
  struct TracedClaim {
    std::string lane, what;
    double start = 0;
    std::uint64_t blocks = 0, left = 0;
  };
  void traced_claim(const std::vector<Item>& items, const char* kind) {
    if (trace == nullptr || items.empty()) return;
    auto c = std::make_shared<TracedClaim>();
    c->lane = trace->lane(kind);
    c->what = std::string(kind) == "gpu" ? "batch" : "block";
    c->start = trace->now();
    c->blocks = c->left = items.size();
    for (const Item& i : items) claims_[i.seq] = c;
  }
  void traced_publish(std::uint64_t seq) {
    if (trace == nullptr) return;
    const auto it = claims_.find(seq);
    if (it == claims_.end()) return;
    const std::shared_ptr<TracedClaim> c = it->second;
    claims_.erase(it);
    if (--c->left == 0) trace->add(c->lane, c->what, c->start, trace->now(), c->blocks);
  }
  std::map<std::uint64_t, std::shared_ptr<TracedClaim>> claims_;
  double room_at_ = 0, got_at_ = 0;  // the reader's, the writer's
};

// Runs the job's threads: the reader, cpu workers, one thread per GPU (which first makes its
// context, then works), and the writer (this thread). Joins them all; rethrows the first error.
template <typename J>
void run_threads(J& job, const Options& o, Stats& st, unsigned cpu_workers, const std::function<void()>& reader,
                 const std::function<void()>& cpu_worker, const std::function<void()>& gpu_manager,
                 const std::function<void()>& writer) {
  std::vector<std::thread> threads;
  if (o.use_gpus) device_memory::reset_peak();
  auto guarded = [&job](const std::function<void()>& f) {
    return [&job, f] {
      try {
        f();
      } catch (...) {
        job.fail(std::current_exception());
      }
    };
  };
  {
    const std::lock_guard lock(job.m);
    job.workers_running = cpu_workers + (o.use_gpus ? 1u : 0u);
    job.cpu_working = cpu_workers;
  }
  threads.emplace_back(guarded([&reader] {
    name_this_thread("parcomp-read");
    reader();
  }));
  for (unsigned i = 0; i < cpu_workers; ++i)
    threads.emplace_back(guarded([&job, &cpu_worker] {
      name_this_thread("parcomp-cpu");
      cpu_worker();
      job.worker_exit();
    }));
  if (o.use_gpus)
    threads.emplace_back(guarded([&job, &gpu_manager] {
      name_this_thread("parcomp-gpus");
      gpu_manager();
      job.worker_exit();
    }));
  try {
    writer();
  } catch (...) {
    job.fail(std::current_exception());
  }
  for (auto& t : threads) t.join();
  st.peak_device_bytes = device_memory::peak();
  if (job.error) std::rethrow_exception(job.error);
}

inline bool gpu_block_size_ok(std::size_t block) { return block % 16 == 0 && block <= (std::size_t{1} << 24); }

inline unsigned cpu_worker_count(const Options& o) {
  if (o.cpu_threads >= 0) return static_cast<unsigned>(o.cpu_threads);
  return std::max(1u, std::thread::hardware_concurrency());
}

// How many threads each block of a CPU-only job may take (its sort, and for .bz2 its encoder): the
// CPU workers shared among the blocks an input of known size has (`block` bytes each, about), when
// there are fewer blocks than workers and no GPU takes any; else one.
inline unsigned threads_per_block(const Options& o, unsigned cpu_workers, std::uint64_t block) {
  if (o.input_bytes == 0 || cpu_workers <= 1 || o.use_gpus || block == 0) return 1;
  const std::uint64_t blocks = (o.input_bytes + block - 1) / block;
  return blocks >= cpu_workers ? 1u : static_cast<unsigned>(cpu_workers / blocks);
}

// Blocks read and not yet written: 4 per CPU worker to start with; each GPU that joins adds
// kGpuBatchesInFlight of its batches (manage_gpus), so that a run without GPUs holds little.
// Three: one on the GPU, one readied on the host (the .bz2 writer's run-length stage, the reader's
// second slot), and one being read. With two, the reader and the GPU took turns (docs/defaults.md).
inline constexpr std::size_t kGpuBatchesInFlight = 3;
// The parcomp format's lanes per GPU (Options::gpu_lanes); a lane more holds one batch more and
// its own device buffers. Four were the fastest measured, both ways (docs/defaults.md).
inline constexpr unsigned kGpuLanes = 4;
inline unsigned gpu_lanes(const Options& o) { return o.gpu_lanes != 0 ? o.gpu_lanes : kGpuLanes; }
// The parcomp format's CPU workers that keep taking blocks once a GPU works (Options::
// cpu_beside_gpus): none: they would take the host threads that the lanes' host work and the
// writer need (docs/defaults.md).
// They still work while CUDA starts, and on every block when no GPU does.
inline constexpr unsigned kCpuBesideGpus = 0;
inline unsigned cpu_beside_gpus(const Options& o) { return o.cpu_beside_gpus >= 0 ? static_cast<unsigned>(o.cpu_beside_gpus) : kCpuBesideGpus; }
inline std::size_t gpu_batches_in_flight(const Options& o) { return kGpuBatchesInFlight - 1 + gpu_lanes(o); }
// Options::gpu_batch_blocks are the blocks the GPUs take at a time all together: with G GPUs each
// takes a G-th of them (kMinGpuBatch at least), so that the blocks in flight, and the host memory
// that holds them, stay what one GPU holds (docs/defaults.md).
inline constexpr std::size_t kMinGpuBatch = 16;
inline std::size_t gpu_batch_per_device(const Options& o, std::size_t gpus) {
  gpus = std::max<std::size_t>(gpus, 1);
  return std::max(std::min(kMinGpuBatch, o.gpu_batch_blocks), (o.gpu_batch_blocks + gpus - 1) / gpus);
}
inline std::size_t flight_cap(const Options& o, unsigned cpu_workers) {
  if (o.max_blocks_in_flight != 0) return o.max_blocks_in_flight;
  return std::max<std::size_t>(4 * cpu_workers, 4);
}

// A lane of the run's timeline (--trace) that one thread steps through: step() adds the span from
// `from` to now and moves `from` there; nothing without a trace.
class TraceSteps {
 public:
  TraceSteps(Trace* tr, const char* kind) : tr_(tr), lane_(tr != nullptr ? tr->lane(kind) : std::string()) {}
  double now() const { return tr_ != nullptr ? tr_->now() : 0.0; }
  void step(const char* what, double& from, std::uint64_t blocks) const {
    if (tr_ == nullptr) return;
    const double to = tr_->now();
    tr_->add(lane_, what, from, to, blocks);
    from = to;
  }

 private:
  Trace* tr_;
  std::string lane_;
};

// A thread at SCHED_IDLE, where it runs only when no other thread wants its core (CUDA's start-up,
// the reader), or back at the calling thread's policy (the program's, which the thread had when it
// was started: SCHED_OTHER unless the user chose another). Where the system refuses, it stays as it was.
inline bool set_lowest_priority(std::thread& t, bool lowest) {
  int policy = SCHED_IDLE;
  sched_param p{};
  if (!lowest && pthread_getschedparam(pthread_self(), &policy, &p) != 0) return false;
  return pthread_setschedparam(t.native_handle(), policy, &p) == 0;
}
// Whether this process may bring a thread back from SCHED_IDLE: the kernel counts SCHED_IDLE as
// nice 20, and a process without CAP_SYS_NICE whose RLIMIT_NICE is below 20 (most users' default
// is 0) may not leave it. Asked once, of a thread of its own.
inline bool idle_priority_reversible() {
  static const bool reversible = [] {
    bool back = false;
    std::thread probe([&back] {
      int policy = SCHED_OTHER;
      sched_param was{}, idle{};
      if (pthread_getschedparam(pthread_self(), &policy, &was) == 0 && pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) == 0)
        back = pthread_setschedparam(pthread_self(), policy, &was) == 0;
    });
    probe.join();
    return back;
  }();
  return reversible;
}

inline void note(const Options& o, const std::string& what) {
  if (o.on_note) o.on_note(what);
}

// A job on the CPU workers alone: `why` says why the GPUs are left out (a note when they were
// allowed; an error with --gpu, or without CPU workers).
inline Options cpu_only(const Options& o, const char* what, const std::string& why) {
  if (o.require_gpu) throw ContractError(std::string("--gpu: ") + what + " runs on the CPU workers (" + why + ")");
  if (cpu_worker_count(o) == 0) throw ContractError(std::string(what) + " needs CPU workers (" + why + ")");
  if (o.use_gpus) note(o, std::string("GPUs not used: ") + what + " runs on the CPU workers (" + why + ")");
  Options c = o;
  c.use_gpus = false;
  return c;
}

// An input of unknown size (a pipe) starts on the CPU workers. The GPUs join once `after` bytes (a
// 32nd of the format's GPU threshold) are read and the CPU workers are behind the input, or once
// `anyway` (the whole threshold) are read (manage_gpus): an input that ends first, or that the CPU
// workers keep up with, never starts CUDA, whose start and exit cost a small input more than its
// work (docs/field.md).
struct PipeJoin {
  std::uint64_t after = 0, anyway = 0;
};
inline PipeJoin pipe_join(std::uint64_t threshold) {
  return {std::max<std::uint64_t>(threshold / 32, 1), std::max<std::uint64_t>(threshold, 1)};
}

// .bz2's workers (engine_bz2.cpp's bz2_workers): --gpu's GPUs, or by default an input of known
// size from bz2_gpu_from_bytes on; a smaller or unknown one, or --threads, the CPU workers.
inline std::uint64_t bz2_gpu_threshold(const Options& o, bool decompress) {
  return decompress ? o.bz2_gpu_decompress_from_bytes : o.bz2_gpu_from_bytes;
}
inline bool bz2_may_use_gpus(const Options& o, bool decompress) {
  return o.use_gpus && (o.require_gpu || (o.cpu_threads < 0 && o.input_bytes > 0 && o.input_bytes >= bz2_gpu_threshold(o, decompress)));
}

// What one GPU takes on for a job, sized from the device memory free when it joins (plan_gpu):
// `lanes` lanes of `batch` blocks each. lanes 0: not even the smallest batch fits.
struct GpuPlan {
  unsigned lanes = 0;
  std::size_t batch = 0;
  std::uint64_t bytes = 0;  // the device bytes that plan needs, about
};
// The device memory a job's GPU needs: `per_block` bytes for each block of a lane's batch, `fixed`
// for each lane, `per_device` once (the local memory its kernels' launches set aside). manage_gpus
// asks for it once a device is ready: the kernels' sizes ask CUDA.
struct GpuNeeds {
  std::uint64_t per_block = 0, fixed = 0, per_device = 0;
};
// Device memory left unplanned: the CUDA context's own growth and other processes' small
// allocations (cuBLAS handles, another job's start-up) need some.
inline constexpr std::uint64_t kDeviceHeadroom = std::uint64_t{512} << 20;
// The smallest batch worth a GPU (a batch of 8 blocks of 900 kB is 16 CTAs of the encoder).
inline constexpr std::size_t kMinPlannedBatch = 8;
// The most lanes and the largest batch `avail` bytes hold: the job's own lanes and batch where they
// fit; else fewer lanes (down to one) before smaller batches (down to kMinPlannedBatch).
inline GpuPlan plan_gpu(std::uint64_t avail, unsigned lanes, std::size_t batch, const GpuNeeds& needs) {
  GpuPlan p;
  const auto cost = [&](unsigned l, std::size_t b) { return needs.per_device + l * (needs.fixed + b * needs.per_block); };
  for (unsigned l = std::max(1u, lanes); l >= 1; --l) {
    if (cost(l, batch) <= avail) return {l, batch, cost(l, batch)};
    if (l == 1) break;
  }
  if (avail <= needs.per_device + needs.fixed || needs.per_block == 0) return p;
  const std::size_t b = std::min<std::size_t>(batch, (avail - needs.per_device - needs.fixed) / needs.per_block);
  if (b < std::min(kMinPlannedBatch, batch)) return p;
  return {1, b, cost(1, b)};
}

// The GPU side of a job. Each device asked for (all when none are named) joins the job once
//  - its context is ready (gpu_warmup.hpp: CUDA starts while the CPU workers work),
//  - it has a slot among the processes that share it (gpu_share.hpp), and
//  - its free memory holds a plan (plan_gpu: `lanes` threads of `batch` blocks, fewer or smaller
//    where memory is short),
// and then runs work(device, plan) on plan.lanes threads (`threads_per_lane` false: on one thread,
// which runs the plan's lanes itself). A lane that runs out of device memory (DeviceMemoryError)
// gives its blocks back to the queue (Job::give_back) and leaves; when a device's lanes have all
// left, the device tries again later (its memory may free up) and CPU workers take the blocks
// meanwhile. With --gpu (require_gpu) a GPU that cannot work is an error instead.
// CPU workers on every hardware thread run from this thread (cpu_worker) while blocks are left, no
// GPU works and no CPU worker of the job is working: when no GPU starts, after every GPU left, or
// while the GPUs wait for a slot where the policy says so. Returns when the job's work is taken,
// or it stopped. batches_in_flight: a GPU's batches held at once (the reader's room grows by that
// many of its batches); gpus_expected: room for one GPU's batches from the start (--gpu, or .bz2
// by the input's size), so that the reader fills the first batches during CUDA's start-up.
// join (an input of unknown size, whose CPU workers start at once; pipe_join): the GPUs join only
// once bytes_read() reaches join.after and the reader waits for room, or reaches join.anyway.
template <typename J>
void manage_gpus(J& job, const Options& o, Stats& st, std::mutex& stats_m, Clock::time_point t0,
                 const std::function<void(int, const GpuPlan&)>& work, const std::function<void()>& cpu_worker,
                 const std::function<GpuNeeds()>& needs_of,
                 unsigned lanes, bool threads_per_lane, std::size_t batches_in_flight, bool gpus_expected,
                 std::optional<PipeJoin> join = std::nullopt, const std::function<std::uint64_t()>& bytes_read = {}) {
  const gpu_share::Policy share = gpu_share::policy();
  if (join && bytes_read) {
    for (;;) {
      const std::uint64_t read = bytes_read();
      std::unique_lock lock(job.m);
      if (read >= join->after && (job.reader_held() || read >= join->anyway)) break;
      if (job.stop || job.input_done) return;
      job.cv.wait_for(lock, std::chrono::milliseconds(5));
    }
    note(o, "input of unknown size: " + std::to_string(bytes_read()) + " bytes read and the CPU workers behind, the GPUs join");
  }
  gpu_warmup::start(o.devices);
  std::size_t room_for = 0;  // batches of the options' size the reader's room holds for the GPUs
  if (o.max_blocks_in_flight == 0 && (o.require_gpu || gpus_expected)) {
    const std::lock_guard lock(job.m);
    job.cap += batches_in_flight * o.gpu_batch_blocks;
    room_for = batches_in_flight * o.gpu_batch_blocks;
    job.cv.notify_all();
  }
  const double cuda_from = o.trace != nullptr ? o.trace->now() : 0.0;
  struct Device {
    int id = 0;
    enum State { starting, waiting, running, finished } state = starting;
    std::optional<gpu_share::Slot> slot;
    std::vector<std::thread> threads;
    unsigned live = 0;               // its lanes still running (under job.m)
    std::string left_why;            // a lane's DeviceMemoryError (under job.m)
    Clock::time_point retry_at{};
    bool told_busy = false, told_small = false, left = false, joined = false;
    // After a lane ran out of memory: the share of the free memory the next plans take (halved at
    // each failure, whole again once twice the free memory of that failure is there) and the wait
    // before a rejoin (doubled at each failure, up to 8 s), so that a GPU short of memory never
    // takes the blocks from the CPU workers again and again.
    double share = 1.0;
    std::uint64_t free_at_failure = 0;
    std::chrono::milliseconds backoff{500};
    std::size_t room = 0;            // its share of the reader's room
  };
  std::vector<Device> devs;  // the devices asked for that exist
  std::vector<std::thread> cpu_threads, cpu_replaced;  // cpu_replaced: leaving after their block
  unsigned cpu_started = 0;
  bool cpu_yielding = false;  // cpu_threads at the lowest priority while CUDA starts
  std::optional<Clock::time_point> started_up_at;  // when no device was starting any more
  constexpr auto kYieldAfterStart = std::chrono::milliseconds(50);
  bool counted = false, any_started = false;
  std::optional<GpuNeeds> needs;
  std::size_t batch = o.gpu_batch_blocks;  // each GPU's: the options' split among the GPUs (gpu_batch_per_device)
  std::string why_none;
  const auto more_room = [&](std::size_t blocks) {  // under job.m
    if (o.max_blocks_in_flight != 0) return;
    job.cap += blocks;
    job.cv.notify_all();
  };
  const auto stop_cpu = [&] {
    for (auto* ts : {&cpu_replaced, &cpu_threads}) {
      for (auto& t : *ts) t.join();
      ts->clear();
    }
  };
  // `count` workers of generation `generation`, at the lowest priority where `yielding`.
  const auto add_cpu = [&](unsigned count, bool yielding, unsigned generation) {
    {
      const std::lock_guard lock(job.m);
      job.cpu_working += count;
      job.cv.notify_all();
    }
    for (unsigned i = 0; i < count; ++i) {
      cpu_threads.emplace_back([&job, &cpu_worker, generation] {
        name_this_thread("parcomp-cpu");
        J::cpu_generation = generation;
        try {
          cpu_worker();
        } catch (...) {
          job.fail(std::current_exception());
        }
      });
      if (yielding) set_lowest_priority(cpu_threads.back(), true);
    }
  };
  unsigned replacements = 0;  // of the current generation, started by top_up_cpu
  bool replacing = false;
  const auto start_cpu = [&](bool yielding) {
    stop_cpu();  // those from before have left (a GPU took the work, or they were replaced)
    replacing = false;
    const unsigned n = std::max(1u, std::thread::hardware_concurrency());
    {
      const std::lock_guard lock(stats_m);
      st.cpu_workers = std::max(st.cpu_workers, n);
    }
    {
      const std::lock_guard lock(job.m);
      if (o.max_blocks_in_flight == 0) job.cap = std::max(job.cap, flight_cap(o, n));
    }
    add_cpu(n, yielding, ++cpu_started);
  };
  // Workers at SCHED_IDLE that this process may not bring back leave after the block they hold
  // (not joined here: they may wait for a core), and one at the program's priority starts for each
  // that has left (top_up_cpu), so that they are never more than the hardware threads.
  const auto replace_cpu = [&] {
    {
      const std::lock_guard lock(job.m);
      job.cpu_replaced_below = cpu_started + 1;
      job.cpu_replaced_gone = 0;
      job.cv.notify_all();  // those waiting for a block leave now
    }
    for (auto& t : cpu_threads) cpu_replaced.push_back(std::move(t));
    cpu_threads.clear();
    ++cpu_started;
    replacements = 0;
    replacing = true;
  };
  const auto top_up_cpu = [&] {
    if (!replacing) return;
    unsigned gone;
    {
      const std::lock_guard lock(job.m);
      gone = job.cpu_replaced_gone;
    }
    if (gone > replacements && job.work_left()) add_cpu(gone - replacements, false, cpu_started);
    replacements = std::max(replacements, gone);
    if (replacements >= cpu_replaced.size()) replacing = false;
  };
  const auto launch = [&](Device& dv, const GpuPlan& plan, double ready_s) {
    const unsigned threads = threads_per_lane ? plan.lanes : 1u;
    {
      const std::lock_guard lock(job.m);
      dv.live = threads;
      dv.left_why.clear();
      const std::size_t want = batches_in_flight * plan.batch;
      // Room for this GPU's batches; the first GPU's may be there from the start.
      if (want > dv.room) {
        const std::size_t from_start = std::min(room_for, want - dv.room);
        room_for -= from_start;
        more_room(want - dv.room - from_start);
        dv.room = want;
      }
    }
    if (!any_started) {
      any_started = true;
      const std::lock_guard lock(stats_m);
      st.first_gpu_ready_s = since(t0);
    }
    if (o.trace != nullptr && !dv.joined)  // from the job's start of CUDA to the device's first work
      o.trace->add("cuda " + std::to_string(dv.id), "CUDA start-up", cuda_from, o.trace->now(), 0);
    dv.joined = true;
    note(o, "GPU " + std::to_string(dv.id) + (ready_s >= 0 ? " ready after " + std::to_string(ready_s) + " s of CUDA start-up" : " rejoins") +
                ": " + std::to_string(plan.lanes) + " lane(s) of " + std::to_string(plan.batch) + " blocks, about " +
                std::to_string(plan.bytes >> 20) + " MiB of device memory");
    dv.state = Device::running;
    for (unsigned k = 0; k < threads; ++k)
      dv.threads.emplace_back([&job, &work, &o, &dv, plan] {
        name_this_thread(("parcomp-gpu" + std::to_string(dv.id)).c_str());
        try {
          PARCOMP_CUDA_CHECK(cudaSetDevice(dv.id));
          work(dv.id, plan);
        } catch (const DeviceMemoryError& e) {
          if (o.require_gpu) {
            job.fail(std::current_exception());
          } else {
            const std::lock_guard lock(job.m);
            dv.left_why = e.what();
          }
        } catch (...) {
          job.fail(std::current_exception());
        }
        const std::lock_guard lock(job.m);
        --dv.live;
        job.cv.notify_all();
      });
  };
  // Tries to start a waiting device: a slot, then a plan that its free memory holds.
  const auto try_start = [&](Device& dv, double ready_s) {
    if (Clock::now() < dv.retry_at) return;
    const double plan_from = o.trace != nullptr ? o.trace->now() : 0.0;
    PARCOMP_CUDA_CHECK(cudaSetDevice(dv.id));
    std::string why;
    if (share.slots > 0 && !dv.slot) {
      dv.slot = gpu_share::Slot::try_take(dv.id, share.slots, &why);
      if (!why.empty()) note(o, "GPU " + std::to_string(dv.id) + ": " + why);
      if (!dv.slot) {
        if (!dv.told_busy) note(o, "GPU " + std::to_string(dv.id) + ": every slot is taken by other parcomp jobs; waiting for one");
        dv.told_busy = true;
        dv.retry_at = Clock::now() + std::chrono::milliseconds(20);
        return;
      }
    }
    std::size_t free_b = 0, total_b = 0;
    PARCOMP_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (!needs) needs = needs_of();  // the kernels' sizes ask CUDA (the sorts' scratch): with a device set
    if (dv.share < 1.0 && free_b >= 2 * dv.free_at_failure) dv.share = 1.0;
    std::uint64_t avail = free_b > kDeviceHeadroom ? static_cast<std::uint64_t>(static_cast<double>(free_b - kDeviceHeadroom) * dv.share) : 0;
    if (const std::uint64_t cap = device_memory::limit(); cap != 0) {
      const std::uint64_t held = device_memory::in_use(dv.id);
      avail = std::min<std::uint64_t>(avail, cap > held ? cap - held : 0);
    }
    const GpuPlan plan = plan_gpu(avail, lanes, batch, *needs);
    if (plan.lanes == 0) {
      const std::size_t least = std::min(kMinPlannedBatch, batch);
      const std::string msg = "GPU " + std::to_string(dv.id) + ": " + std::to_string(avail >> 20) + " MiB of device memory to use (" +
                              std::to_string(free_b >> 20) + " MiB free), a batch of " + std::to_string(least) + " blocks needs " +
                              std::to_string((needs->per_device + needs->fixed + least * needs->per_block) >> 20) + " MiB";
      if (o.require_gpu) throw DeviceMemoryError(cudaErrorMemoryAllocation, "--gpu: " + msg);
      if (!dv.told_small) note(o, msg + "; the CPU workers take the blocks until it has room");
      dv.told_small = true;
      dv.slot.reset();  // another job may fit
      dv.retry_at = Clock::now() + dv.backoff;
      return;
    }
    dv.told_small = dv.left = false;
    if (o.trace != nullptr) o.trace->add("cuda " + std::to_string(dv.id), "plan", plan_from, o.trace->now(), 0);
    launch(dv, plan, ready_s);
  };
  try {
    // Where the process may not bring the workers back (RLIMIT_NICE), workers at its priority
    // replace them once they would come back.
    if (o.cpu_while_cuda_starts && gpus_expected && !o.require_gpu) {
      note(o, idle_priority_reversible() ? "the CPU workers take blocks at the lowest priority while CUDA starts"
                                         : "the CPU workers take blocks at the lowest priority while CUDA starts (this process may not bring a "
                                           "thread back from it, RLIMIT_NICE: workers at its priority replace them after)");
      start_cpu(true);
      cpu_yielding = true;
    }
    for (;;) {
      const gpu_warmup::State w = gpu_warmup::poll();
      if (w.counted && !counted) {
        counted = true;
        why_none = w.why_none;
        std::vector<int> ids;
        if (o.devices.empty()) {
          for (int d = 0; d < w.count; ++d) ids.push_back(d);
        } else {
          for (const int d : o.devices) {
            if (d >= 0 && d < w.count) {
              if (std::find(ids.begin(), ids.end(), d) == ids.end()) ids.push_back(d);
              continue;
            }
            note(o, "GPU " + std::to_string(d) + " is not available");
            if (o.require_gpu) throw ContractError("--gpu: device " + std::to_string(d) + " is not available");
          }
          if (ids.empty() && why_none.empty()) why_none = "none of the devices asked for";
        }
        if (ids.empty() && o.require_gpu) throw ContractError("--gpu: " + (why_none.empty() ? std::string("no CUDA device") : why_none));
        devs = std::vector<Device>(ids.size());
        for (std::size_t k = 0; k < ids.size(); ++k) devs[k].id = ids[k];
        batch = gpu_batch_per_device(o, std::max<std::size_t>(ids.size(), 1));
      }
      const bool work_left = job.work_left();
      bool any_running = false, all_finished = counted;
      for (Device& dv : devs) {
        if (dv.state == Device::starting) {
          const gpu_warmup::Device* e = w.find(dv.id);
          if (e == nullptr || !e->done) {
            all_finished = false;
            continue;
          }
          if (!e->ready) {
            note(o, "GPU " + std::to_string(dv.id) + " is not available (no context)");
            if (o.require_gpu && !o.devices.empty()) throw ContractError("--gpu: device " + std::to_string(dv.id) + " is not available");
            dv.state = Device::finished;
            continue;
          }
          dv.state = Device::waiting;
          if (work_left) try_start(dv, e->seconds);
        } else if (dv.state == Device::waiting && work_left) {
          try_start(dv, -1);
        }
        if (dv.state == Device::running) {
          std::unique_lock lock(job.m);
          if (dv.live == 0) {
            const std::string why = dv.left_why;
            lock.unlock();
            for (auto& t : dv.threads) t.join();
            dv.threads.clear();
            dv.slot.reset();
            // Said whenever it happened, also where the CPU workers or another GPU have already
            // taken every block left.
            const bool more = !why.empty() && job.work_left();
            if (!why.empty())
              note(o, "GPU " + std::to_string(dv.id) + " left: " + why + "; its blocks go to the CPU workers" + (more ? ", and it tries again" : ""));
            if (more) {
              job.gpu_left();
              dv.left = true;
              dv.state = Device::waiting;
              dv.share /= 2;
              std::size_t free_b = 0, total_b = 0;
              if (cudaSetDevice(dv.id) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) dv.free_at_failure = free_b;
              (void)cudaGetLastError();
              dv.retry_at = Clock::now() + dv.backoff;
              dv.backoff = std::min(dv.backoff * 2, std::chrono::milliseconds(8000));
            } else {
              dv.state = Device::finished;
            }
          }
        }
        if (dv.state == Device::running) any_running = true;
        if (dv.state != Device::finished) all_finished = false;
      }
      // CUDA's start-up over (every device ready, or none can be) and no GPU working: the CPU
      // workers are the job's now, at the program's priority (beside a GPU they leave after a block).
      // A GPU that is ready takes its first batch within a few ms where blocks wait; one that has
      // taken none kYieldAfterStart after the start-up (the workers take each block as it is
      // read: blocks of long runs, a slow input) leaves them the work.
      if (cpu_yielding && counted && std::none_of(devs.begin(), devs.end(), [](const Device& dv) { return dv.state == Device::starting; })) {
        const Clock::time_point now = Clock::now();
        if (!started_up_at) started_up_at = now;
        bool gpu_working;
        {
          const std::lock_guard lock(job.m);
          gpu_working = job.gpu_working;
        }
        if (!any_running || (!gpu_working && now - *started_up_at >= kYieldAfterStart)) {
          if (!cpu_threads.empty() && job.work_left())  // not where the GPUs have finished the job
            note(o, std::string(idle_priority_reversible() ? "the CPU workers go back to the program's priority"
                                                           : "workers at the program's priority replace the CPU workers") +
                        (any_running ? ": no GPU took a batch in the 50 ms after CUDA's start-up" : ": CUDA's start-up is over and no GPU works"));
          if (idle_priority_reversible()) {
            for (auto& t : cpu_threads) set_lowest_priority(t, false);
          } else if (!cpu_threads.empty() && job.work_left()) {
            replace_cpu();
          }
          cpu_yielding = false;
        }
      }
      top_up_cpu();
      // The GPUs not yet ready are not waited for, except by --gpu until they are counted: a device
      // it names that is not there is an error even when the CPU workers took every block.
      if (!any_running && !job.work_left() && (counted || !o.require_gpu)) break;
      if (all_finished && !any_running && o.require_gpu) {
        const std::string why = why_none.empty() ? "no CUDA device could make a context" : why_none;
        throw ContractError("--gpu: " + why);
      }
      // CPU workers on every hardware thread while blocks are left, no GPU works, none of the job's
      // own CPU workers is working, and no GPU is about to: none can come, one is short of memory
      // (or left for it), or one waits for a slot and the policy says to work meanwhile (during
      // CUDA's start-up the reader fills the GPUs' first batches instead).
      if (!any_running && !o.require_gpu) {
        bool wait_for_gpu = !counted;
        for (const Device& dv : devs) {
          if (dv.state == Device::starting) wait_for_gpu = true;
          if (dv.state == Device::waiting && dv.told_busy && !dv.told_small && !dv.left && !share.cpu_while_waiting) wait_for_gpu = true;
        }
        bool idle;
        {
          const std::lock_guard lock(job.m);
          idle = job.cpu_working == 0 && !job.stop && (!job.input_done || !job.pending.empty());
        }
        if (idle && (all_finished || !wait_for_gpu)) {
          if (cpu_started == 0)
            note(o, std::string("the CPU workers take the blocks (") +
                        (!all_finished ? "the GPUs wait" : why_none.empty() ? "no GPU could start" : "no GPU: " + why_none) + ")");
          start_cpu(false);
        }
      }
      if (all_finished && !any_running && !replacing) {
        stop_cpu();  // nothing more comes from the GPUs: the CPU workers finish
        break;
      }
      std::unique_lock lock(job.m);
      if (job.stop) break;
      job.cv.wait_for(lock, std::chrono::milliseconds(5));
    }
  } catch (...) {
    job.fail(std::current_exception());
  }
  for (Device& dv : devs) {
    for (auto& t : dv.threads) t.join();
    dv.threads.clear();
  }
  stop_cpu();
}

// A source whose first bytes were already read (to tell formats apart): those, then the rest.
class PrefixedSource : public Source {
 public:
  PrefixedSource(std::vector<std::uint8_t> prefix, Source& rest) : prefix_(std::move(prefix)), rest_(rest) {}
  std::size_t read(std::uint8_t* buf, std::size_t max) override {
    if (at_ < prefix_.size()) {
      const std::size_t n = std::min(max, prefix_.size() - at_);
      std::copy_n(prefix_.data() + at_, n, buf);
      at_ += n;
      return n;
    }
    return rest_.read(buf, max);
  }

 private:
  std::vector<std::uint8_t> prefix_;
  std::size_t at_ = 0;
  Source& rest_;
};

// A CPU worker: one item at a time (work(item, workspace) makes its result, published under the
// item's seq), until none is left or the job stops.
template <typename J, typename Work>
void cpu_worker_loop(J& job, Work&& work) {
  cpu::Workspace ws;
  for (;;) {
    if (!job.cpu_may_claim()) return;
    auto items = job.cpu_claim();
    if (items.empty()) {
      job.cpu_leaves();
      return;
    }
    job.publish(items[0].seq, work(items[0], ws));
  }
}

// A GPU that did some of the job's work, in its statistics once (its lanes share it).
inline void count_gpu(Stats& st, std::mutex& stats_m, int device) {
  const std::lock_guard lock(stats_m);
  if (std::find(st.gpus.begin(), st.gpus.end(), device) == st.gpus.end()) st.gpus.push_back(device);
}

// One job's scheduling (ours): the four entry points (two formats, two directions) are each a
// Scheduler over their own items and results, and supply what their reader, CPU workers, GPU
// lanes and ordered writer do; the worker check, the flight cap, the statistics, the progress
// throttle and the threads are here once.
template <typename In, typename Out>
class Scheduler {
 public:
  // `cpu_beside_gpus`: CPU workers that keep working once a GPU does; `no_workers`: the error
  // when there are neither CPU workers nor GPUs.
  Scheduler(const Options& o, Format format, unsigned cpu_beside_gpus, const char* no_workers)
      : t0_(Clock::now()), o_(o), cpu_workers_(cpu_worker_count(o)) {
    if (cpu_workers_ == 0 && !o.use_gpus) throw ContractError(no_workers);
    job.trace = o.trace;
    job.cap = flight_cap(o, cpu_workers_);
    job.cpu_beside_gpus = cpu_beside_gpus;
    st.format = format;
    st.cpu_workers = cpu_workers_;
  }
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  Job<In, Out> job;
  Stats st;
  std::mutex stats_m;                      // st, where the job's threads share it outside job.m
  std::atomic<std::uint64_t> bytes_in{0};  // the input read so far, by the reader

  unsigned cpu_workers() const { return cpu_workers_; }
  Clock::time_point t0() const { return t0_; }
  // The writer's loop: f(result) for each result in order, to the last; false where the job
  // stopped instead (an error, which run() rethrows).
  template <typename F>
  bool in_order(F&& f) {
    for (;;) {
      std::optional<Out> next = job.next_in_order();
      if (!next) return !job.stopped();
      f(*next);
    }
  }
  // The writer's progress report (bytes read, bytes written), at most every 0.25 s.
  void progress(std::uint64_t in, std::uint64_t out) {
    if (!o_.on_progress || since(last_progress_) < 0.25) return;
    last_progress_ = Clock::now();
    report(in, out);
  }
  // A report now (the last one, at the end).
  void report(std::uint64_t in, std::uint64_t out) const {
    if (o_.on_progress) o_.on_progress({in, out, since(t0_)});
  }
  // The GPUs' manager (manage_gpus) over this job.
  void manage(const std::function<void(int, const GpuPlan&)>& work, const std::function<void()>& cpu_worker,
              const std::function<GpuNeeds()>& needs, unsigned lanes, bool threads_per_lane, std::size_t batches_in_flight,
              bool gpus_expected, std::optional<PipeJoin> join = std::nullopt, const std::function<std::uint64_t()>& bytes_read = {}) {
    manage_gpus(job, o_, st, stats_m, t0_, work, cpu_worker, needs, lanes, threads_per_lane, batches_in_flight, gpus_expected,
                join, bytes_read);
  }
  // Runs the reader, the CPU workers, the GPUs' manager and the writer to the end (run_threads).
  Stats run(const std::function<void()>& reader, const std::function<void()>& cpu_worker, const std::function<void()>& gpu_manager,
            const std::function<void()>& writer) {
    run_threads(job, o_, st, cpu_workers_, reader, cpu_worker, gpu_manager, writer);
    st.seconds = since(t0_);
    return st;
  }

 private:
  const Clock::time_point t0_;
  const Options& o_;
  const unsigned cpu_workers_;
  Clock::time_point last_progress_ = Clock::now();
};

}  // namespace parcomp::engine::detail
