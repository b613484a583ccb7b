#include "apiserver/server_metrics.h"

#include <algorithm>
#include <array>

#include "api/kinds.h"
#include "apiserver/request_info.h"
#include "metrics/process.h"

namespace berth::apiserver {

namespace {

// kube-apiserver's request latency buckets (seconds).
std::vector<double> RequestBuckets() {
  return {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60};
}

// Non-resource paths keep their path as the subresource label, as kube's do;
// any other non-resource path is counted as "other" so that arbitrary
// request paths cannot grow the label set without bound.
constexpr std::array<std::string_view, 10> kNonResourcePaths = {
    "/healthz", "/livez", "/readyz", "/metrics", "/version", "/api", "/apis", "/openapi/v2", "/openapi/v3", "/"};

// dryRun=All (kube: the sorted, de-duplicated values, comma-joined).
std::string DryRun(const apiserver::Request& request) {
  std::vector<std::string> values;
  for (const auto& [k, v] : request.query) {
    if (k == "dryRun" && std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

}  // namespace

RequestLabels LabelsOf(const apiserver::Request& request) {
  RequestLabels l;
  l.dry_run = DryRun(request);
  const std::string& m = request.method;
  auto info = apiserver::ParseResourcePath(request.path);
  if (!info) {
    l.verb = m;
    const bool known = std::find(kNonResourcePaths.begin(), kNonResourcePaths.end(), request.path) !=
                       kNonResourcePaths.end();
    l.subresource = known ? request.path : "other";
    return l;
  }
  l.group = info->group;
  l.version = info->version;
  l.resource = info->resource;
  l.subresource = info->subresource;
  l.scope = !info->ns.empty() ? "namespace" : !info->name.empty() ? "resource" : "cluster";
  if (m == "GET") {
    if (info->watch_path || request.QueryBool("watch")) l.verb = "WATCH";
    else l.verb = info->name.empty() ? "LIST" : "GET";
  } else if (m == "PATCH") {
    l.verb = request.content_type.rfind("application/apply-patch", 0) == 0 ? "APPLY" : "PATCH";
  } else if (m == "DELETE") {
    l.verb = info->name.empty() ? "DELETECOLLECTION" : "DELETE";
  } else if (m == "POST" || m == "PUT") {
    l.verb = m;
  } else {
    l.verb = "other";
  }
  return l;
}

ServerMetrics::ServerMetrics()
    : requests_(registry_.AddCounter(
          "apiserver_request_total",
          "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, "
          "resource, scope, component, and HTTP response code.",
          {"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"})),
      request_duration_(registry_.AddHistogram(
          "apiserver_request_duration_seconds",
          "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, "
          "resource, subresource, scope and component.",
          RequestBuckets(),
          {"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"})),
      inflight_(registry_.AddGauge("apiserver_current_inflight_requests",
                                   "[STABLE] Maximal number of currently used inflight request limit of this "
                                   "apiserver per request kind in last second.",
                                   {"request_kind"})),
      dropped_(registry_.AddCounter("apiserver_dropped_requests_total",
                                    "Number of requests dropped with 'Try again later' response", {"request_kind"})),
      terminations_(registry_.AddCounter(
          "apiserver_request_terminations_total", "Number of requests which apiserver terminated in self-defense.",
          {"verb", "group", "version", "resource", "subresource", "scope", "component", "code"})),
      watches_(registry_.AddGauge("apiserver_longrunning_requests",
                                  "[STABLE] Gauge of all active long-running apiserver requests broken out by verb, "
                                  "group, version, resource, scope and component. Not all requests are tracked "
                                  "this way.",
                                  {"verb", "component"})),
      objects_(registry_.AddGauge("apiserver_storage_objects",
                                  "[STABLE] Number of stored objects at the time of last check split by kind. In "
                                  "case of a fetching error, the value will be -1.",
                                  {"resource"})),
      revision_(registry_.AddGauge("berth_store_revision", "The store's current revision.")),
      fsync_(registry_
                 .AddHistogram("berth_store_wal_fsync_duration_seconds",
                               "Latency of the store's write-ahead log fsyncs (one per group commit).",
                               metrics::ExponentialBuckets(0.0001, 2, 14))
                 .WithLabels({})),
      snapshot_(registry_
                    .AddHistogram("berth_store_snapshot_duration_seconds",
                                  "Latency of the store's snapshots: writing one and pruning the log it covers.",
                                  metrics::ExponentialBuckets(0.01, 2, 16))
                    .WithLabels({})) {
  metrics::AddProcessMetrics(registry_);
}

void ServerMetrics::ObserveRequest(const apiserver::Request& request, int code, double seconds) {
  RequestLabels l = LabelsOf(request);
  requests_
      .WithLabels({l.verb, l.dry_run, l.group, l.version, l.resource, l.subresource, l.scope, "apiserver",
                   std::to_string(code)})
      .Increment();
  request_duration_
      .WithLabels({l.verb, l.dry_run, l.group, l.version, l.resource, l.subresource, l.scope, "apiserver"})
      .Observe(seconds);
}

void ServerMetrics::ObserveDropped(const apiserver::Request& request, RequestKind kind) {
  dropped_.WithLabels({std::string(RequestKindLabel(kind))}).Increment();
  RequestLabels l = LabelsOf(request);
  terminations_.WithLabels({l.verb, l.group, l.version, l.resource, l.subresource, l.scope, "apiserver", "429"})
      .Increment();
}

void ServerMetrics::ObserveFsync(double seconds) { fsync_.Observe(seconds); }

void ServerMetrics::ObserveSnapshot(double seconds) { snapshot_.Observe(seconds); }

std::string ServerMetrics::Render(store::Store& store, const apiserver::HttpServer* server) {
  if (server) {
    // kube's watermark: the most handled at once in the last second.
    for (RequestKind kind : {RequestKind::kReadOnly, RequestKind::kMutating}) {
      inflight_.WithLabels({std::string(RequestKindLabel(kind))})
          .Set(static_cast<double>(server->max_inflight().Watermark(kind)));
    }
    watches_.WithLabels({"WATCH", "apiserver"}).Set(static_cast<double>(server->open_streams()));
  }
  revision_.WithLabels({}).Set(static_cast<double>(store.CurrentRevision()));
  std::lock_guard lock(objects_mu_);
  // A resource whose last object went is reported as 0, not its last count.
  for (const auto& resource : reported_) objects_.WithLabels({resource}).Set(0);
  for (const auto& [prefix, count] : store.CountByResource()) {
    std::string resource = prefix;
    for (const auto& info : api::AllKinds()) {
      if (!info.stored_as && api::StoragePrefix(info.kind) == prefix) {
        resource = info.group.empty() ? std::string(info.resource)
                                      : std::string(info.resource) + "." + std::string(info.group);
      }
    }
    objects_.WithLabels({resource}).Set(static_cast<double>(count));
    reported_.insert(resource);
  }
  return registry_.Render();
}

}  // namespace berth::apiserver
