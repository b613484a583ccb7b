#include "scheduler/framework/framework.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include <boost/json/serialize.hpp>

#include "api/validation/validation.h"
#include "scheduler/framework/framework_labels.h"
#include "scheduler/parallelizer.h"

namespace berth::scheduler {

namespace {

using framework_labels::kCodeNames;
using framework_labels::kPointNames;

const PluginStatus& StatusOf(const PluginStatus& status) { return status; }

}  // namespace

template <typename Run>
auto Framework::Timed(Point point, Run&& run) const {
  if (!extension_point_duration_) return run();
  api::Clock::time_point since = clock_->Now();
  auto result = run();
  ObservePoint(point, StatusOf(result).code(), since);
  return result;
}

void Framework::ObservePoint(Point point, Code code, api::Clock::time_point since) const {
  double seconds = std::chrono::duration<double>(clock_->Now() - since).count();
  if (code == Code::kSuccess) return point_success_[point]->Observe(seconds);
  extension_point_duration_->WithLabels({kPointNames[point], kCodeNames[static_cast<int>(code)], scheduler_name_})
      .Observe(seconds);
}

PluginStatus Framework::RunPreEnqueue(const PodInfo& pod) const {
  for (const auto* p : pre_enqueue_) {
    PluginStatus s = p->PreEnqueue(pod);
    if (!s.ok()) return s.WithPlugin(p->Name());
  }
  return {};
}

PluginStatus Framework::RunPreFilter(CycleState& state, const PodInfo& pod) const {
  return Timed(kPreFilter, [&]() -> PluginStatus {
    for (size_t i = 0; i < pre_filter_.size(); ++i) {
      const PreFilterPlugin* p = pre_filter_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kPreFilter, i, [&] { return p->PreFilter(state, pod); });
      if (s.IsSkip()) {
        if (pre_filter_to_filter_[i] >= 0) state.SkipFilterAt(static_cast<size_t>(pre_filter_to_filter_[i]));
        continue;
      }
      evaluations_.Add(PluginEvaluations::kPreFilter, i);
      if (!s.ok()) return s.WithPlugin(p->Name());
      if (state.node_restriction() && state.node_restriction()->empty()) {
        // The plugins' node names have nothing in common (kube's words).
        const auto& by = state.restricting_plugins();
        std::string message = by.size() == 1 ? "node(s) didn't satisfy plugin " + by.front()
                                             : "node(s) didn't satisfy plugin(s) " + GoList(by) + " simultaneously";
        return PluginStatus::Unresolvable(std::move(message)).WithPlugin(p->Name());
      }
    }
    return {};
  });
}

PluginStatus Framework::RunFilter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  size_t ran = 0;
  PluginStatus s = FilterNode(state, pod, node, ran);
  evaluations_.AddFilterRuns(state, ran, 1);
  return s;
}

PluginStatus Framework::FilterNode(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                                   size_t& ran) const {
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (state.FilterSkippedAt(i)) continue;
    const FilterPlugin* p = filter_[i];
    PluginStatus s = plugin_durations_.TimeOnNode(state, PluginDurations::kFilter, i, node.slot(),
                                                  [&] { return p->Filter(state, pod, node); });
    if (!s.ok()) {
      ran = i + 1;
      return s.WithPlugin(p->Name());
    }
  }
  ran = filter_.size();
  return {};
}

