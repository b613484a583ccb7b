#pragma once
// A RestClient transport that calls ApiServer::Handle in process: every API
// rule applies (admission, validation, optimistic concurrency), no sockets.
// Requests are marked trusted: in-process components skip authentication.

#include "apiserver/api_server.h"
#include "client/rest_client.h"

namespace berth::cmd {

inline client::Transport InProcessTransport(apiserver::ApiServer& api) {
  return [&api](const std::string& method, const std::string& target, const std::string& body,
                const std::string& content_type) -> Result<client::RestResponse> {
    apiserver::Request request;
    request.method = method;
    auto q = target.find('?');
    request.path = target.substr(0, q);
    if (q != std::string::npos) request.query = apiserver::ParseQuery(std::string_view(target).substr(q + 1));
    request.accept = "application/json";
    request.content_type = content_type;
    request.user_agent = "berth-controller-manager";
    request.body = body;
    request.trusted = true;
    apiserver::Response response = api.Handle(request);
    return client::RestResponse{response.status, std::move(response.body)};
  };
}

}  // namespace berth::cmd
