#include "scheduler/scheduler.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <map>

#include "scheduler/select/sampler.h"

namespace berth::scheduler {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since, Clock::time_point now = Clock::now()) {
  return std::chrono::duration<double>(now - since).count();
}

// Pods whose feasibility depends on other nodes' pods: they schedule alone.
bool HasHardInterPodConstraints(const api::PodView& pod) {
  if (!pod.pod_affinity.required.empty() || !pod.pod_anti_affinity.required.empty()) return true;
  for (const auto& c : pod.topology_spread_constraints) {
    if (c.do_not_schedule) return true;
  }
  return false;
}

// kube's FitError message: "0/N nodes are available: <count reason>, ...."
std::string FitErrorMessage(size_t num_nodes, const PluginStatus* pre_filter,
                            const std::vector<NodeStatus>& rejected) {
  std::string message = "0/" + std::to_string(num_nodes) + " nodes are available:";
  if (pre_filter) return message + " " + pre_filter->Message() + ".";
  std::map<std::string, int> histogram;
  for (const auto& r : rejected) {
    for (const auto& reason : r.status.reasons()) histogram[reason]++;
  }
  std::vector<std::string> parts;
  for (const auto& [reason, count] : histogram) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string joined;
  for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
  if (!joined.empty()) message += " " + joined + ".";
  return message;
}

}  // namespace

struct Scheduler::Worker {
  Snapshot snapshot;
  std::mt19937_64 rng;
  std::vector<const NodeInfo*> feasible;
  std::vector<NodeStatus> rejected;
  std::vector<int64_t> totals;
  std::vector<NodeScore> scratch;
  AliasSampler sampler;
  std::mutex result_mu;  // guards rejected while Filter runs in parallel
};

struct Scheduler::Binding {
  const Framework* framework;
  QueuedPodInfo info;
  std::string node;
  std::unique_ptr<CycleState> state;
  Clock::time_point cycle_start;
  Clock::time_point reserved;  // the end of the scheduling cycle
};

Scheduler::Scheduler(SchedulerOptions options, SchedulerClient* client)
    : options_(options),
      client_(client),
      attempts_(metrics_.AddCounter("scheduler_schedule_attempts_total",
                                    "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod "
                                    "could not be scheduled, while 'error' means an internal scheduler problem.",
                                    {"result", "profile"})),
      attempt_duration_(metrics_.AddHistogram("scheduler_scheduling_attempt_duration_seconds",
                                              "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
                                              metrics::ExponentialBuckets(0.00001, 2, 20), {"result", "profile"})),
      pod_scheduling_duration_(
          metrics_
              .AddHistogram("scheduler_pod_scheduling_duration_seconds",
                            "E2e latency for a pod being scheduled, from the time the pod enters the scheduling "
                            "queue and might involve multiple scheduling attempts.",
                            metrics::ExponentialBuckets(0.0001, 2, 22), {})
              .WithLabels({})),
      algorithm_duration_(metrics_
                              .AddHistogram("scheduler_scheduling_algorithm_duration_seconds",
                                            "Scheduling algorithm latency in seconds",
                                            metrics::ExponentialBuckets(0.000001, 2, 24), {})
                              .WithLabels({})),
      extension_point_duration_(metrics_.AddHistogram(
          "scheduler_framework_extension_point_duration_seconds",
          "Latency for running all plugins of a specific extension point.",
          metrics::ExponentialBuckets(0.000001, 2, 20), {"extension_point", "status", "profile"})),
      incoming_pods_(metrics_.AddCounter("scheduler_queue_incoming_pods_total",
                                         "Number of pods added to scheduling queues by event and queue type.",
                                         {"queue", "event"})),
      schedule_failed_(metrics_
                           .AddCounter("scheduler_pod_schedule_failed_total",
                                       "Number of scheduling attempts that found no node for the pod.", {})
                           .WithLabels({})) {
  uint64_t seed = options_.seed ? options_.seed : std::random_device{}();
  seed_sequence_ = seed;
}

