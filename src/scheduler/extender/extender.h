#pragma once
// Scheduler extenders (kube-scheduler's HTTPExtender): HTTP services named in
// the configuration's `extenders:` that take part in scheduling a pod
// through their verbs.
//
// - filter: after the Filter plugins, each interested extender in order is
//   given the feasible nodes and answers those it keeps; the nodes it turns
//   down get its reason as their status (UnschedulableAndUnresolvable for
//   FailedAndUnresolvableNodes), which the "0/N nodes are available"
//   message counts.
// - prioritize: each interested extender scores the feasible nodes from 0 to
//   10; score × weight × 10 is added to the plugins' total. Its errors are
//   ignored (the node's score comes from the others), as kube does.
// - bind: the one extender with a bindVerb that is interested binds the pod
//   instead of the Bind plugins.
// - preempt: preemption's candidates go through each interested extender
//   with a preemptVerb, which may drop nodes or change their victims.
//
// An extender is interested in every pod unless it names managedResources:
// then only in pods whose containers or init containers request or limit
// one of them. An error from an `ignorable` extender skips it; from another
// one (filter, bind, preempt) it fails the scheduling attempt.
//
// Each call is timed in scheduler_extender_request_duration_seconds
// {extender, verb, result}. Thread-safe: calls from concurrent cycles each
// use their own connection.

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "metrics/metrics.h"
#include "scheduler/extender/extender_client.h"
#include "scheduler/extender/extender_wire.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

// kube-scheduler's timeout for an extender whose httpTimeout is unset.
inline constexpr std::chrono::milliseconds kDefaultExtenderTimeout{5000};

class Extender {
 public:
  // `durations`: the family scheduler_extender_request_duration_seconds.
  // BadRequest when the URL or TLS files cannot be used.
  static Result<std::unique_ptr<Extender>> Create(const ExtenderConfig& config,
                                                  metrics::Family<metrics::Histogram>& durations);

  // Its urlPrefix, as kube names it.
  const std::string& name() const { return config_.url_prefix; }
  const ExtenderConfig& config() const { return config_; }
  bool IsFilter() const { return !config_.filter_verb.empty(); }
  bool IsPrioritizer() const { return !config_.prioritize_verb.empty(); }
  bool IsBinder() const { return !config_.bind_verb.empty(); }
  bool SupportsPreemption() const { return !config_.preempt_verb.empty(); }
  bool ignorable() const { return config_.ignorable; }
  bool IsInterested(const PodInfo& pod) const;

  struct FilterResult {
    std::vector<const NodeInfo*> feasible;                    // a subset of the nodes given
    std::vector<std::pair<std::string, std::string>> failed;  // node → reason
    std::vector<std::pair<std::string, std::string>> failed_and_unresolvable;  // node → reason
  };
  // REQUIRES: IsFilter(). An error for a failed call, an answer's Error, or
  // a kept node that was not among `nodes`.
  Result<FilterResult> Filter(const PodInfo& pod, std::span<const NodeInfo* const> nodes) const;
  // REQUIRES: IsPrioritizer(). The extender's scores as it gave them.
  Result<std::vector<HostPriority>> Prioritize(const PodInfo& pod,
                                               std::span<const NodeInfo* const> nodes) const;
  // REQUIRES: IsBinder().
  Status Bind(const PodInfo& pod, const std::string& node) const;
  // REQUIRES: SupportsPreemption(). The candidates the extender keeps, with
  // their victims as it chose them (found by UID among each node's pods in
  // `snapshot`; an unknown node or pod is an error).
  Result<std::vector<std::pair<std::string, PreemptionVictims>>> ProcessPreemption(
      const PodInfo& pod, std::span<const std::pair<std::string, PreemptionVictims>> candidates,
      const Snapshot& snapshot) const;

 private:
  enum Verb { kFilter, kPrioritize, kBind, kPreempt, kVerbCount };
  Extender(ExtenderConfig config, std::unique_ptr<ExtenderClient> client);
  // Posts `body` to the verb's URL and times it.
  Result<std::string> Call(Verb verb, std::string_view body) const;

  ExtenderConfig config_;
  std::unique_ptr<ExtenderClient> client_;
  // The histogram children per verb: [verb][0] success, [verb][1] error.
  std::array<std::array<metrics::Histogram*, 2>, kVerbCount> durations_{};
};

// The configured extenders, in order, and the scheduling steps that call them.
class Extenders {
 public:
  // Registers scheduler_extender_request_duration_seconds in `registry` when
  // there is any extender, and counts the prioritize calls in flight in
  // scheduler_goroutines{operation="prioritizing_extender"} (kube runs each
  // in a goroutine of its own). Errors name the extender (extenders[i].urlPrefix).
  static Result<std::unique_ptr<Extenders>> Create(const std::vector<ExtenderConfig>& configs,
                                                   metrics::Registry& registry);

  bool empty() const { return extenders_.empty(); }
  bool HasFilters() const;
  bool HasPrioritizers() const;
  // Managed resources marked ignoredByScheduler (NodeResourcesFit ignores them).
  std::vector<std::string> IgnoredResources() const;

  // Narrows `feasible` through the filtering extenders interested in `pod`;
  // the nodes they turn down with a reason get it as their status in
  // `rejected` (replacing a status they had). An error: a non-ignorable
  // extender failed.
  Status Filter(const PodInfo& pod, const Snapshot& snapshot,
                std::vector<const NodeInfo*>& feasible, std::vector<NodeStatus>& rejected) const;
  // Adds the interested prioritizers' weighted scores to `totals` (one per
  // feasible node), calling them at once. Errors are ignored.
  void Prioritize(const PodInfo& pod, std::span<const NodeInfo* const> feasible,
                  std::span<int64_t> totals) const;
  // Binds through the interested binder: nullopt when there is none.
  std::optional<Status> Bind(const PodInfo& pod, const std::string& node) const;
  // Handle::NarrowPreemptionCandidates.
  Status NarrowPreemptionCandidates(
      const PodInfo& pod, const Snapshot& snapshot,
      std::vector<std::pair<std::string, PreemptionVictims>>& candidates) const;

 private:
  std::vector<std::unique_ptr<Extender>> extenders_;
  metrics::Gauge* prioritizing_ = nullptr;  // scheduler_goroutines{operation="prioritizing_extender"}
};

}  // namespace berth::scheduler
