#pragma once
// `berth perf` from its flags: loads the workload file, selects workloads,
// runs each (RunWorkload), prints a table or scheduler_perf's JSON document,
// and returns the exit status (0; 1 when a workload failed; 2 for a bad flag,
// named in the message on `err`). Unsupported workloads are reported, not
// failed.
//
// Table and JSON carry the same figures. SchedulingThroughput is kube's
// statistic (1-second windows); when the measured phase has no complete
// window it is absent and the output says so ("no complete 1 s window"), and
// PhaseThroughput — the phase's pods over its duration — stands under its
// own name. The JSON document is scheduler_perf's ({"version":"v1",
// "dataItems":[{"data":…,"unit":…,"labels":{"Metric":…,"Name":…}}]}), with
// "unsupported" and "notes" lists beside dataItems when there are any.

#include <cstdio>
#include <string>
#include <vector>

#include "perf/workload_runner.h"

namespace berth::perf {

struct PerfFlags {
  std::string config;
  std::vector<std::string> workloads;  // selectors (Selects); empty: all
  bool json = false;
  double scale = 1.0;
  double measure_scale = 1.0;
  int concurrent = 2;
  uint64_t seed = 1;
  int timeout_seconds = 600;
};

int Perf(const PerfFlags& flags, std::FILE* out, std::FILE* err);

std::string PerfTable(const std::vector<WorkloadResult>& results);
std::string PerfJson(const std::vector<WorkloadResult>& results);

// Why a result has no SchedulingThroughput ("" when it has one).
std::string NoWindowNote(const WorkloadResult& r);

}  // namespace berth::perf
