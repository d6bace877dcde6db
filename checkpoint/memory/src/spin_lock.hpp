#pragma once
// The lock of the small tables the interposed calls keep (files, descriptors, units, dlopen
// requests, System V ids): no allocation and no pthread, so it works inside malloc, before libc
// is fully up and in a process that is half restored. Held only for a few loads and stores.
#include <atomic>

namespace yadokari::memory {

class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire))
      while (flag_.load(std::memory_order_relaxed)) {
      }
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

class SpinGuard {
 public:
  explicit SpinGuard(SpinLock& lock) : lock_(lock) { lock_.lock(); }
  ~SpinGuard() { lock_.unlock(); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  SpinLock& lock_;
};

}  // namespace yadokari::memory
