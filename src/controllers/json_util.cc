#include "controllers/json_util.h"

#include <cctype>
#include <charconv>

namespace berth::controllers {

bool SetCondition(json::object& status, std::string_view type, std::string_view value, std::string_view reason,
                  std::string_view message, const std::string& now, bool with_heartbeat) {
  json::array& conditions = MutableArray(status, "conditions");
  for (auto& c : conditions) {
    if (!c.is_object() || StringAt(c.get_object(), "type") != type) continue;
    json::object& o = c.get_object();
    bool changed = false;
    if (StringAt(o, "status") != value) {
      o["status"] = value;
      o["lastTransitionTime"] = now;
      changed = true;
    }
    if (StringAt(o, "reason") != reason) {
      o["reason"] = reason;
      changed = true;
    }
    if (StringAt(o, "message") != message) {
      o["message"] = message;
      changed = true;
    }
    if (with_heartbeat) {
      o["lastHeartbeatTime"] = now;
      changed = true;
    }
    return changed;
  }
  json::object c{{"type", type}, {"status", value}, {"lastTransitionTime", now}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  if (with_heartbeat) c["lastHeartbeatTime"] = now;
  conditions.push_back(std::move(c));
  return true;
}

json::object ControllerRef(const api::Object& owner) {
  return {{"apiVersion", owner.info().ApiVersion()},
          {"kind", owner.info().name},
          {"name", owner.name()},
          {"uid", owner.uid()},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

std::string_view ControllerUid(const api::Object& o, std::string_view kind) {
  const auto* meta = Metadata(o);
  const auto* refs = meta ? ArrayAt(*meta, "ownerReferences") : nullptr;
  if (!refs) return {};
  for (const auto& ref : *refs) {
    if (!ref.is_object()) continue;
    const auto& r = ref.get_object();
    if (BoolAt(&r, "controller")) return StringAt(r, "kind") == kind ? StringAt(r, "uid") : std::string_view();
  }
  return {};
}

bool PodReady(const api::Object& pod) {
  const auto* ready = FindCondition(StatusOf(pod), "Ready");
  return ready && StringAt(*ready, "status") == "True";
}

bool PodAvailable(const api::Object& pod, int64_t min_ready_seconds, std::chrono::system_clock::time_point now) {
  const auto* ready = FindCondition(StatusOf(pod), "Ready");
  if (!ready || StringAt(*ready, "status") != "True") return false;
  if (min_ready_seconds <= 0) return true;
  auto since = api::ParseRfc3339(StringAt(*ready, "lastTransitionTime"));
  return since && *since + std::chrono::seconds(min_ready_seconds) <= now;
}

bool PodActive(const api::Object& pod) {
  std::string_view phase = StringAt(StatusOf(pod), "phase");
  return phase != "Succeeded" && phase != "Failed" && !BeingDeleted(pod);
}

// "30s", "2m", "1h", "1500ms": Go's time.ParseDuration for the common units.
std::optional<std::chrono::milliseconds> ParseGoDuration(std::string_view text) {
  double total = 0;
  size_t i = 0;
  if (text.empty()) return std::nullopt;
  if (text == "0") return std::chrono::milliseconds(0);  // Go's one unitless duration
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    double value = 0;
    auto [end, error] = std::from_chars(text.data() + start, text.data() + i, value);
    if (start == i || error != std::errc() || end != text.data() + i) return std::nullopt;
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    if (unit == "ms") {
      total += value;
    } else if (unit == "s") {
      total += value * 1000;
    } else if (unit == "m") {
      total += value * 60000;
    } else if (unit == "h") {
      total += value * 3600000;
    } else {
      return std::nullopt;
    }
  }
  return std::chrono::milliseconds(static_cast<int64_t>(total));
}

}  // namespace berth::controllers
