#include "cluster/component_http.h"

#include "apiserver/api_server.h"
#include "apiserver/serving_options.h"

namespace berth::cluster {

apiserver::Handler ComponentHandler(ComponentHttpOptions options) {
  return [options = std::move(options)](apiserver::Request& request) -> apiserver::Response {
    const std::string& path = request.path;
    if (path == "/healthz" || path == "/livez" || path == "/readyz") {
      return apiserver::BodyResponse(200, "ok", "text/plain; charset=utf-8");
    }
    if (path == "/metrics" && options.metrics) {
      return apiserver::BodyResponse(200, options.metrics(), "text/plain; version=0.0.4; charset=utf-8");
    }
    if (const apiserver::Handler* route = apiserver::FindRoute(options.routes, path)) return (*route)(request);
    return apiserver::ErrorResponse(
        Status(StatusCode::kNotFound, "the server could not find the requested resource"));
  };
}

Result<std::unique_ptr<apiserver::HttpServer>> StartComponentHttp(ComponentHttpOptions options) {
  auto listen = apiserver::ParseListenAddress(options.listen);
  if (!listen.ok()) return listen.status();
  if (!listen->loopback) {
    // Nothing here is authenticated (profiles, explanations): loopback only.
    return Status::BadRequest("--listen " + options.listen +
                              ": the component's endpoint has no authentication; use a loopback address");
  }
  apiserver::HttpServer::Options http;
  http.address = listen->host;
  http.port = listen->port;
  http.io_threads = 1;
  http.worker_threads = 4;
  return apiserver::HttpServer::Start(http, ComponentHandler(std::move(options)));
}

}  // namespace berth::cluster
