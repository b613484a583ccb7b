#include "apiserver/server_metrics.h"

#include "api/kinds.h"
#include "apiserver/request_info.h"

namespace berth::apiserver {

ServerMetrics::ServerMetrics()
    : requests_(registry_.AddCounter("apiserver_request_total",
                                     "Counter of apiserver requests broken out by verb, resource and HTTP response code.",
                                     {"verb", "resource", "code"})),
      request_duration_(registry_.AddHistogram(
          "apiserver_request_duration_seconds", "Response latency distribution in seconds by verb and resource.",
          {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
          {"verb", "resource"})),
      inflight_(registry_.AddGauge("apiserver_current_inflight_requests",
                                   "Requests being handled now (watches excluded).")),
      watches_(registry_.AddGauge("apiserver_longrunning_requests", "Open long-running requests (watches).")),
      revision_(registry_.AddGauge("berth_store_revision", "The store's current revision.")),
      objects_(registry_.AddGauge("apiserver_storage_objects", "Number of stored objects by resource.",
                                  {"resource"})),
      fsync_(registry_
                 .AddHistogram("berth_wal_fsync_duration_seconds", "Latency of write-ahead log fsyncs.",
                               metrics::ExponentialBuckets(0.0001, 2, 14))
                 .WithLabels({})) {}

void ServerMetrics::ObserveRequest(const apiserver::Request& request, int code, double seconds) {
  std::string verb = "other", resource = "";
  if (auto info = apiserver::ParseResourcePath(request.path)) {
    resource = info->resource;
    if (!info->subresource.empty()) resource += "/" + info->subresource;
    const std::string& m = request.method;
    if (m == "GET") verb = info->name.empty() ? "LIST" : "GET";
    else if (m == "POST") verb = "POST";
    else if (m == "PUT") verb = "PUT";
    else if (m == "PATCH") verb = "PATCH";
    else if (m == "DELETE") verb = info->name.empty() ? "DELETECOLLECTION" : "DELETE";
  } else {
    verb = request.method;
  }
  requests_.WithLabels({verb, resource, std::to_string(code)}).Increment();
  request_duration_.WithLabels({verb, resource}).Observe(seconds);
}

void ServerMetrics::ObserveFsync(double seconds) { fsync_.Observe(seconds); }

std::string ServerMetrics::Render(store::Store& store, const apiserver::HttpServer* server) {
  if (server) {
    inflight_.WithLabels({}).Set(static_cast<double>(server->inflight()));
    watches_.WithLabels({}).Set(static_cast<double>(server->open_streams()));
  }
  revision_.WithLabels({}).Set(static_cast<double>(store.CurrentRevision()));
  for (const auto& [prefix, count] : store.CountByResource()) {
    std::string resource = prefix;
    for (const auto& info : api::AllKinds()) {
      if (!info.stored_as && api::StoragePrefix(info.kind) == prefix) {
        resource = info.group.empty() ? std::string(info.resource)
                                      : std::string(info.resource) + "." + std::string(info.group);
      }
    }
    objects_.WithLabels({resource}).Set(static_cast<double>(count));
  }
  return registry_.Render();
}

}  // namespace berth::apiserver
