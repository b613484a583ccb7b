#pragma once
// The `berth explain` endpoint: GET /debug/explain/namespaces/{ns}/pods/{name}
// answers the scheduler's Explanation as JSON ("summary", "suggestions" and
// the details: scheduler/explain/explanation.h). Served by `berth serve`
// beside the API and by `berth scheduler` on its --listen port.
// 404 Status when the scheduler holds no such pod or the path names none,
// 503 while no scheduler runs, 405 for another method.

#include <functional>

#include "apiserver/http.h"
#include "scheduler/scheduler.h"

namespace berth::cluster {

inline constexpr std::string_view kExplainPrefix = "/debug/explain/";

// `scheduler` returns the running scheduler, or nullptr (not started, or
// stopped). It is called on the serving thread for every request.
apiserver::Route ExplainRoute(std::function<scheduler::Scheduler*()> scheduler);

}  // namespace berth::cluster
