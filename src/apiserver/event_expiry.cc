#include "apiserver/event_expiry.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "api/kinds.h"
#include "api/time/rfc3339.h"

namespace berth::apiserver {

using SysClock = std::chrono::system_clock;

namespace {

// The newest of an Event's times; nullopt when it has none.
std::optional<SysClock::time_point> LastSeen(const api::Object& event) {
  std::optional<SysClock::time_point> newest;
  for (std::string_view path :
       {"lastTimestamp", "eventTime", "series.lastObservedTime", "metadata.creationTimestamp"}) {
    auto t = api::ParseRfc3339(event.FieldValue(path));
    if (t && (!newest || *t > *newest)) newest = t;
  }
  return newest;
}

}  // namespace

EventExpiry::EventExpiry(store::Store& store, std::chrono::seconds ttl, api::Clock& clock)
    : store_(store), ttl_(ttl), clock_(clock) {
  if (ttl_.count() <= 0) return;
  const auto period = std::clamp<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(ttl_) / 10,
      std::chrono::milliseconds(100), std::chrono::minutes(1));
  sweeper_ = std::make_unique<api::Ticker>(clock_, period, [this] { Sweep(clock_.WallNow()); });
}

EventExpiry::~EventExpiry() { sweeper_.reset(); }

size_t EventExpiry::Sweep(SysClock::time_point now) {
  const auto cutoff = now - ttl_;
  store::ListOptions options;
  options.prefix = api::StoragePrefix(api::Kind::kEvent);
  options.predicate = [cutoff](const api::Object& o) {
    auto seen = LastSeen(o);
    return seen && *seen < cutoff;
  };
  auto listed = store_.List(options);
  if (!listed.ok()) return 0;
  size_t deleted = 0;
  for (const auto& event : listed.value().items) {
    // Guarded by the version judged: an Event written again since (a repeat
    // counted) is not deleted.
    if (store_.Delete(event->StorageKey(), event->resource_version()).ok()) ++deleted;
  }
  return deleted;
}

}  // namespace berth::apiserver
