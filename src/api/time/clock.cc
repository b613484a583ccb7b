#include "api/time/clock.h"

#include <algorithm>
#include <condition_variable>
#include <thread>

namespace berth::api {

namespace {

// An alarm with its own thread, started at the first Set.
class SteadyAlarm final : public Clock::Alarm {
 public:
  explicit SteadyAlarm(std::function<void()> fire) : fire_(std::move(fire)) {}

  ~SteadyAlarm() override {
    std::thread thread;
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      thread.swap(thread_);
    }
    cv_.notify_all();
    if (thread.joinable()) thread.join();
  }

  void Set(Clock::time_point deadline) override {
    std::lock_guard lock(mu_);
    deadline_ = deadline;
    armed_ = true;
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
    cv_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      if (!armed_) {
        cv_.wait(lock);
      } else if (std::chrono::steady_clock::now() < deadline_) {
        cv_.wait_until(lock, deadline_);
      } else {
        armed_ = false;
        lock.unlock();
        fire_();
        lock.lock();
      }
    }
  }

  const std::function<void()> fire_;
  std::mutex mu_;
  std::condition_variable cv_;
  Clock::time_point deadline_;  // guarded by mu_
  bool armed_ = false;          // guarded by mu_
  bool stop_ = false;           // guarded by mu_
  std::thread thread_;          // guarded by mu_
};

}  // namespace

RealClock& RealClock::Instance() {
  static RealClock clock;
  return clock;
}

std::unique_ptr<Clock::Alarm> RealClock::NewAlarm(std::function<void()> fire) {
  return std::make_unique<SteadyAlarm>(std::move(fire));
}

// One alarm's state, shared by the alarm and, while it fires, by Step.
struct FakeClock::AlarmState {
  explicit AlarmState(std::function<void()> f) : fire(std::move(f)) {}
  const std::function<void()> fire;
  std::mutex run_mu;      // held while `fire` runs, so that ~FakeAlarm waits for it
  bool removed = false;   // guarded by run_mu
  bool armed = false;     // guarded by the clock's mu_
  time_point deadline{};  // guarded by the clock's mu_
};

class FakeClock::FakeAlarm final : public Clock::Alarm {
 public:
  FakeAlarm(FakeClock& clock, std::shared_ptr<AlarmState> state)
      : clock_(clock), state_(std::move(state)) {}

  ~FakeAlarm() override {
    {
      std::lock_guard lock(clock_.mu_);
      std::erase(clock_.alarms_, state_);
    }
    std::lock_guard run(state_->run_mu);  // a Step may be firing it right now
    state_->removed = true;
  }

  void Set(time_point deadline) override {
    std::lock_guard lock(clock_.mu_);
    state_->deadline = deadline;
    state_->armed = true;
  }

 private:
  FakeClock& clock_;
  const std::shared_ptr<AlarmState> state_;
};

Clock::time_point FakeClock::Now() const {
  std::lock_guard lock(mu_);
  return now_;
}

std::chrono::system_clock::time_point FakeClock::WallNow() const {
  std::lock_guard lock(mu_);
  return wall_start_ +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(now_ - start_);
}

std::unique_ptr<Clock::Alarm> FakeClock::NewAlarm(std::function<void()> fire) {
  auto state = std::make_shared<AlarmState>(std::move(fire));
  {
    std::lock_guard lock(mu_);
    alarms_.push_back(state);
  }
  return std::make_unique<FakeAlarm>(*this, std::move(state));
}

void FakeClock::Step(std::chrono::nanoseconds by) {
  {
    std::lock_guard lock(mu_);
    now_ += by;
  }
  // One alarm at a time, earliest first, without mu_ (its function may Set
  // alarms); an alarm set again for a time already past fires in this loop too.
  for (;;) {
    std::shared_ptr<AlarmState> due;
    {
      std::lock_guard lock(mu_);
      for (const auto& alarm : alarms_) {
        if (alarm->armed && alarm->deadline <= now_ && (!due || alarm->deadline < due->deadline)) {
          due = alarm;
        }
      }
      if (!due) return;
      due->armed = false;
    }
    std::lock_guard run(due->run_mu);
    if (!due->removed) due->fire();
  }
}

std::optional<Clock::time_point> FakeClock::NextAlarm() const {
  std::lock_guard lock(mu_);
  std::optional<time_point> next;
  for (const auto& alarm : alarms_) {
    if (alarm->armed && (!next || alarm->deadline < *next)) next = alarm->deadline;
  }
  return next;
}

Ticker::Ticker(Clock& clock, std::chrono::nanoseconds period, std::function<void()> tick)
    : clock_(clock), period_(period), tick_(std::move(tick)) {
  auto alarm = clock_.NewAlarm([this] {
    tick_();
    std::lock_guard lock(mu_);
    if (alarm_) alarm_->Set(clock_.Now() + period_);
  });
  std::lock_guard lock(mu_);
  alarm_ = std::move(alarm);
  alarm_->Set(clock_.Now() + period_);
}

Ticker::~Ticker() {
  std::unique_ptr<Clock::Alarm> alarm;
  {
    std::lock_guard lock(mu_);
    alarm = std::move(alarm_);
  }
  alarm.reset();  // waits for a tick under way
}

}  // namespace berth::api
