#include "apiserver/subresources/connect.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/serialize.hpp>

#include "apiserver/api_server.h"
#include "apiserver/status_json.h"
#include "store/store.h"

namespace berth::apiserver {

ConnectSubresource::ConnectSubresource(Description description, std::string action)
    : Subresource(std::move(description)), action_(std::move(action)) {}

namespace {

// kube's remote command protocols over WebSocket, newest first: from v4 the
// error channel carries a Status, before it the error's text.
constexpr std::string_view kChannelProtocols[] = {"v5.channel.k8s.io", "v4.channel.k8s.io", "v3.channel.k8s.io",
                                                  "v2.channel.k8s.io", "channel.k8s.io"};
constexpr char kErrorChannel = 3;

// The first of the client's subprotocols berth speaks; empty when none.
std::string_view ChosenProtocol(std::string_view offered) {
  while (!offered.empty()) {
    const size_t comma = offered.find(',');
    std::string_view p = offered.substr(0, comma);
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
    for (std::string_view known : kChannelProtocols) {
      if (p == known) return known;
    }
    if (comma == std::string_view::npos) break;
    offered.remove_prefix(comma + 1);
  }
  return {};
}

// The refusal as a remote command client reads it: the connection upgraded,
// the error on channel 3, then closed (as kube-apiserver relays a kubelet
// whose command could not start).
Response OnErrorChannel(std::string_view protocol, const Status& refusal) {
  auto answer = std::make_shared<WebSocketAnswer>();
  answer->protocol = std::string(protocol);
  const bool status_json = protocol == "v5.channel.k8s.io" || protocol == "v4.channel.k8s.io";
  answer->messages.push_back(std::string(1, kErrorChannel) +
                             (status_json ? boost::json::serialize(StatusToJson(refusal)) : refusal.message()));
  Response r;
  r.status = 101;
  r.websocket = std::move(answer);
  return r;
}

// The pod a proxy request names: kube's [scheme:]name[:port] (its
// SplitSchemeNamePort; scheme http, https or none). nullopt: not that form.
std::optional<std::string> ProxiedPodName(std::string_view id) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t colon = id.find(':', start);
    parts.push_back(id.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() > 3) return std::nullopt;
  std::string_view scheme = parts.size() == 3 ? parts[0] : "";
  std::string_view name = parts.size() == 3 ? parts[1] : parts[0];
  if (name.empty() || (scheme != "" && scheme != "http" && scheme != "https")) return std::nullopt;
  return std::string(name);
}

}  // namespace

Response ConnectSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  const api::KindInfo& kind = api::Info(*info.kind);
  std::string pod = info.name;
  if (name() == "proxy") {
    std::optional<std::string> named = ProxiedPodName(info.name);
    if (!named) return ErrorResponse(Status::BadRequest("invalid pod request \"" + info.name + "\""));
    pod = std::move(*named);
  }
  if (!rest.store().Get(api::StorageKey(*info.kind, info.ns, pod)).ok()) {
    return ErrorResponse(NotFoundFor(kind, pod), DetailsFor(kind, pod));
  }
  const Status refusal = Status::BadRequest("cannot " + action_ + " pod \"" + pod +
                                            "\": simulated pods run no processes (berth's simulated kubelets "
                                            "only report their status); pods/" + name() + " is not served");
  // exec and attach over WebSocket: the error where the client looks for it.
  if (!request.websocket_protocols.empty() && (name() == "exec" || name() == "attach")) {
    if (std::string_view protocol = ChosenProtocol(request.websocket_protocols); !protocol.empty()) {
      return OnErrorChannel(protocol, refusal);
    }
  }
  return ErrorResponse(refusal);
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
