#pragma once
// `berth controller-manager`: the controllers on their own, against a
// Kubernetes-compatible API server (e.g. `berth serve --no-controllers`
// elsewhere), through one client::HttpClient of a client::RestConfig, so one
// QPS limit covers every request, as kube-controller-manager's. The same
// ControllerManager as inside `berth serve`, with an HTTP transport and HTTP
// informers (which relist after a lost watch); a manager per term of
// leadership under leader election (cluster/leader_elected.h).

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "api/status.h"
#include "client/leader_election_flags.h"
#include "client/rest_config.h"
#include "cluster/controller_manager.h"

namespace berth::cluster {

// The command's own flags as written (kube-controller-manager's names); the
// client's are the caller's.
struct StandaloneControllerManagerFlags {
  std::vector<std::string> controllers{"*"};
  std::string node_monitor_grace_period = "40s";
  std::string node_monitor_period = "5s";
  int64_t terminated_pod_gc_threshold = 12500;
  int64_t max_endpoints_per_slice = 100;
  std::string endpoint_updates_batch_period = "0s";
  client::LeaderElectionFlags leader{.resource_name = "kube-controller-manager"};
};

// The manager's options from the flags; BadRequest or InvalidArgument
// naming the flag.
Result<ControllerManagerOptions> ControllerManagerOptionsFromFlags(const StandaloneControllerManagerFlags& flags);

// Checks the flags, loads the client's configuration with `rest_config`
// (called once, after the flags' own checks), then runs the controllers
// until SIGINT or SIGTERM (blocked in every thread from then on). Returns
// the exit status: 0 once stopped by a signal; 1 when the election or a
// term could not start (logged), or when it could not start at all, with a
// line on `err` naming the flag, file or server ("berth controller-manager: …").
int RunStandaloneControllerManager(const StandaloneControllerManagerFlags& flags,
                                   const std::function<Result<client::RestConfig>()>& rest_config, std::FILE* err);

}  // namespace berth::cluster
