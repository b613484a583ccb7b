#include "apiserver/subresources/connect.h"

#include <utility>

#include "apiserver/api_server.h"
#include "store/store.h"

namespace berth::apiserver {

ConnectSubresource::ConnectSubresource(Description description, std::string action)
    : Subresource(std::move(description)), action_(std::move(action)) {}

Response ConnectSubresource::Serve(Request&, const RequestInfo& info, GenericRest& rest) const {
  const api::KindInfo& kind = api::Info(*info.kind);
  if (!rest.store().Get(api::StorageKey(*info.kind, info.ns, info.name)).ok()) {
    return ErrorResponse(NotFoundFor(kind, info.name), DetailsFor(kind, info.name));
  }
  return ErrorResponse(Status::BadRequest("cannot " + action_ + " pod \"" + info.name +
                                          "\": simulated pods run no processes (berth's simulated kubelets "
                                          "only report their status); pods/" + name() + " is not served"));
}

std::vector<std::unique_ptr<const Subresource>> PodConnectSubresources() {
  // kube's verbs and the options kinds they take.
  auto connect = [](std::string name, std::string options_kind, std::vector<std::string> verbs, std::string action) {
    Subresource::Description description{.name = std::move(name),
                                         .group = "",
                                         .version = "v1",
                                         .kind = std::move(options_kind),
                                         .verbs = std::move(verbs),
                                         .listed = false};
    return std::make_unique<ConnectSubresource>(std::move(description), std::move(action));
  };
  std::vector<std::unique_ptr<const Subresource>> all;
  all.push_back(connect("exec", "PodExecOptions", {"create", "get"}, "exec into"));
  all.push_back(connect("attach", "PodAttachOptions", {"create", "get"}, "attach to"));
  all.push_back(connect("portforward", "PodPortForwardOptions", {"create", "get"}, "port-forward to"));
  all.push_back(connect("proxy", "PodProxyOptions", {"create", "delete", "get", "patch", "update"}, "proxy to"));
  return all;
}

}  // namespace berth::apiserver
