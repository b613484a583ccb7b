#pragma once
// Records core/v1 Events about objects, as client-go's record package does for
// kube's controllers and scheduler: an EventBroadcaster owns a writer thread
// that creates Events through a RestClient; EventRecorders (one per source,
// "replicaset-controller", "default-scheduler" ...) hand events to it and
// return at once. What makes them safe to call from hot paths:
// - a bounded queue (kube's 1,000): when it is full, new events are dropped
//   and counted, never waited for;
// - a limited rate of writes (Options::qps and burst);
// - repeats are counted, not multiplied: an event equal to one already written
//   (same object, type, reason, message and source; the last 4,096 are
//   remembered, as kube's correlator does) patches that Event's count and
//   lastTimestamp instead of creating another.
// Event names are kube's: "<object name>.<hex of the time in nanoseconds>";
// cluster-scoped objects' events go to namespace "default".
// Time comes from an api::Clock (Options::clock): its steady time fills the
// token bucket, its wall time stamps the events.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "api/object.h"
#include "api/time/clock.h"
#include "client/rest_client.h"

namespace berth::client {

struct EventSource {
  std::string component;  // "default-scheduler", "replicaset-controller" ...
  std::string host;       // optional
};

class EventBroadcaster {
 public:
  struct Options {
    size_t max_queued = 1000;      // events waiting to be written; more are dropped
    size_t max_remembered = 4096;  // written events kept for counting repeats
    // Writes per second and the burst above it (a token bucket), as kube's
    // clients limit their requests (kube-scheduler's default: 50/s, burst
    // 100): a flood of events costs a bounded share of the CPU, and what the
    // queue cannot hold is dropped. qps 0: no limit.
    double qps = 50;
    int burst = 100;
    // nullptr: api::RealClock. REQUIRES: outlives the broadcaster.
    api::Clock* clock = nullptr;
  };

  EventBroadcaster(RestClient& client, Options options);
  explicit EventBroadcaster(RestClient& client) : EventBroadcaster(client, Options{}) {}
  ~EventBroadcaster();
  EventBroadcaster(const EventBroadcaster&) = delete;
  EventBroadcaster& operator=(const EventBroadcaster&) = delete;

  // An event of `type` ("Normal" or "Warning") about `object`, from `source`.
  // Any thread; never blocks on the API.
  void Record(const std::shared_ptr<const EventSource>& source, const api::Object& object,
              std::string_view type, std::string_view reason, std::string message);

  // Waits until every event recorded before the call is written (or failed).
  void Flush();
  // Writes what is queued, then stops the writer; later events are dropped.
  void Stop();

  uint64_t dropped() const;
  uint64_t failed() const;  // writes the API refused or that could not be sent

 private:
  struct Pending {
    std::shared_ptr<const EventSource> source;
    api::Kind kind;
    std::string ns, name, uid;
    int64_t resource_version = 0;
    std::string type, reason, message;
    std::chrono::system_clock::time_point time;
    uint64_t seq = 0;
  };
  struct Written {
    std::string ns, name;  // the Event's
    int64_t count = 1;
    std::list<std::string>::iterator lru;
  };

  void Run();
  void Write(const Pending& p);
  void Remember(std::string key, Written w);
  std::string EventName(const Pending& p);

  RestClient& client_;
  const Options options_;
  api::Clock& clock_;

  mutable std::mutex mu_;
  std::condition_variable wake_, done_;
  std::deque<Pending> queue_;  // guarded by mu_
  bool token_due_ = false;     // guarded by mu_: the token the writer waits for is in the bucket
  uint64_t next_seq_ = 1;      // guarded by mu_: the next event's number
  uint64_t written_seq_ = 0;   // guarded by mu_: every event up to this one is handled
  uint64_t dropped_ = 0;       // guarded by mu_
  uint64_t failed_ = 0;        // guarded by mu_
  bool stopping_ = false;      // guarded by mu_

  // The writer thread's own.
  std::unordered_map<std::string, Written> written_;
  std::list<std::string> lru_;  // most recent first
  int64_t last_name_nanos_ = 0;
  // Wakes the writer when the token it waits for is due (sets token_due_).
  std::unique_ptr<api::Clock::Alarm> token_alarm_;

  std::thread writer_;
};

// What a component records through: its source and a broadcaster. A
// recorder without a broadcaster records nothing (components built without
// events, as in tests).
class EventRecorder {
 public:
  EventRecorder() = default;
  EventRecorder(EventBroadcaster* broadcaster, EventSource source)
      : broadcaster_(broadcaster),
        source_(std::make_shared<const EventSource>(std::move(source))) {}

  void Event(const api::Object& object, std::string_view type, std::string_view reason,
             std::string message) const {
    if (broadcaster_) broadcaster_->Record(source_, object, type, reason, std::move(message));
  }

 private:
  EventBroadcaster* broadcaster_ = nullptr;
  std::shared_ptr<const EventSource> source_;
};

}  // namespace berth::client
