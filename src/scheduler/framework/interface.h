#pragma once
// The scheduling framework's extension points, as in kube-scheduler
// (pkg/scheduler/framework/interface.go): a plugin implements the interfaces of
// the points it serves. Filter and Score are called concurrently for
// different nodes of one cycle, and by concurrent cycles, so they must be
// const and thread-safe; per-cycle data lives in the CycleState.

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include "api/labels.h"
#include "api/selector.h"
#include "api/status.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/snapshot.h"
#include "scheduler/framework/status.h"

namespace berth::metrics {
class Registry;
}

namespace berth::scheduler {

class WaitingPod;    // scheduler/framework/waiting_pods.h
class VolumeLister;  // scheduler/framework/volume_lister.h

inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;

// Data one plugin keeps for the rest of a cycle (written in PreFilter or PreScore).
class StateData {
 public:
  virtual ~StateData() = default;
  // A copy for CycleState::Clone (preemption's dry runs change copies).
  // nullptr (the default): the data is never changed after it is written, so
  // the copy shares it. A plugin whose PreFilter extensions (AddPod,
  // RemovePod) change its data must return a real copy.
  virtual std::unique_ptr<StateData> Clone() const { return nullptr; }
};

// Per-cycle state shared by the plugins of one cycle. Written only by the
// cycle's own thread (PreFilter, PreScore, Reserve...), read concurrently by
// Filter and Score.
class CycleState {
 public:
  explicit CycleState(const Snapshot* snapshot = nullptr) : snapshot_(snapshot) {}
  const Snapshot& snapshot() const { return *snapshot_; }
  void set_snapshot(const Snapshot* s) { snapshot_ = s; }

  void Write(std::string_view key, std::unique_ptr<StateData> data);
  // nullptr when absent.
  const StateData* Read(std::string_view key) const;
  template <typename T>
  const T* Get(std::string_view key) const {
    return static_cast<const T*>(Read(key));
  }
  // For PreFilter extensions, on a state they were given to change (a clone).
  template <typename T>
  T* GetMutable(std::string_view key) {
    return const_cast<T*>(static_cast<const T*>(Read(key)));
  }
  // A copy whose data can be changed without touching this state's: each
  // plugin's data is cloned (StateData::Clone) or, when it never changes,
  // shared. Same snapshot, same skip bits.
  std::unique_ptr<CycleState> Clone() const;
  // kube's PreFilterResult: a PreFilter plugin that knows the only nodes
  // the pod can run on names them; the framework keeps the intersection of
  // every such plugin's names, and Filter runs on those nodes only (the
  // others count as "node(s) didn't satisfy plugin(s) [NAMES]").
  void RestrictNodes(std::string_view plugin, std::vector<std::string> node_names);
  // The nodes left (sorted, unique); nullopt: every node.
  const std::optional<std::vector<std::string>>& node_restriction() const { return node_restriction_; }
  // The plugins that restricted the nodes, in the order they did.
  const std::vector<std::string>& restricting_plugins() const { return restricting_plugins_; }
  // Plugins whose PreFilter/PreScore returned Skip: their Filter/Score are
  // not called. By position in the profile's filter / score list (bit i).
  void SkipFilterAt(size_t index) { skip_filter_ |= uint64_t{1} << index; }
  void SkipScoreAt(size_t index) { skip_score_ |= uint64_t{1} << index; }
  bool FilterSkippedAt(size_t index) const { return skip_filter_ >> index & 1; }
  bool ScoreSkippedAt(size_t index) const { return skip_score_ >> index & 1; }
  // Whether this cycle's plugin durations are recorded (a share of cycles,
  // as kube's SetRecordPluginMetrics). Set before the cycle starts.
  void set_record_plugin_metrics(bool on, uint32_t node_phase = 0) {
    record_plugin_metrics_ = on;
    plugin_node_phase_ = node_phase;
  }
  bool record_plugin_metrics() const { return record_plugin_metrics_; }
  // Which share of the nodes' Filter and Score calls is timed (PluginDurations).
  uint32_t plugin_node_phase() const { return plugin_node_phase_; }

