#pragma once
// The EndpointSlice controller (kube's endpointslice-controller): for every
// Service with a selector (and not ExternalName), the pods it selects in its
// namespace that have an IP and are not finished become endpoints in
// discovery.k8s.io/v1 EndpointSlices labelled kubernetes.io/service-name and
// endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io,
// owned by the Service. How the endpoints are packed into slices is
// slice_plan.h.
//
// When the Service is deleted, kube leaves its slices to the garbage
// collector (ownerReference); berth's collector follows only Pods,
// ReplicaSets and Deployments, so this controller deletes the slices whose
// owning Service is gone itself (the owner confirmed gone with a live read).
//
// - Follows Services (any change), pods (add, update, delete: the Services
//   they match now and matched before), nodes (a zone label change resyncs the
//   Services of the node's pods) and its own slices (a change or deletion by
//   anyone else resyncs the Service after a second).
// - Pod events are batched: a Service is synced `batch_period` after the
//   first pod change (kube's --endpoint-updates-batch-period).
// - A pod on a node the cache does not know is left out and the Service
//   retried, unless the Service publishes not-ready addresses (kube's rule).
// - Slices written carry endpoints.kubernetes.io/last-change-trigger-time.
// - A Service being deleted gets no new slices.

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

#include "controllers/endpointslice/service_endpoints_controller.h"
#include "controllers/endpointslice/slice_plan.h"
#include "controllers/endpointslice/slice_tracker.h"

namespace berth::controllers {

struct EndpointSliceOptions {
  int max_endpoints_per_slice = 100;          // --max-endpoints-per-slice
  std::chrono::milliseconds batch_period{0};  // --endpoint-updates-batch-period
  int workers = 5;                            // --concurrent-service-endpoint-syncs
};

class EndpointSliceController final : public ServiceEndpointsController {
 public:
  explicit EndpointSliceController(const ControllerContext& context,
                                   EndpointSliceOptions options = {});

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  void SliceChanged(const api::ObjectPtr& slice, bool deleted);
  void NodeChanged(const api::ObjectPtr& node, bool deleted);
  // Deletes the slices whose owning Service is gone (see the file comment).
  Status DeleteOrphanedSlices(const std::string& key);
  Status Apply(const api::Object& service, const std::string& key, SlicePlan plan,
               const std::string& trigger_time);

  EndpointSliceOptions options_;
  client::SharedInformer& nodes_;
  client::SharedInformer& slices_;
  SliceTracker tracker_;
  client::EventRecorder events_;
  std::mutex zones_mu_;
  // node name → zone label; guarded by zones_mu_
  std::unordered_map<std::string, std::string> zones_;
};

}  // namespace berth::controllers
