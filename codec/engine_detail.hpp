// The engine's machinery shared by its jobs (codec/engine.cpp: parcomp streams; codec/engine_bz2.cpp:
// .bz2): the work queue with flow control, the threads, the GPU start-up. Internal to the engine.
#pragma once

#include "engine.hpp"

#include "codec/common/errors.hpp"
#include "cpu_codec.hpp"
#include "gpu_warmup.hpp"
#include "kernels/common/cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
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

// Large buffers handed back for reuse (ours): a fresh one of tens of MB takes its page faults
// on every use, on the host threads that bound a run (the .bz2 reader's chunks, the .bz2 GPU
// batches' run-length buffers, the parcomp format's GPU output vectors). Up to `keep` are kept;
// take(need) hands out the last given back whose size_of is `need` or more; a buffer given back
// when `keep` are kept replaces the smallest of them if it is larger (else it is dropped).
template <typename T>
class Spares {
 public:
  Spares(std::size_t keep, std::function<std::size_t(const T&)> size_of) : keep_(keep), size_of_(std::move(size_of)) {}
  std::optional<T> take(std::size_t need = 0) {
    const std::lock_guard lock(m_);
    for (std::size_t k = kept_.size(); k-- > 0;)
      if (size_of_(kept_[k]) >= need) {
        T t = std::move(kept_[k]);
        kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(k));
        return t;
      }
    return std::nullopt;
  }
  void give_back(T t) {
    const std::lock_guard lock(m_);
    if (kept_.size() < keep_) {
      kept_.push_back(std::move(t));
      return;
    }
    if (kept_.empty()) return;
    auto smallest = std::min_element(kept_.begin(), kept_.end(), [&](const T& a, const T& b) { return size_of_(a) < size_of_(b); });
    if (size_of_(t) > size_of_(*smallest)) {
      kept_.erase(smallest);
      kept_.push_back(std::move(t));
    }
  }
  std::size_t kept() const {
    const std::lock_guard lock(m_);
    return kept_.size();
  }

 private:
  mutable std::mutex m_;
  std::vector<T> kept_;
  std::size_t keep_;
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
  // The blocks one GPU takes at a time (manage_gpus: the options' batch split among the GPUs that
  // started); 0 until then.
  std::size_t gpu_batch = 0;
  std::size_t gpu_batch_blocks(const Options& o) const { return gpu_batch != 0 ? gpu_batch : o.gpu_batch_blocks; }
  unsigned workers_running = 0;
  Trace* trace = nullptr;  // the options' timeline, if any
  // CPU workers beside the GPUs: once a GPU has taken its first batch (gpu_took_work), all but
  // cpu_beside_gpus of the CPU workers leave after the block they hold (cpu_may_claim).
  unsigned cpu_working = 0, cpu_beside_gpus = ~0u;
  bool gpu_working = false;

  void gpu_took_work() {
    const std::lock_guard lock(m);
    gpu_working = true;
  }
  // False: this CPU worker leaves now (and is no longer counted as working).
  bool cpu_may_claim() {
    const std::lock_guard lock(m);
    if (!gpu_working || cpu_working <= cpu_beside_gpus) return true;
    --cpu_working;
    return false;
  }

  void fail(std::exception_ptr e) {
    const std::lock_guard lock(m);
    if (!error) error = e;
    stop = true;
    cv.notify_all();
  }
  // Up to `max` consecutive items from the front. A GPU (wait_full) waits for a full batch while
  // the input is still coming. Empty: nothing left (or stopped).
  std::vector<Item> claim(std::size_t max, bool wait_full) {
    std::unique_lock lock(m);
    cv.wait(lock, [&] {
      // A GPU takes less than a batch where the reader waits for room (a cap below the batch:
      // --blocks-in-flight): no more blocks come until some are written.
      return stop || (input_done && pending.empty()) ||
             (!pending.empty() && (!wait_full || pending.size() >= max || input_done || read_blocks - written_blocks >= cap));
    });
    std::vector<Item> out;
    if (stop) return out;
    while (!pending.empty() && out.size() < max) {
      out.push_back(std::move(pending.front()));
      pending.pop_front();
    }
    traced_claim(out, wait_full ? "gpu" : "cpu");
    cv.notify_all();
    return out;
  }
  // A full batch (or the input's last items) if one is there now, else nothing: for a GPU that
  // holds a batch not yet published, which must not wait for items that only its own results
  // would make room for.
  std::vector<Item> try_claim(std::size_t max) {
    const std::lock_guard lock(m);
    std::vector<Item> out;
    if (stop || pending.empty() || (pending.size() < max && !input_done)) return out;
    while (!pending.empty() && out.size() < max) {
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
    done.emplace(first, std::move(r));
    for (std::uint64_t k = 0; k < blocks; ++k) traced_publish(first + k);
    cv.notify_all();
  }
  // The reader's flow control: wait while too many blocks are read and not yet written.
  bool wait_for_room() {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return stop || read_blocks - written_blocks < cap; });
    if (trace != nullptr) room_at_ = trace->now();
    return !stop;
  }
  void push(Item item) {
    const std::lock_guard lock(m);
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
    if (trace != nullptr) got_at_ = trace->now();
    return r;
  }
  void mark_written(std::uint64_t blocks) {
    const std::lock_guard lock(m);
    written_blocks += blocks;
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

 private:
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
void run_threads(J& job, const Options& o, unsigned cpu_workers, const std::function<void()>& reader,
                 const std::function<void()>& cpu_worker, const std::function<void()>& gpu_manager,
                 const std::function<void()>& writer) {
  std::vector<std::thread> threads;
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
  threads.emplace_back(guarded(reader));
  for (unsigned i = 0; i < cpu_workers; ++i)
    threads.emplace_back(guarded([&job, &cpu_worker] {
      cpu_worker();
      job.worker_exit();
    }));
  if (o.use_gpus)
    threads.emplace_back(guarded([&job, &gpu_manager] {
      gpu_manager();
      job.worker_exit();
    }));
  try {
    writer();
  } catch (...) {
    job.fail(std::current_exception());
  }
  for (auto& t : threads) t.join();
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
// second slot), and one being read. With two, the reader stopped until the GPU's batch was
// written, then read the next batch while the GPU waited: on an H200, 5 copies of the Linux
// tarball to .bz2 with --gpu took 150 ms a batch of 64 blocks, the reader busy half the time.
inline constexpr std::size_t kGpuBatchesInFlight = 3;
// The parcomp format's lanes per GPU (Options::gpu_lanes); a lane more holds one batch more and
// its own device buffers. On 25 copies of the Linux tarball (H100 host, 716105d, --gpu, wall and
// peak RSS) compression took 12.88 s, 7.56 s, 6.18 s and 5.61 s with 1 to 4 lanes (0.48 to 0.99
// GB), decompression 9.77 s, 9.39 s, 9.58 s and 9.03 s; by default (CPU workers too) 11.40 s and
// 6.07 s with one lane, 6.06 s (1.26 GB) and 4.47 s (1.04 GB) with four.
inline constexpr unsigned kGpuLanes = 4;
inline unsigned gpu_lanes(const Options& o) { return o.gpu_lanes != 0 ? o.gpu_lanes : kGpuLanes; }
// The parcomp format's CPU workers that keep taking blocks once a GPU works (Options::
// cpu_beside_gpus): none. On 25 copies of the Linux tarball (H100 host, 270a546, 16 threads, 4
// lanes) decompression took 4.95 s with all 16 beside the GPU and 3.20 s with --gpu: the CPU
// workers (37 ms a block) took the host threads that the lanes' host work and the writer need.
// They still work while CUDA starts, and on every block when no GPU does.
inline constexpr unsigned kCpuBesideGpus = 0;
inline unsigned cpu_beside_gpus(const Options& o) { return o.cpu_beside_gpus >= 0 ? static_cast<unsigned>(o.cpu_beside_gpus) : kCpuBesideGpus; }
inline std::size_t gpu_batches_in_flight(const Options& o) { return kGpuBatchesInFlight - 1 + gpu_lanes(o); }
// Options::gpu_batch_blocks are the blocks the GPUs take at a time all together: with G GPUs each
// takes a G-th of them (kMinGpuBatch at least), so that the blocks in flight, and the host memory
// that holds them, stay what one GPU holds. Each GPU adding a whole batch's room took 25 copies of
// the Linux tarball to peak RSS of 3.22 GB (.bz2 compression) and 2.88 GB (.bz2 decompression) on
// two H100s (32 host threads, 21f474f), against 1.91 and 1.51 GB with one: #18's bound is 2 GB.
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

// .bz2's workers (engine_bz2.cpp's bz2_workers): --gpu's GPUs, or by default an input of known
// size from bz2_gpu_from_bytes on; a smaller or unknown one, or --threads, the CPU workers.
inline bool bz2_may_use_gpus(const Options& o) {
  return o.use_gpus && (o.require_gpu || (o.cpu_threads < 0 && o.input_bytes > 0 && o.input_bytes >= o.bz2_gpu_from_bytes));
}

// Stats::peak_device_bytes: the memory in use on the current device now (every lane's and any
// other process's), kept if it is the largest seen.
inline void record_device_peak(Stats& st, std::mutex& stats_m) {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return;
  const std::lock_guard lock(stats_m);
  st.peak_device_bytes = std::max<std::uint64_t>(st.peak_device_bytes, total_b - free_b);
}

// The GPU side of a job: starts the warm-up of the options' devices (gpu_warmup.hpp; all when
// none are named) and runs work(device) on `lanes` threads of each device as soon as that device
// is ready, so that a GPU whose context comes first does not wait for another's; unless the job
// runs out of work first (then a GPU not yet ready is not waited for). The batch is split among
// the devices asked for that exist, from the first GPU on (gpu_batch_per_device).
// batches_in_flight: how many of its batches a GPU's worker holds at once (the reader's room
// grows by that many batches per GPU). With gpus_expected (--gpu, or .bz2 by the input's size) the
// room for one GPU is there from the start, so that the reader fills the first batches during
// CUDA's start-up (0.2-0.3 s on the H200 host, when the reader used to stop after 4 blocks).
// True: a GPU started (its work ran); false: none did.
template <typename J>
bool manage_gpus(J& job, const Options& o, Stats& st, std::mutex& stats_m, Clock::time_point t0,
                 const std::function<void(int)>& work, std::size_t batches_in_flight = kGpuBatchesInFlight,
                 bool gpus_expected = false, unsigned lanes = 1) {
  gpu_warmup::start(o.devices);
  std::size_t room_for = 0;  // GPUs whose batches the reader's room already holds
  if (o.max_blocks_in_flight == 0 && (o.require_gpu || gpus_expected)) {
    const std::lock_guard lock(job.m);
    job.cap += batches_in_flight * o.gpu_batch_blocks;
    room_for = 1;
    job.cv.notify_all();
  }
  const double cuda_from = o.trace != nullptr ? o.trace->now() : 0.0;
  std::vector<int> wanted, handled, launched;  // devices asked for that exist; those seen done; those working
  bool counted = false;
  std::string why_none;
  std::vector<std::thread> threads;
  const auto launch = [&](int d, double ready_s) {
    if (launched.empty()) {
      {
        const std::lock_guard lock(stats_m);
        st.first_gpu_ready_s = since(t0);
      }
      const std::lock_guard lock(job.m);
      job.gpu_batch = gpu_batch_per_device(o, wanted.size());
      if (o.max_blocks_in_flight == 0) {  // room for every GPU's batches: one GPU's room, or more where the floor says
        const std::size_t has = batches_in_flight * o.gpu_batch_blocks * room_for, want = batches_in_flight * job.gpu_batch * wanted.size();
        if (want > has) job.cap += want - has;
      }
      job.cv.notify_all();
    }
    launched.push_back(d);
    if (o.trace != nullptr) o.trace->add("cuda " + std::to_string(d), "CUDA start-up", cuda_from, o.trace->now(), 0);
    note(o, "GPU " + std::to_string(d) + " ready after " + std::to_string(ready_s) + " s of CUDA start-up");
    for (unsigned lane = 0; lane < std::max(1u, lanes); ++lane)
      threads.emplace_back([&job, &work, d] {
        try {
          PARCOMP_CUDA_CHECK(cudaSetDevice(d));
          work(d);
        } catch (...) {
          job.fail(std::current_exception());
        }
      });
  };
  const auto join = [&] {
    for (auto& t : threads) t.join();
    threads.clear();
  };
  try {
    for (;;) {
      const gpu_warmup::State w = gpu_warmup::poll();
      if (w.counted && !counted) {
        counted = true;
        why_none = w.why_none;
        if (o.devices.empty()) {
          for (int d = 0; d < w.count; ++d) wanted.push_back(d);
        } else {
          for (const int d : o.devices) {
            if (d >= 0 && d < w.count) {
              if (std::find(wanted.begin(), wanted.end(), d) == wanted.end()) wanted.push_back(d);
              continue;
            }
            note(o, "GPU " + std::to_string(d) + " is not available");
            if (o.require_gpu) throw ContractError("--gpu: device " + std::to_string(d) + " is not available");
          }
          if (wanted.empty() && why_none.empty()) why_none = "none of the devices asked for";
        }
      }
      bool all_done = counted;
      for (const int d : wanted) {
        const gpu_warmup::Device* e = w.find(d);
        if (e == nullptr || !e->done) {
          all_done = false;
          continue;
        }
        if (std::find(handled.begin(), handled.end(), d) != handled.end()) continue;
        handled.push_back(d);
        if (e->ready) {
          launch(d, e->seconds);
          continue;
        }
        note(o, "GPU " + std::to_string(d) + " is not available (no context)");
        if (o.require_gpu && !o.devices.empty()) throw ContractError("--gpu: device " + std::to_string(d) + " is not available");
      }
      if (all_done) break;
      std::unique_lock lock(job.m);
      if (job.stop || (job.input_done && job.pending.empty())) {
        if (!launched.empty()) break;  // the GPUs that started finish the work; the others are not waited for
        if (o.require_gpu && !job.stop) {
          lock.unlock();
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          continue;  // --gpu: the work waits for the GPU
        }
        note(o, "GPUs not used: the input ended before CUDA was ready");
        return false;
      }
      job.cv.wait_for(lock, std::chrono::milliseconds(5));
    }
  } catch (...) {
    if (launched.empty()) throw;
    job.fail(std::current_exception());  // lanes are running: they stop, and the job reports it
  }
  join();
  if (launched.empty()) {
    const std::string why = why_none.empty() ? "no CUDA device could make a context" : why_none;
    note(o, "no GPU: " + why + "; the CPU workers do all the work");
    if (o.require_gpu) throw ContractError("--gpu: " + why);
    return false;
  }
  return true;
}

// When the GPUs were to do a job alone and none started: CPU workers on every hardware thread,
// run from the GPU manager's thread (which counts as a worker until they end).
template <typename J>
void cpu_fallback(J& job, const Options& o, Stats& st, std::mutex& stats_m, const std::function<void()>& cpu_worker) {
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  {
    const std::lock_guard lock(stats_m);
    st.cpu_workers = n;
  }
  if (o.max_blocks_in_flight == 0) {
    const std::lock_guard lock(job.m);
    job.cap = std::max(job.cap, flight_cap(o, n));
    job.cv.notify_all();
  }
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < n; ++i)
    threads.emplace_back([&job, &cpu_worker] {
      try {
        cpu_worker();
      } catch (...) {
        job.fail(std::current_exception());
      }
    });
  for (auto& t : threads) t.join();
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
    auto items = job.claim(1, false);
    if (items.empty()) return;
    job.publish(items[0].seq, work(items[0], ws));
  }
}

}  // namespace parcomp::engine::detail
