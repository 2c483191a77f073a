#include "parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <vector>

namespace parcomp::detail {

namespace {

struct Job {
  std::size_t blocks = 0;
  const std::function<void(std::size_t)>* body = nullptr;
  std::atomic<std::size_t> next{0};
  std::mutex error_m;
  std::exception_ptr error;
  unsigned wanted = 0;  // helpers still wanted (the pool's mutex)
  unsigned active = 0;  // helpers working on it (the pool's mutex)
  bool urgent = false;
  std::condition_variable helpers_done;

  // A helper (yield_to: the pool's count of urgent calls waiting) leaves a call that is not urgent
  // after its current block when an urgent one waits; the caller finishes what is left.
  void work(const std::atomic<unsigned>* yield_to = nullptr) {
    try {
      for (std::size_t b = next++; b < blocks;) {
        (*body)(b);
        if (yield_to != nullptr && !urgent && yield_to->load(std::memory_order_relaxed) > 0) return;
        b = next++;
      }
    } catch (...) {
      const std::lock_guard lock(error_m);
      if (!error) error = std::current_exception();
      next = blocks;
    }
  }
};

class Pool {
 public:
  static Pool& get() {
    static Pool pool;
    return pool;
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() {
    {
      const std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void run(Job& j, unsigned helpers, bool urgent) {
    if (helpers > 0 && !threads_.empty()) {
      {
        const std::lock_guard lock(m_);
        j.wanted = helpers;
        j.urgent = urgent;
        if (urgent) {
          queue_.push_front(&j);
          ++urgent_waiting_;
        } else {
          queue_.push_back(&j);
        }
      }
      if (helpers == 1) cv_.notify_one();
      else cv_.notify_all();
    }
    j.work();
    std::unique_lock lock(m_);
    // No helper joins from now on; wait for those that did.
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (*it == &j) {
        queue_.erase(it);
        if (j.urgent) --urgent_waiting_;
        break;
      }
    j.helpers_done.wait(lock, [&] { return j.active == 0; });
  }

 private:
  Pool() {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency()) - 1;
    threads_.reserve(n);
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { loop(); });
  }
  void loop() {
    std::unique_lock lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      Job* j = queue_.front();
      if (--j->wanted == 0) {
        queue_.pop_front();
        if (j->urgent) --urgent_waiting_;
      }
      ++j->active;
      lock.unlock();
      j->work(&urgent_waiting_);
      lock.lock();
      if (--j->active == 0) j->helpers_done.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Job*> queue_;
  std::atomic<unsigned> urgent_waiting_{0};  // urgent calls in the queue (changed under m_)
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

}  // namespace

void run_parallel(std::size_t blocks, unsigned helpers, const std::function<void(std::size_t)>& body, bool urgent) {
  Job j;
  j.blocks = blocks;
  j.body = &body;
  Pool::get().run(j, helpers, urgent);
  if (j.error) std::rethrow_exception(j.error);
}

}  // namespace parcomp::detail