 private:
  const Snapshot* snapshot_;
  bool record_plugin_metrics_ = false;
  uint32_t plugin_node_phase_ = 0;
  std::vector<std::pair<std::string, std::shared_ptr<StateData>>> data_;
  uint64_t skip_filter_ = 0, skip_score_ = 0;
  std::optional<std::vector<std::string>> node_restriction_;
  std::vector<std::string> restricting_plugins_;
};

// A pod in the scheduling queue.
struct QueuedPodInfo {
  PodInfoPtr pod;
  // When the pod was added to the queue (PrioritySort's tie-breaker), and
  // when it first was: the start of its pod_scheduling_duration.
  std::chrono::steady_clock::time_point timestamp;
  std::chrono::steady_clock::time_point initial_attempt;
  int attempts = 0;
  // The plugins that rejected it last time (for queueing hints and messages).
  std::vector<std::string> unschedulable_plugins;
};

// A PodDisruptionBudget as preemption reads it.
struct DisruptionBudget {
  std::string namespace_name;
  std::string name;
  api::LabelSelector selector;          // an empty selector matches nothing here
  int32_t disruptions_allowed = 0;      // status.disruptionsAllowed
  std::vector<std::string> disrupted;   // status.disruptedPods' names, sorted
};

// The pods to evict on one node for the preemptor to fit.
struct PreemptionVictims {
  std::vector<PodInfoPtr> pods;  // most important first
  int64_t pdb_violations = 0;
};

// What plugins may use beyond their arguments. Implemented by the scheduler.
class Handle {
 public:
  virtual ~Handle() = default;
  // The labels of a namespace (for namespaceSelector), nullptr when unknown.
  // Shared, so a concurrent namespace update never changes what a cycle holds.
  virtual std::shared_ptr<const api::Labels> NamespaceLabels(std::string_view ns) const = 0;
  // Binds `pod` to `node` through the API (what POST pods/{name}/binding does).
  virtual Status BindPod(const api::Object& pod, const std::string& node) const = 0;

  // ---- for preemption (PostFilter plugins) ----
  // The PodDisruptionBudgets as the scheduler last saw them.
  virtual std::shared_ptr<const std::vector<DisruptionBudget>> DisruptionBudgets() const { return nullptr; }
  // The pods nominated to `node` (status.nominatedNodeName, or nominated by
  // this scheduler's preemption and not yet written back), and whether any
  // pod is nominated anywhere (so filters skip the look-up when none is).
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(const std::string& node) const { return {}; }
  // The same pods, each passed to `fn` (without copying the list; `fn` must
  // not call the handle's nomination methods).
  virtual void ForEachNominatedPod(const std::string& node, const std::function<void(const PodInfoPtr&)>& fn) const {
    for (const PodInfoPtr& p : NominatedPodsForNode(node)) fn(p);
  }
  virtual bool HasNominatedPods() const { return false; }
  // Evicts `victim` for `preemptor`: the DisruptionTarget condition, a
  // graceful delete and the Preempted event, as kube-scheduler does. The
  // scheduler sends them after the call returns (kube's asynchronous
  // preemption); an error here means the eviction could not even be started.
  virtual Status PreemptPod(const PodInfo& victim, const PodInfo& preemptor, const std::string& node) const {
    return Status::Internal("this scheduler cannot preempt");
  }
  // Whether `pod_key`'s eviction has been started and not yet seen to take
  // effect: preemption counts such a pod as gone already (choosing it again
  // would evict more than needed).
  virtual bool BeingEvicted(const std::string& pod_key) const { return false; }
  // The node this scheduler nominated `pod_key` to ("" when none), which the
  // pod's status.nominatedNodeName shows only once the write is seen back.
  virtual std::string NominatedNodeOf(const std::string& pod_key) const { return ""; }
  // Takes the nomination of each pod away (status.nominatedNodeName cleared).
  virtual void ClearNominatedNodeName(std::span<const PodInfo* const> pods) const {}
  // Seeded randomness for plugins (preemption's candidate offset): the same
  // seed gives the same sequence. Thread-safe.
  virtual uint64_t Random() const { return 0; }
  // kube's Parallelizer().Until: fn(i) for every i in [0, n), on the
  // scheduler's filter threads and the caller's; returns when all are done.
  // `fn` must be thread-safe. The default runs them in order on the caller.
  // `operation` (the calling plugin's name) labels the threads in
  // scheduler_goroutines, as kube labels them.
  virtual void Parallelize(size_t n, const std::function<void(size_t)>& fn, std::string_view operation) const {
    for (size_t i = 0; i < n; ++i) fn(i);
  }
  // Preemption's candidates (node, victims) through the scheduler extenders
  // that preempt and are interested in `pod`, in order: each may drop nodes
  // or change their victims. An error (from an extender that is not
  // ignorable) leaves `candidates` unspecified.
  virtual Status NarrowPreemptionCandidates(const PodInfo& pod, const Snapshot& snapshot,
                                            std::vector<std::pair<std::string, PreemptionVictims>>& candidates) const {
    return Status::Ok();
  }