Result<std::unique_ptr<Scheduler>> Scheduler::Create(const SchedulerConfig& config, const Registry& registry,
                                                     SchedulerOptions options, SchedulerClient* client) {
  auto s = std::unique_ptr<Scheduler>(new Scheduler(options, client));
  std::vector<ProfileConfig> profiles = config.profiles;
  if (profiles.empty()) profiles.emplace_back();
  for (size_t i = 0; i < profiles.size(); ++i) {
    auto fw = Framework::Build(profiles[i], registry, *s, "profiles[" + std::to_string(i) + "]");
    if (!fw.ok()) return fw.status();
    s->profiles_.push_back(std::move(fw).value());
  }
  s->percentage_of_nodes_to_score_ = config.percentage_of_nodes_to_score;
  static const char* kPointNames[] = {"PreFilter", "Filter", "PreScore", "Score", "Reserve", "Permit", "PreBind", "Bind"};
  for (const auto& fw : s->profiles_) {
    std::array<metrics::Histogram*, kPointCount> hs{};
    for (int p = 0; p < kPointCount; ++p) {
      hs[p] = &s->extension_point_duration_.WithLabels({kPointNames[p], "Success", fw->scheduler_name()});
    }
    s->point_success_.push_back(hs);
    static const char* kResultNames[] = {"scheduled", "unschedulable", "error"};
    std::array<AttemptMetrics, kAttemptResultCount> am{};
    for (int r = 0; r < kAttemptResultCount; ++r) {
      am[r] = {&s->attempts_.WithLabels({kResultNames[r], fw->scheduler_name()}),
               &s->attempt_duration_.WithLabels({kResultNames[r], fw->scheduler_name()})};
    }
    s->attempt_metrics_.push_back(am);
  }
  const Framework* first = s->profiles_.front().get();
  SchedulingQueue::Options qopts;
  qopts.initial_backoff = std::chrono::seconds(config.pod_initial_backoff_seconds);
  qopts.max_backoff = std::chrono::seconds(config.pod_max_backoff_seconds);
  if (first->queue_sort().HasSortKey()) {
    qopts.sort_key = [first](const QueuedPodInfo& pod) { return first->queue_sort().SortKey(pod); };
  }
  Scheduler* self = s.get();
  s->queue_ = std::make_unique<SchedulingQueue>(
      [first](const QueuedPodInfo& a, const QueuedPodInfo& b) { return first->queue_sort().Less(a, b); },
      [self](const PodInfo& pod) {
        const Framework* fw = self->Profile(pod.view->scheduler_name);
        return fw && fw->RunPreEnqueue(pod).ok();
      },
      qopts);
  int filter_threads = std::min(options.filter_threads, std::max(0, config.parallelism - 1));
  s->parallelizer_ = std::make_unique<Parallelizer>(filter_threads);
  s->metrics_.AddCallbackGauge("scheduler_pending_pods",
                               "Number of pending pods, by the queue type. 'active' means number of pods in "
                               "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number "
                               "of pods in unschedulablePods that the scheduler attempted to schedule and failed; "
                               "'gated' is the number of unschedulable pods that the scheduler never attempted to "
                               "schedule because they are gated.",
                               {"queue"}, [self] {
                                 auto c = self->queue_->counts();
                                 return std::vector<metrics::Registry::Sample>{
                                     {{"active"}, static_cast<double>(c.active)},
                                     {{"backoff"}, static_cast<double>(c.backoff)},
                                     {{"unschedulable"}, static_cast<double>(c.unschedulable)},
                                     {{"gated"}, static_cast<double>(c.gated)}};
                               });
  return s;
}

Scheduler::~Scheduler() { Stop(); }

const Framework* Scheduler::Profile(std::string_view scheduler_name) const {
  for (const auto& p : profiles_) {
    if (p->scheduler_name() == scheduler_name) return p.get();
  }
  return nullptr;
}

// ---- events ----

