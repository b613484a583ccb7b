#include "cluster/explain_route.h"

#include <boost/json/serialize.hpp>

#include "apiserver/api_server.h"
#include "apiserver/status_json.h"

namespace berth::cluster {

apiserver::Route ExplainRoute(std::function<scheduler::Scheduler*()> scheduler) {
  return {
      std::string(kExplainPrefix), [scheduler = std::move(scheduler)](apiserver::Request& request) {
        if (request.method != "GET") {
          return apiserver::ErrorResponse(
              Status(StatusCode::kMethodNotAllowed,
                     "the server does not allow this method on the requested resource"));
        }
        // namespaces/{ns}/pods/{name}
        std::string_view rest = std::string_view(request.path).substr(kExplainPrefix.size());
        std::vector<std::string_view> parts;
        while (!rest.empty()) {
          size_t slash = rest.find('/');
          parts.push_back(rest.substr(0, slash));
          rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
        }
        if (parts.size() != 4 || parts[0] != "namespaces" || parts[2] != "pods" ||
            parts[1].empty() || parts[3].empty()) {
          return apiserver::ErrorResponse(
              Status::NotFound("the server could not find the requested resource (expected " +
                               std::string(kExplainPrefix) + "namespaces/NAMESPACE/pods/NAME)"));
        }
        scheduler::Scheduler* s = scheduler();
        if (!s)
          return apiserver::ErrorResponse(Status::Unavailable("the scheduler is not running"));
        auto explained = s->Explain(parts[1], parts[3]);
        if (!explained.ok()) {
          return apiserver::ErrorResponse(
              explained.status(), {.name = std::string(parts[3]), .group = "", .kind = "pods"});
        }
        return apiserver::JsonResponse(
            200, boost::json::serialize(scheduler::ExplanationToJson(*explained)));
      }};
}

}  // namespace berth::cluster
