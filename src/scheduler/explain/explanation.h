#pragma once
// `berth explain`: why a pod is pending (or placed where it is), and what
// would make it fit. A dry run of the pod's profile on a snapshot: nothing in
// the cache, the queue or the API changes, and preemption only says whom it
// would evict.
//
// Unlike a scheduling cycle, every Filter plugin runs on every node (a cycle
// stops at a node's first rejection and at percentageOfNodesToScore), so the
// table shows each plugin's own answer; a node's kube status is still its
// first rejection in the profile's order, and the summary is kube's
// "0/N nodes are available: …" made from those. The Score table covers every
// feasible node (raw score, normalised score, weight, weighted), like one
// cycle's PrioritizeNodes over all of them.
//
// Not covered (said in the output where it matters): scheduler extenders'
// filters and scores, and preemption's random candidate offset (the dry run
// considers every candidate node, so a real preemption may pick another of
// equal merit).
//
// Thread-safety: Explain reads the snapshot and calls the plugins as a cycle
// does (they are thread-safe); it may run beside the scheduling cycles.

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/framework/framework.h"
#include "scheduler/framework/interface.h"

namespace berth::scheduler {

// One Filter plugin's answer on one node.
struct FilterVerdict {
  std::string plugin;
  Code code = Code::kSuccess;  // kSkip: PreFilter said the plugin has nothing to do
  std::vector<std::string> reasons;
};

struct NodeExplanation {
  std::string node;
  // kube's status of the node: its first rejection (or PreFilter's, or the
  // node restriction's); Success for a feasible node.
  PluginStatus status;
  std::vector<FilterVerdict> filters;  // every Filter plugin, in the profile's order
  int failing_plugins = 0;
  // The resources the node is short of, as a fraction of its allocatable,
  // summed (ranks nodes failing the same number of plugins).
  double shortfall = 0;
  // The smallest changes that would let this node take the pod.
  std::vector<std::string> would_fit;
};

struct ScoreCell {
  std::string plugin;
  int64_t raw = 0;
  int64_t normalized = 0;
  int64_t weight = 0;
  int64_t weighted = 0;
};

struct ScoreRow {
  std::string node;
  std::vector<ScoreCell> cells;  // every Score plugin not skipped, in the profile's order
  int64_t total = 0;
};

struct PreemptionDryRun {
  bool considered =
      false;  // the profile has DefaultPreemption and the pod is pending with no feasible node
  bool helps = false;
  std::string reason;                // why not, when it does not help
  std::string node;                  // where it would make room
  std::vector<std::string> victims;  // namespace/name, most important first
  int64_t pdb_violations = 0;
  size_t candidates = 0;  // nodes where evicting lower-priority pods would let it fit
};

// A real decision of a scheduling cycle, as the scheduler recorded it
// (Scheduler::LastDecision).
struct RecordedDecision {
  std::string node;
  std::string runner_up;  // "" when one node was feasible
  int64_t score = 0;      // the chosen node's total
  int64_t margin = 0;     // minus the runner-up's
  uint32_t feasible = 0;  // feasible nodes the cycle scored
  uint32_t tied = 0;      // nodes sharing the top total
  bool weighted_random = false;
  double seconds_ago = 0;
};

struct Explanation {
  std::string pod;         // namespace/name
  std::string profile;     // schedulerName
  std::string bound_node;  // "" while pending
  std::string nominated_node;
  size_t total_nodes = 0;
  std::optional<PluginStatus> pre_filter;  // a PreFilter rejection or error
  std::vector<NodeExplanation> nodes;      // every node, in the snapshot's order
  // Rejected nodes, closest first: filtered before those PreFilter left out,
  // then fewest failing plugins, then smallest shortfall. Only these have their `would_fit` filled in on big clusters.
  std::vector<std::string> closest_nodes;
  size_t feasible = 0;
  std::vector<ScoreRow> scores;  // the feasible nodes, best total first
  std::string selection;         // "TopScore" or "WeightedRandom"
  std::string chosen;            // the node the scheduler would pick ("" when none)
  std::string runner_up;
  int64_t margin = 0;                    // chosen's total minus runner_up's
  size_t tied = 0;                       // nodes sharing the top total
  bool random_decides = false;           // a random tie-break (or the weighted draw) decides
  double chosen_probability = 1;         // WeightedRandom: the top node's chance
  std::string summary;                   // one line
  std::vector<std::string> suggestions;  // smallest changes, closest nodes first
  std::vector<std::string> notes;        // what the dry run did not cover
  PreemptionDryRun preemption;
  // For a placed pod: the cycle that placed it, while the scheduler still
  // remembers it.
  std::optional<RecordedDecision> decision;
};

struct ExplainOptions {
  // The node a placed pod is bound to ("" while pending); the snapshot
  // already has the pod taken off it.
  std::string bound_node;
  // How many of the closest nodes get their suggestions in `suggestions`.
  size_t closest = 3;
  // Preemption's dry run looks at no more candidate nodes than this.
  size_t max_preemption_candidates = 1000;
  // Every rejected node gets its `would_fit` up to this many nodes; beyond,
  // only the closest `detailed` do (the hints for inter-pod rules read the
  // whole cluster).
  size_t all_detailed_up_to = 200;
  size_t detailed = 20;
};

// Explains `pod` with `fw` over `snapshot` (the pod's own node, for a placed
// pod, already without it: see Scheduler::Explain). `handle` is the
// scheduler's (nominations, disruption budgets, evictions in flight).
// Errors: a PreFilter, Filter or Score error, as a cycle would report it.
Result<Explanation> Explain(const Framework& fw, const Snapshot& snapshot, const PodInfo& pod,
                            const Handle& handle, const ExplainOptions& options = {});

// The JSON that GET /debug/explain/... answers: "summary", "suggestions" and
// the fields above (camelCase).
boost::json::object ExplanationToJson(const Explanation& e);

}  // namespace berth::scheduler