void Scheduler::OnNodeAdd(const api::ObjectPtr& node) {
  cache_.AddNode(node);
  queue_->MoveAllToActiveOrBackoff();
}

void Scheduler::OnNodeUpdate(const api::ObjectPtr& node) {
  cache_.UpdateNode(node);
  queue_->MoveAllToActiveOrBackoff();
}

void Scheduler::OnNodeDelete(const std::string& name) { cache_.RemoveNode(name); }

void Scheduler::OnPodAdd(const api::ObjectPtr& pod) {
  const auto* view = pod->As<api::PodView>();
  PodInfoPtr info = MakePodInfo(pod);
  if (!view->node_name.empty()) {
    queue_->Delete(info->key);
    if (view->phase != "Succeeded" && view->phase != "Failed") cache_.AddPod(std::move(info));
    return;
  }
  if (!Profile(view->scheduler_name) || view->terminating) return;
  incoming_pods_.WithLabels({"active", "PodAdd"}).Increment();
  queue_->Add(std::move(info));
}

void Scheduler::OnPodUpdate(const api::ObjectPtr& pod) {
  const auto* view = pod->As<api::PodView>();
  if (!view->node_name.empty()) {
    if (view->phase == "Succeeded" || view->phase == "Failed") {
      OnPodDelete(pod);
      return;
    }
    OnPodAdd(pod);
    return;
  }
  if (!Profile(view->scheduler_name)) return;
  if (view->terminating) {
    queue_->Delete(PodKey(*pod));
    return;
  }
  queue_->Update(MakePodInfo(pod));
}

void Scheduler::OnPodDelete(const api::ObjectPtr& pod) {
  std::string key = PodKey(*pod);
  queue_->Delete(key);
  if (!cache_.NodeOf(key).empty()) {
    cache_.RemovePod(key);
    queue_->MoveAllToActiveOrBackoff();
  }
}

void Scheduler::OnNamespace(const api::ObjectPtr& ns) {
  std::lock_guard lock(ns_mu_);
  namespaces_[ns->name()] = std::make_shared<const api::Labels>(ns->labels());
}

void Scheduler::OnNamespaceDelete(const std::string& name) {
  std::lock_guard lock(ns_mu_);
  namespaces_.erase(name);
}

std::shared_ptr<const api::Labels> Scheduler::NamespaceLabels(std::string_view ns) const {
  std::lock_guard lock(ns_mu_);
  auto it = namespaces_.find(std::string(ns));
  return it == namespaces_.end() ? nullptr : it->second;
}

Status Scheduler::BindPod(const api::Object& pod, const std::string& node) const {
  return client_->BindPod(pod, node);
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
  for (int i = 0; i < std::max(1, options_.binding_workers); ++i) threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "sched-bind");
      BindingLoop();
    });
}

