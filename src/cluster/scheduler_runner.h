#pragma once
// The scheduler wired to a cluster: informers for namespaces, nodes and pods
// feeding scheduler::Scheduler, and a SchedulerClient for its writes. The same
// code runs the scheduler inside `berth serve` (store informers, in-process
// client) and `berth scheduler --server URL` (HTTP informers and client);
// only the informer source factory and the client differ.

#include <memory>
#include <string>
#include <vector>

#include "client/informer_factory.h"
#include "scheduler/framework/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_client.h"

namespace berth::cluster {

class SchedulerRunner {
 public:
  // Builds the scheduler with the plugins of `registry` (the in-tree ones,
  // plus any a custom binary added: see cmd/app.h); nothing is listed or
  // watched before Start. Errors come from the configuration (plugins, args).
  static Result<std::unique_ptr<SchedulerRunner>> Create(const scheduler::SchedulerConfig& config,
                                                         scheduler::SchedulerOptions options,
                                                         client::InformerFactory::KindSourceFactory sources,
                                                         std::unique_ptr<scheduler::SchedulerClient> client,
                                                         const scheduler::Registry& registry = scheduler::InTreeRegistry());
  ~SchedulerRunner();

  // Lists namespaces, nodes, PodDisruptionBudgets and pods (in that order: a
  // pod's namespace and node are known when the pod arrives), starts
  // watching, then starts the scheduling cycles.
  Status Start();
  // Informers first (no more events), then the cycles and bindings; then the
  // client's queued events are written. Idempotent.
  void Stop();

  scheduler::Scheduler& scheduler() { return *scheduler_; }

 private:
  SchedulerRunner() = default;
  std::unique_ptr<scheduler::SchedulerClient> client_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::vector<std::unique_ptr<client::InformerSource>> informers_;
  bool stopped_ = false;
};

// Reads a KubeSchedulerConfiguration file (--config). Errors name the file.
Result<scheduler::SchedulerConfig> LoadSchedulerConfig(const std::string& path);

}  // namespace berth::cluster
