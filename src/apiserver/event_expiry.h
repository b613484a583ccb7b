#pragma once
// kube-apiserver keeps an Event for --event-ttl (default 1h) after it was
// last written: etcd deletes it when the lease attached to the write runs
// out. berth's store has no leases, so a sweeper deletes Events whose
// newest time is older than the TTL, every tenth of the TTL (at most every
// minute, at least every 100 ms). The newest time stands for the last
// write: creationTimestamp, or a later lastTimestamp, eventTime or
// series.lastObservedTime (a recorder's repeat moves lastTimestamp).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "store/store.h"

namespace berth::apiserver {

class EventExpiry {
 public:
  // Starts the sweeper thread (none when `ttl` is zero).
  EventExpiry(store::Store& store, std::chrono::seconds ttl);
  ~EventExpiry();
  EventExpiry(const EventExpiry&) = delete;
  EventExpiry& operator=(const EventExpiry&) = delete;

  // Deletes the Events expired at `now`; returns how many. Any thread.
  size_t Sweep(std::chrono::system_clock::time_point now);

 private:
  store::Store& store_;
  const std::chrono::seconds ttl_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread sweeper_;
};

}  // namespace berth::apiserver
