#include "scheduler/plugins/default_preemption/default_preemption.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <functional>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "scheduler/framework/fit_error.h"

namespace berth::scheduler {

namespace {

using TimePoint = std::chrono::system_clock::time_point;

// status.startTime. A pod not started yet counts as starting now, after
// every pod that has started (kube's GetPodStartTime); one fixed value stands
// for "now" so that the order stays consistent within a sort.
TimePoint StartTime(const PodInfo& pod) {
  auto parsed = api::ParseRfc3339(api::StringAt(api::StatusOf(*pod.object), "startTime"));
  return parsed ? *parsed : TimePoint::max();
}

// Being deleted because preemption chose it (kube's podTerminatingByPreemption).
bool TerminatingByPreemption(const PodInfo& pod) {
  if (!pod.view->terminating) return false;
  const boost::json::object* c = api::FindCondition(api::StatusOf(*pod.object), "DisruptionTarget");
  return c && api::StringAt(*c, "status") == "True" &&
         api::StringAt(*c, "reason") == "PreemptionByScheduler";
}

// Splits `pods` into those whose eviction would break a budget and the rest,
// each in the given order (kube's filterPodsWithPDBViolation).
void SplitByBudget(const std::vector<PodInfoPtr>& pods,
                   const std::vector<DisruptionBudget>& budgets, std::vector<PodInfoPtr>* violating,
                   std::vector<PodInfoPtr>* not_violating) {
  std::vector<int64_t> allowed;
  allowed.reserve(budgets.size());
  for (const auto& b : budgets) allowed.push_back(b.disruptions_allowed);
  for (const auto& p : pods) {
    bool violated = false;
    if (!p->labels().empty()) {
      for (size_t i = 0; i < budgets.size(); ++i) {
        const DisruptionBudget& b = budgets[i];
        if (b.namespace_name != p->namespace_name()) continue;
        if (b.selector.Empty() || !b.selector.Matches(p->labels())) continue;
        // Already being disrupted through the API: not counted again.
        if (std::binary_search(b.disrupted.begin(), b.disrupted.end(), p->name())) continue;
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : not_violating)->push_back(p);
  }
}

std::string WithPrefix(const std::string& message) { return "preemption: " + message; }

constexpr std::string_view kNoVictims = "No preemption victims found for incoming pod";

}  // namespace

bool DefaultPreemption::MoreImportant(const PodInfo& a, const PodInfo& b) {
  if (a.view->priority != b.view->priority) return a.view->priority > b.view->priority;
  return StartTime(a) < StartTime(b);
}

std::string DefaultPreemption::EligibleToPreempt(const PodInfo& pod, const Snapshot& snapshot,
                                                 const PluginStatus* nominated_node_status,
                                                 const Handle* handle) {
  if (pod.view->preemption_policy == "Never") return "not eligible due to preemptionPolicy=Never.";
  // The nomination this scheduler made counts before its write is seen
  // back: a preemptor retried meanwhile must wait for its victims, not
  // preempt again.
  const std::string nominated = !pod.view->nominated_node_name.empty() ? pod.view->nominated_node_name
                                : handle                               ? handle->NominatedNodeOf(pod.key)
                                                                       : std::string();
  if (nominated.empty()) return "";
  // Its nominated node cannot take it any more: it may preempt elsewhere.
  if (nominated_node_status && nominated_node_status->code() == Code::kUnschedulableAndUnresolvable)
    return "";
  if (const NodeInfo* node = snapshot.Get(nominated)) {
    for (const auto& p : node->pods()) {
      if (p->view->priority < pod.view->priority &&
          (TerminatingByPreemption(*p) || (handle && handle->BeingEvicted(p->key)))) {
        return "not eligible due to a terminating pod on the nominated node.";
      }
    }
  }
  return "";
}

size_t DefaultPreemption::NumCandidates(size_t nodes) const {
  size_t n = nodes * static_cast<size_t>(args_.min_candidate_nodes_percentage) / 100;
  n = std::max(n, static_cast<size_t>(args_.min_candidate_nodes_absolute));
  return std::min(n, nodes);
}

PluginStatus DefaultPreemption::SelectVictimsOnNode(CycleState& state, const PodInfo& pod,
                                                    NodeInfo& node,
                                                    const std::vector<DisruptionBudget>& budgets,
                                                    const FilterRunner& runner,
                                                    PreemptionVictims* victims,
                                                    const Handle* handle) {
  // Every lower-priority pod out first: if the pod does not fit even then,
  // preempting here cannot help. Pods already being evicted stay out.
  std::vector<PodInfoPtr> potential, leaving;
  for (const auto& p : node.pods()) {
    if (handle && handle->BeingEvicted(p->key)) {
      leaving.push_back(p);
    } else if (p->view->priority < pod.view->priority) {
      potential.push_back(p);
    }
  }
  if (potential.empty()) return PluginStatus::Unresolvable(std::string(kNoVictims));
  for (const auto* group : {&leaving, &potential}) {
    for (const auto& p : *group) {
      node.RemovePod(p->key);
      if (PluginStatus s = runner.RunPreFilterRemovePod(state, pod, *p, node); !s.ok()) return s;
    }
  }
  if (PluginStatus s = runner.RunFilterWithNominatedPods(state, pod, node); !s.ok()) return s;

  // Then back in, most important first, PDB-violating pods before the rest:
  // a pod whose return breaks the fit is a victim.
  // MoreImportant's order, each start time read once (not per comparison).
  {
    std::vector<std::pair<TimePoint, PodInfoPtr>> keyed;
    keyed.reserve(potential.size());
    for (auto& p : potential) keyed.emplace_back(StartTime(*p), std::move(p));
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
      if (a.second->view->priority != b.second->view->priority) {
        return a.second->view->priority > b.second->view->priority;
      }
      return a.first < b.first;
    });
    for (size_t i = 0; i < keyed.size(); ++i) potential[i] = std::move(keyed[i].second);
  }
  std::vector<PodInfoPtr> violating, not_violating;
  SplitByBudget(potential, budgets, &violating, &not_violating);
  victims->pods.clear();
  victims->pdb_violations = 0;
  auto reprieve = [&](const PodInfoPtr& p) -> Result<bool> {
    node.AddPod(p);
    if (PluginStatus s = runner.RunPreFilterAddPod(state, pod, *p, node); !s.ok())
      return Status::Internal(s.Message());
    if (runner.RunFilterWithNominatedPods(state, pod, node).ok()) return true;
    node.RemovePod(p->key);
    if (PluginStatus s = runner.RunPreFilterRemovePod(state, pod, *p, node); !s.ok()) {
      return Status::Internal(s.Message());
    }
    victims->pods.push_back(p);
    return false;
  };
  for (const auto& p : violating) {
    auto fits = reprieve(p);
    if (!fits.ok()) return PluginStatus::Error(fits.status().message());
    if (!*fits) ++victims->pdb_violations;
  }
  for (const auto& p : not_violating) {
    auto fits = reprieve(p);
    if (!fits.ok()) return PluginStatus::Error(fits.status().message());
  }
  if (!violating.empty() && !not_violating.empty()) {
    std::stable_sort(
        victims->pods.begin(), victims->pods.end(),
        [](const PodInfoPtr& a, const PodInfoPtr& b) { return MoreImportant(*a, *b); });
  }
  return {};
}

