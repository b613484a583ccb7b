#pragma once
// The API server's metrics, with kube-apiserver's names where one exists.

#include <string>

#include "apiserver/http.h"
#include "apiserver/http_server.h"
#include "metrics/metrics.h"
#include "store/store.h"

namespace berth::apiserver {

class ServerMetrics {
 public:
  ServerMetrics();
  // After each non-streaming response (from the server's worker threads).
  void ObserveRequest(const apiserver::Request& request, int code, double seconds);
  // After each log fsync (from the log's thread).
  void ObserveFsync(double seconds);
  // Prometheus text; `server` may be null while starting or stopping.
  std::string Render(store::Store& store, const apiserver::HttpServer* server);

 private:
  metrics::Registry registry_;
  metrics::Family<metrics::Counter>& requests_;
  metrics::Family<metrics::Histogram>& request_duration_;
  metrics::Family<metrics::Gauge>& inflight_;
  metrics::Family<metrics::Gauge>& watches_;
  metrics::Family<metrics::Gauge>& revision_;
  metrics::Family<metrics::Gauge>& objects_;
  metrics::Histogram& fsync_;
};

}  // namespace berth::apiserver
