#pragma once
// The Endpoints controller (kube's endpoints-controller): for every Service
// with a selector (and not ExternalName), one core/v1 Endpoints named like
// the Service whose subsets hold the selected pods' addresses (ready ones in
// addresses, others in notReadyAddresses; terminating pods only when the
// Service publishes not-ready addresses) for each port they resolve, packed
// as subsets.h describes.
//
// - Labels: the Service's, plus endpointslice.kubernetes.io/skip-mirror:
//   "true" (the EndpointSlice controller already publishes these endpoints)
//   and service.kubernetes.io/headless: "" for a Service without a cluster IP.
// - Over 1000 addresses the subsets are truncated and annotated
//   endpoints.kubernetes.io/over-capacity: truncated.
// - endpoints.kubernetes.io/last-change-trigger-time as the slices carry it.
// - A deleted Service's Endpoints are deleted; Endpoints deleted by someone
//   else are written again; at start, Endpoints without a Service (other than
//   leader-election records) are deleted, as kube's checkLeftoverEndpoints.
// - Services without a selector are left alone: their Endpoints are written
//   by whoever manages them.
// - Pod events are batched by `batch_period` as in the EndpointSlice controller.

#include <chrono>

#include "controllers/endpointslice/service_endpoints_controller.h"

namespace berth::controllers {

inline constexpr std::string_view kSkipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror";
inline constexpr std::string_view kOverCapacityAnnotation = "endpoints.kubernetes.io/over-capacity";

struct EndpointsOptions {
  std::chrono::milliseconds batch_period{0};  // --endpoint-updates-batch-period
  int workers = 5;                            // --concurrent-endpoint-syncs
};

class EndpointsController final : public ServiceEndpointsController {
 public:
  explicit EndpointsController(const ControllerContext& context, EndpointsOptions options = {});
  // Run, then queue every Endpoints object so that those whose Service is
  // gone are deleted. After the informers have synced.
  void Start();

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  client::SharedInformer& endpoints_;
  client::EventRecorder events_;
};

}  // namespace berth::controllers