size_t DefaultPreemption::PickOneNode(
    const std::vector<std::pair<std::string, PreemptionVictims>>& candidates) {
  if (candidates.empty()) return 0;
  std::vector<size_t> remaining(candidates.size());
  for (size_t i = 0; i < remaining.size(); ++i) remaining[i] = i;
  // Each criterion scores the remaining candidates (higher is better); only
  // a tie goes on to the next.
  const std::vector<std::function<int64_t(const PreemptionVictims&)>> criteria = {
      [](const PreemptionVictims& v) { return -v.pdb_violations; },
      [](const PreemptionVictims& v) {
        return v.pods.empty() ? int64_t{INT32_MAX} + 1 : -int64_t{v.pods.front()->view->priority};
      },
      [](const PreemptionVictims& v) {
        int64_t sum = 0;  // each priority shifted to >= 0 so that more negative pods never win
        for (const auto& p : v.pods) sum += int64_t{p->view->priority} + int64_t{INT32_MAX} + 1;
        return -sum;
      },
      [](const PreemptionVictims& v) { return -static_cast<int64_t>(v.pods.size()); },
      [](const PreemptionVictims& v) {
        // The earliest start among the highest-priority victims: the later, the better.
        if (v.pods.empty()) return int64_t{INT64_MIN};
        const int32_t top = v.pods.front()->view->priority;
        TimePoint earliest = TimePoint::max();
        for (const auto& p : v.pods) {
          if (p->view->priority == top) earliest = std::min(earliest, StartTime(*p));
        }
        return static_cast<int64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(earliest.time_since_epoch())
                .count());
      },
  };
  for (const auto& score : criteria) {
    int64_t best = INT64_MIN;
    std::vector<size_t> selected;
    for (size_t i : remaining) {
      int64_t s = score(candidates[i].second);
      if (s > best) {
        best = s;
        selected.clear();
      }
      if (s == best) selected.push_back(i);
    }
    if (selected.size() == 1) return selected.front();
    remaining = std::move(selected);
  }
  return remaining.front();
}

