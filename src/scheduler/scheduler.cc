#include "scheduler/scheduler.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <map>

#include "api/json_fields.h"
#include "scheduler/framework/fit_error.h"
#include "scheduler/scheduler_internal.h"
#include "scheduler/select/sampler.h"
#include "log/log.h"

namespace berth::scheduler {

namespace {

using Clock = api::Clock;

// Pods whose feasibility depends on other nodes' pods: they schedule alone.
bool HasHardInterPodConstraints(const api::PodView& pod) {
  if (!pod.pod_affinity.required.empty() || !pod.pod_anti_affinity.required.empty()) return true;
  for (const auto& c : pod.topology_spread_constraints) {
    if (c.do_not_schedule) return true;
  }
  return false;
}

// kube's FitError message: "0/N nodes are available: <count reason>, ...."
// is made by FitErrorMessage (framework/fit_error.h).

}  // namespace

Scheduler::Scheduler(SchedulerOptions options, SchedulerClient* client)
    : options_(options),
      clock_(options.clock ? *options.clock : api::RealClock::Instance()),
      client_(client),
      // kube-scheduler's metrics (pkg/scheduler/metrics): names, labels,
      // buckets and help texts with their stability level, as kube prints them.
      attempts_(metrics_.AddCounter("scheduler_schedule_attempts_total",
                                    "[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' "
                                    "means a pod could not be scheduled, while 'error' means an internal scheduler "
                                    "problem.",
                                    {"result", "profile"})),
      attempt_duration_(metrics_.AddHistogram("scheduler_scheduling_attempt_duration_seconds",
                                              "[STABLE] Scheduling attempt latency in seconds (scheduling algorithm + "
                                              "binding)",
                                              metrics::ExponentialBuckets(0.001, 2, 15), {"result", "profile"})),
      pod_scheduling_duration_(metrics_.AddHistogram(
          "scheduler_pod_scheduling_duration_seconds",
          "[STABLE] (Deprecated since 1.29.0) E2e latency for a pod being scheduled which may include multiple "
          "scheduling attempts.",
          metrics::ExponentialBuckets(0.01, 2, 20), {"attempts"})),
      pod_scheduling_sli_duration_(metrics_.AddHistogram(
          "scheduler_pod_scheduling_sli_duration_seconds",
          "[BETA] E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue an d "
          "might involve multiple scheduling attempts.",
          metrics::ExponentialBuckets(0.01, 2, 20), {"attempts"})),
      pod_scheduling_attempts_(metrics_
                                   .AddHistogram("scheduler_pod_scheduling_attempts",
                                                 "[STABLE] Number of attempts to successfully schedule a pod.",
                                                 metrics::ExponentialBuckets(1, 2, 5), {})
                                   .WithLabels({})),
      algorithm_duration_(metrics_
                              .AddHistogram("scheduler_scheduling_algorithm_duration_seconds",
                                            "[ALPHA] Scheduling algorithm latency in seconds",
                                            metrics::ExponentialBuckets(0.001, 2, 15), {})
                              .WithLabels({})),
      plugin_execution_duration_(metrics_.AddHistogram(
          "scheduler_plugin_execution_duration_seconds",
          "[ALPHA] Duration for running a plugin at a specific extension point.",
          metrics::ExponentialBuckets(0.00001, 1.5, 20), {"plugin", "extension_point", "status"})),
      extension_point_duration_(metrics_.AddHistogram(
          "scheduler_framework_extension_point_duration_seconds",
          "[STABLE] Latency for running all plugins of a specific extension point.",
          metrics::ExponentialBuckets(0.0001, 2, 12), {"extension_point", "status", "profile"})),
      incoming_pods_(metrics_.AddCounter("scheduler_queue_incoming_pods_total",
                                         "[STABLE] Number of pods added to scheduling queues by event and queue type.",
                                         {"queue", "event"})),
      schedule_failed_(metrics_
                           .AddCounter("berth_scheduler_pod_schedule_failed_total",
                                       "Number of scheduling attempts that found no node for the pod.", {})
                           .WithLabels({})),
      preemption_attempts_(metrics_
                               .AddCounter("scheduler_preemption_attempts_total",
                                           "[STABLE] Total preemption attempts in the cluster till now", {})
                               .WithLabels({})),
      preemption_victims_(metrics_
                              .AddHistogram("scheduler_preemption_victims",
                                            "[STABLE] Number of selected preemption victims",
                                            metrics::ExponentialBuckets(1, 2, 7), {})
                              .WithLabels({})),
      permit_wait_duration_(metrics_.AddHistogram("scheduler_permit_wait_duration_seconds",
                                                  "[ALPHA] Duration of waiting on permit.",
                                                  metrics::ExponentialBuckets(0.001, 2, 15), {"result"})),
      cache_drift_(metrics_.AddCounter("berth_scheduler_cache_drift_total",
                                       "Differences between the scheduler's cache and the API server that the "
                                       "periodic resync found and repaired, by kind.",
                                       {"kind"})) {
  uint64_t seed = options_.seed ? options_.seed : std::random_device{}();
  seed_sequence_ = seed;
}

Result<std::unique_ptr<Scheduler>> Scheduler::Create(const SchedulerConfig& config, const Registry& registry,
                                                     SchedulerOptions options, SchedulerClient* client) {
  auto s = std::unique_ptr<Scheduler>(new Scheduler(options, client));
  s->AddSchedulerMetrics();
  auto extenders = Extenders::Create(config.extenders, s->metrics_);
  if (!extenders.ok()) return extenders.status();
  s->extenders_ = std::move(extenders).value();
  int filter_threads = std::min(options.filter_threads, std::max(0, config.parallelism - 1));
  s->parallelizer_ = std::make_unique<Parallelizer>(filter_threads, s->goroutines_);
  s->CreateHandle();
  if (Status built = s->AddProfiles(config, registry); !built.ok()) return built;
  s->percentage_of_nodes_to_score_ = config.percentage_of_nodes_to_score;
  s->CreateQueue(config);
  s->AddPendingPodsGauge();
  return s;
}

void Scheduler::CreateHandle() {
  // Random()'s sequence starts from the seed too.
  handle_ = std::make_unique<FrameworkHandle>(FrameworkHandle::Services{
      this, client_, extenders_.get(), parallelizer_.get(), &metrics_,
      options_.clock ? options_.clock : &api::RealClock::Instance(), seed_sequence_.load()});
}

Status Scheduler::AddProfiles(const SchedulerConfig& config, const Registry& registry) {
  std::vector<ProfileConfig> profiles = config.profiles;
  if (profiles.empty()) profiles.emplace_back();
  // Resources an extender manages and the scheduler ignores: NodeResourcesFit
  // does not check them (they replace its ignoredResources, as in kube).
  if (std::vector<std::string> ignored = extenders_->IgnoredResources(); !ignored.empty()) {
    boost::json::array names(ignored.begin(), ignored.end());
    for (auto& profile : profiles) {
      auto it = std::find_if(profile.plugin_config.begin(), profile.plugin_config.end(),
                             [](const auto& c) { return c.first == "NodeResourcesFit"; });
      if (it == profile.plugin_config.end()) it = profile.plugin_config.insert(it, {"NodeResourcesFit", {}});
      it->second["ignoredResources"] = names;
    }
  }
  for (size_t i = 0; i < profiles.size(); ++i) {
    auto fw = Framework::Build(profiles[i], registry, *handle_, "profiles[" + std::to_string(i) + "]",
                               {&extension_point_duration_, &clock_, &plugin_execution_duration_, plugin_evaluation_});
    if (!fw.ok()) return fw.status();
    profiles_.push_back(std::move(fw).value());
  }
  for (const auto& fw : profiles_) {
    static const char* kResultNames[] = {"scheduled", "unschedulable", "error"};
    std::array<AttemptMetrics, kAttemptResultCount> am{};
    for (int r = 0; r < kAttemptResultCount; ++r) {
      am[r] = {&attempts_.WithLabels({kResultNames[r], fw->scheduler_name()}),
               &attempt_duration_.WithLabels({kResultNames[r], fw->scheduler_name()})};
    }
    attempt_metrics_.push_back(am);
  }
  return Status::Ok();
}

void Scheduler::CreateQueue(const SchedulerConfig& config) {
  const Framework* first = profiles_.front().get();
  SchedulingQueue::Options qopts;
  qopts.clock = &clock_;
  qopts.initial_backoff = std::chrono::seconds(config.pod_initial_backoff_seconds);
  qopts.max_backoff = std::chrono::seconds(config.pod_max_backoff_seconds);
  if (first->queue_sort().HasSortKey()) {
    qopts.sort_key = [first](const QueuedPodInfo& pod) { return first->queue_sort().SortKey(pod); };
  }
  // Children looked up under the queue's lock: one family lookup per move.
  qopts.on_incoming = [this](std::string_view queue, std::string_view event) {
    incoming_pods_.WithLabels({std::string(queue), std::string(event)}).Increment();
  };
  queue_ = std::make_unique<SchedulingQueue>(
      [first](const QueuedPodInfo& a, const QueuedPodInfo& b) { return first->queue_sort().Less(a, b); },
      [this](const PodInfo& pod) {
        const Framework* fw = Profile(pod.view->scheduler_name);
        return fw && fw->RunPreEnqueue(pod).ok();
      },
      qopts);
}

Scheduler::~Scheduler() { Stop(); }

const Framework* Scheduler::Profile(std::string_view scheduler_name) const {
  for (const auto& p : profiles_) {
    if (p->scheduler_name() == scheduler_name) return p.get();
  }
  return nullptr;
}

// ---- running ----

void Scheduler::Start() {
  int concurrent = std::max(1, options_.concurrent);
  for (int i = 0; i < concurrent; ++i) {
    auto w = std::make_unique<Worker>();
    w->rng.seed(seed_sequence_.load() + static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ULL);
    workers_.push_back(std::move(w));
  }
  for (auto& w : workers_) threads_.emplace_back([this, w = w.get()] {
      pthread_setname_np(pthread_self(), "sched-cycle");
      RunWorker(*w);
    });
  for (int i = 0; i < std::max(1, options_.binding_workers); ++i) binding_threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "sched-bind");
      BindingLoop();
    });
}

