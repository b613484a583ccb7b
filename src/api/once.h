#pragma once
// Once: std::once_flag's job (run a function once, every caller returning
// after it has finished) without a system call when nobody waited.
//
// glibc's pthread_once, under std::call_once, wakes possible waiters with a
// futex call every time an initialisation finishes, waiters or not. Objects
// that lazily encode or parse themselves run their once per object, so that
// was a system call per created object on the API server's create path.
// Here the first caller marks the flag as running; a caller that finds it
// running marks that someone waits and sleeps on the atomic (C++20 wait); the
// one that ran the function wakes sleepers only when that mark is set.
//
// As with std::call_once: a function that throws leaves the flag as it was
// (the next caller runs it), and the exception reaches its caller.

#include <atomic>
#include <cstdint>
#include <utility>

namespace berth::api {

class Once {
 public:
  template <class F>
  void Call(F&& f) {
    if (state_.load(std::memory_order_acquire) != kDone) Slow(std::forward<F>(f));
  }

  bool done() const { return state_.load(std::memory_order_acquire) == kDone; }

 private:
  static constexpr uint32_t kIdle = 0, kRunning = 1, kRunningWaited = 2, kDone = 3;

  template <class F>
  void Slow(F&& f) {
    uint32_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      if (s == kDone) return;
      if (s == kIdle) {
        if (!state_.compare_exchange_weak(s, kRunning, std::memory_order_acquire)) continue;
        try {
          std::forward<F>(f)();
        } catch (...) {
          Finish(kIdle);
          throw;
        }
        Finish(kDone);
        return;
      }
      if (s == kRunning &&
          !state_.compare_exchange_weak(s, kRunningWaited, std::memory_order_acquire)) {
        continue;
      }
      state_.wait(kRunningWaited, std::memory_order_acquire);
      s = state_.load(std::memory_order_acquire);
    }
  }

  void Finish(uint32_t to) {
    if (state_.exchange(to, std::memory_order_acq_rel) == kRunningWaited) state_.notify_all();
  }

  std::atomic<uint32_t> state_{kIdle};
};

}  // namespace berth::api