namespace {

using Candidates = std::vector<std::pair<std::string, PreemptionVictims>>;

// The filter status of the node `pod` is nominated to, among `rejected`
// (nullptr: not nominated, or its node is not among them).
const PluginStatus* NominatedNodeStatus(const PodInfo& pod, std::span<const NodeStatus> rejected,
                                        const Handle& handle) {
  const PluginStatus* nominated_status = nullptr;
  const std::string nominated_node = !pod.view->nominated_node_name.empty() ? pod.view->nominated_node_name
                                                                            : handle.NominatedNodeOf(pod.key);
  for (const auto& r : rejected) {
    if (!nominated_node.empty() && r.node->name() == nominated_node) nominated_status = &r.status;
  }
  return nominated_status;
}

// kube's findCandidates: dry runs from a random offset (drawn on
// construction) until enough candidates are found, at least one of them
// without PDB violations. They run in parallel (kube's parallelizer), a batch
// of nodes at a time, and their answers are read in order: the candidates are
// exactly those of a run node by node.
class CandidateSearch {
 public:
  CandidateSearch(CycleState& state, const PodInfo& pod, std::vector<const NodeInfo*> potential,
                  const FilterRunner& runner, const Handle& handle)
      : state_(state), pod_(pod), potential_(std::move(potential)), runner_(runner), handle_(handle) {
    static const std::vector<DisruptionBudget> kNone;
    shared_budgets_ = handle_.DisruptionBudgets();
    budgets_ = shared_budgets_ ? shared_budgets_.get() : &kNone;
    offset_ = static_cast<size_t>(handle_.Random() % potential_.size());
  }

  // Looks for `wanted` candidates. Returns an error status when a dry run
  // failed with one.
  PluginStatus Run(size_t wanted);
  // The candidates found, those without PDB violations first.
  Candidates TakeCandidates() {
    Candidates candidates = std::move(not_violating_);
    for (auto& c : violating_) candidates.push_back(std::move(c));
    return candidates;
  }
  // The nodes whose dry run failed, with why.
  const std::vector<NodeStatus>& failed() const { return failed_; }
  // Nodes without lower-priority pods, counted rather than listed.
  size_t no_victims() const { return no_victims_; }

 private:
  struct DryRun {
    enum Kind : unsigned char { kNoVictims, kFailed, kCandidate } kind = kNoVictims;
    PluginStatus status;
    PreemptionVictims victims;
  };

  const NodeInfo& NodeAt(size_t begin, size_t i) const {
    return *potential_[(offset_ + begin + i) % potential_.size()];
  }
  // Node `begin + i` from the offset, into runs_[i].
  void DryRunNode(size_t begin, size_t i);

