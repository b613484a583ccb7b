// node.k8s.io/v1 RuntimeClass: kube's pkg/apis/node/validation.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/kind_rules.h"
#include "api/validation/name_validation.h"
#include "api/validation/pod_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

void ValidateRuntimeClass(const Object& object, FieldErrors& errors) {
  const std::string_view handler = StringAt(object.json(), "handler");
  for (const auto& m : IsDns1123Label(handler)) errors.Invalid("handler", handler, m);
  if (const json::object* overhead = ObjectAt(&object.json(), "overhead")) {
    ValidateResourceList(ObjectAt(overhead, "podFixed"), "overhead.podFixed", errors);
  }
  if (const json::object* scheduling = ObjectAt(&object.json(), "scheduling")) {
    ValidateLabelMap(ObjectAt(scheduling, "nodeSelector"), "scheduling.nodeSelector", errors);
  }
}

void ValidateRuntimeClassUpdate(const Object& next, const Object& current, FieldErrors& errors) {
  CheckImmutable(Present(&next.json(), "handler"), Present(&current.json(), "handler"), "handler",
                 errors);
}

void AddNodeRules(KindRuleTable& table) {
  table.Set(Kind::kRuntimeClass,
            {.validate = ValidateRuntimeClass, .validate_update = CollectedUpdateErrors<ValidateRuntimeClassUpdate>});
}

}  // namespace berth::api::validation
