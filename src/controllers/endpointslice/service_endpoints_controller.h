#pragma once
// What both endpoint controllers (EndpointSlice, Endpoints) are built on: a
// controller keyed by Service ("namespace/name") that follows Services (any
// change queues the Service) and the pods they select (a pod's add, update or
// delete queues the Services it matches now and matched before, after the
// batch period: kube's --endpoint-updates-batch-period).

#include <chrono>
#include <string>
#include <vector>

#include "controllers/controller.h"
#include "controllers/endpointslice/pod_endpoints.h"

namespace berth::controllers {

class ServiceEndpointsController : public Controller {
 protected:
  ServiceEndpointsController(std::string name, const ControllerContext& context, int workers,
                             std::chrono::milliseconds batch_period);

  // The pods of the Service's namespace its selector matches, by name.
  // REQUIRES: ManagesEndpoints(service).
  std::vector<api::ObjectPtr> SelectedPods(const api::Object& service) const;
  // Queues `keys` after the batch period (at once when it is 0).
  void EnqueueServices(const std::vector<std::string>& keys);

  client::SharedInformer& services_;
  client::SharedInformer& pods_;
  PodServiceMemberships memberships_;
  TriggerTimeTracker trigger_times_;
  const std::chrono::milliseconds batch_period_;
};

}  // namespace berth::controllers
