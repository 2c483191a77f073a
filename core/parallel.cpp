#include "parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include <pthread.h>

namespace parcomp {

void name_this_thread(const char* name) {
  const std::string n = std::string(name).substr(0, 15);  // the kernel keeps 15 and a NUL
  (void)pthread_setname_np(pthread_self(), n.c_str());
}

}  // namespace parcomp

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
  std::condition_variable helpers_done;

  void work() {
    try {
      for (std::size_t b = next++; b < blocks; b = next++) (*body)(b);
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

  void run(Job& j, unsigned helpers) {
    if (helpers > 0 && !threads_.empty()) {
      {
        const std::lock_guard lock(m_);
        j.wanted = helpers;
        queue_.push_back(&j);
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
        break;
      }
    j.helpers_done.wait(lock, [&] { return j.active == 0; });
  }

 private:
  Pool() {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency()) - 1;
    threads_.reserve(n);
    for (unsigned i = 0; i < n; ++i)
      threads_.emplace_back([this] {
        name_this_thread("parcomp-pool");
        loop();
      });
  }
  void loop() {
    std::unique_lock lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      // A job whose blocks are all taken needs no more helpers: the next one gets them at once.
      while (!queue_.empty() && queue_.front()->next.load(std::memory_order_relaxed) >= queue_.front()->blocks) queue_.pop_front();
      if (queue_.empty()) continue;
      Job* j = queue_.front();
      if (--j->wanted == 0) queue_.pop_front();
      ++j->active;
      lock.unlock();
      j->work();
      lock.lock();
      if (--j->active == 0) j->helpers_done.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<Job*> queue_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

}  // namespace

void run_parallel(std::size_t blocks, unsigned helpers, const std::function<void(std::size_t)>& body) {
  Job j;
  j.blocks = blocks;
  j.body = &body;
  Pool::get().run(j, helpers);
  if (j.error) std::rethrow_exception(j.error);
}

}  // namespace parcomp::detail
