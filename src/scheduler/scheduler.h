#pragma once
// The scheduler: informer events in, bindings out. `concurrent` workers each
// run scheduling cycles (kube's ScheduleOne): pop a pod, refresh the worker's
// snapshot, PreFilter, Filter across nodes (in parallel, stopping after
// percentageOfNodesToScore), PostFilter when nothing fits, PreScore, Score,
// select, then Reserve on the cache with an optimistic per-node version check
// (a node changed by a concurrent cycle is re-filtered before the pod is
// assumed, so no node is ever over-committed), then Permit. Binding runs
// asynchronously on a pool of binding threads; a failed bind forgets the pod
// and requeues it.
//
// The scheduler holds the loop, the queue and the cache. The plugins'
// Handle (framework/framework_handle.h, kube's frameworkImpl) holds what
// they read and do besides: namespace labels, PodDisruptionBudgets,
// nominations, the volume lister, preemption's bookkeeping, the waiting
// pods, and the API calls sent off the cycle; the informer events feed it.
//
// Permit runs last in the scheduling cycle, as in kube. A pod some plugin
// asked to Wait joins the waiting pods (WaitingPods; the Handle's
// GetWaitingPod / IterateOverWaitingPods / RejectWaitingPod reach them) and
// stays assumed on its node. Its binding cycle does not hold a thread while
// it waits: it is parked and resumes on a binding thread once every waiting
// plugin allowed the pod; a rejection or a plugin's timeout fails the
// binding (Unreserve, the pod forgotten and requeued as unschedulable, the
// rejection's message reported as kube reports it).
//
// Scheduler extenders (the config's `extenders:`, scheduler/extender/)
// narrow the feasible nodes after Filter, add to the scores, may bind
// instead of the Bind plugins and narrow preemption's candidates.
//
// Each profile's Framework times its own extension points; the scheduler
// times attempts and cycles. All of it, and the queue, read
// SchedulerOptions::clock.
//
// Pods with hard inter-pod constraints (required pod (anti-)affinity,
// DoNotSchedule topology spread) take the cycle lock exclusively: their
// decisions depend on every node, so no concurrent cycle may move under them.
//
// Thread-safety: event handlers (On*) may be called from any thread;
// Start/Stop from the owner's.

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/time/clock.h"
#include "metrics/metrics.h"
#include "scheduler/cache/cache.h"
#include "scheduler/explain/explanation.h"
#include "scheduler/extender/extender.h"
#include "scheduler/framework/framework.h"
#include "scheduler/framework/framework_handle.h"
#include "scheduler/parallelizer.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/scheduler_client.h"

namespace berth::scheduler {

struct SchedulerOptions {
  int concurrent = 1;        // scheduling cycles at once
  // Binding cycles at once. A binding waits for its write to be durable
  // (fsync), so these threads mostly sleep; kube-scheduler binds every pod in
  // its own goroutine. `berth bench` (in memory) sets its own.
  int binding_workers = 16;
  int filter_threads = 1;    // helper threads for Filter/Score (0: the cycle's own thread only)
  uint64_t seed = 0;         // 0: from std::random_device
  // Filter and Score run in parallel only above this many nodes.
  size_t parallel_threshold = 256;
  // With more scheduling cycles than CPUs, a cycle thread yields the CPU
  // between two cycles once this long has passed since its last yield (0:
  // never; a yield with nothing else runnable returns at once). The
  // kernel would otherwise take the CPU away at the end of its time slice,
  // usually in the middle of a cycle, and that cycle would then wait for the
  // other cycle threads' slices (milliseconds); yielding at a cycle boundary
  // keeps such waits out of the cycles and lets binding threads run sooner.
  std::chrono::microseconds cycle_yield_after{500};
  // Time for the queue (timestamps, backoff, the unschedulable timeout), the
  // latency metrics and the assumed pods' expiry. nullptr: api::RealClock.
  // REQUIRES: outlives the scheduler.
  api::Clock* clock = nullptr;
  // Keep a BoundPod record per binding for TakeBoundPods (bench, perf); off
  // elsewhere, so that a long-running scheduler does not accumulate them.
  bool record_bound_pods = false;
  // Deletions are remembered for the drift guard (FindCacheDrift) when set:
  // the runner sets it when it resyncs the cache periodically.
  bool drift_guard = false;
};

class Scheduler final : private HandleHost {
 public:
  static Result<std::unique_ptr<Scheduler>> Create(const SchedulerConfig& config, const Registry& registry,
                                                   SchedulerOptions options, SchedulerClient* client);
  ~Scheduler() override;

