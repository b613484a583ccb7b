#pragma once
// What scheduler.cc and scheduler_binding.cc share inside the Scheduler:
// a binding in flight and the small helpers both use. Not for other code.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "api/clock.h"
#include "scheduler/scheduler.h"

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
