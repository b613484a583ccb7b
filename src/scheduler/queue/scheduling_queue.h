#pragma once
// kube-scheduler's scheduling queue: activeQ ordered by the QueueSort
// plugin; backoffQ holding pods that failed until their backoff (initial ×
// 2^(attempts−1), capped) expires; and the unschedulable pool, whose pods go
// back when a cluster event may have made them schedulable, or after
// `max_unschedulable` at the latest. Gated pods (PreEnqueue said no) wait for
// their next update.
//
// A pod's way through the queue:
//
//   Add ──▶ activeQ ──Pop──▶ in flight ──Done──▶ (bound: gone)
//     │        ▲                │
//     │        │                ├─ failed, error ─────▶ backoffQ ──backoff over──▶ activeQ
//     │        │                └─ failed, no node fits ▶ unschedulable pool
//     │        │                        │ a cluster event that may help (backoff first),
//     │        └────────────────────────┘ or max_unschedulable
//     └─ PreEnqueue says no ─▶ gated ──the pod's next update──▶ activeQ
//
// Every pod is in at most one place, and a popped pod is "in flight" until
// Done: an update or delete that arrives meanwhile is remembered, so no pod is
// lost or handed out twice. Thread-safe; Pop blocks.
//
// As kube-scheduler since 1.33 (SchedulerPopFromBackoffQ, on by default):
// when no pod is active, Pop takes the pod whose backoff ends first rather
// than leave the scheduler idle; pods backing off after an error are not
// taken early. Options::pop_from_backoff = false restores the strict wait.
//
// A pod may be held (Hold): it is not retried, whatever happens, until
// Release — kube's DefaultPreemption keeps a preemptor out of the queue
// while its victims are being evicted.
//
// Time (timestamps, backoff, the unschedulable timeout) comes from an
// api::Clock. The queue reads it and sets no alarm: a Pop that waits
// re-reads the clock when woken, at least once a second of real time. With
// a FakeClock, tests pop with a deadline of clock.Now() rather than block.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/time/clock.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class SchedulingQueue {
 public:
  using Clock = api::Clock;
  struct Options {
    std::chrono::milliseconds initial_backoff{1000};
    std::chrono::milliseconds max_backoff{10000};
    std::chrono::milliseconds max_unschedulable{5 * 60 * 1000};
    // nullptr: api::RealClock. REQUIRES: outlives the queue.
    const Clock* clock = nullptr;
    // When set, the active queue orders pods by this key instead of calling
    // Less (see QueueSortPlugin::HasSortKey). REQUIRES: the same order as Less.
    std::function<QueueSortKey(const QueuedPodInfo&)> sort_key;
    // Pop takes a backing-off pod (not one backing off after an error) when
    // no pod is active (kube's SchedulerPopFromBackoffQ).
    bool pop_from_backoff = true;
    // Called (under the queue's lock) each time a pod enters a queue:
    // `queue` active, backoff, unschedulable or gated; `event` what moved it
    // (kube's scheduler_queue_incoming_pods_total labels: PodAdd, PodUpdate,
    // ScheduleAttemptFailure, BackoffComplete, UnschedulableTimeout,
    // ForceActivate, or the cluster event's label given to
    // MoveAllToActiveOrBackoff: NodeAdd, NodeTaintChange, AssignedPodDelete, …).
    std::function<void(std::string_view queue, std::string_view event)> on_incoming;
  };
  using Less = std::function<bool(const QueuedPodInfo&, const QueuedPodInfo&)>;
  // Whether the pod may enter the active queue (PreEnqueue plugins).
  using Admit = std::function<bool(const PodInfo&)>;

  SchedulingQueue(Less less, Admit admit, Options options);

  // A new pending pod.
  void Add(PodInfoPtr pod);
  // A pending pod changed: it replaces the queued version; a gated or
  // unschedulable pod is retried (through backoff if still backing off).
  void Update(PodInfoPtr pod);
  // The pod was deleted or bound by someone else.
  void Delete(const std::string& key);

  // Blocks until a pod is active (and marks it in flight), or returns nullopt
  // once the queue is closed or `deadline` (on the queue's clock) passes.
  std::optional<QueuedPodInfo> Pop(Clock::time_point deadline = Clock::time_point::max());
  // The attempt for `info` failed. Unschedulable (rejected by plugins) goes to
  // the unschedulable pool, unless a cluster event arrived while it was in
  // flight; errors go to backoff. Ends the in-flight state.
  void Requeue(QueuedPodInfo info, bool unschedulable);
  // The attempt succeeded (the pod is assumed/bound): ends the in-flight state.
  void Done(const std::string& key);

  // Holds the pod (normally in flight): when its attempt ends, and until
  // Release, it waits with the gated pods and nothing moves it.
  void Hold(const std::string& key);
  // Ends the hold: a waiting pod goes to backoff or active (in flight: its
  // Requeue then proceeds as usual). No-op for unknown pods.
  void Release(const std::string& key);

  // A cluster event (node added or changed, pod deleted...) that may make
  // unschedulable pods schedulable: they move to backoff or active.
  // `event`: the event's label, kube's (cluster_events.h); REQUIRES: it
  // lives as long as the queue (a literal).
  // `except_key`: a pod left where it is (kube's preCheck excluding the pod
  // whose rejected binding freed the room); `max_priority`: only pods of
  // this priority or lower move (kube's preCheck when a nomination, which
  // only such pods respect, goes away).
  void MoveAllToActiveOrBackoff(std::string_view event, std::string_view except_key = {},
                                std::optional<int32_t> max_priority = std::nullopt);

  void Close();

  struct Counts {
    size_t active = 0, backoff = 0, unschedulable = 0, gated = 0, in_flight = 0;
  };
  Counts counts() const;
  // Pods queued or in flight.
  size_t size() const;
  // The pod with `key` as the queue holds it (its latest update, attempts and
  // the plugins that last rejected it), wherever it waits, gated or in flight;
  // nullopt when the queue does not hold it (or it was deleted in flight).
  std::optional<QueuedPodInfo> Find(const std::string& key) const;

  // The unschedulable pool's pods counted by (plugin that rejected them,
  // profile): a pod counts once for each of its plugins.
  std::map<std::pair<std::string, std::string>, size_t> UnschedulableByPlugin() const;

 private:
  enum class Where : unsigned char { kActive, kBackoff, kUnschedulable, kGated, kInFlight };
  struct Entry {
    QueuedPodInfo info;
    Where where;
    uint64_t seq = 0;  // matches the heap element that is current
    Clock::time_point backoff_expiry;
    Clock::time_point unschedulable_since;
    uint64_t move_cycle_at_pop = 0;
    bool error_backoff = false;  // backing off after an error, not a rejection
    bool held = false;           // Hold without Release yet
    bool deleted_in_flight = false;
    PodInfoPtr updated_in_flight;
  };
  struct HeapItem {
    std::string key;
    uint64_t seq;
    // What the sort compares, as it was when pushed (the entry may be gone):
    // the sort key when the queue has one (Options::sort_key), else the pod.
    QueueSortKey sort_key;
    std::shared_ptr<const QueuedPodInfo> info;
  };

  void Add(PodInfoPtr pod, std::string_view event);
  void Incoming(std::string_view queue);  // REQUIRES: mu_ held
  void PushActive(Entry& e);   // REQUIRES: mu_ held
  void PushBackoff(Entry& e);  // REQUIRES: mu_ held
  // Marks `e` (active) in flight and returns what Pop hands out. REQUIRES: mu_ held.
  QueuedPodInfo HandOut(Entry& e);
  // The valid entry at the top of `heap` (stale items dropped), or nullptr. REQUIRES: mu_ held.
  Entry* TopOf(std::vector<std::pair<Clock::time_point, HeapItem>>& heap);
  void ToActiveOrBackoff(Entry& e, Clock::time_point now);  // REQUIRES: mu_ held
  void FlushLocked(Clock::time_point now);  // REQUIRES: mu_ held
  Clock::time_point BackoffExpiry(const QueuedPodInfo& info) const;
  bool ActiveLess(const HeapItem& a, const HeapItem& b) const;  // heap order (max-heap by priority)

  Less less_;
  Admit admit_;
  Options options_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool closed_ = false;                            // guarded by mu_
  uint64_t next_seq_ = 0;                          // guarded by mu_
  uint64_t move_cycle_ = 0;                        // guarded by mu_
  Clock::time_point last_unschedulable_scan_;      // guarded by mu_
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
  std::vector<HeapItem> active_;                    // guarded by mu_; heap, stale items skipped
  // Min-heaps by expiry (stale items skipped): pods rejected by plugins, and
  // pods that failed with an error (never popped before their backoff ends).
  std::vector<std::pair<Clock::time_point, HeapItem>> backoff_;        // guarded by mu_
  std::vector<std::pair<Clock::time_point, HeapItem>> error_backoff_;  // guarded by mu_
  Counts counts_;                                   // guarded by mu_
  std::string_view event_ = "PodAdd";               // guarded by mu_; what the current move is
};

}  // namespace berth::scheduler
