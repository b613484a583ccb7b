#pragma once
// A client::Transport that calls ApiServer::Handle in process: every API rule
// applies (admission, validation, optimistic concurrency), with no sockets.
// Requests are marked trusted: in-process components skip authentication.
// Header-only, so tests of the client and controllers can use it without
// linking the whole cluster.

#include <string>

#include "apiserver/api_server.h"
#include "client/rest_client.h"

namespace berth::cluster {

// `user_agent` names the component in the API server's logs and metrics,
// `user` the identity it acts as (authorization_filter.h).
inline client::Transport InProcessTransport(apiserver::ApiServer& api,
                                            std::string user_agent = "berth-controller-manager",
                                            std::string user = "system:kube-controller-manager") {
  return [&api, user_agent = std::move(user_agent), user = std::move(user)](const std::string& method, const std::string& target,
                                                    const std::string& body,
                                                    const std::string& content_type) -> Result<client::RestResponse> {
    apiserver::Request request;
    request.method = method;
    auto q = target.find('?');
    request.path = target.substr(0, q);
    if (q != std::string::npos) request.query = apiserver::ParseQuery(std::string_view(target).substr(q + 1));
    request.accept = "application/json";
    request.content_type = content_type;
    request.user_agent = user_agent;
    request.body = body;
    request.trusted = true;
    request.trusted_user = user;
    apiserver::Response response = api.Handle(request);
    return client::RestResponse{response.status, std::move(response.body)};
  };
}

}  // namespace berth::cluster
