#pragma once
// The scheduler inside one process with the API server and store: an
// in-process client (the API server's own binding and create paths, no HTTP)
// and store informers for nodes, pods and namespaces. Used by `berth serve`
// and `berth bench`.

#include <memory>
#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "client/event_recorder.h"
#include "client/rest_client.h"
#include "client/store_informer.h"
#include "scheduler/scheduler.h"
#include "store/store.h"

namespace berth::cmd {

class InProcessSchedulerClient final : public scheduler::SchedulerClient {
 public:
  InProcessSchedulerClient(apiserver::ApiServer& api, store::Store& store);
  Status BindPod(const api::Object& pod, const std::string& node) override;
  Status ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message) override;
  void ReportScheduled(const api::Object& pod, const std::string& node) override;
  // Writes the events still queued; later ones are dropped.
  void StopEvents() { broadcaster_.Stop(); }

 private:
  apiserver::ApiServer& api_;
  store::Store& store_;
  client::RestClient events_client_;
  client::EventBroadcaster broadcaster_;
  client::EventRecorder events_;
};

class InProcessScheduler {
 public:
  // Builds the scheduler; Start() lists and starts watching.
  static Result<std::unique_ptr<InProcessScheduler>> Create(apiserver::ApiServer& api, store::Store& store,
                                                            const scheduler::SchedulerConfig& config,
                                                            scheduler::SchedulerOptions options);
  ~InProcessScheduler();
  Status Start();
  void Stop();
  scheduler::Scheduler& scheduler() { return *scheduler_; }

 private:
  InProcessScheduler() = default;
  std::unique_ptr<InProcessSchedulerClient> client_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::vector<std::unique_ptr<client::StoreInformer>> informers_;
  bool started_ = false;
};

// The events kube-scheduler records: Warning FailedScheduling with the
// failure's message, Normal Scheduled after a binding.
void RecordFailedScheduling(const client::EventRecorder& events, const api::Object& pod,
                            const std::string& message);
void RecordScheduled(const client::EventRecorder& events, const api::Object& pod,
                     const std::string& node);

// Reads --config: a KubeSchedulerConfiguration file. Errors name the file.
Result<scheduler::SchedulerConfig> LoadSchedulerConfig(const std::string& path);

}  // namespace berth::cmd
