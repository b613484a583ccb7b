#pragma once
// What one reconcile of a Deployment knows, shared by the Deployment
// controller's files (deployment_controller.cc: claiming, rollouts,
// cleanup, status; deployment_scale.cc: scaling). Internal to the
// controller.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/json_fields.h"
#include "api/object.h"
#include "controllers/deployment/deployment_controller.h"

namespace berth::controllers {

namespace deployment {

inline constexpr std::string_view kKind = "Deployment";
inline constexpr std::string_view kDesiredReplicas = "deployment.kubernetes.io/desired-replicas";
inline constexpr std::string_view kMaxReplicas = "deployment.kubernetes.io/max-replicas";

// spec.replicas, 1 when absent (as defaulted).
inline int64_t SpecReplicas(const api::Object& o) {
  return api::IntAt(api::Spec(o), "replicas", 1);
}
inline int64_t StatusInt(const api::Object& o, std::string_view field) {
  return api::IntAt(api::StatusOf(o), field);
}

// An annotation holding a non-negative decimal integer; nullopt when absent
// or anything else.
inline std::optional<int64_t> IntAnnotation(const api::Object& o, std::string_view key) {
  const std::string_view text = api::Annotation(o, key);
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

inline bool IsRecreate(const api::Object& d) {
  return api::StringAt(api::ObjectAt(api::Spec(d), "strategy"), "type") == "Recreate";
}

// Oldest first: by creationTimestamp, then name (kube's ReplicaSetsByCreationTimestamp).
inline bool CreatedBefore(const api::Object& a, const api::Object& b) {
  const std::string_view ta = api::StringAt(api::Metadata(a), "creationTimestamp");
  const std::string_view tb = api::StringAt(api::Metadata(b), "creationTimestamp");
  return ta != tb ? ta < tb : a.name() < b.name();
}

}  // namespace deployment

struct DeploymentController::State {
  api::ObjectPtr d;
  std::string key;
  int64_t replicas = 0;
  std::vector<api::ObjectPtr> owned;  // every ReplicaSet it claims, as claimed
  api::ObjectPtr new_rs;
  std::vector<api::ObjectPtr> old;  // oldest first
  int64_t max_surge = 0, max_unavailable = 0;
  bool progressed = false;  // a ReplicaSet was created or scaled in this sync
  std::string progress_reason, progress_message;
};

}  // namespace berth::controllers
