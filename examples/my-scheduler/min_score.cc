#include "min_score.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <chrono>

#include "scheduler/framework/waiting_pods.h"

namespace my_scheduler {

namespace {

// What PreFilter computes once per cycle for Filter and Score (which run
// once per node). Never changed after PreFilter, so CycleState::Clone may
// share it: StateData::Clone keeps its default (nullptr).
struct MinScoreState final : sched::StateData {
  int64_t milli_cpu = 0;
  std::string group;  // the pod's group label, "" when none
};

std::string GroupOf(const sched::PodInfo& pod) {
  return std::string(pod.labels().Get(MinScore::kGroupLabel).value_or(""));
}

std::string GroupKey(const sched::PodInfo& pod, const std::string& group) {
  return pod.object->namespace_name() + "/" + group;
}

// An integer field of the args in [low, high]; BadRequest naming it.
berth::Status ReadInt(const boost::json::value& value, std::string_view field, int64_t low,
                      int64_t high, int64_t* out) {
  if (!value.is_int64() || value.get_int64() < low || value.get_int64() > high) {
    return berth::Status::BadRequest(
        std::string(field) + ": Invalid value: " + boost::json::serialize(value) +
        ": not in valid range [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  *out = value.get_int64();
  return berth::Status::Ok();
}

}  // namespace

berth::Result<MinScoreArgs> ParseMinScoreArgs(const boost::json::object& args) {
  MinScoreArgs parsed;
  for (const auto& entry : args) {
    const std::string_view key(entry.key().data(), entry.key().size());
    berth::Status s;
    if (key == "apiVersion" || key == "kind") continue;
    if (key == "minScore") {
      s = ReadInt(entry.value(), key, 0, 100, &parsed.min_score);
    } else if (key == "permitTimeoutSeconds") {
      s = ReadInt(entry.value(), key, 1, 900, &parsed.permit_timeout_seconds);
    } else {
      s = berth::Status::BadRequest(std::string(key) + ": unknown field");
    }
    if (!s.ok()) return s;
  }
  return parsed;
}

MinScore::MinScore(const sched::Handle& handle, MinScoreArgs args) : handle_(handle), args_(args) {
  // Families are shared by name: a second profile's MinScore counts into
  // the same series.
  if (berth::metrics::Registry* registry = handle_.MetricsRegistry()) {
    rejected_nodes_ =
        &registry
             ->AddCounter("min_score_rejected_nodes_total",
                          "Nodes MinScore's Filter rejected for keeping too little CPU free.")
             .WithLabels({});
    reserved_pods_ =
        &registry
             ->AddGauge("min_score_reserved_pods", "Pods MinScore reserved that are not bound yet.")
             .WithLabels({});
    auto& permits = registry->AddCounter(
        "min_score_permit_total",
        "MinScore's Permit decisions: allowed at once, or waited for a sibling.", {"result"});
    permit_allowed_ = &permits.WithLabels({"allowed"});
    permit_waited_ = &permits.WithLabels({"waited"});
  }
}

sched::PluginStatus MinScore::PreFilter(sched::CycleState& state, const sched::PodInfo& pod) const {
  auto data = std::make_unique<MinScoreState>();
  data->milli_cpu = pod.view->requests.milli_cpu;
  data->group = GroupOf(pod);
  state.Write(kName, std::move(data));
  return {};
}

int64_t MinScore::FreeCpuPercent(const sched::NodeInfo& node, int64_t pod_milli_cpu) {
  const int64_t allocatable = node.allocatable().milli_cpu;
  if (allocatable <= 0) return -1;
  return (allocatable - node.requested().milli_cpu - pod_milli_cpu) * 100 / allocatable;
}

sched::PluginStatus MinScore::Filter(const sched::CycleState& state, const sched::PodInfo& pod,
                                     const sched::NodeInfo& node) const {
  const auto* data = state.Get<MinScoreState>(kName);
  if (!data) return sched::PluginStatus::Error("MinScore: PreFilter did not run");
  if (FreeCpuPercent(node, data->milli_cpu) >= args_.min_score) return {};
  if (rejected_nodes_) rejected_nodes_->Increment();
  // One fixed reason text: FailedScheduling counts nodes by reason.
  return sched::PluginStatus::Unschedulable(
      "node(s) would keep less than " + std::to_string(args_.min_score) + "% of their cpu free");
}

sched::PluginStatus MinScore::Score(const sched::CycleState& state, const sched::PodInfo& pod,
                                    const sched::NodeInfo& node, int64_t* score) const {
  const auto* data = state.Get<MinScoreState>(kName);
  if (!data) return sched::PluginStatus::Error("MinScore: PreFilter did not run");
  *score = std::clamp<int64_t>(FreeCpuPercent(node, data->milli_cpu), sched::kMinNodeScore,
                               sched::kMaxNodeScore);
  return {};
}

sched::PluginStatus MinScore::Reserve(sched::CycleState& state, const sched::PodInfo& pod,
                                      const std::string& node) const {
  std::lock_guard lock(mu_);
  if (reserved_.insert(pod.uid()).second && reserved_pods_) reserved_pods_->Add(1);
  return {};
}

void MinScore::Unreserve(sched::CycleState& state, const sched::PodInfo& pod,
                         const std::string& node) const {
  const std::string group = GroupOf(pod);
  bool hand_over = false;
  {
    std::lock_guard lock(mu_);
    if (reserved_.erase(pod.uid()) && reserved_pods_) reserved_pods_->Add(-1);
    if (!group.empty()) {
      Group& g = groups_[GroupKey(pod, group)];
      // The pod let through first failed: a waiting sibling takes its turn.
      if (!g.bound && g.leader == pod.uid()) {
        g.leader.clear();
        hand_over = true;
      }
    }
  }
  if (hand_over) AllowWaitingSiblings(pod.object->namespace_name(), group, /*all=*/false);
}

sched::PermitDecision MinScore::Permit(sched::CycleState& state, const sched::PodInfo& pod,
                                       const std::string& node) const {
  const auto* data = state.Get<MinScoreState>(kName);
  const std::string group = data ? data->group : GroupOf(pod);
  if (group.empty()) return {};
  {
    std::lock_guard lock(mu_);
    Group& g = groups_[GroupKey(pod, group)];
    if (g.bound || g.leader.empty() || g.leader == pod.uid()) {
      if (!g.bound) g.leader = pod.uid();
      if (permit_allowed_) permit_allowed_->Increment();
      return {};
    }
  }
  if (permit_waited_) permit_waited_->Increment();
  return {sched::PluginStatus(sched::Code::kWait,
                              "waiting for a sibling of group " + group + " to be bound"),
          std::chrono::seconds(args_.permit_timeout_seconds)};
}

sched::PluginStatus MinScore::PreBind(sched::CycleState& state, const sched::PodInfo& pod,
                                      const std::string& node) const {
  std::lock_guard lock(mu_);
  if (!reserved_.count(pod.uid()))
    return sched::PluginStatus::Error("MinScore: pod " + pod.key + " is not reserved");
  return {};
}

void MinScore::PostBind(sched::CycleState& state, const sched::PodInfo& pod,
                        const std::string& node) const {
  const std::string group = GroupOf(pod);
  {
    std::lock_guard lock(mu_);
    if (reserved_.erase(pod.uid()) && reserved_pods_) reserved_pods_->Add(-1);
    if (!group.empty()) groups_[GroupKey(pod, group)].bound = true;
  }
  // A sibling whose Permit answered Wait an instant before `bound` was set
  // may not be among the waiting pods yet: it waits for its timeout, and its
  // retry passes (the group is bound by then).
  if (!group.empty()) AllowWaitingSiblings(pod.object->namespace_name(), group, /*all=*/true);
}

void MinScore::AllowWaitingSiblings(const std::string& ns, std::string_view group, bool all) const {
  bool handed_over = false;
  handle_.IterateOverWaitingPods([&](sched::WaitingPod& waiting) {
    if (handed_over) return;
    const sched::PodInfo& sibling = *waiting.GetPod();
    if (sibling.object->namespace_name() != ns || sibling.labels().Get(kGroupLabel) != group)
      return;
    const auto pending = waiting.GetPendingPlugins();
    if (std::find(pending.begin(), pending.end(), kName) == pending.end()) return;
    if (!all) {
      std::lock_guard lock(mu_);
      Group& g = groups_[ns + "/" + std::string(group)];
      if (!g.leader.empty() || g.bound) return;  // someone else went on meanwhile
      g.leader = sibling.uid();
      handed_over = true;
    }
    waiting.Allow(kName);
  });
}

berth::Result<std::shared_ptr<sched::Plugin>> NewMinScore(const boost::json::object& args,
                                                          const sched::Handle& handle) {
  auto parsed = ParseMinScoreArgs(args);
  if (!parsed.ok()) return parsed.status();
  return std::shared_ptr<sched::Plugin>(std::make_shared<MinScore>(handle, parsed.value()));
}

}  // namespace my_scheduler
