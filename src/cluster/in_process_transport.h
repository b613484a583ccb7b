#pragma once
// A client::Transport that calls ApiServer::Handle in process: every API rule
// applies (admission, validation, optimistic concurrency), with no sockets.
// Requests are marked trusted: in-process components skip authentication.

#include <string>

#include "apiserver/api_server.h"
#include "client/rest_client.h"

namespace berth::cluster {

// `user_agent` names the component in the API server's logs and metrics.
client::Transport InProcessTransport(apiserver::ApiServer& api, std::string user_agent);

}  // namespace berth::cluster
