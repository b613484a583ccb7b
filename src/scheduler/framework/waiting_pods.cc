#include "scheduler/framework/waiting_pods.h"

#include <algorithm>

#include "api/time/duration.h"

namespace berth::scheduler {

std::vector<std::string> WaitingPod::GetPendingPlugins() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  out.reserve(pending_.size());
  for (const Pending& p : pending_) out.push_back(p.plugin);
  return out;
}

bool WaitingPod::settled() const {
  std::lock_guard lock(mu_);
  return outcome_.has_value();
}

void WaitingPod::Allow(std::string_view plugin) {
  {
    std::lock_guard lock(mu_);
    if (outcome_) return;
    auto it = std::find_if(pending_.begin(), pending_.end(),
                           [&](const Pending& p) { return p.plugin == plugin; });
    if (it == pending_.end()) return;
    pending_.erase(it);
    if (!pending_.empty()) return;
  }
  Settle(PluginStatus::Success());
}

void WaitingPod::Reject(std::string_view plugin, std::string message) {
  Settle(PluginStatus::Unschedulable(std::move(message)).WithPlugin(plugin));
}

void WaitingPod::TimeOut(const std::string& plugin, api::Clock::time_point deadline) {
  std::chrono::milliseconds timeout{};
  {
    std::lock_guard lock(mu_);
    if (outcome_) return;
    auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) {
      return p.plugin == plugin && p.deadline == deadline;
    });
    if (it == pending_.end()) return;  // allowed meanwhile
    timeout = it->timeout;
  }
  Reject(plugin, "rejected due to timeout after waiting " + api::FormatGoDuration(timeout) +
                     " at plugin " + plugin);
}

void WaitingPod::Settle(PluginStatus outcome) {
  std::function<void(PluginStatus)> resume;
  {
    std::lock_guard lock(mu_);
    if (outcome_) return;
    outcome_ = outcome;
    pending_.clear();
    resume = std::move(resume_);
    resume_ = nullptr;
  }
  // Parked: the outcome is collected here, so the pod leaves the map now.
  if (resume) {
    owner_->Remove(this);
    resume(std::move(outcome));
  }
}

WaitingPods::WaitingPods(api::Clock& clock) : clock_(clock) {
  alarm_ = clock_.NewAlarm([this] { Fire(); });
}

WaitingPods::~WaitingPods() {
  // Taken out under the lock (the alarm's own Fire reads it), then destroyed
  // outside it: that waits for a running Fire, which takes the lock.
  std::unique_ptr<api::Clock::Alarm> alarm;
  {
    std::lock_guard lock(mu_);
    alarm.swap(alarm_);
  }
  alarm.reset();
}

std::shared_ptr<WaitingPod> WaitingPods::Add(
    PodInfoPtr pod, const std::vector<std::pair<std::string, std::chrono::milliseconds>>& plugins) {
  auto waiting = std::make_shared<WaitingPod>(this, std::move(pod));
  const api::Clock::time_point now = clock_.Now();
  std::vector<Timer> timers;
  {
    // No other thread knows the pod yet; the lock keeps the analysis simple.
    std::lock_guard lock(waiting->mu_);
    for (const auto& [plugin, asked] : plugins) {
      const std::chrono::milliseconds timeout =
          std::clamp(asked, std::chrono::milliseconds(0), kMaxPermitWait);
      waiting->pending_.push_back({plugin, now + timeout, timeout});
      timers.push_back({now + timeout, waiting, plugin});
    }
  }
  std::shared_ptr<WaitingPod> replaced;
  {
    std::lock_guard lock(mu_);
    std::shared_ptr<WaitingPod>& entry = pods_[waiting->pod_->uid()];
    replaced = std::move(entry);
    entry = waiting;
    for (Timer& t : timers) timers_.push(std::move(t));
    if (alarm_ && !timers_.empty() && timers_.top().deadline < armed_for_) {
      armed_for_ = timers_.top().deadline;
      alarm_->Set(armed_for_);
    }
  }
  // Never expected (a pod is in one cycle at a time), but a continuation
  // parked on a replaced pod must still run: settle it.
  if (replaced) replaced->Reject("", "replaced by a newer wait of the same pod");
  return waiting;
}

std::shared_ptr<WaitingPod> WaitingPods::Get(std::string_view uid) const {
  std::lock_guard lock(mu_);
  auto it = pods_.find(std::string(uid));
  return it == pods_.end() ? nullptr : it->second;
}

void WaitingPods::Iterate(const std::function<void(WaitingPod&)>& callback) const {
  std::vector<std::shared_ptr<WaitingPod>> pods;
  {
    std::lock_guard lock(mu_);
    pods.reserve(pods_.size());
    for (const auto& [uid, pod] : pods_) pods.push_back(pod);
  }
  for (const auto& pod : pods) callback(*pod);
}

bool WaitingPods::Reject(std::string_view uid, std::string message) {
  std::shared_ptr<WaitingPod> pod = Get(uid);
  if (!pod) return false;
  pod->Reject("", std::move(message));
  return true;
}

void WaitingPods::RejectAll(const std::string& message) {
  Iterate([&](WaitingPod& pod) { pod.Reject("", message); });
}

std::optional<PluginStatus> WaitingPods::Park(std::string_view uid,
                                              std::function<void(PluginStatus)> resume) {
  std::shared_ptr<WaitingPod> pod = Get(uid);
  if (!pod) return PluginStatus::Success();
  std::optional<PluginStatus> outcome;
  {
    std::lock_guard lock(pod->mu_);
    if (!pod->outcome_) {
      pod->resume_ = std::move(resume);
      return std::nullopt;
    }
    outcome = *pod->outcome_;
  }
  Remove(pod.get());
  return outcome;
}

size_t WaitingPods::size() const {
  std::lock_guard lock(mu_);
  return pods_.size();
}

void WaitingPods::Remove(const WaitingPod* pod) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(pod->pod_->uid());
  if (it != pods_.end() && it->second.get() == pod) pods_.erase(it);
}

void WaitingPods::Fire() {
  std::vector<Timer> due;
  {
    std::lock_guard lock(mu_);
    const api::Clock::time_point now = clock_.Now();
    while (!timers_.empty() && timers_.top().deadline <= now) {
      due.push_back(timers_.top());
      timers_.pop();
    }
    armed_for_ = timers_.empty() ? api::Clock::time_point::max() : timers_.top().deadline;
    if (alarm_ && !timers_.empty()) alarm_->Set(armed_for_);
  }
  for (const Timer& t : due) {
    if (std::shared_ptr<WaitingPod> pod = t.pod.lock()) pod->TimeOut(t.plugin, t.deadline);
  }
}

}  // namespace berth::scheduler
