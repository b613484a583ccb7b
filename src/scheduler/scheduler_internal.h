#pragma once
// What the Scheduler's source files share inside the Scheduler: a cycle
// thread's Worker, a binding in flight and the small helpers they use. Not
// for other code.

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "api/time/clock.h"
#include "scheduler/scheduler.h"
#include "scheduler/select/sampler.h"

namespace berth::scheduler {

// Seconds from `since` to `now`, for the latency metrics.
inline double Seconds(api::Clock::time_point since, api::Clock::time_point now) {
  return std::chrono::duration<double>(now - since).count();
}

// A status code as kube's metrics label it.
inline const char* CodeLabel(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    default:
      return "Error";
  }
}

// One cycle thread's scratch space, reused from cycle to cycle; only its
// thread touches it, except the decision ring (LastDecision reads it from
// any thread under decisions_mu).
struct Scheduler::Worker {
  Snapshot snapshot;
  bool exclusive = false;  // this cycle holds cycle_mu_ exclusively
  bool preempted = false;  // this cycle's PostFilter evicted pods
  std::mt19937_64 rng;
  std::vector<const NodeInfo*> feasible;
  std::vector<NodeStatus> rejected;
  std::vector<int64_t> totals;
  std::vector<NodeScore> scratch;
  AliasSampler sampler;
  std::vector<NodeInfoPtr> restricted;  // the nodes PreFilter left, when it named them
  // The last decisions (a ring; see Scheduler::LastDecision).
  mutable std::mutex decisions_mu;
  std::array<Decision, kDecisionsKept> decisions;  // guarded by decisions_mu
  size_t next_decision = 0;                        // guarded by decisions_mu
};

struct Scheduler::Binding {
  const Framework* framework;
  QueuedPodInfo info;
  std::string node;
  std::unique_ptr<CycleState> state;
  api::Clock::time_point cycle_start;
  api::Clock::time_point reserved;     // the end of the scheduling cycle
  bool waiting = false;                // Permit asked it to wait (it is among the waiting pods)
  std::optional<PluginStatus> permit;  // set when resumed: the waiting pod's outcome
  size_t evaluated_nodes = 0;          // nodes filtered in the cycle (kube's ScheduleResult)
  size_t feasible_nodes = 0;           // of which passed
};

}  // namespace berth::scheduler