  CycleState& state_;
  const PodInfo& pod_;
  const std::vector<const NodeInfo*> potential_;
  const FilterRunner& runner_;
  const Handle& handle_;
  std::shared_ptr<const std::vector<DisruptionBudget>> shared_budgets_;
  const std::vector<DisruptionBudget>* budgets_ = nullptr;  // *shared_budgets_, or none
  size_t offset_ = 0;
  bool copy_state_ = false;
  std::vector<DryRun> runs_;
  Candidates not_violating_, violating_;
  std::vector<NodeStatus> failed_;
  size_t no_victims_ = 0;
};

PluginStatus CandidateSearch::Run(size_t wanted) {
  copy_state_ = runner_.ChangesStateForPods(state_);
  bool enough = false;
  for (size_t begin = 0; begin < potential_.size() && !enough;) {
    // As many nodes as candidates are still wanted (most nodes of a full
    // cluster are candidates), at least 16.
    const size_t found = not_violating_.size() + violating_.size();
    const size_t batch = std::min(potential_.size() - begin,
                                  std::max<size_t>(16, wanted > found ? wanted - found : 0));
    runs_.assign(batch, {});
    handle_.Parallelize(batch, [&](size_t i) { DryRunNode(begin, i); }, DefaultPreemption::kName);
    for (size_t i = 0; i < batch && !enough; ++i) {
      DryRun& r = runs_[i];
      const NodeInfo& original = NodeAt(begin, i);
      if (r.kind == DryRun::kNoVictims) {
        ++no_victims_;
        continue;
      }
      if (r.kind == DryRun::kFailed) {
        if (r.status.code() == Code::kError)
          return PluginStatus::Error(WithPrefix(r.status.Message()));
        failed_.push_back({&original, std::move(r.status)});
        continue;
      }
      (r.victims.pdb_violations == 0 ? not_violating_ : violating_)
          .emplace_back(original.name(), std::move(r.victims));
      enough = !not_violating_.empty() && not_violating_.size() + violating_.size() >= wanted;
    }
    begin += batch;
  }
  return {};
}

void CandidateSearch::DryRunNode(size_t begin, size_t i) {
  const NodeInfo& original = NodeAt(begin, i);
  DryRun& r = runs_[i];
  // A node without lower-priority pods has no victims: answered without
  // copying the node and the cycle state (most nodes, when most pods share
  // a priority).
  if (std::none_of(original.pods().begin(), original.pods().end(),
                   [&](const PodInfoPtr& p) { return p->view->priority < pod_.view->priority; })) {
    r.kind = DryRun::kNoVictims;
    return;
  }
  NodeInfo node = original;
  // A copy of the state only when the dry run changes it (else the
  // parallel dry runs all read the cycle's, unchanged).
  std::unique_ptr<CycleState> trial = copy_state_ ? state_.Clone() : nullptr;
  r.status = DefaultPreemption::SelectVictimsOnNode(copy_state_ ? *trial : state_, pod_, node, *budgets_,
                                                    runner_, &r.victims, &handle_);
  if (r.status.ok() && r.victims.pods.empty()) {
    r.status = PluginStatus::Error("expected at least one victim pod on node \"" +
                                   original.name() + "\"");
  }
  r.kind = r.status.ok() ? DryRun::kCandidate : DryRun::kFailed;
}

// Starts evicting `victims` from `node` for `pod` and nominates the node.
// The evictions are started here and sent by the scheduler after this
// cycle (kube's asynchronous preemption).
PluginStatus PreemptOn(const Handle& handle, const PodInfo& pod, const std::string& node,
                       const PreemptionVictims& victims, PostFilterResult* result) {
  for (const auto& victim : victims.pods) {
    if (Status started = handle.PreemptPod(*victim, pod, node); !started.ok()) {
      return PluginStatus::Error(WithPrefix("evicting " + victim->key + ": " + started.message()));
    }
  }
  // Pods of lower priority nominated to this node may not fit there any more:
  // they lose their nomination and look again.
  std::vector<const PodInfo*> lower;
  std::vector<PodInfoPtr> nominated = handle.NominatedPodsForNode(node);
  for (const auto& p : nominated) {
    if (p->view->priority < pod.view->priority) lower.push_back(p.get());
  }
  if (!lower.empty()) handle.ClearNominatedNodeName(lower);
  result->nominated_node = node;
  result->victims = victims.pods.size();
  return {};
}

}  // namespace

