#pragma once
// GET /api/v1/componentstatuses[/NAME] (`kubectl get componentstatuses`,
// `kubectl get cs`): kube's ComponentStatus, the health of the control
// plane's parts as the API server sees them (the scheduler, the controller
// manager, the store as etcd-0), each a named check. Deprecated in kube
// since 1.19, and answered with kube's deprecation warning. Only get and
// list are served; the objects are not stored.

#include <optional>
#include <vector>

#include "apiserver/health.h"
#include "apiserver/http.h"

namespace berth::apiserver {

// The answer for a request to componentstatuses (JSON, or a Table when the
// Accept header asks for one); nullopt for any other path.
std::optional<Response> ServeComponentStatuses(Request& request, const std::vector<HealthCheck>& components);

}  // namespace berth::apiserver