  // Informer events. A pod with spec.nodeName goes to the cache; one without,
  // whose schedulerName is one of the profiles, to the queue.
  void OnNodeAdd(const api::ObjectPtr& node);
  void OnNodeUpdate(const api::ObjectPtr& node);
  void OnNodeDelete(const std::string& name);
  void OnNodeDelete(const api::ObjectPtr& node);
  void OnPodAdd(const api::ObjectPtr& pod);
  void OnPodUpdate(const api::ObjectPtr& pod);
  void OnPodDelete(const api::ObjectPtr& pod);
  void OnNamespace(const api::ObjectPtr& ns);
  void OnNamespaceDelete(const std::string& name);
  // PodDisruptionBudgets (policy/v1), which preemption respects.
  void OnPodDisruptionBudget(const api::ObjectPtr& pdb);
  void OnPodDisruptionBudgetDelete(const api::ObjectPtr& pdb);
  // Storage objects for the volume plugins (VolumeLister). An added or
  // changed PV, PVC, StorageClass, CSINode, CSIDriver or CSIStorageCapacity
  // may let unschedulable pods in (kube's cluster events for the volume
  // plugins): they move to active or backoff.
  void OnStorageObject(api::Kind kind, const api::ObjectPtr& object);
  void OnStorageObjectDelete(api::Kind kind, const api::ObjectPtr& object);

  // The drift guard (scheduler_resync.cc): the cache compared with a
  // complete list of nodes or pods read from the API server, and what
  // differs repaired by replaying the listed object as the event that was
  // missed (a watch event lost, a handler skipped). Two steps, so that the
  // events of the moment can arrive in between: FindCacheDrift with the list
  // and the revision it is consistent at leaves out what an event newer
  // than the list already explains (a cached version after the list's, a
  // deletion seen after it); RepairCacheDrift, a little later, repairs what
  // is still as it was and counts it in
  // berth_scheduler_cache_drift_total{kind}. Kinds: nodes and pods (the
  // cache; pods assumed by a cycle are never touched, bound unfinished pods
  // are compared), PersistentVolumes and claims (the volume lister).
  struct Drift {
    enum class What { kMissing, kStale, kExtra };
    What what;
    api::Kind kind;            // kNode, kPod, kPersistentVolume or kPersistentVolumeClaim
    std::string key;           // node name, pod namespace/name
    int64_t cached_version;    // 0 when missing
    api::ObjectPtr listed;     // the API server's version; nullptr when extra
    api::ObjectPtr cached;     // the cache's version; nullptr when missing
  };
  std::vector<Drift> FindCacheDrift(api::Kind kind, const std::vector<api::ObjectPtr>& listed,
                                    int64_t revision) const;
  // Returns how many differences were repaired. `revision`: the list's;
  // deletions remembered up to it are forgotten.
  int RepairCacheDrift(const std::vector<Drift>& drift, int64_t revision);

  void Start();
  void Stop();
  // Waits until nothing is queued as active or backing off, no cycle, no
  // binding and no API task (an eviction, a failure report) is in flight. A
  // pod waiting at Permit does not count: it waits for something outside the
  // scheduler (another pod, a controller's Allow) or its timeout, and would
  // otherwise hold WaitForIdle for up to 15 minutes; nor does a preemptor
  // held until the API server's watch shows its victims going. False at the
  // deadline. The deadlines of the Wait* methods are real time
  // (steady_clock), whatever SchedulerOptions::clock is.
  bool WaitForIdle(std::chrono::steady_clock::time_point deadline);