void Scheduler::Stop() {
  if (!queue_) return;  // Create failed before the queue existed: nothing started
  shutting_down_ = true;
  queue_->Close();
  handle_->volumes().Shutdown();  // a PreBind waiting for the binder gives up
  // The cycles first: no pod starts waiting after this.
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  // Waiting pods are rejected (their bindings fail: Unreserve, forgotten,
  // not reported) and the binding threads finish every binding queued, so
  // nothing stays parked.
  handle_->waiting_pods().RejectAll("rejected: the scheduler is stopping");
  {
    std::unique_lock lock(bind_mu_);
    parked_cv_.wait(lock, [&] { return parked_.empty(); });
    stopping_ = true;
  }
  bind_cv_.notify_all();
  for (auto& t : binding_threads_) {
    if (t.joinable()) t.join();
  }
  binding_threads_.clear();
  handle_->api().Stop();  // the evictions and reports already chosen are sent
}

bool Scheduler::WaitForIdle(std::chrono::steady_clock::time_point deadline) {
  while (std::chrono::steady_clock::now() < deadline) {
    // Pods waiting at Permit stay in flight in the queue; they do not count.
    size_t parked;
    {
      std::lock_guard lock(bind_mu_);
      parked = parked_.size();
    }
    auto c = queue_->counts();
    if (c.active == 0 && c.backoff == 0 && c.in_flight <= parked && in_cycle_.load() == 0 &&
        binding_in_flight_.load() == 0 && handle_->api().pending() == 0) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

void Scheduler::RunWorker(Worker& worker) {
  // See SchedulerOptions::cycle_yield_after.
  const int cpus = static_cast<int>(std::thread::hardware_concurrency());
  const bool yield =
      options_.cycle_yield_after.count() > 0 && cpus > 0 && std::max(1, options_.concurrent) > cpus;
  // Time on the CPU is real time, whatever clock the scheduler reads.
  using RealTime = std::chrono::steady_clock;
  auto running_since = RealTime::now();
  while (true) {
    auto info = queue_->Pop();
    if (!info) return;
    in_cycle_++;
    ScheduleOne(worker, std::move(*info));
    in_cycle_--;
    if (yield && RealTime::now() - running_since >= options_.cycle_yield_after) {
      sched_yield();
      running_since = RealTime::now();
    }
  }
}

std::optional<Scheduler::CycleFailure> Scheduler::FilterByExtenders(Worker& w, const PodInfo& pod) {
  if (extenders_->empty() || w.feasible.empty()) return std::nullopt;
  Status s = extenders_->Filter(pod, w.snapshot, w.feasible, w.rejected);
  if (s.ok()) return std::nullopt;
  return CycleFailure{PluginStatus::Error(s.message()), s.message(), false};
}

size_t Scheduler::NumNodesToFind(const Framework& fw, size_t nodes) const {
  int32_t percentage = fw.percentage_of_nodes_to_score().value_or(percentage_of_nodes_to_score_);
  constexpr size_t kMinFeasibleNodes = 100;
  if (nodes < kMinFeasibleNodes || percentage >= 100) return nodes;
  if (percentage == 0) {
    // kube's adaptive default: 50% minus 1% per 125 nodes, at least 5%.
    percentage = std::max<int32_t>(5, 50 - static_cast<int32_t>(nodes / 125));
  }
  size_t n = nodes * static_cast<size_t>(percentage) / 100;
  return std::max(n, kMinFeasibleNodes);
}

size_t Scheduler::ProfileIndex(const Framework& fw) const {
  size_t i = 0;
  while (i < profiles_.size() && profiles_[i].get() != &fw) ++i;
  return i;
}

void Scheduler::ObserveAttempt(const Framework& fw, AttemptResult result, double seconds) {
  if (size_t i = ProfileIndex(fw); i < profiles_.size()) {
    const AttemptMetrics& m = attempt_metrics_[i][result];
    m.attempts->Increment();
    m.duration->Observe(seconds);
  }
  std::lock_guard lock(stats_mu_);
  if (latencies_.size() < 10'000'000) latencies_.push_back(seconds);
}

void Scheduler::ScheduleOne(Worker& w, QueuedPodInfo info) {
  Clock::time_point start = clock_.Now();
  const PodInfo& pod = *info.pod;
  const Framework* fw = Profile(pod.view->scheduler_name);
  BERTH_VLOG(4, "About to try and schedule pod", {"pod", log::KObj(pod.namespace_name(), pod.name())});
  if (!fw) {
    queue_->Done(pod.key);
    return;
  }
  BERTH_VLOG(3, "Attempting to schedule pod", {"pod", log::KObj(pod.namespace_name(), pod.name())});
  std::shared_lock<std::shared_mutex> shared(cycle_mu_, std::defer_lock);
  std::unique_lock<std::shared_mutex> unique(cycle_mu_, std::defer_lock);
  // While pods keep preempting, a pod that may preempt takes the cycle lock
  // exclusively from the start, rather than filter every node and then again
  // alone. Only the locking changes, never a decision; the first cycle that
  // guessed so and did not preempt ends the streak.
  const bool hard = HasHardInterPodConstraints(*pod.view);
  // (A pod nominated by its own preemption is not expected to preempt again:
  // its node is likely free for it now.)
  const bool expect_preemption = !hard && preempting_streak_.load(std::memory_order_relaxed) &&
                                 pod.view->preemption_policy != "Never" && pod.view->nominated_node_name.empty() &&
                                 handle_->nominator().NodeOf(pod.key).empty();
  w.preempted = false;
  struct StreakEnd {
    Scheduler& s;
    const Worker& w;
    bool expected;
    ~StreakEnd() {
      if (expected && !w.preempted) s.preempting_streak_.store(false, std::memory_order_relaxed);
    }
  } streak_end{*this, w, expect_preemption};
  w.exclusive = hard || expect_preemption;
  if (w.exclusive) {
    unique.lock();
  } else {
    shared.lock();
  }

  // Failures are reported without the cycle lock (their API writes must
  // not hold other cycles up).
  auto unlock = [&] {
    if (unique.owns_lock()) unique.unlock();
    if (shared.owns_lock()) shared.unlock();
  };

  constexpr int kMaxConflicts = 8;
  const auto [record_plugins, node_phase] = NextCycleRecordsPlugins();
  for (int attempt = 0;; ++attempt) {
    cache_.UpdateSnapshot(w.snapshot);
    auto state = std::make_unique<CycleState>(&w.snapshot);
    state->set_record_plugin_metrics(record_plugins, node_phase);
    const NodeInfo* selected = nullptr;
    if (std::optional<CycleFailure> failure = SchedulePod(w, *fw, *state, pod, &selected)) {
      if (failure->needs_exclusive && !w.exclusive) {
        // Preemption may evict pods: again, alone. When neither the cache nor
        // the nominations changed while the lock changed hands, the filters'
        // answers stand and only PostFilter runs again (a preempting pod
        // would otherwise filter every node twice).
        const int64_t seen = w.snapshot.generation();
        const uint64_t nominations = handle_->nominator().version();
        shared.unlock();
        unique.lock();
        w.exclusive = true;
        if (failure->after_filters) {
          cache_.UpdateSnapshot(w.snapshot);
          if (w.snapshot.generation() == seen && handle_->nominator().version() == nominations) {
            failure = RunPostFilter(w, *fw, *state, pod, nullptr);
          }
        }
        if (failure->needs_exclusive) continue;
      }
      RecordNomination(info.pod, failure->nominated_node);
      unlock();
      return FailCycle(*fw, std::move(info), std::move(*failure), start);
    }
    CycleFailure failure;
    switch (AssumeAndReserve(*fw, *state, info, *selected, &failure)) {
      case ReserveOutcome::kReserved: {
        RecordDecision(w, *fw, info.pod, *selected, start);
        PluginStatus permit = fw->RunPermit(*state, info.pod, selected->name(), handle_->waiting_pods());
        const bool waiting = permit.code() == Code::kWait;
        if (!permit.ok() && !waiting) {
          CycleFailure rejected = FailPermit(*fw, *state, pod, *selected, std::move(permit));
          unlock();
          return FailCycle(*fw, std::move(info), std::move(rejected), start);
        }
        return HandOffToBinding(w, *fw, std::move(info), selected->name(), std::move(state), start, waiting);
      }
      case ReserveOutcome::kConflict:
        if (attempt + 1 < kMaxConflicts) continue;  // re-evaluate with a fresh snapshot
        unlock();
        return FailCycle(*fw, std::move(info),
                         {PluginStatus::Error("too many scheduling conflicts"), "too many scheduling conflicts", false},
                         start);
      case ReserveOutcome::kFailed:
        unlock();
        return FailCycle(*fw, std::move(info), std::move(failure), start);
    }
  }
}

std::optional<Scheduler::CycleFailure> Scheduler::SchedulePod(Worker& w, const Framework& fw, CycleState& state,
                                                              const PodInfo& pod, const NodeInfo** selected) {
  if (std::optional<CycleFailure> failure = FindNodesThatFitPod(w, fw, state, pod)) return failure;
  if (w.feasible.size() == 1) {
    *selected = w.feasible.front();
    return std::nullopt;
  }
  if (!fw.HasScorePlugins() && !extenders_->HasPrioritizers()) {
    // kube scores every node 1 when no plugin scores: the choice among them is random.
    w.totals.assign(w.feasible.size(), 1);
  } else if (std::optional<CycleFailure> failure = PrioritizeNodes(w, fw, state, pod)) {
    return failure;
  }
  *selected = SelectHost(w, fw);
  return std::nullopt;
}

std::optional<Scheduler::CycleFailure> Scheduler::FindNodesThatFitPod(Worker& w, const Framework& fw,
                                                                      CycleState& state, const PodInfo& pod) {
  const Snapshot& snapshot = w.snapshot;
  if (snapshot.size() == 0) {
    return CycleFailure{PluginStatus::Unschedulable("no nodes available to schedule pods"),
                        "no nodes available to schedule pods", true};
  }
  PluginStatus pre = fw.RunPreFilter(state, pod);
  if (!pre.ok()) {
    if (!pre.IsRejected()) {
      std::string message = pre.Message();
      return CycleFailure{std::move(pre), std::move(message), false};
    }
    // Every node has the PreFilter's status; PostFilter still runs (kube).
    w.feasible.clear();
    w.rejected.clear();
    if (fw.HasPostFilterPlugins()) {
      for (const auto& node : snapshot.nodes()) w.rejected.push_back({node.get(), pre});
    }
    return RunPostFilter(w, fw, state, pod, &pre);
  }

  // A node nominated to the pod by an earlier preemption is tried first: it is
  // likely the only one with room (kube's evaluateNominatedNode).
  std::string nominated = pod.view->nominated_node_name;
  if (nominated.empty()) nominated = handle_->nominator().NodeOf(pod.key);
  if (!nominated.empty()) {
    if (const NodeInfo* node = snapshot.Get(nominated); node && fw.RunFilterWithNominatedPods(state, pod, *node).ok()) {
      w.feasible.assign(1, node);
      w.rejected.clear();
      if (std::optional<CycleFailure> failure = FilterByExtenders(w, pod)) return failure;
      if (!w.feasible.empty()) return std::nullopt;
    }
  }

  FindNodesThatPassFilters(w, fw, state, pod);
  if (std::optional<CycleFailure> failure = FilterByExtenders(w, pod)) return failure;
  if (!w.feasible.empty()) return std::nullopt;

  // An internal error in a filter is not "unschedulable".
  for (const auto& r : w.rejected) {
    if (r.status.code() == Code::kError) return CycleFailure{r.status, r.status.Message(), false};
  }
  return RunPostFilter(w, fw, state, pod, nullptr);
}

bool Scheduler::MayPreempt(const Worker& w, const PodInfo& pod) const {
  if (pod.view->preemption_policy == "Never") return false;
  for (const auto& r : w.rejected) {
    if (r.status.code() != Code::kUnschedulable) continue;
    for (const auto& p : r.node->pods()) {
      if (p->view->priority < pod.view->priority) return true;
    }
  }
  return false;
}

Scheduler::CycleFailure Scheduler::RunPostFilter(Worker& w, const Framework& fw, CycleState& state,
                                                 const PodInfo& pod, const PluginStatus* pre_filter) {
  const size_t nodes = w.snapshot.size();
  std::string post_message;
  std::optional<std::string> nominated;
  if (fw.HasPostFilterPlugins()) {
    if (!w.exclusive && MayPreempt(w, pod)) {
      CycleFailure again{PluginStatus::Unschedulable("preemption needs the cycle lock"), "", true};
      again.needs_exclusive = true;
      again.after_filters = pre_filter == nullptr;
      return again;
    }
    preemption_attempts_.Increment();
    PostFilterResult result;
    PluginStatus post = fw.RunPostFilter(state, pod, w.rejected, &result);
    if (!post.ok()) post_message = post.Message();
    BERTH_VLOG(5, "Status after running PostFilter plugins for pod",
               {"pod", log::KObj(pod.namespace_name(), pod.name())}, {"status", post.Message()});
    nominated = result.nominated_node;
    if (post.ok() && result.victims > 0) {
      preemption_victims_.Observe(static_cast<double>(result.victims));
      w.preempted = true;
      preempting_streak_.store(true, std::memory_order_relaxed);
    }
  }
  // Nodes PreFilter left out (it named the others) count with kube's reason.
  std::optional<PluginStatus> left_out;
  if (!pre_filter && state.node_restriction()) {
    std::vector<std::string> by = state.restricting_plugins();
    std::sort(by.begin(), by.end());
    by.erase(std::unique(by.begin(), by.end()), by.end());
    left_out = PluginStatus::Unresolvable("node(s) didn't satisfy plugin(s) " + GoList(by));
  }
  std::string message = FitErrorMessage(nodes, pre_filter, w.rejected, left_out ? &*left_out : nullptr, post_message);
  CycleFailure failure{PluginStatus::Unschedulable(message), message, true};
  failure.nominated_node = std::move(nominated);
  if (pre_filter && !pre_filter->plugin().empty()) failure.plugins.push_back(pre_filter->plugin());
  for (const auto& r : w.rejected) {  // a few distinct plugins over many nodes
    const std::string& plugin = r.status.plugin();
    if (!plugin.empty() && std::find(failure.plugins.begin(), failure.plugins.end(), plugin) == failure.plugins.end()) {
      failure.plugins.push_back(plugin);
    }
  }
  if (left_out) failure.plugins.insert(failure.plugins.end(), state.restricting_plugins().begin(),
                                       state.restricting_plugins().end());
  std::sort(failure.plugins.begin(), failure.plugins.end());
  failure.plugins.erase(std::unique(failure.plugins.begin(), failure.plugins.end()), failure.plugins.end());
  return failure;
}

void Scheduler::FindNodesThatPassFilters(Worker& w, const Framework& fw, const CycleState& state,
                                         const PodInfo& pod) {
  if (const auto& only = state.node_restriction()) {
    // PreFilter named the only nodes (kube's PreFilterResult): those that
    // exist are filtered, from the first; the rotation is left alone.
    w.restricted.clear();
    for (const std::string& name : *only) {
      if (NodeInfoPtr node = w.snapshot.GetShared(name)) w.restricted.push_back(std::move(node));
    }
    fw.RunFilterOverNodes(state, pod, w.restricted, 0, NumNodesToFind(fw, w.restricted.size()), nullptr, w.feasible,
                          w.rejected);
    return;
  }
  const auto& nodes = w.snapshot.nodes();
  size_t n = nodes.size();
  size_t start_index = next_start_node_.load(std::memory_order_relaxed) % n;
  Parallelizer* parallelizer =
      n >= options_.parallel_threshold && parallelizer_->threads() > 0 ? parallelizer_.get() : nullptr;
  const size_t found = fw.RunFilterOverNodes(state, pod, nodes, start_index, NumNodesToFind(fw, n), parallelizer,
                                             w.feasible, w.rejected);
  // Visited nodes: the feasible ones (counted past the number wanted too) and the rejected, as kube
  // counts them.
  const size_t processed = found + w.rejected.size();
  next_start_node_.store((start_index + processed) % n, std::memory_order_relaxed);
}

std::optional<Scheduler::CycleFailure> Scheduler::PrioritizeNodes(Worker& w, const Framework& fw, CycleState& state,
                                                                  const PodInfo& pod) {
  PluginStatus s = fw.RunPreScore(state, pod, w.feasible);
  w.totals.assign(w.feasible.size(), 0);
  if (s.ok()) s = fw.RunScore(state, pod, w.feasible, w.totals, w.scratch);
  if (!s.ok()) {
    std::string message = s.Message();
    return CycleFailure{std::move(s), std::move(message), false};
  }
  extenders_->Prioritize(pod, w.feasible, w.totals);
  if (log::V(10)) {
    for (size_t i = 0; i < w.feasible.size(); ++i) {
      BERTH_VLOG(10, "Calculated node's final score for pod", {"pod", log::KObj(pod.namespace_name(), pod.name())},
                 {"node", w.feasible[i]->name()}, {"score", w.totals[i]});
    }
  }
  return std::nullopt;
}

const NodeInfo* Scheduler::SelectHost(Worker& w, const Framework& fw) {
  size_t index;
  if (fw.node_selection() == NodeSelectionStrategy::kWeightedRandom) {
    w.sampler.Build(w.totals);
    index = w.sampler.Sample(w.rng);
  } else {
    index = SelectTopScore(w.totals, w.rng);
  }
  return w.feasible[index];
}

Scheduler::ReserveOutcome Scheduler::AssumeAndReserve(const Framework& fw, CycleState& state,
                                                      const QueuedPodInfo& info, const NodeInfo& node,
                                                      CycleFailure* failure) {
  const PodInfo& pod = *info.pod;
  const std::string& node_name = node.name();
  // Assumed, the pod counts on its node as a pod, no longer as a nomination
  // (kube drops the nomination at assume too). Both change under the
  // cache's lock: a concurrent cycle whose snapshot already holds the pod
  // would otherwise count it twice, fail a pod that fits, and leave it
  // unschedulable with no event to retry it.
  auto assumed = cache_.AssumePod(
      info.pod, node_name, node.generation(),
      [&](const NodeInfo& current) { return fw.RunFilter(state, pod, current).ok(); },
      [&] { handle_->nominator().Remove(pod.key); });
  if (assumed != Cache::AssumeResult::kAssumed) {
    std::lock_guard lock(stats_mu_);
    stats_.conflicts++;
    return ReserveOutcome::kConflict;
  }
  PluginStatus reserved = fw.RunReserve(state, pod, node_name);
  if (reserved.ok()) return ReserveOutcome::kReserved;
  fw.RunUnreserve(state, pod, node_name);
  cache_.ForgetPod(pod.key);
  bool rejected = reserved.IsRejected();
  std::string message = reserved.Message();
  *failure = {std::move(reserved), std::move(message), rejected};
  return ReserveOutcome::kFailed;
}

Scheduler::CycleFailure Scheduler::FailPermit(const Framework& fw, CycleState& state, const PodInfo& pod,
                                              const NodeInfo& node, PluginStatus status) {
  fw.RunUnreserve(state, pod, node.name());
  cache_.ForgetPod(pod.key);
  if (!status.IsRejected()) {
    std::string message = status.Message();
    return CycleFailure{std::move(status), std::move(message), false};
  }
  // A rejection reads as kube's FitError on the one node tried: "0/1 nodes
  // are available: 1 <reason>."
  const NodeStatus rejected[] = {{&node, status}};
  std::string message = FitErrorMessage(1, nullptr, rejected);
  return CycleFailure{std::move(status), std::move(message), true};
}

void Scheduler::HandOffToBinding(const Worker& w, const Framework& fw, QueuedPodInfo info, std::string node,
                                 std::unique_ptr<CycleState> state, Clock::time_point cycle_start, bool waiting) {
  const Clock::time_point reserved = clock_.Now();
  double cycle_seconds = Seconds(cycle_start, reserved);
  algorithm_duration_.Observe(cycle_seconds);
  {
    std::lock_guard lock(stats_mu_);
    if (cycle_latencies_.size() < 10'000'000) cycle_latencies_.push_back(cycle_seconds);
  }
  auto binding = std::make_unique<Binding>();
  binding->framework = &fw;
  binding->node = std::move(node);
  binding->state = std::move(state);
  binding->cycle_start = cycle_start;
  binding->reserved = reserved;
  binding->info = std::move(info);
  binding->waiting = waiting;
  binding->feasible_nodes = w.feasible.size();
  binding->evaluated_nodes = w.feasible.size() + w.rejected.size();
  binding_in_flight_++;
  binding_goroutines_->Add(1);
  {
    std::lock_guard lock(bind_mu_);
    bindings_.push_back(std::move(binding));
  }
  bind_cv_.notify_one();
}

bool Scheduler::WaitForScheduled(uint64_t n, std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(stats_mu_);
  scheduled_wake_at_ = n;
  bool reached = scheduled_cv_.wait_until(lock, deadline, [&] { return stats_.scheduled >= n; });
  scheduled_wake_at_ = 0;
  return reached;
}

Scheduler::Stats Scheduler::stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

std::vector<double> Scheduler::TakeCycleLatencies() {
  std::lock_guard lock(stats_mu_);
  return std::exchange(cycle_latencies_, {});
}

std::vector<double> Scheduler::TakeAttemptLatencies() {
  std::lock_guard lock(stats_mu_);
  return std::exchange(latencies_, {});
}

std::vector<Scheduler::BoundPod> Scheduler::TakeBoundPods() {
  std::lock_guard lock(stats_mu_);
  return std::exchange(bound_pods_, {});
}

}  // namespace berth::scheduler
