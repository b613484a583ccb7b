#pragma once
// The scheduler's two writers to the API (scheduler::SchedulerClient).
//
// Both report a failure as kube-scheduler does — a strategic merge patch of
// the pod's status with the PodScheduled condition (lastTransitionTime kept
// while the condition's status stays False) and a FailedScheduling event —
// through a client::Transport, so the API server's rules apply to it like to
// every other write. Both bind as kube-scheduler does, with a POST of a
// Binding to pods/NAME/binding: over HTTP, or in process through
// ApiServer::Handle, so an in-process binding meets the same authorization,
// admission and audit as a remote scheduler's, only without the socket.

#include <memory>

#include <boost/json.hpp>

#include "apiserver/api_server.h"
#include "client/event_recorder.h"
#include "client/rest_client.h"
#include "scheduler/scheduler_client.h"

namespace berth::cluster {

// Binds with POST pods/NAME/binding through the transport.
class ApiSchedulerClient : public scheduler::SchedulerClient {
 public:
  explicit ApiSchedulerClient(client::Transport transport);
  ~ApiSchedulerClient() override;

  Status BindPod(const api::Object& pod, const std::string& node) override;
  Status ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message,
                       const std::optional<std::string>& nominated_node) override;
  void ReportScheduled(const api::Object& pod, const std::string& node) override;
  Status PreemptPod(const api::Object& victim, const api::Object& preemptor, const std::string& node) override;
  Status SetNominatedNodeName(const api::Object& pod, const std::string& node) override;
  Status UpdatePersistentVolume(const boost::json::object& pv) override;
  Status UpdatePersistentVolumeClaim(const boost::json::object& pvc) override;
  // Writes the events still queued; later ones are dropped.
  void StopEvents();

 private:
  // A write whose answer needs no decoding: OK on 2xx, else the Status the
  // answer carries.
  Status Send(const std::string& method, const std::string& target, const boost::json::object& body,
              const std::string& content_type);

  client::Transport transport_;
  client::RestClient rest_;
  client::EventBroadcaster broadcaster_;
  client::EventRecorder events_;
};

// In `berth serve`: every write through the in-process transport, as the
// user system:kube-scheduler.
class InProcessSchedulerClient final : public ApiSchedulerClient {
 public:
  explicit InProcessSchedulerClient(apiserver::ApiServer& api);
};

}  // namespace berth::cluster
