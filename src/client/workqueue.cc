#include "client/workqueue.h"

#include <algorithm>

namespace berth::client {

namespace {

double Seconds(api::Clock::time_point::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

// The queue's metrics, in one table: client-go's names, help texts and buckets.
struct WorkQueue::QueueMetrics {
  QueueMetrics(metrics::Registry& r, const std::string& name)
      : registry(r),
        depth(r.AddGauge("workqueue_depth", "[ALPHA] Current depth of workqueue", {"name"}).WithLabels({name})),
        adds(r.AddCounter("workqueue_adds_total", "[ALPHA] Total number of adds handled by workqueue", {"name"})
                 .WithLabels({name})),
        retries(r.AddCounter("workqueue_retries_total", "[ALPHA] Total number of retries handled by workqueue",
                             {"name"})
                    .WithLabels({name})),
        queue_duration(
            r.AddHistogram("workqueue_queue_duration_seconds",
                           "[ALPHA] How long in seconds an item stays in workqueue before being requested.",
                           Buckets(), {"name"})
                .WithLabels({name})),
        work_duration(r.AddHistogram("workqueue_work_duration_seconds",
                                     "[ALPHA] How long in seconds processing an item from workqueue takes.",
                                     Buckets(), {"name"})
                          .WithLabels({name})),
        unfinished(r.AddGauge("workqueue_unfinished_work_seconds",
                              "[ALPHA] How many seconds of work has done that is in progress and hasn't been "
                              "observed by work_duration. Large values indicate stuck threads. One can deduce the "
                              "number of stuck threads by observing the rate at which this increases.",
                              {"name"})
                       .WithLabels({name})),
        longest(r.AddGauge("workqueue_longest_running_processor_seconds",
                           "[ALPHA] How many seconds has the longest running processor for workqueue been running.",
                           {"name"})
                    .WithLabels({name})) {}
  // client-go's: 10 ns to 10 s by factors of ten.
  static std::vector<double> Buckets() { return metrics::ExponentialBuckets(1e-8, 10, 10); }

  metrics::Registry& registry;
  metrics::Gauge& depth;
  metrics::Counter& adds;
  metrics::Counter& retries;
  metrics::Histogram& queue_duration;
  metrics::Histogram& work_duration;
  // Computed from the keys being processed when the registry renders (client-go
  // updates them every 500 ms; a scrape-time value is never older).
  metrics::Gauge& unfinished;
  metrics::Gauge& longest;
  uint64_t refresh_id = 0;
};

WorkQueue::WorkQueue(std::string name, metrics::Registry* registry, Options options)
    : name_(std::move(name)),
      clock_(options.clock ? *options.clock : api::RealClock::Instance()),
      limiter_(options.rate_limiter, clock_) {
  if (registry) {
    metrics_ = std::make_unique<QueueMetrics>(*registry, name_);
    metrics_->refresh_id = registry->AddRefresh([this] { UpdateProcessingMetrics(); });
  }
  alarm_ = clock_.NewAlarm([this] { AddDueKeys(); });
}

void WorkQueue::UpdateProcessingMetrics() {
  std::lock_guard lock(mu_);
  const auto now = clock_.Now();
  double total = 0, longest = 0;
  for (const auto& [key, since] : processing_) {
    const double seconds = Seconds(now - since);
    total += seconds;
    longest = std::max(longest, seconds);
  }
  metrics_->unfinished.Set(total);
  metrics_->longest.Set(longest);
}

WorkQueue::~WorkQueue() {
  if (metrics_) metrics_->registry.RemoveRefresh(metrics_->refresh_id);
  std::unique_ptr<api::Clock::Alarm> alarm;
  {
    std::lock_guard lock(mu_);
    ShutDownLocked();
    alarm = std::move(alarm_);
  }
  // Waits for an AddDueKeys that is running; it finds nothing delayed, so it
  // does not touch the alarm.
  alarm.reset();
}

void WorkQueue::UpdateDepthLocked() {
  if (metrics_) metrics_->depth.Set(static_cast<double>(waiting_.size()));
}

void WorkQueue::AddLocked(const std::string& key, api::Clock::time_point now) {
  if (shutting_down_) return;
  if (!waiting_.emplace(key, now).second) return;  // already waiting: collapses
  if (metrics_) metrics_->adds.Increment();
  UpdateDepthLocked();
  if (processing_.count(key)) return;  // dirty: Done queues it
  queue_.push_back(key);
  ready_cv_.notify_one();
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard lock(mu_);
  AddLocked(key, clock_.Now());
}

void WorkQueue::AddAfter(const std::string& key, std::chrono::nanoseconds delay) {
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  ScheduleLocked(key, delay);
  // Counted once scheduled: whoever sees the count sees the alarm set.
  if (metrics_) metrics_->retries.Increment();
}

void WorkQueue::ScheduleLocked(const std::string& key, std::chrono::nanoseconds delay) {
  auto now = clock_.Now();
  if (delay.count() <= 0) return AddLocked(key, now);
  auto due = now + delay;
  auto [it, inserted] = delayed_at_.try_emplace(key, due, next_arrival_);
  if (!inserted) {
    if (it->second.first <= due) return;  // an earlier add is already waiting
    delayed_.erase({it->second.first, it->second.second, key});
    it->second = {due, next_arrival_};
  }
  delayed_.emplace(due, next_arrival_++, key);
  if (std::get<0>(*delayed_.begin()) == due) alarm_->Set(due);  // a new earliest
}

void WorkQueue::AddRateLimited(const std::string& key) { AddAfter(key, limiter_.When(key)); }

void WorkQueue::AddDueKeys() {
  std::lock_guard lock(mu_);
  auto now = clock_.Now();
  while (!delayed_.empty() && std::get<0>(*delayed_.begin()) <= now) {
    auto node = delayed_.extract(delayed_.begin());
    const std::string& key = std::get<2>(node.value());
    delayed_at_.erase(key);
    AddLocked(key, now);
  }
  if (!delayed_.empty()) alarm_->Set(std::get<0>(*delayed_.begin()));
}

bool WorkQueue::Get(std::string* key) {
  std::unique_lock lock(mu_);
  ready_cv_.wait(lock, [this] { return !queue_.empty() || shutting_down_; });
  if (queue_.empty()) return false;
  *key = std::move(queue_.front());
  queue_.pop_front();
  auto now = clock_.Now();
  if (auto it = waiting_.find(*key); it != waiting_.end()) {
    if (metrics_) metrics_->queue_duration.Observe(Seconds(now - it->second));
    waiting_.erase(it);
  }
  processing_.emplace(*key, now);
  UpdateDepthLocked();
  return true;
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = processing_.find(key);
  if (it == processing_.end()) return;
  if (metrics_) metrics_->work_duration.Observe(Seconds(clock_.Now() - it->second));
  processing_.erase(it);
  if (waiting_.count(key)) {
    queue_.push_back(key);
    ready_cv_.notify_one();
  } else if (processing_.empty() && queue_.empty()) {
    drained_cv_.notify_all();
  }
}

void WorkQueue::ShutDownLocked() {
  shutting_down_ = true;
  delayed_.clear();
  delayed_at_.clear();
  ready_cv_.notify_all();
}

void WorkQueue::ShutDown() {
  std::lock_guard lock(mu_);
  ShutDownLocked();
  draining_ = false;
  drained_cv_.notify_all();
}

void WorkQueue::ShutDownWithDrain() {
  std::unique_lock lock(mu_);
  ShutDownLocked();
  draining_ = true;
  drained_cv_.wait(lock, [this] { return !draining_ || (queue_.empty() && processing_.empty()); });
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
