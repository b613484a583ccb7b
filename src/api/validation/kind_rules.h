#pragma once
// What validation knows of one kind, as kube's strategy for the kind calls
// its group's validation: the rule its names follow, a check of its encoded
// fields, its own checks on create and update, and what may not change on
// update. Each API group's file lists the rules of its kinds (AddCoreRules
// in core.cc, AddAppsRules in apps.cc, …); a kind's strategy holds the
// rules of its kind (apiserver/registry/registry.h) and ValidateObject
// applies them, so nothing dispatches on the kind.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "api/kinds.h"
#include "api/object.h"
#include "api/status.h"
#include "api/validation/field_errors.h"
#include "api/validation/name_validation.h"

namespace berth::api {

struct KindRules {
  // kube's ValidateNameFunc of the kind.
  std::vector<std::string> (*name_problems)(std::string_view name) = IsDns1123Subdomain;
  // Before anything else: fields kube's decoder would refuse (a Secret's
  // data that is not base64 is BadRequest, not Invalid).
  Status (*check_encoding)(const Object& object) = nullptr;
  // The kind's own checks on create and update, after its metadata's.
  void (*validate)(const Object& object, FieldErrors& errors) = nullptr;
  // What may not change from `current` to `next` (`next` passed ValidateObject).
  Status (*validate_update)(const Object& next, const Object& current) = nullptr;
  // kube's WarningsOnCreate / WarningsOnUpdate: what the client is warned of
  // about a valid object (warnings.h); `current` is nullptr on create.
  std::vector<std::string> (*warnings)(const Object& next, const Object* current) = nullptr;
};

// The rules of a built-in kind; a kind registered at run time (a custom
// resource) gets the defaults: DNS-subdomain names, nothing more.
const KindRules& RulesOf(Kind kind);

namespace validation {

// The rules of every built-in kind, filled by the groups' files.
class KindRuleTable {
 public:
  void Set(Kind kind, KindRules rules) { rules_[static_cast<size_t>(kind)] = rules; }
  const KindRules& For(Kind kind) const {
    return IsBuiltin(kind) ? rules_[static_cast<size_t>(kind)] : defaults_;
  }

 private:
  std::array<KindRules, kBuiltinKindCount> rules_{};
  KindRules defaults_{};
};

// An update check that collects field errors, as a KindRules::validate_update.
template <void (*Check)(const Object& next, const Object& current, FieldErrors& errors)>
Status CollectedUpdateErrors(const Object& next, const Object& current) {
  FieldErrors errors;
  Check(next, current, errors);
  return errors.ToStatus(QualifiedKind(next.info()), next.name());
}

// Each group's kinds (the file named beside each).
void AddCoreRules(KindRuleTable& table);         // core.cc
void AddAppsRules(KindRuleTable& table);         // apps.cc
void AddBatchRules(KindRuleTable& table);        // batch.cc
void AddAutoscalingRules(KindRuleTable& table);  // autoscaling.cc
void AddNetworkingRules(KindRuleTable& table);   // networking.cc (networking and discovery)
void AddRbacRules(KindRuleTable& table);         // rbac.cc
void AddNodeRules(KindRuleTable& table);         // node.cc
void AddStorageRules(KindRuleTable& table);      // storage.cc
void AddSchedulingRules(KindRuleTable& table);   // scheduling.cc
void AddPolicyRules(KindRuleTable& table);       // policy.cc
// admissionregistration.cc (admissionregistration and apiregistration)
void AddAdmissionregistrationRules(KindRuleTable& table);

}  // namespace validation
}  // namespace berth::api
