#pragma once
// The API server's metrics, with kube-apiserver's names, labels and buckets
// where one exists (staging/src/k8s.io/apiserver/pkg/endpoints/metrics), the
// store's under berth_store_*, and the process_* family.

#include <mutex>
#include <set>
#include <string>

#include "apiserver/http.h"
#include "apiserver/http_server.h"
#include "metrics/metrics.h"
#include "store/store.h"

namespace berth::apiserver {

// kube's label values for one request: verb (GET, LIST, WATCH, POST, PUT,
// PATCH, APPLY, DELETE, DELETECOLLECTION), dry_run, group, version, resource,
// subresource, scope (namespace, resource, cluster, or "" for a
// non-resource path) and component ("apiserver").
struct RequestLabels {
  std::string verb, dry_run, group, version, resource, subresource, scope;
};
RequestLabels LabelsOf(const apiserver::Request& request);

class ServerMetrics {
 public:
  ServerMetrics();
  // After each non-streaming response (from the server's worker threads).
  void ObserveRequest(const apiserver::Request& request, int code, double seconds);
  // For each request refused by the in-flight limits (429).
  void ObserveDropped(const apiserver::Request& request, RequestKind kind);
  // After each log fsync (from the log's thread).
  void ObserveFsync(double seconds);
  // After each store snapshot (from the snapshot's thread).
  void ObserveSnapshot(double seconds);
  // Prometheus text; `server` may be null while starting or stopping.
  std::string Render(store::Store& store, const apiserver::HttpServer* server);

 private:
  metrics::Registry registry_;
  metrics::Family<metrics::Counter>& requests_;
  metrics::Family<metrics::Histogram>& request_duration_;
  metrics::Family<metrics::Gauge>& inflight_;
  metrics::Family<metrics::Counter>& dropped_;
  metrics::Family<metrics::Counter>& terminations_;
  metrics::Family<metrics::Gauge>& watches_;
  metrics::Family<metrics::Gauge>& objects_;
  metrics::Family<metrics::Gauge>& revision_;
  metrics::Histogram& fsync_;
  metrics::Histogram& snapshot_;
  std::mutex objects_mu_;          // one scrape at a time updates objects_
  std::set<std::string> reported_;  // resources objects_ has a child for; guarded by objects_mu_
};

}  // namespace berth::apiserver