PluginStatus DefaultPreemption::PostFilter(CycleState& state, const PodInfo& pod,
                                           std::span<const NodeStatus> rejected,
                                           const FilterRunner& runner,
                                           PostFilterResult* result) const {
  const Snapshot& snapshot = state.snapshot();
  const PluginStatus* nominated_status = NominatedNodeStatus(pod, rejected, handle_);
  if (std::string why = EligibleToPreempt(pod, snapshot, nominated_status, &handle_);
      !why.empty()) {
    return PluginStatus::Unschedulable(WithPrefix(why));
  }

  const PluginStatus not_helpful =
      PluginStatus::Unresolvable("Preemption is not helpful for scheduling");
  std::vector<const NodeInfo*> potential;
  for (const auto& r : rejected) {
    if (r.status.code() == Code::kUnschedulable) potential.push_back(r.node);
  }
  if (potential.empty()) {
    result->nominated_node = "";  // a nomination it had is of no use now
    return PluginStatus::Unschedulable(
        WithPrefix(FitErrorMessage(snapshot.size(), nullptr, {}, &not_helpful)));
  }

  const size_t potential_count = potential.size();
  CandidateSearch search(state, pod, std::move(potential), runner, handle_);
  if (PluginStatus error = search.Run(NumCandidates(potential_count)); !error.ok()) return error;
  Candidates candidates = search.TakeCandidates();
  if (candidates.empty()) {
    result->nominated_node = "";
    const ReasonCount counted[] = {{kNoVictims, search.no_victims()}};
    return PluginStatus::Unschedulable(WithPrefix(
        FitErrorMessage(snapshot.size(), nullptr, search.failed(), &not_helpful, {}, counted)));
  }

  // Scheduler extenders that preempt may drop candidates or change their victims.
  if (Status s = handle_.NarrowPreemptionCandidates(pod, snapshot, candidates); !s.ok()) {
    return PluginStatus::Error(WithPrefix(s.message()));
  }
  if (candidates.empty())
    return PluginStatus::Unschedulable(WithPrefix("no candidate node for preemption"));
  const auto& [node, victims] = candidates[PickOneNode(candidates)];
  return PreemptOn(handle_, pod, node, victims, result);
}

Result<std::shared_ptr<Plugin>> NewDefaultPreemption(const boost::json::object& args,
                                                     const Handle& handle) {
  DefaultPreemptionArgs a;
  for (const auto& entry : args) {
    std::string_view key(entry.key().data(), entry.key().size());
    if (key == "apiVersion" || key == "kind") continue;
    int32_t* field = key == "minCandidateNodesPercentage" ? &a.min_candidate_nodes_percentage
                     : key == "minCandidateNodesAbsolute" ? &a.min_candidate_nodes_absolute
                                                          : nullptr;
    if (!field) return Status::BadRequest(std::string(key) + ": unknown field");
    if (!entry.value().is_int64() || entry.value().get_int64() < INT32_MIN ||
        entry.value().get_int64() > INT32_MAX) {
      return Status::BadRequest(std::string(key) + ": Invalid value: " +
                                boost::json::serialize(entry.value()) + ": must be an integer");
    }
    *field = static_cast<int32_t>(entry.value().get_int64());
  }
  if (a.min_candidate_nodes_percentage < 0 || a.min_candidate_nodes_percentage > 100) {
    return Status::BadRequest("minCandidateNodesPercentage: Invalid value: " +
                              std::to_string(a.min_candidate_nodes_percentage) +
                              ": not in valid range [0, 100]");
  }
  if (a.min_candidate_nodes_absolute < 0) {
    return Status::BadRequest("minCandidateNodesAbsolute: Invalid value: " +
                              std::to_string(a.min_candidate_nodes_absolute) +
                              ": not in valid range [0, inf)");
  }
  if (a.min_candidate_nodes_percentage == 0 && a.min_candidate_nodes_absolute == 0) {
    return Status::BadRequest(
        "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesAbsolute");
  }
  return std::shared_ptr<Plugin>(std::make_shared<DefaultPreemption>(handle, a));
}

}  // namespace berth::scheduler
