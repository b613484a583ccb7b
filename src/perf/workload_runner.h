#pragma once
// Runs one scheduler_perf workload against a fresh in-process berth (built
// through cluster::InProcessCluster: the API server over a durable store in
// a temporary directory, and the scheduler; no controllers and no kubelets,
// as in scheduler_perf) and measures its collectMetrics phase as
// scheduler_perf does.
//
// Ops, with kube's semantics:
//   createNodes       count nodes from the node template (uniqueNodeLabelStrategy,
//                     labelNodePrepareStrategy, nodeAllocatableStrategy: extra
//                     allocatable and a CSINode per node), created through the API by 16 threads
//   createNamespaces  prefix-0 … prefix-(count-1), from namespaceTemplatePath
//   createPods        count pods from the template in `namespace` (default
//                     "namespace-<op index>"), created by 16 threads (with
//                     persistentVolume[Claim]TemplatePath: each with its own
//                     claim and volume, pre-bound, by 30 threads, as
//                     scheduler_perf does); then waits
//                     until that namespace's pods are bound, unless
//                     skipWaitToCompletion: those pods are still being attempted
//                     while the next ops run (a later measured phase is not
//                     held back for them)
//   barrier           waits until every namespace's created pods are bound
//                     (skipWaitToCompletion ones included)
//   sleep             for `duration` (a Go duration: 500ms, 5s, 1m)
//
// The measured phase (collectMetrics) starts its clock before its pods are
// created and ends when the last of them is bound. Its figures:
//   SchedulingThroughput  kube's 1-second windows (ThroughputWindows) over the
//                         phase's pods, summarised by kube's rule; empty when
//                         the phase has no complete window
//   PhaseThroughput       the phase's pods / (phase start → last bound)
//   scheduler_scheduling_attempt_duration_seconds, scheduler_pod_scheduling_duration_seconds
//                         the scheduler's histograms over the phase, in ms
// `scale` multiplies every count (smoke runs); `measure_scale` further
// multiplies the measured op's pod count, so that a phase berth finishes in a
// fraction of a second lasts long enough for kube's windows.
//
// Thread-safety: one RunWorkload at a time per process (it resets the peak RSS).

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "perf/summary.h"
#include "perf/workload.h"

namespace berth::cluster {
class InProcessCluster;
}

namespace berth::perf {

struct PerfOptions {
  std::string config;  // the workload file (templates beside it)
  double scale = 1.0;
  double measure_scale = 1.0;
  int concurrent = 2;
  uint64_t seed = 1;
  std::chrono::seconds timeout{600};  // per wait
  // Called on the runner's thread after each op that succeeded, with the
  // cluster the workload runs in (tests look at what the op did).
  std::function<void(const Op& op, cluster::InProcessCluster& cluster)> after_op;
};

struct WorkloadResult {
  std::string name;
  std::string unsupported;                 // set: nothing ran
  std::string error;                       // set: the run failed
  std::vector<double> throughput_windows;  // pods/s per complete 1 s window, in time order
  Summary scheduling_throughput;           // of the windows (count 0: none)
  int64_t measured_pods = 0;
  double measured_seconds = 0;  // phase start → last bound
  double phase_throughput = 0;  // measured_pods / measured_seconds
  Summary attempt_ms, pod_scheduling_ms;
  int64_t peak_rss_bytes = 0;
};

WorkloadResult RunWorkload(const PerfOptions& options, const Workload& workload);

}  // namespace berth::perf
