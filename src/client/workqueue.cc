#include "client/workqueue.h"

#include <algorithm>
#include <cmath>

namespace berth::client {

RealClock& RealClock::Instance() {
  static RealClock clock;
  return clock;
}

Clock::time_point FakeClock::Now() const {
  std::lock_guard lock(mu_);
  return now_;
}

void FakeClock::WaitUntil(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, time_point deadline) {
  if (Now() >= deadline) return;
  cv.wait_for(lock, std::chrono::milliseconds(1));
}

void FakeClock::Step(std::chrono::nanoseconds by) {
  std::lock_guard lock(mu_);
  now_ += by;
}

RateLimiter::RateLimiter(Options options, Clock& clock)
    : options_(options), clock_(clock), tokens_(options.burst), last_(clock.Now()) {}

std::chrono::nanoseconds RateLimiter::When(const std::string& key) {
  std::lock_guard lock(mu_);
  // Per key: base * 2^failures, capped.
  int failures = failures_[key]++;
  double backoff = static_cast<double>(options_.base_delay.count()) * std::pow(2.0, std::min(failures, 62));
  auto per_key = std::chrono::nanoseconds(
      static_cast<int64_t>(std::min(backoff, static_cast<double>(options_.max_delay.count()))));
  // Overall: a token bucket; a negative balance is a reservation in the future.
  auto now = clock_.Now();
  double elapsed = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  tokens_ = std::min<double>(options_.burst, tokens_ + elapsed * options_.qps);
  tokens_ -= 1;
  std::chrono::nanoseconds bucket{0};
  if (tokens_ < 0) bucket = std::chrono::nanoseconds(static_cast<int64_t>(-tokens_ / options_.qps * 1e9));
  return std::max(per_key, bucket);
}

void RateLimiter::Forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

int RateLimiter::NumRequeues(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

WorkQueue::WorkQueue(std::string name, metrics::Registry* registry, Options options)
    : name_(std::move(name)),
      clock_(options.clock ? *options.clock : RealClock::Instance()),
      limiter_(options.rate_limiter, clock_) {
  if (registry) {
    depth_ = &registry->AddGauge("workqueue_depth", "Current depth of workqueue", {"name"}).WithLabels({name_});
    adds_ = &registry->AddCounter("workqueue_adds_total", "Total number of adds handled by workqueue", {"name"})
                 .WithLabels({name_});
    retries_ = &registry->AddCounter("workqueue_retries_total", "Total number of retries handled by workqueue", {"name"})
                    .WithLabels({name_});
    auto buckets = metrics::ExponentialBuckets(1e-8, 10, 10);
    queue_duration_ = &registry
                           ->AddHistogram("workqueue_queue_duration_seconds",
                                          "How long in seconds an item stays in workqueue before being requested.",
                                          buckets, {"name"})
                           .WithLabels({name_});
    work_duration_ = &registry
                          ->AddHistogram("workqueue_work_duration_seconds",
                                         "How long in seconds processing an item from workqueue takes.", buckets,
                                         {"name"})
                          .WithLabels({name_});
  }
  delay_thread_ = std::thread([this] { DelayLoop(); });
}

WorkQueue::~WorkQueue() {
  ShutDown();
  if (delay_thread_.joinable()) delay_thread_.join();
}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_ || dirty_.count(key)) return;
  if (adds_) adds_->Increment();
  dirty_.insert(key);
  added_at_.emplace(key, clock_.Now());
  if (processing_.count(key)) return;  // queued again by Done
  queue_.push_back(key);
  if (depth_) depth_->Set(static_cast<double>(queue_.size()));
  cv_.notify_one();
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard lock(mu_);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, std::chrono::nanoseconds delay) {
  if (delay.count() <= 0) return Add(key);
  {
    std::lock_guard lock(mu_);
    if (shutting_down_) return;
  }
  std::lock_guard lock(delay_mu_);
  auto due = clock_.Now() + delay;
  auto it = due_.find(key);
  if (it != due_.end()) {
    if (it->second <= due) return;  // an earlier add is already waiting
    auto range = delayed_.equal_range(it->second);
    for (auto d = range.first; d != range.second; ++d) {
      if (d->second == key) {
        delayed_.erase(d);
        break;
      }
    }
  }
  due_[key] = due;
  delayed_.emplace(due, key);
  delay_cv_.notify_one();
}

void WorkQueue::AddRateLimited(const std::string& key) {
  if (retries_) retries_->Increment();
  AddAfter(key, limiter_.When(key));
}

void WorkQueue::DelayLoop() {
  std::unique_lock lock(delay_mu_);
  while (!delay_stop_) {
    auto now = clock_.Now();
    std::vector<std::string> ready;
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
      ready.push_back(delayed_.begin()->second);
      due_.erase(delayed_.begin()->second);
      delayed_.erase(delayed_.begin());
    }
    if (!ready.empty()) {
      lock.unlock();
      for (const auto& key : ready) Add(key);
      lock.lock();
      continue;
    }
    if (delayed_.empty()) {
      delay_cv_.wait(lock, [this] { return delay_stop_ || !delayed_.empty(); });
    } else {
      clock_.WaitUntil(delay_cv_, lock, delayed_.begin()->first);
    }
  }
}

bool WorkQueue::Get(std::string* key) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return !queue_.empty() || shutting_down_; });
  if (queue_.empty()) return false;
  *key = std::move(queue_.front());
  queue_.pop_front();
  if (depth_) depth_->Set(static_cast<double>(queue_.size()));
  processing_.insert(*key);
  dirty_.erase(*key);
  auto now = clock_.Now();
  if (auto it = added_at_.find(*key); it != added_at_.end()) {
    if (queue_duration_) queue_duration_->Observe(std::chrono::duration<double>(now - it->second).count());
    added_at_.erase(it);
  }
  started_at_[*key] = now;
  return true;
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard lock(mu_);
  processing_.erase(key);
  if (auto it = started_at_.find(key); it != started_at_.end()) {
    if (work_duration_) work_duration_->Observe(std::chrono::duration<double>(clock_.Now() - it->second).count());
    started_at_.erase(it);
  }
  if (dirty_.count(key)) {
    queue_.push_back(key);
    if (depth_) depth_->Set(static_cast<double>(queue_.size()));
    cv_.notify_one();
  }
}

void WorkQueue::ShutDown() {
  {
    std::lock_guard lock(mu_);
    shutting_down_ = true;
  }
  cv_.notify_all();
  {
    std::lock_guard lock(delay_mu_);
    delay_stop_ = true;
  }
  delay_cv_.notify_all();
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

size_t WorkQueue::Len() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

}  // namespace berth::client
