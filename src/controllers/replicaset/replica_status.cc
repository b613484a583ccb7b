#include "controllers/replicaset/replica_status.h"

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kReplicaFailure = "ReplicaFailure";

struct ReplicaCounts {
  int64_t replicas = 0, fully_labeled = 0, ready = 0, available = 0;
};

// Whether `pod` carries every label of the template (`labels`, nullptr: none).
bool FullyLabeled(const api::Object& pod, const json::object* labels) {
  if (!labels) return true;
  for (const auto& [k, v] : *labels) {
    auto have = pod.labels().Get(k);
    if (!v.is_string() || !have || *have != std::string_view(v.get_string())) return false;
  }
  return true;
}

ReplicaCounts Count(const api::Object& owner, const std::vector<api::ObjectPtr>& active,
                    std::chrono::system_clock::time_point now) {
  const json::object* spec = api::Spec(owner);
  const json::object* tmpl_labels = api::ObjectAt(api::ObjectAt(api::ObjectAt(spec, "template"), "metadata"), "labels");
  const int64_t min_ready = api::IntAt(spec, "minReadySeconds");
  ReplicaCounts counts;
  for (const auto& pod : active) {
    ++counts.replicas;
    if (FullyLabeled(*pod, tmpl_labels)) ++counts.fully_labeled;
    if (!api::IsPodReady(*pod)) continue;
    ++counts.ready;
    if (api::IsPodAvailable(*pod, min_ready, now)) ++counts.available;
  }
  return counts;
}

// kube's ReplicaFailure rule: a failure is recorded once, with what failed
// first, and cleared by the first sync without one.
void ReplicaFailure(json::object& status, int64_t diff, const Status& manage_error,
                    std::chrono::system_clock::time_point now) {
  const bool present = api::FindCondition(&status, kReplicaFailure) != nullptr;
  if (!manage_error.ok() && !present) {
    std::string reason = diff < 0 ? "FailedCreate" : diff > 0 ? "FailedDelete" : "";
    api::SetCondition(status, {std::string(kReplicaFailure), "True", std::move(reason), manage_error.message()},
                      api::FormatRfc3339(now));
  } else if (manage_error.ok() && present) {
    json::array& conditions = api::MutableArray(status, "conditions");
    api::EraseIf(conditions, [](const json::value& c) {
      return c.is_object() && api::StringAt(c.get_object(), "type") == kReplicaFailure;
    });
    if (conditions.empty()) status.erase("conditions");
  }
}

bool SameMember(const json::object* a, const json::object& b, std::string_view key) {
  const json::value* va = a ? a->if_contains(key) : nullptr;
  const json::value* vb = b.if_contains(key);
  if (!va || !vb) return va == vb;
  return *va == *vb;
}

}  // namespace

int64_t DesiredReplicas(const api::Object& owner) { return api::IntAt(api::Spec(owner), "replicas", 1); }

json::object CalculateStatus(const api::Object& owner, const std::vector<api::ObjectPtr>& active,
                             const Status& manage_error, std::chrono::system_clock::time_point now) {
  const json::object* current = api::StatusOf(owner);
  json::object status = current ? *current : json::object();
  const ReplicaCounts counts = Count(owner, active, now);
  status["replicas"] = counts.replicas;
  status["fullyLabeledReplicas"] = counts.fully_labeled;
  status["readyReplicas"] = counts.ready;
  status["availableReplicas"] = counts.available;
  status["observedGeneration"] = api::Generation(owner);
  for (const char* field : {"fullyLabeledReplicas", "readyReplicas", "availableReplicas"}) {
    if (api::IntAt(&status, field) == 0) status.erase(field);
  }
  const int64_t diff = static_cast<int64_t>(active.size()) - DesiredReplicas(owner);
  ReplicaFailure(status, diff, manage_error, now);
  return status;
}

bool StatusDiffers(const json::object* current, const json::object& next) {
  for (const char* field :
       {"replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"}) {
    if (api::IntAt(current, field) != api::IntAt(&next, field)) return true;
  }
  return !SameMember(current, next, "conditions");
}

}  // namespace berth::controllers