  // The Handle the profiles' plugins are given (framework_handle.h): the
  // waiting pods, nominations and the other side tables are reached there.
  const FrameworkHandle& handle() const { return *handle_; }

  struct Stats {
    uint64_t scheduled = 0, unschedulable = 0, errors = 0, conflicts = 0, bind_failures = 0;
  };
  Stats stats() const;
  // Waits until at least `n` pods have been bound (stats().scheduled >= n);
  // false at the deadline. One waiter at a time. A binding wakes it only
  // when the count reaches `n`, so waiting costs the scheduling threads
  // nothing (polling stats() would wake the waiter, and preempt a cycle,
  // thousands of times a second).
  bool WaitForScheduled(uint64_t n, std::chrono::steady_clock::time_point deadline);
  const Cache& cache() const { return cache_; }
  const SchedulingQueue& queue() const { return *queue_; }
  // Latencies in seconds since the last call (bench): scheduling cycles (pop
  // to reserve, kube's scheduling_algorithm_duration plus queue handling) and
  // whole attempts (to the end of binding, kube's scheduling_attempt_duration).
  std::vector<double> TakeCycleLatencies();
  std::vector<double> TakeAttemptLatencies();
  // One record per pod bound since the last call, when
  // SchedulerOptions::record_bound_pods is set (else none): when the pod was
  // first queued, when the cycle that placed it popped it and reserved
  // its node, and when its binding finished. Kept like the latencies (at
  // most 10 million between two calls).
  struct BoundPod {
    std::string key;  // namespace/name
    api::Clock::time_point queued, popped, reserved, bound;
  };
  std::vector<BoundPod> TakeBoundPods();
  std::string RenderMetrics() const { return metrics_.Render(); }
  const Framework* Profile(std::string_view scheduler_name) const;

  // `berth explain` (scheduler/explain/, scheduler_explain.cc): the pod
  // `ns`/`name` as this scheduler holds it — pending (in the queue) or placed
  // (in the cache: bound, or assumed while binding) — explained with its
  // profile over a fresh snapshot; a placed pod is taken off its node in a
  // copy first. Dry: nothing here changes, no metric moves. NotFound (kube's
  // words) when the scheduler holds no such pod. Any thread.
  Result<Explanation> Explain(std::string_view ns, std::string_view name) const;
  // The latest decision a scheduling cycle made for `pod_key` (namespace/name)
  // that the scheduler still remembers: each cycle thread keeps its last
  // kDecisionsKept in a ring under its own lock (which only this contends
  // for). nullopt when none is remembered. Any thread.
  static constexpr size_t kDecisionsKept = 256;
  struct Decision {
    PodInfoPtr pod;
    std::string node, runner_up;
    int64_t score = 0, margin = 0;
    uint32_t feasible = 0, tied = 0;
    bool weighted_random = false;
    api::Clock::time_point at;
  };
  std::optional<Decision> LastDecision(const std::string& pod_key) const;

 private:
  struct Worker;
  struct Binding;
  Scheduler(SchedulerOptions options, SchedulerClient* client);
  // Create's steps. One Framework per profile (the default profile when the
  // config has none), with the attempt metrics' children looked up once.
  Status AddProfiles(const SchedulerConfig& config, const Registry& registry);
  // The plugins' Handle, over the extenders and the parallelizer.
  void CreateHandle();
  // The queue, ordered by the first profile's QueueSort, admitting through
  // each pod's profile's PreEnqueue. REQUIRES: AddProfiles succeeded.
  void CreateQueue(const SchedulerConfig& config);
  // scheduler_pending_pods, read from the queue at scrape time.
  void AddPendingPodsGauge();

