// berth scheduler: flags (the client's: cmd/client_flags.h) →
// cluster::StandaloneSchedulerFlags → cluster::RunStandaloneScheduler
// (src/cluster/standalone_scheduler.h).

#include <cstdio>

#include "cluster/standalone_scheduler.h"
#include "cmd/client_flags.h"
#include "cmd/commands.h"
#include "cmd/leader_election_flags.h"

namespace berth::cmd {
namespace {

struct SchedulerFlags {
  ClientFlags client;
  cluster::StandaloneSchedulerFlags scheduler;
};

}  // namespace

void AddSchedulerCommand(CLI::App& app, const scheduler::Registry& registry) {
  static SchedulerFlags f;
  auto* cmd = app.add_subcommand("scheduler", "Run the scheduler against a Kubernetes-compatible API server");
  f.client.AddTo(cmd, 50, 100);  // kube-scheduler's defaults
  cmd->add_option("--config", f.scheduler.config, "A KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1)");
  cmd->add_option("--concurrent", f.scheduler.concurrent, "Scheduling cycles at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  cmd->add_option("--seed", f.scheduler.seed, "Seed for every random choice (0: random)");
  cmd->add_option("--cache-resync-period", f.scheduler.cache_resync_period,
                  "How often the scheduler compares its cache with the API server and repairs what differs "
                  "(0: never)")
      ->capture_default_str();
  cmd->add_flag("--profiling", f.scheduler.profiling, "Enable profiling via web interface host:port/debug/pprof/")
      ->capture_default_str();
  cmd->add_option("--listen", f.scheduler.listen,
                  "Where the scheduler serves /healthz, /metrics and /ui/ (HOST:PORT on loopback, port 0: any free "
                  "one; \"\": nowhere)")
      ->capture_default_str();
  AddLeaderElectionFlags(*cmd, f.scheduler.leader);
  cmd->callback([cmd, &registry] {
    f.scheduler.listen_set = cmd->count("--listen") > 0;
    SetExitCode(cluster::RunStandaloneScheduler(f.scheduler, registry, [] { return f.client.Load(); }, stderr));
  });
}

}  // namespace berth::cmd
