#include "scheduler/queue/scheduling_queue.h"

#include <algorithm>

namespace berth::scheduler {

namespace {

size_t& CountOf(SchedulingQueue::Counts& c, int where) {
  switch (where) {
    case 0:
      return c.active;
    case 1:
      return c.backoff;
    case 2:
      return c.unschedulable;
    case 3:
      return c.gated;
    default:
      return c.in_flight;
  }
}

}  // namespace

SchedulingQueue::SchedulingQueue(Less less, Admit admit, Options options)
    : less_(std::move(less)),
      admit_(std::move(admit)),
      options_(std::move(options)),
      clock_(options_.clock ? *options_.clock : api::RealClock::Instance()) {}

bool SchedulingQueue::ActiveLess(const HeapItem& a, const HeapItem& b) const {
  // std heaps are max-heaps: the "largest" leaves first, so invert the sort.
  if (options_.sort_key) return b.sort_key < a.sort_key;
  return less_(*b.info, *a.info);
}

void SchedulingQueue::PushActive(Entry& e) {
  CountOf(counts_, static_cast<int>(e.where))--;
  e.where = Where::kActive;
  counts_.active++;
  Incoming("active");
  e.seq = ++next_seq_;
  if (options_.sort_key) {
    active_.push_back({e.info.pod->key, e.seq, options_.sort_key(e.info), nullptr});
  } else {
    active_.push_back({e.info.pod->key, e.seq, {}, std::make_shared<const QueuedPodInfo>(e.info)});
  }
  std::push_heap(active_.begin(), active_.end(), [this](const HeapItem& a, const HeapItem& b) {
    return ActiveLess(a, b);
  });
  cv_.notify_one();
}

namespace {
bool ExpiresLater(const auto& a, const auto& b) { return a.first > b.first; }
}  // namespace

void SchedulingQueue::PushBackoff(Entry& e) {
  CountOf(counts_, static_cast<int>(e.where))--;
  e.where = Where::kBackoff;
  counts_.backoff++;
  Incoming("backoff");
  e.seq = ++next_seq_;
  auto& heap = e.error_backoff ? error_backoff_ : backoff_;
  heap.push_back({e.backoff_expiry, {e.info.pod->key, e.seq, {}, nullptr}});
  std::push_heap(heap.begin(), heap.end(), [](const auto& a, const auto& b) { return ExpiresLater(a, b); });
  cv_.notify_one();  // a waiting Pop must recompute its deadline (or take it)
}

SchedulingQueue::Entry* SchedulingQueue::TopOf(std::vector<std::pair<Clock::time_point, HeapItem>>& heap) {
  while (!heap.empty()) {
    const HeapItem& item = heap.front().second;
    auto it = entries_.find(item.key);
    if (it != entries_.end() && it->second.seq == item.seq && it->second.where == Where::kBackoff) return &it->second;
    std::pop_heap(heap.begin(), heap.end(), [](const auto& a, const auto& b) { return ExpiresLater(a, b); });
    heap.pop_back();
  }
  return nullptr;
}

QueuedPodInfo SchedulingQueue::HandOut(Entry& e) {
  CountOf(counts_, static_cast<int>(e.where))--;
  counts_.in_flight++;
  e.where = Where::kInFlight;
  e.info.attempts++;
  e.move_cycle_at_pop = move_cycle_;
  return e.info;
}

SchedulingQueue::Clock::time_point SchedulingQueue::BackoffExpiry(const QueuedPodInfo& info) const {
  auto backoff = options_.initial_backoff;
  for (int i = 1; i < info.attempts && backoff < options_.max_backoff; ++i) backoff *= 2;
  backoff = std::min(backoff, options_.max_backoff);
  return info.timestamp + backoff;
}

void SchedulingQueue::ToActiveOrBackoff(Entry& e, Clock::time_point now) {
  if (e.held || !admit_(*e.info.pod)) {
    CountOf(counts_, static_cast<int>(e.where))--;
    e.where = Where::kGated;
    counts_.gated++;
    Incoming("gated");
    return;
  }
  if (e.info.attempts > 0 && e.backoff_expiry > now) {
    PushBackoff(e);
  } else {
    PushActive(e);
  }
}

void SchedulingQueue::Add(PodInfoPtr pod) {
  Add(std::move(pod), "PodAdd");
}

void SchedulingQueue::Add(PodInfoPtr pod, std::string_view event) {
  std::lock_guard lock(mu_);
  if (closed_) return;
  event_ = event;
  auto now = clock_.Now();
  auto [it, inserted] = entries_.try_emplace(pod->key);
  Entry& e = it->second;
  if (!inserted) {
    if (e.where == Where::kInFlight) {
      e.updated_in_flight = std::move(pod);
      return;
    }
    e.info.pod = std::move(pod);
    ToActiveOrBackoff(e, now);
    return;
  }
  e.info.pod = std::move(pod);
  e.info.timestamp = now;
  e.info.initial_attempt = now;
  e.where = Where::kGated;
  counts_.gated++;
  ToActiveOrBackoff(e, now);
}

namespace {

// Whether an update changed what scheduling reads: a status-only update (such
// as the scheduler's own PodScheduled=False) must not retry the pod.
bool SchedulingInputsChanged(const api::Object& before, const api::Object& after) {
  auto member = [](const api::Object& o, std::string_view key) -> const boost::json::value* {
    return o.json().if_contains(key);
  };
  const boost::json::value* sb = member(before, "spec");
  const boost::json::value* sa = member(after, "spec");
  if ((sb == nullptr) != (sa == nullptr) || (sb && *sb != *sa)) return true;
  if (before.labels() != after.labels()) return true;
  return false;
}

}  // namespace

void SchedulingQueue::Update(PodInfoPtr pod) {
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(pod->key);
    if (it != entries_.end() && it->second.where != Where::kInFlight && it->second.where != Where::kActive &&
        !SchedulingInputsChanged(*it->second.info.pod->object, *pod->object)) {
      it->second.info.pod = std::move(pod);
      return;
    }
  }
  Add(std::move(pod), "PodUpdate");
}