  void RunWorker(Worker& worker);

  // ---- the scheduling cycle (kube's scheduleOne / schedulingCycle) ----

  // Why a scheduling cycle ended without a node: what HandleFailure reports.
  struct CycleFailure {
    PluginStatus status;
    std::string message;  // the FailedScheduling event's message
    bool unschedulable;   // rejected by plugins (else an internal error)
    // Set by PostFilter (preemption): the pod's new nominated node ("": none).
    std::optional<std::string> nominated_node = std::nullopt;
    // Preemption may evict pods: the cycle must run again holding the cycle
    // lock exclusively, so that concurrent cycles never choose overlapping
    // victims or take the room being freed.
    bool needs_exclusive = false;
    // With needs_exclusive: the Filter plugins ran (not a PreFilter rejection),
    // so their answers in the worker can be kept if nothing changes meanwhile.
    bool after_filters = false;
    // The plugins that rejected the pod on some node (kube's
    // Diagnosis.UnschedulablePlugins), sorted; empty: the status's plugin.
    std::vector<std::string> plugins = {};
  };
  // One pod's scheduling cycle: SchedulePod on a fresh snapshot, then
  // AssumeAndReserve on the chosen node (retried on a fresh snapshot when a
  // concurrent cycle changed that node), then HandOffToBinding. Any failure
  // goes to FailCycle. Holds the cycle lock (shared, or exclusive for pods
  // with hard inter-pod constraints) throughout.
  void ScheduleOne(Worker& worker, QueuedPodInfo info);
  // kube's schedulePod: FindNodesThatFitPod, then (with more than one
  // feasible node) PrioritizeNodes (every node scoring 1 when the profile
  // has no Score plugin, as kube) and SelectHost.
  // Sets *selected, or returns why no node was chosen.
  std::optional<CycleFailure> SchedulePod(Worker& worker, const Framework& fw, CycleState& state,
                                          const PodInfo& pod, const NodeInfo** selected);
  // PreFilter, then Filter over the snapshot's nodes. Leaves the feasible
  // nodes (at least one) in worker.feasible, or returns the failure: no
  // nodes, a PreFilter rejection or error, a Filter error, or (after
  // PostFilter) kube's "0/N nodes are available: …" FitError.
  std::optional<CycleFailure> FindNodesThatFitPod(Worker& worker, const Framework& fw, CycleState& state,
                                                  const PodInfo& pod);
  // When nothing fits: PostFilter (preemption) and kube's FitError message.
  // Asks for the exclusive cycle lock (needs_exclusive) when preemption might
  // evict pods and the cycle holds it shared.
  CycleFailure RunPostFilter(Worker& worker, const Framework& fw, CycleState& state, const PodInfo& pod,
                             const PluginStatus* pre_filter);
  // Whether any node rejected as Unschedulable holds a pod of lower
  // priority than `pod` (else preemption cannot evict anything).
  bool MayPreempt(const Worker& worker, const PodInfo& pod) const;
  // Filter over nodes from a rotating start node until NumNodesToFind
  // feasible nodes are found (percentageOfNodesToScore), in parallel above
  // parallel_threshold nodes. Fills worker.feasible and worker.rejected and
  // moves the start node past the nodes visited. REQUIRES: a non-empty snapshot.
  void FindNodesThatPassFilters(Worker& worker, const Framework& fw, const CycleState& state, const PodInfo& pod);
  // The filtering extenders over worker.feasible (kube's
  // findNodesThatPassExtenders): a failure when a non-ignorable one failed.
  std::optional<CycleFailure> FilterByExtenders(Worker& worker, const PodInfo& pod);
  // How many feasible nodes Filter looks for among `nodes` (kube's numFeasibleNodesToFind).
  size_t NumNodesToFind(const Framework& fw, size_t nodes) const;
  // PreScore and Score of worker.feasible into worker.totals; a failure is an error.
  std::optional<CycleFailure> PrioritizeNodes(Worker& worker, const Framework& fw, CycleState& state,
                                              const PodInfo& pod);
  // The node to run on, from worker.totals, by the profile's NodeSelection:
  // the top score with ties broken at random (kube's selectHost), or with
  // WeightedRandom a node drawn with probability proportional to its total.
  // Uses worker.rng only.
  const NodeInfo* SelectHost(Worker& worker, const Framework& fw);
  enum class ReserveOutcome { kReserved, kConflict, kFailed };
  // Assumes the pod on `node` in the cache (kConflict, with nothing changed,
  // when a concurrent cycle changed the node so that the pod no longer
  // fits), then runs Reserve. A Reserve failure is undone (Unreserve, the
  // pod forgotten) and described in *failure (kFailed).
  ReserveOutcome AssumeAndReserve(const Framework& fw, CycleState& state, const QueuedPodInfo& info,
                                  const NodeInfo& node, CycleFailure* failure);
  // Remembers the decision that placed `pod` on `selected` in the worker's
  // ring (the runner-up and margin from worker.totals). One pass over the
  // feasible nodes, no allocation once the ring is warm. In
  // scheduler_explain.cc, with LastDecision.
  void RecordDecision(Worker& worker, const Framework& fw, const PodInfoPtr& pod, const NodeInfo& selected,
                      api::Clock::time_point at);
  // Ends the scheduling cycle of a reserved pod (its algorithm latency) and
  // queues the binding cycle; the next scheduling cycle need not wait.
  // `waiting`: Permit asked the pod to wait (it is among waiting_pods_).
  void HandOffToBinding(const Worker& w, const Framework& fw, QueuedPodInfo info, std::string node, std::unique_ptr<CycleState> state,
                        api::Clock::time_point cycle_start, bool waiting = false);
  // HandleFailure and the attempt's metrics. Called without the cycle lock:
  // what it writes to the API must not hold other cycles up.
  void FailCycle(const Framework& fw, QueuedPodInfo info, CycleFailure failure, api::Clock::time_point cycle_start);
  // The failure's nomination, in memory: made while the cycle still holds
  // the cycle lock, so that no other cycle sees the victims counted as gone
  // without the preemptor counted on their node.
  void RecordNomination(const PodInfoPtr& pod, const std::optional<std::string>& nominated_node);
  // Requeues a failed pod (unschedulable: to the unschedulable pool; else backoff) and
  // reports it (PodScheduled=False, its nomination and a FailedScheduling
  // event) through the client.
  void HandleFailure(const Framework& fw, QueuedPodInfo info, const PluginStatus& status, std::string message,
                     bool unschedulable, const std::optional<std::string>& nominated_node = std::nullopt,
                     std::vector<std::string> plugins = {});