  // ---- pods waiting at Permit (kube's Handle; see waiting_pods.h) ----
  // Each may be called from any thread, from any extension point (a
  // PostBind allowing a sibling, a Permit allowing the pods it completes).
  // Calls `callback` with every waiting pod (of every profile).
  virtual void IterateOverWaitingPods(const std::function<void(WaitingPod&)>& callback) const {}
  // The waiting pod with `uid`, or nullptr.
  virtual std::shared_ptr<WaitingPod> GetWaitingPod(std::string_view uid) const { return nullptr; }
  // Rejects the waiting pod with `uid` ("removed"); false when none waits.
  virtual bool RejectWaitingPod(std::string_view uid) const { return false; }

  // The scheduler's metrics, where a plugin may add its own families (they
  // appear on /metrics). nullptr: this handle keeps none. Thread-safe.
  virtual metrics::Registry* MetricsRegistry() const { return nullptr; }

  // ---- storage (the volume plugins) ----
  // The PVs, PVCs, StorageClasses and CSI objects the scheduler watches, and
  // the volume bindings assumed between Reserve and PreBind. nullptr: this
  // handle keeps none (the volume plugins then let every pod through).
  virtual VolumeLister* Volumes() const { return nullptr; }
  // Replaces a PersistentVolume / PersistentVolumeClaim (PUT, with the
  // object's resourceVersion as precondition: Conflict when it moved). Called
  // from PreBind, on a binding thread.
  virtual Status UpdatePersistentVolume(const boost::json::object& pv) const {
    return Status::Internal("this scheduler cannot write PersistentVolumes");
  }
  virtual Status UpdatePersistentVolumeClaim(const boost::json::object& pvc) const {
    return Status::Internal("this scheduler cannot write PersistentVolumeClaims");
  }
};



class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// A queue order as two numbers: `a` leaves before `b` iff a < b.
struct QueueSortKey {
  int64_t first = 0, second = 0;
  auto operator<=>(const QueueSortKey&) const = default;
};

class QueueSortPlugin : public virtual Plugin {
 public:
  // Strict weak order: whether `a` leaves the active queue before `b`.
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
  // Optional: a plugin whose order is that of a key computed from each pod
  // alone says so, and the queue compares keys (taken when a pod enters the
  // active queue) instead of calling Less with every comparison.
  // REQUIRES for HasSortKey: Less(a, b) == (SortKey(a) < SortKey(b)).
  virtual bool HasSortKey() const { return false; }
  virtual QueueSortKey SortKey(const QueuedPodInfo& pod) const { return {}; }
};

class PreEnqueuePlugin : public virtual Plugin {
 public:
  // Success lets the pod into the active queue; anything else parks it
  // until its next update.
  virtual PluginStatus PreEnqueue(const PodInfo& pod) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // Computes what Filter needs for this pod once per cycle. Skip: Filter is
  // not called this cycle. A rejection ends the cycle for every node.
  virtual PluginStatus PreFilter(CycleState& state, const PodInfo& pod) const = 0;

  // kube's PreFilterExtensions: a plugin whose PreFilter data counts other
  // pods keeps it true when preemption's dry run adds `other` to, or removes
  // it from, `node` (a copy). Called on a cloned state only (its data is
  // the plugin's own copy: see StateData::Clone). Plugins whose Filter reads
  // only the NodeInfo need nothing here.
  virtual bool HasPreFilterExtensions() const { return false; }
  virtual PluginStatus AddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                              const NodeInfo& node) const {
    return {};
  }
  virtual PluginStatus RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                 const NodeInfo& node) const {
    return {};
  }
};