void SchedulingQueue::Delete(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  if (it->second.where == Where::kInFlight) {
    it->second.deleted_in_flight = true;
    return;
  }
  CountOf(counts_, static_cast<int>(it->second.where))--;
  entries_.erase(it);  // heap items for it are now stale
}

void SchedulingQueue::FlushLocked(Clock::time_point now) {
  event_ = "BackoffComplete";
  for (auto* heap : {&backoff_, &error_backoff_}) {
    while (Entry* e = TopOf(*heap)) {
      if (heap->front().first > now) break;
      std::pop_heap(heap->begin(), heap->end(), [](const auto& a, const auto& b) { return ExpiresLater(a, b); });
      heap->pop_back();
      PushActive(*e);
    }
  }
  // The unschedulable pool's timeout needs no finer grain than a second.
  if (counts_.unschedulable == 0 || now - last_unschedulable_scan_ < std::chrono::seconds(1)) return;
  last_unschedulable_scan_ = now;
  event_ = "UnschedulableTimeout";
  for (auto& [key, e] : entries_) {
    if (e.where == Where::kUnschedulable && now - e.unschedulable_since >= options_.max_unschedulable) {
      ToActiveOrBackoff(e, now);
    }
  }
}

std::optional<QueuedPodInfo> SchedulingQueue::Pop(Clock::time_point deadline) {
  std::unique_lock lock(mu_);
  auto heap_less = [this](const HeapItem& a, const HeapItem& b) { return ActiveLess(a, b); };
  while (true) {
    if (closed_) return std::nullopt;
    auto now = clock_.Now();
    FlushLocked(now);
    while (!active_.empty()) {
      std::pop_heap(active_.begin(), active_.end(), heap_less);
      HeapItem item = std::move(active_.back());
      active_.pop_back();
      auto it = entries_.find(item.key);
      if (it == entries_.end() || it->second.seq != item.seq || it->second.where != Where::kActive) continue;
      return HandOut(it->second);
    }
    // Nothing active: the pod whose backoff ends first, rather than nothing.
    if (options_.pop_from_backoff) {
      if (Entry* e = TopOf(backoff_)) {
        std::pop_heap(backoff_.begin(), backoff_.end(), [](const auto& a, const auto& b) { return ExpiresLater(a, b); });
        backoff_.pop_back();
        return HandOut(*e);
      }
    }
    if (now >= deadline) return std::nullopt;
    // Sleep until the next backoff expiry (or at most a second, for the
    // unschedulable pool's timeout), the deadline, or a notification.
    auto wake = std::min(deadline, now + std::chrono::seconds(1));
    if (!backoff_.empty()) wake = std::min(wake, backoff_.front().first);
    if (!error_backoff_.empty()) wake = std::min(wake, error_backoff_.front().first);
    // A wait for a duration, not until a time point: the point is on the
    // queue's clock, which need not be steady_clock.
    cv_.wait_for(lock, wake - now);
  }
}