  // ---- the binding cycle (on a binding thread) ----

  // WaitOnPermit, PreBind, Bind; then FinishBinding or FailBinding.
  void RunBindingCycle(std::unique_ptr<Binding> binding);
  // The interested binder extender's bind, else the Bind plugins.
  PluginStatus Bind(const Framework& fw, CycleState& state, const PodInfo& pod, const std::string& node);
  // Permit's outcome for a binding: Success when Permit allowed the pod in
  // its cycle, the outcome when the pod was settled already, or nullopt:
  // the binding is parked (moved into parked_) until the pod is settled,
  // when ResumeBinding queues it again with the outcome.
  std::optional<PluginStatus> WaitOnPermit(std::unique_ptr<Binding>& binding);
  // A parked binding's pod was settled: back to the binding threads.
  void ResumeBinding(Binding* parked, PluginStatus outcome);
  // A Permit rejection or error in the scheduling cycle: Unreserve, the pod
  // forgotten, and the failure to report.
  CycleFailure FailPermit(const Framework& fw, CycleState& state, const PodInfo& pod, const NodeInfo& node,
                          PluginStatus status);
  // The pod is bound: the cache, PostBind, stats, the report and metrics, and the queue.
  void FinishBinding(Binding& binding);
  // Binding failed: Unreserve, forget the assumed pod, requeue it and report.
  void FailBinding(Binding& binding, const PluginStatus& status);
  void BindingLoop();
  // scheduler_schedule_attempts_total's result label.
  enum AttemptResult { kScheduled, kUnschedulable, kError, kAttemptResultCount };
  void ObserveAttempt(const Framework& fw, AttemptResult result, double seconds);
  // The position of `fw` in profiles_ (profiles_.size() when it is none of them).
  size_t ProfileIndex(const Framework& fw) const;

