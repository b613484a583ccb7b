#pragma once
// `berth scheduler`: the scheduler on its own, against any
// Kubernetes-compatible API server (berth's, or kube-apiserver) reached as
// kube-scheduler reaches it, through one client::HttpClient of a
// client::RestConfig (kubeconfig, TLS, a token or client certificate, QPS
// limits): its QPS limit covers the informers' lists, the binds and the drift
// guard's lists together. The same SchedulerRunner as inside `berth serve`,
// with HTTP informers and client; a fresh runner per term of leadership
// under leader election (cluster/leader_elected.h). On --listen it serves
// /healthz, /metrics (the current term's scheduler's, the process's and the
// client's), /ui/ with a read-through of the API, /debug/explain/ and, with
// --profiling, /debug/pprof/.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "api/status.h"
#include "client/leader_election_flags.h"
#include "client/rest_config.h"
#include "scheduler/framework/registry.h"

namespace berth::cluster {

// The command's own flags as written; the client's are the caller's.
struct StandaloneSchedulerFlags {
  std::string config;  // --config: a KubeSchedulerConfiguration file; "": kube's default profile
  int concurrent = 2;
  uint64_t seed = 0;
  std::string cache_resync_period = "30s";
  std::string listen = "127.0.0.1:10259";
  bool listen_set = false;  // --listen given: failing to bind it is an error
  client::LeaderElectionFlags leader{.resource_name = "kube-scheduler"};
  bool profiling = true;
};

// Checks the flags, loads the client's configuration with `rest_config`
// (called once, after the flags' own checks), then schedules with the
// plugins of `registry` until SIGINT or SIGTERM (blocked in every thread
// from then on). Returns the exit status: 0 once stopped by a signal; 1 when
// the election or a term could not start (logged), or when it could not
// start at all, with a line on `err` naming the flag, file or server
// ("berth scheduler: --cache-resync-period 1x: expected a duration such as 30s").
int RunStandaloneScheduler(const StandaloneSchedulerFlags& flags, const scheduler::Registry& registry,
                           const std::function<Result<client::RestConfig>()>& rest_config, std::FILE* err);

}  // namespace berth::cluster
