#include "apiserver/event_expiry.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/kinds.h"
#include "api/rfc3339.h"

namespace berth::apiserver {

namespace json = boost::json;
using SysClock = std::chrono::system_clock;

namespace {

std::optional<SysClock::time_point> TimeAt(const json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  auto it = o->find(key);
  if (it == o->end() || !it->value().is_string()) return std::nullopt;
  return api::ParseRfc3339(std::string_view(it->value().get_string()));
}

const json::object* ObjectAt(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}

// The newest of an Event's times; nullopt when it has none.
std::optional<SysClock::time_point> LastSeen(const json::object& event) {
  std::optional<SysClock::time_point> newest;
  for (auto t : {TimeAt(&event, "lastTimestamp"), TimeAt(&event, "eventTime"),
                 TimeAt(ObjectAt(event, "series"), "lastObservedTime"),
                 TimeAt(ObjectAt(event, "metadata"), "creationTimestamp")}) {
    if (t && (!newest || *t > *newest)) newest = t;
  }
  return newest;
}

}  // namespace

EventExpiry::EventExpiry(store::Store& store, std::chrono::seconds ttl) : store_(store), ttl_(ttl) {
  if (ttl_.count() <= 0) return;
  const auto period = std::clamp<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(ttl_) / 10,
      std::chrono::milliseconds(100), std::chrono::minutes(1));
  sweeper_ = std::thread([this, period] {
    std::unique_lock lk(mu_);
    while (!wake_.wait_for(lk, period, [this] { return stopping_; })) {
      lk.unlock();
      Sweep(SysClock::now());
      lk.lock();
    }
  });
}

EventExpiry::~EventExpiry() {
  {
    std::lock_guard lk(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (sweeper_.joinable()) sweeper_.join();
}

size_t EventExpiry::Sweep(SysClock::time_point now) {
  const auto cutoff = now - ttl_;
  store::ListOptions options;
  options.prefix = api::StoragePrefix(api::Kind::kEvent);
  options.predicate = [cutoff](const api::Object& o) {
    auto seen = LastSeen(o.json());
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