  SchedulerOptions options_;
  const api::Clock& clock_;
  SchedulerClient* client_;
  std::vector<std::unique_ptr<Framework>> profiles_;
  std::unique_ptr<Extenders> extenders_;  // the config's extenders (possibly none)
  int32_t percentage_of_nodes_to_score_ = 0;
  Cache cache_;
  std::unique_ptr<SchedulingQueue> queue_;
  std::unique_ptr<Parallelizer> parallelizer_;
  std::shared_mutex cycle_mu_;  // shared: ordinary cycles; exclusive: pods with hard inter-pod constraints
  std::atomic<size_t> next_start_node_{0};
  // The last cycle that expected to preempt, or ran PostFilter, evicted pods:
  // cycles of pods that may preempt start exclusive (see ScheduleOne).
  std::atomic<bool> preempting_streak_{false};
  std::atomic<uint64_t> seed_sequence_;

  std::mutex bind_mu_;
  std::condition_variable bind_cv_;
  std::deque<std::unique_ptr<Binding>> bindings_;  // guarded by bind_mu_
  bool stopping_ = false;                          // guarded by bind_mu_
  // Bindings of pods waiting at Permit, by address; ResumeBinding moves
  // them back to bindings_. Stop waits on parked_cv_ until none is left.
  std::unordered_map<Binding*, std::unique_ptr<Binding>> parked_;  // guarded by bind_mu_
  std::condition_variable parked_cv_;
  // Set by Stop: failed bindings are no longer reported to the API.
  std::atomic<bool> shutting_down_{false};
  std::atomic<int> in_cycle_{0};
  std::atomic<int> binding_in_flight_{0};

  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;          // the cycle threads
  std::vector<std::thread> binding_threads_;

  mutable std::mutex stats_mu_;
  Stats stats_;                    // guarded by stats_mu_
  // WaitForScheduled's waiter: woken when stats_.scheduled reaches it (0: none).
  uint64_t scheduled_wake_at_ = 0;  // guarded by stats_mu_
  std::condition_variable scheduled_cv_;
  std::vector<double> latencies_;        // guarded by stats_mu_
  std::vector<double> cycle_latencies_;  // guarded by stats_mu_
  std::vector<BoundPod> bound_pods_;     // guarded by stats_mu_