class FilterPlugin : public virtual Plugin {
 public:
  // Whether `pod` may run on `node`. Thread-safe.
  virtual PluginStatus Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const = 0;
};

// Which node each rejection came from, for PostFilter and the FailedScheduling message.
struct NodeStatus {
  const NodeInfo* node;
  PluginStatus status;
};

struct PostFilterResult {
  // Set: the pod's nominatedNodeName becomes this node ("" clears it);
  // unset: it stays as it is.
  std::optional<std::string> nominated_node;
  size_t victims = 0;  // pods evicted for it (scheduler_preemption_victims)
};

// What a PostFilter plugin may run of its profile: the Filter plugins on one
// node with the nominated pods counted, and the PreFilter extensions
// (preemption's dry runs). Implemented by the framework.
class FilterRunner {
 public:
  virtual ~FilterRunner() = default;
  // kube's RunFilterPluginsWithNominatedPods: with pods of equal or higher
  // priority nominated to `node` added (if any), then without them; both
  // must pass.
  virtual PluginStatus RunFilterWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                  const NodeInfo& node) const = 0;
  virtual PluginStatus RunPreFilterAddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                          const NodeInfo& node) const = 0;
  virtual PluginStatus RunPreFilterRemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                             const NodeInfo& node) const = 0;
  // Whether RunPreFilterAddPod/RemovePod would change `state` (a PreFilter
  // plugin with extensions has data this cycle). When not, a dry run may
  // read the cycle's own state instead of a copy.
  virtual bool ChangesStateForPods(const CycleState& state) const { return true; }
};

class PostFilterPlugin : public virtual Plugin {
 public:
  // Called when no node fits (preemption). `rejected` holds every node's
  // filter status (nodes absent from it were not filtered).
  virtual PluginStatus PostFilter(CycleState& state, const PodInfo& pod, std::span<const NodeStatus> rejected,
                                  const FilterRunner& runner, PostFilterResult* result) const = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  virtual PluginStatus PreScore(CycleState& state, const PodInfo& pod,
                                std::span<const NodeInfo* const> feasible) const = 0;
};

struct NodeScore {
  const NodeInfo* node;
  int64_t score;
};

// kube's helper.DefaultNormalizeScore: scales scores so the largest becomes
// kMaxNodeScore; with `reverse`, a higher raw score becomes a lower one.
void DefaultNormalizeScore(std::span<NodeScore> scores, bool reverse);

class ScorePlugin : public virtual Plugin {
 public:
  // The raw score of `node` for `pod`. Thread-safe.
  virtual PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                             int64_t* score) const = 0;
  // Whether NormalizeScore must run (scores not already in [0, 100]).
  virtual bool HasNormalizeScore() const { return false; }
  // Rescales the raw scores of all feasible nodes into [0, 100].
  virtual PluginStatus NormalizeScore(const CycleState& state, const PodInfo& pod,
                                      std::span<NodeScore> scores) const {
    return {};
  }
};

class ReservePlugin : public virtual Plugin {
 public:
  virtual PluginStatus Reserve(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
  // Undoes Reserve when a later step fails. Must be idempotent.
  virtual void Unreserve(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

struct PermitDecision {
  PluginStatus status;                   // Success, Wait, or a rejection
  std::chrono::milliseconds timeout{0};  // with Wait: how long at most (cut to 15 minutes)
};

class PermitPlugin : public virtual Plugin {
 public:
  // Last step of the scheduling cycle, after Reserve, on the cycle's thread.
  // Wait holds the pod, assumed on `node`, until this plugin allows it
  // through the Handle's waiting pods (WaitingPod::Allow, from any thread
  // later) or `timeout` passes; no thread is held meanwhile.
  virtual PermitDecision Permit(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  virtual PluginStatus PreBind(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

class BindPlugin : public virtual Plugin {
 public:
  // Skip: the next bind plugin decides.
  virtual PluginStatus Bind(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const PodInfo& pod, const std::string& node) const = 0;
};

}  // namespace berth::scheduler
