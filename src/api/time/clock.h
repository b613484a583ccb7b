#pragma once
// Where time comes from, for everything that waits or stamps: the work
// queues, the controllers, the scheduler's queue and the event recorders.
// Production code uses RealClock; tests inject a FakeClock and move time by
// hand, so delays fire exactly when due without sleeping.
//
// Two times: Now() is monotonic (delays, rate limits, expiry of in-memory
// state); WallNow() is the wall clock, for the RFC 3339 timestamps written into
// objects and compared with them (lease renewals, condition transitions), which
// a steady clock cannot serve.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace berth::api {

// Where delays get their time: RealClock is std::chrono::steady_clock;
// FakeClock moves only when a test steps it.
class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  // Calls a function once the clock reaches the time the alarm is set to.
  class Alarm {
   public:
    // When the destructor returns, the function is not running and never
    // will. REQUIRES: not called from the function itself.
    virtual ~Alarm() = default;
    // Arms the alarm for `deadline`, replacing the previous setting; the
    // function then runs once, at or after `deadline`. A deadline already past
    // fires as soon as the clock looks (RealClock: at once; FakeClock: at the
    // next Step).
    virtual void Set(time_point deadline) = 0;
  };

  virtual ~Clock() = default;
  virtual time_point Now() const = 0;
  // The wall-clock time. The default is std::chrono::system_clock::now().
  virtual std::chrono::system_clock::time_point WallNow() const {
    return std::chrono::system_clock::now();
  }
  // `fire` runs one call at a time, on a thread that holds none of the
  // caller's locks (it may take them, and may Set its alarm again).
  virtual std::unique_ptr<Alarm> NewAlarm(std::function<void()> fire) = 0;
};

// std::chrono::steady_clock. Each alarm has a thread of its own, started
// when the alarm is first Set.
class RealClock final : public Clock {
 public:
  // Stateless, so one is shared.
  static RealClock& Instance();
  time_point Now() const override { return std::chrono::steady_clock::now(); }
  std::unique_ptr<Alarm> NewAlarm(std::function<void()> fire) override;
};

// Time stands still until Step moves it. Step runs every alarm that came due,
// earliest first, on the caller's thread before it returns: after
// clock.Step(d) the keys due by then are in the queue, with no sleep and no
// race. WallNow() is the wall time at construction (or `wall_start`) plus what
// Step moved, so wall and steady time advance together. Thread-safe.
// REQUIRES: outlives its alarms (the queues using it).
class FakeClock final : public Clock {
 public:
  FakeClock() : wall_start_(std::chrono::system_clock::now()) {}
  explicit FakeClock(time_point start)
      : now_(start), start_(start), wall_start_(std::chrono::system_clock::now()) {}
  FakeClock(time_point start, std::chrono::system_clock::time_point wall_start)
      : now_(start), start_(start), wall_start_(wall_start) {}

  time_point Now() const override;
  std::chrono::system_clock::time_point WallNow() const override;
  std::unique_ptr<Alarm> NewAlarm(std::function<void()> fire) override;

  // Advances the time by `by` (>= 0) and fires the alarms now due.
  void Step(std::chrono::nanoseconds by);
  // The earliest deadline an alarm is armed for; nullopt when none is armed.
  std::optional<time_point> NextAlarm() const;

 private:
  struct AlarmState;
  class FakeAlarm;

  mutable std::mutex mu_;
  time_point now_{std::chrono::hours(1)};  // guarded by mu_
  const time_point start_{std::chrono::hours(1)};
  const std::chrono::system_clock::time_point wall_start_;
  std::vector<std::shared_ptr<AlarmState>> alarms_;  // guarded by mu_
};

// Calls `tick` every `period` of `clock`'s time, the first time one period
// after construction, each next one a period after the last returned, until
// destroyed. `tick` runs on the clock's alarm thread (FakeClock: inside Step).
// The destructor returns once `tick` is not running and never will again.
// REQUIRES: `clock` outlives the ticker; period > 0; not destroyed from `tick`.
class Ticker {
 public:
  Ticker(Clock& clock, std::chrono::nanoseconds period, std::function<void()> tick);
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

 private:
  Clock& clock_;
  const std::chrono::nanoseconds period_;
  const std::function<void()> tick_;
  std::mutex mu_;
  std::unique_ptr<Clock::Alarm> alarm_;  // guarded by mu_; the destructor takes it out
};

}  // namespace berth::api
