#pragma once
// Pods held at Permit (kube-scheduler's waitingPodsMap and waitingPod).
//
// When a Permit plugin answers Wait, the framework adds the pod here with
// the plugins that asked to wait, each with its own timeout (at most
// kMaxPermitWait). The pod stays assumed on its node (it holds its
// resources) until it is settled, once:
//   - allowed: every waiting plugin called WaitingPod::Allow;
//   - rejected: any caller called WaitingPod::Reject, or a plugin's timeout
//     passed ("rejected due to timeout after waiting 10s at plugin P", kube's
//     words). The outcome is Unschedulable with the rejecting plugin's name.
// Nothing blocks while a pod waits: the binding cycle Parks a continuation,
// which runs once on whichever thread settles the pod (the caller of Allow
// or Reject, or the clock's alarm thread for a timeout).
//
// Thread-safety: every method may be called from any thread, including from
// inside a plugin's extension point and from a Park continuation.

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/time/clock.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/status.h"

namespace berth::scheduler {

// kube's maxTimeout: a Permit plugin's wait is cut to this.
inline constexpr std::chrono::milliseconds kMaxPermitWait = std::chrono::minutes(15);

class WaitingPods;

// One pod waiting at Permit. Handed out as shared_ptr: a holder may call
// Allow or Reject after the pod was settled (and left the map), which then
// changes nothing.
class WaitingPod {
 public:
  const PodInfoPtr& GetPod() const { return pod_; }
  // The plugins that have not allowed the pod yet, in Permit's order; empty
  // once the pod is settled.
  std::vector<std::string> GetPendingPlugins() const;
  // `plugin` allows the pod (its timer stops). When it was the last pending
  // plugin the pod is allowed. A plugin not pending changes nothing.
  void Allow(std::string_view plugin);
  // Rejects the pod: Unschedulable with `message`, failed plugin `plugin`
  // ("" for none). Nothing once settled.
  void Reject(std::string_view plugin, std::string message);
  // Whether the pod was allowed or rejected.
  bool settled() const;

  // Built by WaitingPods::Add only.
  WaitingPod(WaitingPods* owner, PodInfoPtr pod) : owner_(owner), pod_(std::move(pod)) {}

 private:
  friend class WaitingPods;
  struct Pending {
    std::string plugin;
    api::Clock::time_point deadline;
    std::chrono::milliseconds timeout;
  };
  // Settles the pod with `outcome` unless it is settled; runs the parked
  // continuation, if any, outside the lock.
  void Settle(PluginStatus outcome);
  // The timer of `plugin` set for `deadline` fired.
  void TimeOut(const std::string& plugin, api::Clock::time_point deadline);

  WaitingPods* const owner_;
  const PodInfoPtr pod_;
  mutable std::mutex mu_;
  std::vector<Pending> pending_;              // guarded by mu_
  std::optional<PluginStatus> outcome_;       // guarded by mu_; set once
  std::function<void(PluginStatus)> resume_;  // guarded by mu_; the parked continuation
};

// The waiting pods of a scheduler (every profile's), by pod uid, and their
// timers: one deadline per waiting plugin, all served by one alarm of the
// clock (so a FakeClock's Step fires them in tests).
class WaitingPods {
 public:
  // REQUIRES: `clock` outlives this.
  explicit WaitingPods(api::Clock& clock);
  // Pods still waiting are left unsettled: call RejectAll first to run their
  // continuations. REQUIRES: no continuation is running.
  ~WaitingPods();
  WaitingPods(const WaitingPods&) = delete;
  WaitingPods& operator=(const WaitingPods&) = delete;

  // `pod` waits for each of `plugins` (name, timeout; a timeout above
  // kMaxPermitWait is cut to it, a negative one counts as zero). Rejects and
  // replaces a pod of the same uid. REQUIRES: `plugins` is not empty.
  std::shared_ptr<WaitingPod> Add(
      PodInfoPtr pod,
      const std::vector<std::pair<std::string, std::chrono::milliseconds>>& plugins);
  // The pod with `uid` (settled or not, until its outcome is collected by
  // Park), or nullptr.
  std::shared_ptr<WaitingPod> Get(std::string_view uid) const;
  // Calls `callback` with each pod in the map (a copy of the list taken
  // first: the callback may Allow, Reject and read the map).
  void Iterate(const std::function<void(WaitingPod&)>& callback) const;
  // Rejects the pod with `uid` (kube's RejectWaitingPod: no plugin, the
  // message "removed"); false when no such pod waits.
  bool Reject(std::string_view uid, std::string message = "removed");
  // Rejects every pod with `message` (the scheduler stops).
  void RejectAll(const std::string& message);
  // The binding cycle's side (kube's WaitOnPermit, without blocking). The
  // outcome of the pod with `uid` now (Success when it is not waiting), or
  // nullopt: the pod is still waiting and `resume` will be called once with
  // the outcome, on the thread that settles it. The pod leaves the map when
  // its outcome is collected either way.
  std::optional<PluginStatus> Park(std::string_view uid, std::function<void(PluginStatus)> resume);
  // Pods in the map.
  size_t size() const;

 private:
  friend class WaitingPod;
  struct Timer {
    api::Clock::time_point deadline;
    std::weak_ptr<WaitingPod> pod;
    std::string plugin;
    bool operator>(const Timer& other) const { return deadline > other.deadline; }
  };
  // Removes `pod` from the map if it is the entry of its uid.
  void Remove(const WaitingPod* pod);
  // The alarm's function: times out what is due, re-arms for the next timer.
  void Fire();

  api::Clock& clock_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<WaitingPod>> pods_;  // guarded by mu_; by uid
  // Every timer set and not yet due (an allowed plugin's stays until due and is ignored then).
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;  // guarded by mu_
  api::Clock::time_point armed_for_ = api::Clock::time_point::max();       // guarded by mu_
  std::unique_ptr<api::Clock::Alarm> alarm_;  // guarded by mu_; null once destruction began
};

}  // namespace berth::scheduler
