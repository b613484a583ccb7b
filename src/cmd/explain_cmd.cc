// berth explain pod NAME: flags → cluster::ExplainPodFlags →
// cluster::ExplainPod (src/cluster/explain_report.h).

#include <cstdio>

#include "cluster/explain_report.h"
#include "cmd/commands.h"

namespace berth::cmd {

void AddExplainCommand(CLI::App& app) {
  static cluster::ExplainPodFlags f;
  auto* explain = app.add_subcommand(
      "explain", "Why a pod is pending or placed where it is, and what would make it fit");
  explain->require_subcommand(1);
  auto* pod = explain->add_subcommand(
      "pod", "Explain one pod, as the scheduler sees the cluster now (a dry run)");
  pod->add_option("NAME", f.name, "The pod's name")->required();
  pod->add_option("-n,--namespace", f.ns, "The pod's namespace")->capture_default_str();
  pod->add_option(
         "--server", f.server,
         "berth serve's address, or a standalone scheduler's --listen address (http://HOST:PORT)")
      ->capture_default_str();
  pod->add_option("-o,--output", f.output,
                  "json: the scheduler's answer as JSON (default: a report)");
  pod->callback([] { SetExitCode(cluster::ExplainPod(f, stdout, stderr)); });
}

}  // namespace berth::cmd