size_t Framework::RunFilterOverNodes(const CycleState& state, const PodInfo& pod,
                                     std::span<const std::shared_ptr<const NodeInfo>> nodes, size_t start,
                                     size_t wanted, Parallelizer* parallelizer,
                                     std::vector<const NodeInfo*>& feasible,
                                     std::vector<NodeStatus>& rejected) const {
  const size_t n = nodes.size();
  // Passing nodes take slots by an atomic counter (most nodes pass: no lock
  // per node); the rejected ones are few and appended under a lock.
  feasible.resize(wanted);
  rejected.clear();
  std::mutex rejected_mu;
  std::atomic<bool> enough{false};
  std::atomic<size_t> found{0};
  const bool nominations = handle_ && handle_->HasNominatedPods();
  // How far the plugins got on the rejected nodes, by position (the passing
  // nodes ran them all): scheduler_plugin_evaluation_total, added once.
  std::vector<uint32_t> rejected_ran(evaluations_.enabled() ? filter_.size() + 1 : 0);
  auto check = [&](size_t i) {
    const NodeInfo& node = *nodes[(start + i) % n];
    size_t ran = 0;
    PluginStatus s = nominations ? FilterNodeWithNominatedPods(state, pod, node, ran)
                                 : FilterNode(state, pod, node, ran);
    if (s.ok()) {
      const size_t slot = found.fetch_add(1, std::memory_order_relaxed);
      if (slot < wanted) feasible[slot] = &node;
      if (slot + 1 >= wanted) enough.store(true, std::memory_order_relaxed);
    } else {
      std::lock_guard lock(rejected_mu);
      rejected.push_back({&node, std::move(s)});
      if (!rejected_ran.empty()) ++rejected_ran[std::min(ran, filter_.size())];
    }
  };
  api::Clock::time_point since{};
  if (extension_point_duration_) since = clock_->Now();
  if (parallelizer) {
    parallelizer->Until(n, check, &enough, "Filter");
  } else {
    for (size_t i = 0; i < n && !enough.load(std::memory_order_relaxed); ++i) check(i);
  }
  feasible.resize(std::min(found.load(), wanted));
  if (evaluations_.enabled()) {
    evaluations_.AddFilterRuns(state, filter_.size(), found.load());
    for (size_t ran = 0; ran < rejected_ran.size(); ++ran) evaluations_.AddFilterRuns(state, ran, rejected_ran[ran]);
  }
  if (extension_point_duration_) ObservePoint(kFilter, feasible.empty() ? Code::kUnschedulable : Code::kSuccess, since);
  return found.load();
}

PluginStatus Framework::RunPostFilter(CycleState& state, const PodInfo& pod, std::span<const NodeStatus> rejected,
                                      PostFilterResult* result) const {
  std::vector<std::string> reasons;
  std::string failed_plugin;
  for (size_t i = 0; i < post_filter_.size(); ++i) {
    const PostFilterPlugin* p = post_filter_[i];
    PostFilterResult r;
    PluginStatus s = plugin_durations_.Time(state, PluginDurations::kPostFilter, i,
                                            [&] { return p->PostFilter(state, pod, rejected, *this, &r); });
    if (s.ok()) {
      *result = std::move(r);
      return s;
    }
    if (s.code() == Code::kUnschedulableAndUnresolvable) {
      *result = std::move(r);
      return s.WithPlugin(p->Name());
    }
    if (!s.IsRejected()) return PluginStatus::Error(s.Message()).WithPlugin(p->Name());
    if (r.nominated_node) *result = std::move(r);
    for (const auto& reason : s.reasons()) reasons.push_back(reason);
    if (failed_plugin.empty()) failed_plugin = std::string(p->Name());
  }
  PluginStatus joined(Code::kUnschedulable, std::move(reasons));
  return joined.WithPlugin(failed_plugin);
}

PluginStatus Framework::RunFilterWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                   const NodeInfo& node) const {
  size_t ran = 0;
  PluginStatus s = FilterNodeWithNominatedPods(state, pod, node, ran);
  evaluations_.AddFilterRuns(state, ran, 1);
  return s;
}

PluginStatus Framework::FilterNodeWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                    const NodeInfo& node, size_t& ran) const {
  ran = 0;
  // First with the nominated pods of equal or higher priority on the node
  // (this pod must not take the room freed for them), then without them
  // (a filter such as pod affinity may pass only with them).
  std::vector<PodInfoPtr> nominated;
  if (handle_ && handle_->HasNominatedPods()) {
    handle_->ForEachNominatedPod(node.name(), [&](const PodInfoPtr& p) {
      if (p->view->priority >= pod.view->priority && p->uid() != pod.uid()) nominated.push_back(p);
    });
  }
  if (nominated.empty()) return FilterNode(state, pod, node, ran);
  NodeInfo with_node = node;
  for (const auto& p : nominated) with_node.AddPod(p);
  // The state needs a copy only for plugins whose PreFilter data counts
  // pods (their extensions add the nominated ones); else it is read as is.
  std::unique_ptr<CycleState> with_state;
  if (HasActivePreFilterExtensions(state)) {
    with_state = state.Clone();
    for (const auto& p : nominated) {
      PluginStatus added = RunPreFilterAddPod(*with_state, pod, *p, with_node);
      if (!added.ok()) return added;
    }
  }
  PluginStatus first = FilterNode(with_state ? *with_state : state, pod, with_node, ran);
  if (!first.ok()) return first;
  evaluations_.AddFilterRuns(state, ran, 1);
  return FilterNode(state, pod, node, ran);
}

