#pragma once
// The scheduler inside one process with the API server and store: an
// in-process client (the API server's own binding and create paths, no HTTP)
// and store informers for nodes, pods and namespaces. Used by `berth serve`
// and `berth bench`.

#include <memory>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "apiserver/api_server.h"
#include "client/store_informer.h"
#include "scheduler/scheduler.h"
#include "store/store.h"

namespace berth::cmd {

class InProcessSchedulerClient final : public scheduler::SchedulerClient {
 public:
  InProcessSchedulerClient(apiserver::ApiServer& api, store::Store& store, bool record_events = true)
      : api_(api), store_(store), record_events_(record_events) {}
  Status BindPod(const api::Object& pod, const std::string& node) override;
  Status ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message) override;

 private:
  apiserver::ApiServer& api_;
  store::Store& store_;
  bool record_events_;
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

// The Warning event FailedScheduling for `pod`, as kube-scheduler records it.
boost::json::object FailedSchedulingEvent(const api::Object& pod, const std::string& message);

// Reads --config: a KubeSchedulerConfiguration file. Errors name the file.
Result<scheduler::SchedulerConfig> LoadSchedulerConfig(const std::string& path);

}  // namespace berth::cmd