void Scheduler::Stop() {
  queue_->Close();
  {
    std::lock_guard lock(bind_mu_);
    stopping_ = true;
  }
  bind_cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

bool Scheduler::WaitForIdle(Clock::time_point deadline) {
  while (Clock::now() < deadline) {
    auto c = queue_->counts();
    if (c.active == 0 && c.backoff == 0 && c.in_flight == 0 && in_cycle_.load() == 0 &&
        binding_in_flight_.load() == 0) {
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
  auto running_since = Clock::now();
  while (true) {
    auto info = queue_->Pop();
    if (!info) return;
    in_cycle_++;
    ScheduleOne(worker, std::move(*info));
    in_cycle_--;
    if (yield && Clock::now() - running_since >= options_.cycle_yield_after) {
      sched_yield();
      running_since = Clock::now();
    }
  }
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

void Scheduler::ObservePoint(const Framework& fw, Point point, const PluginStatus& status, Clock::time_point since) {
  static const char* kPointNames[] = {"PreFilter", "Filter", "PreScore", "Score", "Reserve", "Permit", "PreBind", "Bind"};
  static const char* kCodeNames[] = {"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
                                     "Wait", "Skip", "Pending"};
  double seconds = Seconds(since);
  if (size_t i = ProfileIndex(fw); status.ok() && i < profiles_.size()) {
    return point_success_[i][point]->Observe(seconds);
  }
  extension_point_duration_
      .WithLabels({kPointNames[point], kCodeNames[static_cast<int>(status.code())], fw.scheduler_name()})
      .Observe(seconds);
}

void Scheduler::ScheduleOne(Worker& w, QueuedPodInfo info) {
  Clock::time_point start = Clock::now();
  const PodInfo& pod = *info.pod;
  const Framework* fw = Profile(pod.view->scheduler_name);
  if (!fw) {
    queue_->Done(pod.key);
    return;
  }
  bool exclusive = HasHardInterPodConstraints(*pod.view);
  std::shared_lock<std::shared_mutex> shared(cycle_mu_, std::defer_lock);
  std::unique_lock<std::shared_mutex> unique(cycle_mu_, std::defer_lock);
  if (exclusive) {
    unique.lock();
  } else {
    shared.lock();
  }

  constexpr int kMaxConflicts = 8;
  for (int attempt = 0;; ++attempt) {
    cache_.UpdateSnapshot(w.snapshot);
    const Snapshot& snapshot = w.snapshot;
    auto state = std::make_unique<CycleState>(&snapshot);
    if (snapshot.size() == 0) {
      HandleFailure(*fw, std::move(info), PluginStatus::Unschedulable("no nodes available to schedule pods"),
                    "no nodes available to schedule pods", true);
      ObserveAttempt(*fw, kUnschedulable, Seconds(start));
      return;
    }

    Clock::time_point point_start = Clock::now();
    PluginStatus pre = fw->RunPreFilter(*state, pod);
    ObservePoint(*fw, kPreFilter, pre, point_start);
    if (!pre.ok()) {
      bool rejected = pre.IsRejected();
      std::string message = rejected ? FitErrorMessage(snapshot.size(), &pre, {}) : pre.Message();
      HandleFailure(*fw, std::move(info), pre, message, rejected);
      ObserveAttempt(*fw, rejected ? kUnschedulable : kError, Seconds(start));
      return;
    }

    // Filter, from a rotating start node, until enough feasible nodes are found.
    const auto& nodes = snapshot.nodes();
    size_t n = nodes.size();
    size_t to_find = NumNodesToFind(*fw, n);
    size_t start_index = next_start_node_.load(std::memory_order_relaxed) % n;
    // Feasible nodes take slots by an atomic counter (most nodes are
    // feasible: no lock per node); the rejected ones are few and appended under a lock.
    w.feasible.resize(to_find);
    w.rejected.clear();
    std::atomic<bool> enough{false};
    std::atomic<size_t> found{0};
    auto check = [&](size_t i) {
      const NodeInfo& node = *nodes[(start_index + i) % n];
      PluginStatus s = fw->RunFilter(*state, pod, node);
      if (s.ok()) {
        const size_t slot = found.fetch_add(1, std::memory_order_relaxed);
        if (slot < to_find) w.feasible[slot] = &node;
        if (slot + 1 >= to_find) enough.store(true, std::memory_order_relaxed);
      } else {
        std::lock_guard lock(w.result_mu);
        w.rejected.push_back({&node, std::move(s)});
      }
    };
    point_start = Clock::now();
    if (n >= options_.parallel_threshold && parallelizer_->threads() > 0) {
      parallelizer_->Until(n, check, &enough);
    } else {
      for (size_t i = 0; i < n && !enough.load(std::memory_order_relaxed); ++i) check(i);
    }
    w.feasible.resize(std::min(found.load(), to_find));
    // Visited nodes: the feasible ones (counted past to_find too) and the rejected, as kube counts
    // them.
    const size_t processed = found.load() + w.rejected.size();
    next_start_node_.store((start_index + processed) % n, std::memory_order_relaxed);
    ObservePoint(*fw, kFilter, w.feasible.empty() ? PluginStatus::Unschedulable("") : PluginStatus(), point_start);

    if (w.feasible.empty()) {
      // An internal error in a filter is not "unschedulable".
      for (const auto& r : w.rejected) {
        if (r.status.code() == Code::kError) {
          HandleFailure(*fw, std::move(info), r.status, r.status.Message(), false);
          ObserveAttempt(*fw, kError, Seconds(start));
          return;
        }
      }
      PostFilterResult post;
      fw->RunPostFilter(*state, pod, w.rejected, &post);
      std::string message = FitErrorMessage(n, nullptr, w.rejected);
      HandleFailure(*fw, std::move(info), PluginStatus::Unschedulable(message), message, true);
      ObserveAttempt(*fw, kUnschedulable, Seconds(start));
      return;
    }

    // Score and select.
    const NodeInfo* selected = w.feasible.front();
    if (w.feasible.size() > 1 && fw->HasScorePlugins()) {
      point_start = Clock::now();
      PluginStatus s = fw->RunPreScore(*state, pod, w.feasible);
      ObservePoint(*fw, kPreScore, s, point_start);
      w.totals.assign(w.feasible.size(), 0);
      if (s.ok()) {
        point_start = Clock::now();
        s = fw->RunScore(*state, pod, w.feasible, w.totals, w.scratch);
        ObservePoint(*fw, kScore, s, point_start);
      }
      if (!s.ok()) {
        HandleFailure(*fw, std::move(info), s, s.Message(), false);
        ObserveAttempt(*fw, kError, Seconds(start));
        return;
      }
      size_t index;
      if (options_.weighted_random) {
        w.sampler.Build(w.totals);
        index = w.sampler.Sample(w.rng);
      } else {
        index = SelectTopScore(w.totals, w.rng);
      }
      selected = w.feasible[index];
    }
    std::string node_name = selected->name();

    // Reserve: assume the pod on the node unless a concurrent cycle changed
    // the node in a way that makes it not fit any more.
    auto assumed = cache_.AssumePod(info.pod, node_name, selected->generation(), [&](const NodeInfo& current) {
      return fw->RunFilter(*state, pod, current).ok();
    });
    if (assumed != Cache::AssumeResult::kAssumed) {
      {
        std::lock_guard lock(stats_mu_);
        stats_.conflicts++;
      }
      if (attempt + 1 < kMaxConflicts) continue;  // re-evaluate with a fresh snapshot
      HandleFailure(*fw, std::move(info), PluginStatus::Error("too many scheduling conflicts"),
                    "too many scheduling conflicts", false);
      ObserveAttempt(*fw, kError, Seconds(start));
      return;
    }
    point_start = Clock::now();
    PluginStatus reserved = fw->RunReserve(*state, pod, node_name);
    ObservePoint(*fw, kReserve, reserved, point_start);
    if (!reserved.ok()) {
      fw->RunUnreserve(*state, pod, node_name);
      cache_.ForgetPod(pod.key);
      HandleFailure(*fw, std::move(info), reserved, reserved.Message(), reserved.IsRejected());
      ObserveAttempt(*fw, reserved.IsRejected() ? kUnschedulable : kError, Seconds(start));
      return;
    }
    double cycle_seconds = Seconds(start);
    algorithm_duration_.Observe(cycle_seconds);
    {
      std::lock_guard lock(stats_mu_);
      if (cycle_latencies_.size() < 10'000'000) cycle_latencies_.push_back(cycle_seconds);
    }
    // Hand over to a binding cycle; the next scheduling cycle need not wait.
    auto binding = std::make_unique<Binding>();
    binding->framework = fw;
    binding->node = std::move(node_name);
    binding->state = std::move(state);
    binding->cycle_start = start;
    binding->reserved = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cycle_seconds));
    binding->info = std::move(info);
    binding_in_flight_++;
    {
      std::lock_guard lock(bind_mu_);
      bindings_.push_back(std::move(binding));
    }
    bind_cv_.notify_one();
    return;
  }
}

void Scheduler::HandleFailure(const Framework& fw, QueuedPodInfo info, const PluginStatus& status,
                              std::string message, bool unschedulable) {
  {
    std::lock_guard lock(stats_mu_);
    (unschedulable ? stats_.unschedulable : stats_.errors)++;
  }
  if (unschedulable) schedule_failed_.Increment();
  info.unschedulable_plugins.clear();
  if (!status.plugin().empty()) info.unschedulable_plugins.push_back(status.plugin());
  api::ObjectPtr pod = info.pod->object;
  queue_->Requeue(std::move(info), unschedulable);
  if (client_) client_->ReportFailure(*pod, unschedulable ? "Unschedulable" : "SchedulerError", message);
}

void Scheduler::BindingLoop() {
  while (true) {
    std::unique_ptr<Binding> binding;
    {
      std::unique_lock lock(bind_mu_);
      bind_cv_.wait(lock, [&] { return stopping_ || !bindings_.empty(); });
      if (bindings_.empty()) return;
      binding = std::move(bindings_.front());
      bindings_.pop_front();
    }
    RunBindingCycle(std::move(binding));
  }
}

void Scheduler::RunBindingCycle(std::unique_ptr<Binding> b) {
  const Framework& fw = *b->framework;
  const PodInfo& pod = *b->info.pod;
  CycleState& state = *b->state;
  PluginStatus status;
  Clock::time_point point_start = Clock::now();
  PermitDecision permit = fw.RunPermit(state, pod, b->node);
  ObservePoint(fw, kPermit, permit.status, point_start);
  if (permit.status.code() == Code::kWait) {
    // No in-tree plugin waits yet; a waiting pod times out as kube's do.
    std::this_thread::sleep_for(permit.timeout);
    status = PluginStatus::Unschedulable("rejected due to timeout after waiting " +
                                         std::to_string(permit.timeout.count()) + "ms at plugin " +
                                         permit.status.plugin());
  } else {
    status = permit.status;
  }
  if (status.ok()) {
    point_start = Clock::now();
    status = fw.RunPreBind(state, pod, b->node);
    ObservePoint(fw, kPreBind, status, point_start);
  }
  if (status.ok()) {
    point_start = Clock::now();
    status = fw.RunBind(state, pod, b->node);
    ObservePoint(fw, kBind, status, point_start);
  }
  if (status.ok()) {
    cache_.FinishBinding(pod.key);
    fw.RunPostBind(state, pod, b->node);
    bool wake = false;
    {
      const Clock::time_point bound = Clock::now();
      std::lock_guard lock(stats_mu_);
      stats_.scheduled++;
      wake = scheduled_wake_at_ != 0 && stats_.scheduled >= scheduled_wake_at_;
      if (options_.record_bound_pods && bound_pods_.size() < 10'000'000) {
        bound_pods_.push_back({pod.key, b->info.initial_attempt, b->cycle_start, b->reserved, bound});
      }
    }
    if (wake) scheduled_cv_.notify_all();
    if (client_) client_->ReportScheduled(*b->info.pod->object, b->node);
    pod_scheduling_duration_.Observe(Seconds(b->info.initial_attempt));
    ObserveAttempt(fw, kScheduled, Seconds(b->cycle_start));
    queue_->Done(pod.key);
  } else {
    fw.RunUnreserve(state, pod, b->node);
    cache_.ForgetPod(pod.key);
    {
      std::lock_guard lock(stats_mu_);
      stats_.bind_failures++;
    }
    ObserveAttempt(fw, kError, Seconds(b->cycle_start));
    api::ObjectPtr object = b->info.pod->object;
    queue_->Requeue(std::move(b->info), status.IsRejected());
    // The node's resources are free again: pods waiting for them may fit.
    queue_->MoveAllToActiveOrBackoff();
    if (client_) client_->ReportFailure(*object, "SchedulerError", "binding rejected: " + status.Message());
  }
  binding_in_flight_--;
}

bool Scheduler::WaitForScheduled(uint64_t n, Clock::time_point deadline) {
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
