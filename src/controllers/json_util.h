#pragma once
// Small readers and writers of object JSON shared by the controllers and the
// simulated kubelet: absent or mistyped fields read as zero values (the API
// server validated what it stored), writers create parents on the way.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "api/object.h"
#include "api/rfc3339.h"

namespace berth::controllers {

namespace json = boost::json;

inline const json::object* ObjectAt(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}
inline const json::array* ArrayAt(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_array() ? &it->value().get_array() : nullptr;
}
inline std::string_view StringAt(const json::object* o, std::string_view key) {
  if (!o) return {};
  auto it = o->find(key);
  return it != o->end() && it->value().is_string() ? std::string_view(it->value().get_string()) : std::string_view();
}
inline std::string_view StringAt(const json::object& o, std::string_view key) { return StringAt(&o, key); }
inline int64_t IntAt(const json::object* o, std::string_view key, int64_t fallback = 0) {
  if (!o) return fallback;
  auto it = o->find(key);
  if (it == o->end()) return fallback;
  if (it->value().is_int64()) return it->value().get_int64();
  if (it->value().is_uint64()) return static_cast<int64_t>(it->value().get_uint64());
  if (it->value().is_double()) return static_cast<int64_t>(it->value().get_double());
  return fallback;
}
inline bool BoolAt(const json::object* o, std::string_view key) {
  if (!o) return false;
  auto it = o->find(key);
  return it != o->end() && it->value().is_bool() && it->value().get_bool();
}

// The member `key` of `o` as an object, replacing anything else there.
inline json::object& MutableObject(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}
inline json::array& MutableArray(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_array()) v = json::array();
  return v.get_array();
}

// std::erase_if for a JSON array.
template <typename Pred>
void EraseIf(json::array& a, Pred pred) {
  a.erase(std::remove_if(a.begin(), a.end(), pred), a.end());
}

// The object's JSON to edit and write back, with metadata.resourceVersion set
// to the version it was read at: the write is refused (Conflict) when the
// object changed since, instead of overwriting the change. (The JSON a store
// object carries does not hold its own version; resource_version() does.)
inline json::object ForUpdate(const api::Object& o) {
  json::object copy = o.json();
  if (o.resource_version() > 0) {
    MutableObject(copy, "metadata")["resourceVersion"] = std::to_string(o.resource_version());
  }
  return copy;
}

inline const json::object* Metadata(const api::Object& o) { return ObjectAt(o.json(), "metadata"); }
inline const json::object* Spec(const api::Object& o) { return ObjectAt(o.json(), "spec"); }
inline const json::object* StatusOf(const api::Object& o) { return ObjectAt(o.json(), "status"); }
inline int64_t Generation(const api::Object& o) { return IntAt(Metadata(o), "generation"); }
inline bool BeingDeleted(const api::Object& o) {
  const auto* meta = Metadata(o);
  return meta && meta->contains("deletionTimestamp");
}
inline std::string_view Annotation(const api::Object& o, std::string_view key) {
  const auto* meta = Metadata(o);
  return StringAt(meta ? ObjectAt(*meta, "annotations") : nullptr, key);
}

// The condition of `type` in status.conditions, or nullptr.
inline const json::object* FindCondition(const json::object* status, std::string_view type) {
  if (!status) return nullptr;
  const auto* conditions = ArrayAt(*status, "conditions");
  if (!conditions) return nullptr;
  for (const auto& c : *conditions) {
    if (c.is_object() && StringAt(c.get_object(), "type") == type) return &c.get_object();
  }
  return nullptr;
}

// Sets a condition in status.conditions, keeping lastTransitionTime when the
// status does not change (kube's rule). Returns true when anything changed.
bool SetCondition(json::object& status, std::string_view type, std::string_view value, std::string_view reason,
                  std::string_view message, const std::string& now, bool with_heartbeat = false);

// An ownerReference naming `owner` as the controller.
json::object ControllerRef(const api::Object& owner);
// The uid of `o`'s controller ownerReference when it is of `kind`; "" otherwise.
std::string_view ControllerUid(const api::Object& o, std::string_view kind);


// Pods as controllers count them.
// Ready: the Ready condition is True.
bool PodReady(const api::Object& pod);
// Available: ready for at least min_ready_seconds (kube's IsPodAvailable).
bool PodAvailable(const api::Object& pod, int64_t min_ready_seconds, std::chrono::system_clock::time_point now);
// Active: neither finished (Succeeded/Failed) nor being deleted (kube's FilterActivePods).
bool PodActive(const api::Object& pod);

// Go's time.ParseDuration for the usual units (ms, s, m, h; "1m30s", "1.5s").
std::optional<std::chrono::milliseconds> ParseGoDuration(std::string_view text);

}  // namespace berth::controllers
