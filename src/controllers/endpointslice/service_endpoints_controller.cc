#include "controllers/endpointslice/service_endpoints_controller.h"

#include <algorithm>

namespace berth::controllers {

ServiceEndpointsController::ServiceEndpointsController(std::string name,
                                                       const ControllerContext& context,
                                                       int workers,
                                                       std::chrono::milliseconds batch_period)
    : Controller(std::move(name), context, workers),
      services_(context.informers.For(api::Kind::kService)),
      pods_(context.informers.For(api::Kind::kPod)),
      memberships_(services_),
      batch_period_(batch_period) {
  auto enqueue = [this](const api::ObjectPtr& service) { Enqueue(client::ObjectKey(*service)); };
  services_.AddHandlers({enqueue, enqueue, enqueue});
  auto changed = [this](const api::ObjectPtr& p) { EnqueueServices(memberships_.Update(*p)); };
  pods_.AddHandlers({changed, changed, [this](const api::ObjectPtr& p) {
                       EnqueueServices(memberships_.Remove(*p));
                     }});
}

std::vector<api::ObjectPtr> ServiceEndpointsController::SelectedPods(
    const api::Object& service) const {
  const auto selector = ServiceSelector(service);
  std::vector<api::ObjectPtr> pods;
  if (!selector) return pods;
  for (auto& pod : pods_.ByIndex(client::kNamespaceIndex, service.namespace_name())) {
    if (SelectorMatches(*selector, pod->labels())) pods.push_back(std::move(pod));
  }
  std::sort(pods.begin(), pods.end(),
            [](const api::ObjectPtr& a, const api::ObjectPtr& b) { return a->name() < b->name(); });
  return pods;
}

void ServiceEndpointsController::EnqueueServices(const std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    if (batch_period_.count() > 0) {
      EnqueueAfter(key, batch_period_);
    } else {
      Enqueue(key);
    }
  }
}

}  // namespace berth::controllers
