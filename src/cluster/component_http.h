#pragma once
// The HTTP endpoint of a component that runs on its own (`berth scheduler`),
// as kube-scheduler serves one on its port: /healthz, /livez and /readyz,
// /metrics (Prometheus text), and the component's own routes (apiserver::Route).
// Plain HTTP; anything else gets a 404 Status.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/status.h"
#include "apiserver/http.h"
#include "apiserver/http_server.h"

namespace berth::cluster {

struct ComponentHttpOptions {
  // "HOST:PORT"; port 0 picks a free one (HttpServer::port()).
  std::string listen = "127.0.0.1:10259";
  std::function<std::string()> metrics;  // unset: /metrics is 404
  std::vector<apiserver::Route> routes;
};

// The request handler alone (tests call it without a socket).
apiserver::Handler ComponentHandler(ComponentHttpOptions options);

// Binds and serves. BadRequest when `listen` is not HOST:PORT, Unavailable
// when it cannot be bound.
Result<std::unique_ptr<apiserver::HttpServer>> StartComponentHttp(ComponentHttpOptions options);

}  // namespace berth::cluster