  // Plugins add their families through the Handle (MetricsRegistry).
  metrics::Registry metrics_;
  metrics::Family<metrics::Counter>& attempts_;
  metrics::Family<metrics::Histogram>& attempt_duration_;
  // {attempts}: kube's pod_scheduling_duration_seconds (deprecated) and
  // pod_scheduling_sli_duration_seconds, from the pod's first entry into the queue.
  metrics::Family<metrics::Histogram>& pod_scheduling_duration_;
  metrics::Family<metrics::Histogram>& pod_scheduling_sli_duration_;
  metrics::Histogram& pod_scheduling_attempts_;
  metrics::Histogram& algorithm_duration_;
  // Given to every profile's Framework, which times the plugins of the cycles
  // that NextCycleRecordsPlugins picks.
  metrics::Family<metrics::Histogram>& plugin_execution_duration_;
  std::atomic<uint64_t> cycles_started_{0};
  // Whether the next cycle's plugins are timed, and which share of its nodes'.
  std::pair<bool, uint32_t> NextCycleRecordsPlugins();
  // Given to every profile's Framework, which records its extension points in it.
  metrics::Family<metrics::Histogram>& extension_point_duration_;
  // The families AddSchedulerMetrics adds (scheduler_metrics.cc), before
  // the profiles, the extenders and the parallelizer that use them.
  void AddSchedulerMetrics();
  // scheduler_plugin_evaluation_total: given to every profile's Framework.
  metrics::Family<metrics::Counter>* plugin_evaluation_ = nullptr;
  // scheduler_goroutines{operation}. "binding": the binding cycles handed
  // off and not finished: queued for the binding threads, running there, or
  // parked while the pod waits at Permit (kube's binding goroutine lives
  // through all three). The parallelizer counts its operations ("Filter",
  // "DefaultPreemption"), the extenders "prioritizing_extender".
  metrics::Family<metrics::Gauge>* goroutines_ = nullptr;
  metrics::Gauge* binding_goroutines_ = nullptr;
  // scheduler_event_handling_duration_seconds{event}: a slot per cluster
  // event label (cluster_events.h), the map made at start and read without
  // a lock; each child is made when its event is first handled.
  metrics::Family<metrics::Histogram>* event_handling_family_ = nullptr;
  mutable std::unordered_map<std::string_view, std::atomic<metrics::Histogram*>> event_handling_;
  // How long handling `event` took since `since` (nothing for an unknown label).
  void ObserveEvent(std::string_view event, api::Clock::time_point since) const;
  // OnPodAdd's work, untimed (OnPodUpdate of a bound pod does it too).
  void AddPodUntimed(const api::ObjectPtr& pod);
  // attempts_ and attempt_duration_ children per profile and result, looked up once.
  struct AttemptMetrics {
    metrics::Counter* attempts;
    metrics::Histogram* duration;
  };
  std::vector<std::array<AttemptMetrics, kAttemptResultCount>> attempt_metrics_;
  metrics::Family<metrics::Counter>& incoming_pods_;
  metrics::Counter& schedule_failed_;
  metrics::Counter& preemption_attempts_;
  metrics::Histogram& preemption_victims_;
  // scheduler_permit_wait_duration_seconds{result}: from Permit's Wait to the outcome.
  metrics::Family<metrics::Histogram>& permit_wait_duration_;
  // berth_scheduler_cache_drift_total{kind}: differences the drift guard repaired.
  metrics::Family<metrics::Counter>& cache_drift_;
  // With options_.drift_guard: the revision at which each node ("node/NAME")
  // and pod ("pod/NS/NAME") was last seen deleted, until a list at or past it.
  void RememberDeletion(std::string key, int64_t revision);
  // What the cache (nodes, pods) or the volume lister (volumes, claims) holds.
  std::vector<Cache::Version> CachedVersions(api::Kind kind) const;
  // The informer event that was missed, replayed: an add or update of `object`, or its deletion.
  void ReplayEvent(api::Kind kind, const api::ObjectPtr& object, bool existed, bool deleted);
  int64_t DeletedAt(const std::string& key) const;
  mutable std::mutex deletions_mu_;
  std::unordered_map<std::string, int64_t> deletions_;  // guarded by deletions_mu_

  // HandleHost: what the handle asks of the queue and the cache.
  bool PodPlaced(const std::string& pod_key) const override { return !cache_.NodeOf(pod_key).empty(); }
  void HoldPod(const std::string& pod_key) override { queue_->Hold(pod_key); }
  void ReleasePod(const std::string& pod_key) override { queue_->Release(pod_key); }
  void NominationFreed(int32_t priority) override;

  // The plugins' Handle and its side tables (nominations, waiting pods,
  // volumes, API calls). Declared last: destroyed first, after Stop settled
  // the waiting pods and sent the API calls.
  std::unique_ptr<FrameworkHandle> handle_;
};

}  // namespace berth::scheduler
