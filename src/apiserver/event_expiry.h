#pragma once
// kube-apiserver keeps an Event for --event-ttl (default 1h) after it was
// last written: etcd deletes it when the lease attached to the write runs
// out. berth's store has no leases, so a sweeper deletes Events whose
// newest time is older than the TTL, every tenth of the TTL (at most every
// minute, at least every 100 ms). The newest time stands for the last
// write: creationTimestamp, or a later lastTimestamp, eventTime or
// series.lastObservedTime (a recorder's repeat moves lastTimestamp).
// Time comes from an api::Clock: its alarm paces the sweeps, its wall time
// is what the Events' times are compared with.

#include <chrono>
#include <cstddef>
#include <memory>

#include "api/time/clock.h"
#include "store/store.h"

namespace berth::apiserver {

class EventExpiry {
 public:
  // Starts the sweeps (none when `ttl` is zero). REQUIRES: `store` and
  // `clock` outlive the sweeper.
  EventExpiry(store::Store& store, std::chrono::seconds ttl,
              api::Clock& clock = api::RealClock::Instance());
  ~EventExpiry();
  EventExpiry(const EventExpiry&) = delete;
  EventExpiry& operator=(const EventExpiry&) = delete;

  // Deletes the Events expired at `now`; returns how many. Any thread.
  size_t Sweep(std::chrono::system_clock::time_point now);

 private:
  store::Store& store_;
  const std::chrono::seconds ttl_;
  api::Clock& clock_;
  std::unique_ptr<api::Ticker> sweeper_;  // null when ttl_ is zero
};

}  // namespace berth::apiserver