bool Framework::HasActivePreFilterExtensions(const CycleState& state) const {
  for (size_t i = 0; i < pre_filter_.size(); ++i) {
    if (!pre_filter_[i]->HasPreFilterExtensions()) continue;
    if (pre_filter_to_filter_[i] >= 0 && state.FilterSkippedAt(static_cast<size_t>(pre_filter_to_filter_[i]))) continue;
    return true;
  }
  return false;
}

PluginStatus Framework::RunPreFilterExtension(CycleState& state, bool add, const PodInfo& pod, const PodInfo& other,
                                              const NodeInfo& node) const {
  for (size_t i = 0; i < pre_filter_.size(); ++i) {
    const PreFilterPlugin* p = pre_filter_[i];
    if (!p->HasPreFilterExtensions()) continue;
    // A plugin whose PreFilter skipped this cycle has no state to keep true.
    if (pre_filter_to_filter_[i] >= 0 && state.FilterSkippedAt(static_cast<size_t>(pre_filter_to_filter_[i]))) continue;
    PluginStatus s = add ? p->AddPod(state, pod, other, node) : p->RemovePod(state, pod, other, node);
    if (!s.ok()) return PluginStatus::Error(s.Message()).WithPlugin(p->Name());
  }
  return {};
}

PluginStatus Framework::RunPreFilterAddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                           const NodeInfo& node) const {
  return RunPreFilterExtension(state, /*add=*/true, pod, other, node);
}

PluginStatus Framework::RunPreFilterRemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                              const NodeInfo& node) const {
  return RunPreFilterExtension(state, /*add=*/false, pod, other, node);
}

PluginStatus Framework::RunPreScore(CycleState& state, const PodInfo& pod,
                                    std::span<const NodeInfo* const> nodes) const {
  return Timed(kPreScore, [&]() -> PluginStatus {
    for (size_t i = 0; i < pre_score_.size(); ++i) {
      const PreScorePlugin* p = pre_score_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kPreScore, i, [&] { return p->PreScore(state, pod, nodes); });
      if (s.IsSkip()) {
        if (pre_score_to_score_[i] >= 0) state.SkipScoreAt(static_cast<size_t>(pre_score_to_score_[i]));
        continue;
      }
      evaluations_.Add(PluginEvaluations::kPreScore, i);
      if (!s.ok()) return s.WithPlugin(p->Name());
    }
    return {};
  });
}

PluginStatus Framework::RunScore(const CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes,
                                 std::span<int64_t> totals, std::vector<NodeScore>& scratch) const {
  return Timed(kScore, [&]() -> PluginStatus {
    scratch.resize(nodes.size());
    for (size_t p = 0; p < score_.size(); ++p) {
      if (state.ScoreSkippedAt(p)) continue;
      const auto& [plugin, weight] = score_[p];
      for (size_t i = 0; i < nodes.size(); ++i) {
        scratch[i].node = nodes[i];
        PluginStatus s = plugin_durations_.TimeOnNode(state, PluginDurations::kScore, p, nodes[i]->slot(), [&] {
          return plugin->Score(state, pod, *nodes[i], &scratch[i].score);
        });
        if (!s.ok()) {
          evaluations_.Add(PluginEvaluations::kScore, p, i + 1);
          return s.WithPlugin(plugin->Name());
        }
      }
      evaluations_.Add(PluginEvaluations::kScore, p, nodes.size());
      if (plugin->HasNormalizeScore()) {
        PluginStatus s = plugin_durations_.Time(state, PluginDurations::kScoreNormalize, p, [&] {
          return plugin->NormalizeScore(state, pod, std::span<NodeScore>(scratch.data(), nodes.size()));
        });
        if (!s.ok()) return s.WithPlugin(plugin->Name());
      }
      for (size_t i = 0; i < nodes.size(); ++i) {
        int64_t score = scratch[i].score;
        if (score < kMinNodeScore || score > kMaxNodeScore) {
          return PluginStatus::Error("plugin " + std::string(plugin->Name()) + " returns an invalid score " +
                                     std::to_string(score) + ", it should in the range of [0, 100] after normalizing");
        }
        totals[i] += score * weight;
      }
    }
    return {};
  });
}

PluginStatus Framework::RunReserve(CycleState& state, const PodInfo& pod, const std::string& node) const {
  return Timed(kReserve, [&]() -> PluginStatus {
    for (size_t i = 0; i < reserve_.size(); ++i) {
      const ReservePlugin* p = reserve_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kReserve, i, [&] { return p->Reserve(state, pod, node); });
      if (!s.ok()) return s.WithPlugin(p->Name());
    }
    return {};
  });
}

