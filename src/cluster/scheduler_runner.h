#pragma once
// The scheduler wired to a cluster: informers for namespaces, nodes and pods
// feeding scheduler::Scheduler, and a SchedulerClient for its writes. The same
// code runs the scheduler inside `berth serve` (store informers, in-process
// client) and `berth scheduler --server URL` (HTTP informers and client);
// only the informer source factory and the client differ.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <string>
#include <vector>

#include "client/informer_factory.h"
#include "scheduler/framework/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_client.h"

namespace berth::cluster {

// The drift guard's source: every object of a kind with the revision the
// list is consistent at, read from the API server (not the informers, whose
// view is the one being checked).
using ResyncLister = std::function<Result<std::pair<std::vector<api::ObjectPtr>, int64_t>>(api::Kind)>;

struct CacheResync {
  ResyncLister list;
  // How often the cache is compared with the lists (kube-scheduler's
  // informers have no such check; berth's --cache-resync-period). 0: never.
  std::chrono::milliseconds period{0};
  // How long a difference must last to be repaired: the events of the
  // moment the list was read arrive meanwhile.
  std::chrono::milliseconds grace{1000};
};

class SchedulerRunner {
 public:
  // Builds the scheduler with the plugins of `registry` (the in-tree ones,
  // plus any a custom binary added: see cmd/app.h); nothing is listed or
  // watched before Start. Errors come from the configuration (plugins, args).
  static Result<std::unique_ptr<SchedulerRunner>> Create(const scheduler::SchedulerConfig& config,
                                                         scheduler::SchedulerOptions options,
                                                         client::InformerFactory::KindSourceFactory sources,
                                                         std::unique_ptr<scheduler::SchedulerClient> client,
                                                         const scheduler::Registry& registry = scheduler::InTreeRegistry(),
                                                         CacheResync resync = {});
  ~SchedulerRunner();

  // Lists namespaces, nodes, PodDisruptionBudgets and pods (in that order: a
  // pod's namespace and node are known when the pod arrives), starts
  // watching, then starts the scheduling cycles and the drift guard.
  Status Start();
  // Informers first (no more events), then the cycles and bindings; then the
  // client's queued events are written. Idempotent.
  void Stop();

  scheduler::Scheduler& scheduler() { return *scheduler_; }
  // One round of the drift guard (nodes, pods, PersistentVolumes, claims)
  // now; returns how many differences were repaired. The resync thread
  // calls it every period.
  Result<int> ResyncCache();

 private:
  SchedulerRunner() = default;
  void ResyncLoop();
  CacheResync resync_;
  std::thread resync_thread_;
  std::mutex resync_mu_;
  std::condition_variable resync_cv_;
  bool resync_stop_ = false;  // guarded by resync_mu_
  std::unique_ptr<scheduler::SchedulerClient> client_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::vector<std::unique_ptr<client::InformerSource>> informers_;
  bool stopped_ = false;
};

// Reads a KubeSchedulerConfiguration file (--config). Errors name the file.
Result<scheduler::SchedulerConfig> LoadSchedulerConfig(const std::string& path);

}  // namespace berth::cluster
