#pragma once
// kube-apiserver's max-in-flight filter (--max-requests-inflight,
// --max-mutating-requests-inflight; pkg/server/filters/maxinflight.go):
// requests being handled are counted per kind, read-only (kube's verbs get,
// list, watch) or mutating (every other verb), and a request beyond its
// kind's limit is answered 429 with Retry-After: 1 at once, never queued.
// Long-running requests (watches, proxy, and the attach, exec, log,
// portforward and proxy subresources, /debug/pprof/) are not counted, as
// kube's BasicLongRunningRequestCheck decides. A limit of 0 means none.
//
// Thread-safe: any thread acquires and releases.

#include <array>
#include <cstdint>
#include <mutex>
#include <string_view>

#include "apiserver/http.h"

namespace berth::apiserver {

enum class RequestKind { kLongRunning, kReadOnly, kMutating };

// kube's classification of a request (method, path and query).
RequestKind ClassifyRequest(const Request& request);

// kube's request_kind label: "readOnly" or "mutating" ("" for long-running).
std::string_view RequestKindLabel(RequestKind kind);

class MaxInflight {
 public:
  struct Limits {
    int read_only = 400;  // --max-requests-inflight
    int mutating = 200;   // --max-mutating-requests-inflight
  };
  explicit MaxInflight(Limits limits);

  // Takes a slot of `kind`'s limit: false when the limit is reached.
  // Long-running requests always pass.
  bool TryAcquire(RequestKind kind);
  // A request TryAcquire refused was dropped (answered 429): counted.
  // (One it refused may still be served without a slot: kube serves
  // system:masters beyond the limits.)
  void CountDropped(RequestKind kind);
  // Gives back a slot TryAcquire took.
  void Release(RequestKind kind);

  int64_t InUse(RequestKind kind) const;
  int64_t Dropped(RequestKind kind) const;
  // The most requests of `kind` handled at once within the last second or
  // so (kube's watermark behind apiserver_current_inflight_requests).
  int64_t Watermark(RequestKind kind) const;
  const Limits& limits() const { return limits_; }

 private:
  struct Counter {
    mutable std::mutex mu;
    int64_t in_use = 0;          // guarded by mu
    int64_t dropped = 0;         // guarded by mu
    int64_t window = 0;          // the second (steady clock) `window_max` covers; guarded by mu
    int64_t window_max = 0;      // guarded by mu
    int64_t previous_max = 0;    // the second before `window`; guarded by mu
    void Record(int64_t now_second);  // REQUIRES: mu held
  };
  Counter& For(RequestKind kind) { return counters_[kind == RequestKind::kMutating ? 1 : 0]; }
  const Counter& For(RequestKind kind) const { return counters_[kind == RequestKind::kMutating ? 1 : 0]; }
  int Limit(RequestKind kind) const { return kind == RequestKind::kMutating ? limits_.mutating : limits_.read_only; }

  Limits limits_;
  std::array<Counter, 2> counters_;
};

// The answer to a dropped request: 429 TooManyRequests, Retry-After: 1,
// kube's message. (kube-apiserver writes the message as text/plain; berth
// answers a Status carrying it, which every client reads the same way.)
Response TooManyRequests();

}  // namespace berth::apiserver
