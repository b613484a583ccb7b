#include "api/conditions.h"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include "api/json_fields.h"

namespace berth::api {

namespace json = boost::json;

namespace {

// Sets o[key] to `value`, or removes it when `value` is empty. True when that changed o.
bool SetOrErase(json::object& o, std::string_view key, std::string_view value) {
  if (value.empty()) return o.erase(key) > 0;
  if (StringAt(o, key) == value) return false;
  o[key] = value;
  return true;
}

}  // namespace

bool SetCondition(json::object& status, const Condition& c, std::string_view now) {
  return SetCondition(status, c, now, ConditionStamps{});
}

bool SetCondition(json::object& status, const Condition& c, std::string_view now,
                  const ConditionStamps& stamps) {
  json::array& conditions = MutableArray(status, "conditions");
  for (auto& entry : conditions) {
    if (!entry.is_object() || StringAt(entry.get_object(), "type") != c.type) continue;
    json::object& o = entry.get_object();
    bool changed = false;
    if (StringAt(o, "status") != c.status) {
      o["status"] = c.status;
      o["lastTransitionTime"] = now;
      changed = true;
    }
    changed |= SetOrErase(o, "reason", c.reason);
    changed |= SetOrErase(o, "message", c.message);
    if (stamps.null_probe_time) {
      auto probe = o.find("lastProbeTime");
      if (probe == o.end() || !probe->value().is_null()) {
        o["lastProbeTime"] = nullptr;
        changed = true;
      }
    }
    if (stamps.heartbeat) {
      o["lastHeartbeatTime"] = now;
      changed = true;
    }
    return changed;
  }
  json::object o{{"type", c.type}, {"status", c.status}};
  if (stamps.null_probe_time) o["lastProbeTime"] = nullptr;
  o["lastTransitionTime"] = now;
  if (!c.reason.empty()) o["reason"] = c.reason;
  if (!c.message.empty()) o["message"] = c.message;
  if (stamps.heartbeat) o["lastHeartbeatTime"] = now;
  conditions.push_back(std::move(o));
  return true;
}

const json::object* FindCondition(const json::object* status, std::string_view type) {
  const json::array* conditions = ArrayAt(status, "conditions");
  if (!conditions) return nullptr;
  for (const auto& c : *conditions) {
    if (c.is_object() && StringAt(c.get_object(), "type") == type) return &c.get_object();
  }
  return nullptr;
}

}  // namespace berth::api