void Framework::RunUnreserve(CycleState& state, const PodInfo& pod, const std::string& node) const {
  for (size_t i = reserve_.size(); i-- > 0;) {
    plugin_durations_.Time(state, PluginDurations::kUnreserve, i, [&] { reserve_[i]->Unreserve(state, pod, node); });
  }
}

PluginStatus Framework::RunPermit(CycleState& state, const PodInfoPtr& pod, const std::string& node,
                                   WaitingPods& waiting) const {
  return Timed(kPermit, [&]() -> PluginStatus {
    std::vector<std::pair<std::string, std::chrono::milliseconds>> waits;
    for (size_t i = 0; i < permit_.size(); ++i) {
      const PermitPlugin* p = permit_[i];
      PermitDecision d;
      plugin_durations_.Time(state, PluginDurations::kPermit, i, [&] {
        d = p->Permit(state, *pod, node);
        return d.status.code() == Code::kSuccess ? PluginStatus() : PluginStatus(d.status.code(), "");
      });
      if (d.status.ok()) continue;
      if (d.status.IsRejected()) return std::move(d.status.WithPlugin(p->Name()));
      if (d.status.code() == Code::kWait) {
        waits.emplace_back(p->Name(), std::min(d.timeout, kMaxPermitWait));
        continue;
      }
      return std::move(PluginStatus::Error("running Permit plugin \"" + std::string(p->Name()) +
                                           "\": " + d.status.Message())
                           .WithPlugin(p->Name()));
    }
    if (waits.empty()) return {};
    waiting.Add(pod, waits);
    return PluginStatus(Code::kWait,
                        "one or more plugins asked to wait and no plugin rejected pod \"" + pod->object->name() + "\"");
  });
}

PluginStatus Framework::RunPreBind(CycleState& state, const PodInfo& pod, const std::string& node) const {
  return Timed(kPreBind, [&]() -> PluginStatus {
    for (size_t i = 0; i < pre_bind_.size(); ++i) {
      const PreBindPlugin* p = pre_bind_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kPreBind, i, [&] { return p->PreBind(state, pod, node); });
      if (!s.ok()) return s.WithPlugin(p->Name());
    }
    return {};
  });
}

PluginStatus Framework::RunBind(CycleState& state, const PodInfo& pod, const std::string& node) const {
  return Timed(kBind, [&]() -> PluginStatus {
    for (size_t i = 0; i < bind_.size(); ++i) {
      const BindPlugin* p = bind_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kBind, i, [&] { return p->Bind(state, pod, node); });
      if (s.IsSkip()) continue;
      if (!s.ok()) s.WithPlugin(p->Name());
      return s;
    }
    return PluginStatus::Error("no bind plugin bound the pod");
  });
}

void Framework::RunPostBind(CycleState& state, const PodInfo& pod, const std::string& node) const {
  for (size_t i = 0; i < post_bind_.size(); ++i) {
    plugin_durations_.Time(state, PluginDurations::kPostBind, i, [&] { post_bind_[i]->PostBind(state, pod, node); });
  }
}

std::vector<std::string> Framework::PluginNames(std::string_view point) const {
  std::vector<std::string> out;
  auto add = [&](const auto& list) {
    for (const auto* p : list) out.emplace_back(p->Name());
  };
  if (point == "preEnqueue") add(pre_enqueue_);
  if (point == "queueSort") out.emplace_back(queue_sort_->Name());
  if (point == "preFilter") add(pre_filter_);
  if (point == "filter") add(filter_);
  if (point == "postFilter") add(post_filter_);
  if (point == "preScore") add(pre_score_);
  if (point == "score") {
    for (const auto& s : score_) out.emplace_back(s.plugin->Name());
  }
  if (point == "reserve") add(reserve_);
  if (point == "permit") add(permit_);
  if (point == "preBind") add(pre_bind_);
  if (point == "bind") add(bind_);
  if (point == "postBind") add(post_bind_);
  return out;
}

std::unique_ptr<Framework> Framework::Untimed() const {
  auto copy = std::make_unique<Framework>(*this);
  copy->extension_point_duration_ = nullptr;
  return copy;
}

int32_t Framework::ScoreWeight(std::string_view plugin) const {
  for (const auto& s : score_) {
    if (s.plugin->Name() == plugin) return static_cast<int32_t>(s.weight);
  }
  return 0;
}

}  // namespace berth::scheduler
