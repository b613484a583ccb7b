// berth perf: flags → perf::PerfFlags → perf::Perf (src/perf/perf_command.h).

#include <cstdio>

#include "cmd/commands.h"
#include "perf/perf_command.h"

namespace berth::cmd {

void AddPerfCommand(CLI::App& app) {
  static perf::PerfFlags f;
  auto* perf =
      app.add_subcommand("perf", "Run kube-scheduler's scheduler_perf workloads against berth");
  perf->add_option("--config", f.config,
                   "scheduler_perf's performance-config.yaml (templates beside it)")
      ->required();
  perf->add_option(
      "--workload", f.workloads,
      "TESTCASE or TESTCASE/SIZE (a size prefix such as 500Nodes matches 500Nodes/200InitPods); "
      "repeatable; default: all");
  perf->add_flag("--json", f.json,
                 "Print scheduler_perf's JSON document ({\"version\":\"v1\",\"dataItems\":…}) "
                 "instead of a table");
  perf->add_option("--scale", f.scale,
                   "Multiply every node and pod count by this, in (0, 1] (smoke runs)")
      ->capture_default_str();
  perf->add_option("--measure-scale", f.measure_scale,
                   "Multiply the measured (collectMetrics) op's pod count by this, at least 1: a "
                   "phase long enough "
                   "for kube's 1-second SchedulingThroughput windows")
      ->capture_default_str();
  perf->add_option("--concurrent", f.concurrent, "Scheduling cycles at once")
      ->capture_default_str();
  perf->add_option("--seed", f.seed, "Seed for names, label choices and scheduling")
      ->capture_default_str();
  perf->add_option("--timeout", f.timeout_seconds,
                   "Give up on a wait for pods to be bound after this many seconds")
      ->capture_default_str();
  perf->callback([] { SetExitCode(perf::Perf(f, stdout, stderr)); });
}

}  // namespace berth::cmd
