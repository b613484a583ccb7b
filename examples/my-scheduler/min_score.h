#pragma once
// MinScore: a scheduler plugin kept outside berth's tree and built into a
// binary of its own (main.cc), the walkthrough of docs/plugins.md. It
// serves every extension point a typical plugin needs:
//
//   PreFilter  reads the pod's CPU request and group once per cycle and
//              writes them to the CycleState;
//   Filter     passes a node when, with the pod on it, at least `minScore`
//              percent of its allocatable CPU stays free;
//   Score      that percentage (emptier nodes score higher);
//   Reserve    counts the pod as reserved (gauge min_score_reserved_pods),
//              Unreserve undoes it;
//   Permit     starts the pods of a group (label example.berth.dev/group)
//              one after the other: the first goes on, its siblings wait
//              (up to permitTimeoutSeconds) until it is bound;
//   PreBind    refuses a pod it did not reserve (a broken invariant);
//   PostBind   allows the group's waiting pods through the Handle.
//
// Args (pluginConfig, MinScoreArgs): minScore (0-100, default 20),
// permitTimeoutSeconds (1-900, default 30). Metrics, on /metrics when the
// scheduler has a registry: min_score_rejected_nodes_total,
// min_score_reserved_pods, min_score_permit_total{result="allowed|waited"}.
//
// Thread-safety: PreFilter, Filter and Score keep no state of their own
// (Filter and Score run concurrently over nodes and cycles); Reserve,
// Permit, PreBind and PostBind run on cycle and binding threads at once and
// share the plugin's bookkeeping under mu_.

#include <boost/json/object.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "api/status.h"
#include "metrics/metrics.h"
#include "scheduler/framework/interface.h"

namespace my_scheduler {

namespace sched = berth::scheduler;

struct MinScoreArgs {
  int64_t min_score = 20;
  int64_t permit_timeout_seconds = 30;
};

// pluginConfig's args for MinScore; BadRequest naming the field
// ("minScore: Invalid value: 140: not in valid range [0, 100]").
berth::Result<MinScoreArgs> ParseMinScoreArgs(const boost::json::object& args);

class MinScore final : public sched::PreFilterPlugin,
                       public sched::FilterPlugin,
                       public sched::ScorePlugin,
                       public sched::ReservePlugin,
                       public sched::PermitPlugin,
                       public sched::PreBindPlugin,
                       public sched::PostBindPlugin {
 public:
  static constexpr std::string_view kName = "MinScore";
  static constexpr std::string_view kGroupLabel = "example.berth.dev/group";

  // REQUIRES: `handle` outlives the plugin (the scheduler owns both).
  MinScore(const sched::Handle& handle, MinScoreArgs args);
  std::string_view Name() const override { return kName; }

  sched::PluginStatus PreFilter(sched::CycleState& state, const sched::PodInfo& pod) const override;
  sched::PluginStatus Filter(const sched::CycleState& state, const sched::PodInfo& pod,
                             const sched::NodeInfo& node) const override;
  sched::PluginStatus Score(const sched::CycleState& state, const sched::PodInfo& pod,
                            const sched::NodeInfo& node, int64_t* score) const override;
  sched::PluginStatus Reserve(sched::CycleState& state, const sched::PodInfo& pod,
                              const std::string& node) const override;
  void Unreserve(sched::CycleState& state, const sched::PodInfo& pod,
                 const std::string& node) const override;
  sched::PermitDecision Permit(sched::CycleState& state, const sched::PodInfo& pod,
                               const std::string& node) const override;
  sched::PluginStatus PreBind(sched::CycleState& state, const sched::PodInfo& pod,
                              const std::string& node) const override;
  void PostBind(sched::CycleState& state, const sched::PodInfo& pod,
                const std::string& node) const override;

 private:
  // A group's progress: the pod let through first, and whether it is bound.
  struct Group {
    std::string leader;  // uid; "" when none is on its way
    bool bound = false;
  };
  // The percentage of `node`'s CPU left free with `pod_milli_cpu` more on it
  // (negative when it does not fit).
  static int64_t FreeCpuPercent(const sched::NodeInfo& node, int64_t pod_milli_cpu);
  // Allows the waiting pods of `group` in `ns` (all of them, or the first).
  void AllowWaitingSiblings(const std::string& ns, std::string_view group, bool all) const;

  const sched::Handle& handle_;
  const MinScoreArgs args_;
  berth::metrics::Counter* rejected_nodes_ = nullptr;  // null without a registry
  berth::metrics::Gauge* reserved_pods_ = nullptr;
  berth::metrics::Counter* permit_allowed_ = nullptr;
  berth::metrics::Counter* permit_waited_ = nullptr;

  mutable std::mutex mu_;
  mutable std::unordered_set<std::string> reserved_;       // guarded by mu_; uids
  mutable std::unordered_map<std::string, Group> groups_;  // guarded by mu_; by "namespace/group"
};

// The factory app::WithPlugin registers: args parsed, metrics added to the
// handle's registry.
berth::Result<std::shared_ptr<sched::Plugin>> NewMinScore(const boost::json::object& args,
                                                          const sched::Handle& handle);

}  // namespace my_scheduler
