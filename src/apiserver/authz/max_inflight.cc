#include "apiserver/authz/max_inflight.h"

#include <algorithm>
#include <chrono>

#include <boost/json/serialize.hpp>

#include "apiserver/request_info.h"
#include "apiserver/status_json.h"

namespace berth::apiserver {

namespace {

int64_t SteadySecond() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RequestKind ClassifyRequest(const Request& request) {
  auto info = ParseResourcePath(request.path);
  const std::string verb = KubeVerb(request, info ? &*info : nullptr);
  // kube-apiserver's LongRunningFunc: verbs watch and proxy; subresources
  // attach, exec, proxy, log, portforward; the profiler's paths.
  if (verb == "watch" || verb == "proxy") return RequestKind::kLongRunning;
  if (info) {
    const std::string& sub = info->subresource;
    if (sub == "attach" || sub == "exec" || sub == "proxy" || sub == "log" || sub == "portforward") {
      return RequestKind::kLongRunning;
    }
  } else if (request.path.starts_with("/debug/pprof/")) {
    return RequestKind::kLongRunning;
  }
  return verb == "get" || verb == "list" ? RequestKind::kReadOnly : RequestKind::kMutating;
}

std::string_view RequestKindLabel(RequestKind kind) {
  switch (kind) {
    case RequestKind::kReadOnly:
      return "readOnly";
    case RequestKind::kMutating:
      return "mutating";
    case RequestKind::kLongRunning:
      break;
  }
  return "";
}

MaxInflight::MaxInflight(Limits limits) : limits_(limits) {}

void MaxInflight::Counter::Record(int64_t now_second) {
  if (now_second != window) {
    previous_max = now_second == window + 1 ? window_max : 0;
    window = now_second;
    window_max = 0;
  }
  window_max = std::max(window_max, in_use);
}

bool MaxInflight::TryAcquire(RequestKind kind) {
  if (kind == RequestKind::kLongRunning) return true;
  Counter& c = For(kind);
  const int limit = Limit(kind);
  const int64_t now = SteadySecond();
  std::lock_guard lock(c.mu);
  if (limit > 0 && c.in_use >= limit) return false;
  ++c.in_use;
  c.Record(now);
  return true;
}

void MaxInflight::CountDropped(RequestKind kind) {
  if (kind == RequestKind::kLongRunning) return;
  Counter& c = For(kind);
  std::lock_guard lock(c.mu);
  ++c.dropped;
}

void MaxInflight::Release(RequestKind kind) {
  if (kind == RequestKind::kLongRunning) return;
  Counter& c = For(kind);
  const int64_t now = SteadySecond();
  std::lock_guard lock(c.mu);
  --c.in_use;
  c.Record(now);
}

int64_t MaxInflight::InUse(RequestKind kind) const {
  if (kind == RequestKind::kLongRunning) return 0;
  const Counter& c = For(kind);
  std::lock_guard lock(c.mu);
  return c.in_use;
}

int64_t MaxInflight::Dropped(RequestKind kind) const {
  if (kind == RequestKind::kLongRunning) return 0;
  const Counter& c = For(kind);
  std::lock_guard lock(c.mu);
  return c.dropped;
}

int64_t MaxInflight::Watermark(RequestKind kind) const {
  if (kind == RequestKind::kLongRunning) return 0;
  const Counter& c = For(kind);
  const int64_t now = SteadySecond();
  std::lock_guard lock(c.mu);
  int64_t max = c.in_use;
  if (c.window == now) max = std::max({max, c.window_max, c.previous_max});
  if (c.window == now - 1) max = std::max(max, c.window_max);
  return max;
}

Response TooManyRequests() {
  // The Status as ErrorResponse writes it; built here so that the HTTP server
  // (and its fuzz target) need nothing of the API server.
  const Status status(StatusCode::kTooManyRequests, "Too many requests, please try again later.");
  Response r;
  r.status = status.HttpCode();
  r.body = boost::json::serialize(StatusToJson(status));
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

}  // namespace berth::apiserver