void SchedulingQueue::Requeue(QueuedPodInfo info, bool unschedulable) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(info.pod->key);
  if (it == entries_.end() || it->second.where != Where::kInFlight) return;
  Entry& e = it->second;
  if (e.deleted_in_flight) {
    counts_.in_flight--;
    entries_.erase(it);
    return;
  }
  auto now = clock_.Now();
  event_ = "ScheduleAttemptFailure";
  e.info = std::move(info);
  e.info.timestamp = now;
  e.backoff_expiry = BackoffExpiry(e.info);
  e.error_backoff = !unschedulable;
  if (e.held) {
    if (e.updated_in_flight) e.info.pod = std::move(e.updated_in_flight);
    e.updated_in_flight.reset();
    counts_.in_flight--;
    e.where = Where::kGated;
    counts_.gated++;
    return;
  }
  if (e.updated_in_flight) {
    e.info.pod = std::move(e.updated_in_flight);
    e.updated_in_flight.reset();
    ToActiveOrBackoff(e, now);
    return;
  }
  if (unschedulable && e.move_cycle_at_pop == move_cycle_) {
    counts_.in_flight--;
    e.where = Where::kUnschedulable;
    counts_.unschedulable++;
    Incoming("unschedulable");
    e.unschedulable_since = now;
    return;
  }
  PushBackoff(e);
}

void SchedulingQueue::Done(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.where != Where::kInFlight) return;
  counts_.in_flight--;
  entries_.erase(it);
}

void SchedulingQueue::Hold(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  Entry& e = it->second;
  e.held = true;
  if (e.where == Where::kInFlight || e.where == Where::kGated) return;
  // Queued (not the usual case): out of every heap until Release.
  CountOf(counts_, static_cast<int>(e.where))--;
  e.where = Where::kGated;
  counts_.gated++;
}

void SchedulingQueue::Release(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || !it->second.held) return;
  Entry& e = it->second;
  e.held = false;
  event_ = "ForceActivate";
  if (e.where == Where::kGated) ToActiveOrBackoff(e, clock_.Now());
}

void SchedulingQueue::MoveAllToActiveOrBackoff(std::string_view event, std::string_view except_key,
                                               std::optional<int32_t> max_priority) {
  std::lock_guard lock(mu_);
  ++move_cycle_;
  if (counts_.unschedulable == 0) return;
  event_ = event;
  auto now = clock_.Now();
  for (auto& [key, e] : entries_) {
    if (e.where != Where::kUnschedulable || key == except_key) continue;
    if (max_priority && e.info.pod->view->priority > *max_priority) continue;
    ToActiveOrBackoff(e, now);
  }
}

void SchedulingQueue::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

void SchedulingQueue::Incoming(std::string_view queue) {
  if (options_.on_incoming) options_.on_incoming(queue, event_);
}

std::map<std::pair<std::string, std::string>, size_t> SchedulingQueue::UnschedulableByPlugin() const {
  std::map<std::pair<std::string, std::string>, size_t> out;
  std::lock_guard lock(mu_);
  if (counts_.unschedulable == 0) return out;
  for (const auto& [key, e] : entries_) {
    if (e.where != Where::kUnschedulable) continue;
    for (const auto& plugin : e.info.unschedulable_plugins) ++out[{plugin, e.info.pod->view->scheduler_name}];
  }
  return out;
}

SchedulingQueue::Counts SchedulingQueue::counts() const {
  std::lock_guard lock(mu_);
  return counts_;
}

size_t SchedulingQueue::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

std::optional<QueuedPodInfo> SchedulingQueue::Find(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.deleted_in_flight) return std::nullopt;
  QueuedPodInfo info = it->second.info;
  if (it->second.updated_in_flight) info.pod = it->second.updated_in_flight;
  return info;
}

}  // namespace berth::scheduler
