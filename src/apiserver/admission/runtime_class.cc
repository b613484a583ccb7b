#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/quantity.h"
#include "apiserver/admission/plugins.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's RuntimeClass: a pod naming a RuntimeClass takes its overhead
// (spec.overhead, which the scheduler adds to the pod's requests) and its
// scheduling constraints (nodeSelector merged, tolerations added).
class RuntimeClass final : public AdmissionPlugin {
 public:
  explicit RuntimeClass(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "RuntimeClass"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    std::string class_name(api::StringAt(spec, "runtimeClassName"));
    if (class_name.empty()) return Status::Ok();
    auto got = store_.Get(api::StorageKey(api::Kind::kRuntimeClass, "", class_name));
    if (!got.ok()) return AdmissionForbidden(a, "pod rejected: RuntimeClass \"" + class_name + "\" not found");
    const json::object& rc = got.value()->json();
    const json::object* fixed = api::ObjectAt(api::ObjectAt(rc, "overhead"), "podFixed");
    const json::value* pod_overhead = spec.if_contains("overhead");
    if (pod_overhead && !pod_overhead->is_null()) {
      if (!fixed) return AdmissionForbidden(a, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
      if (!SameQuantities(*pod_overhead, *fixed)) {
        return AdmissionForbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      }
    } else if (fixed) {
      spec["overhead"] = *fixed;
    }
    const json::object* scheduling = api::ObjectAt(rc, "scheduling");
    if (const json::object* selector = api::ObjectAt(scheduling, "nodeSelector")) {
      json::object& pod_selector = api::MutableObject(spec, "nodeSelector");
      for (const auto& [key, value] : *selector) {
        const json::value* mine = pod_selector.if_contains(key);
        if (mine && *mine != value) {
          return AdmissionForbidden(a, "conflict: runtimeClass.scheduling.nodeSelector[" + std::string(key) +
                                           "] = " + Text(value) + "; pod.spec.nodeSelector[" + std::string(key) +
                                           "] = " + Text(*mine));
        }
        pod_selector[key] = value;
      }
    }
    if (const json::value* tolerations = scheduling ? scheduling->if_contains("tolerations") : nullptr;
        tolerations && tolerations->is_array()) {
      json::value& tv = spec["tolerations"];
      if (!tv.is_array()) tv = json::array();
      for (const auto& t : tolerations->get_array()) {
        auto& mine = tv.get_array();
        if (std::find(mine.begin(), mine.end(), t) == mine.end()) mine.push_back(t);
      }
    }
    return Status::Ok();
  }

 private:
  static std::string Text(const json::value& v) {
    return v.is_string() ? std::string(v.get_string()) : json::serialize(v);
  }
  // Same resource names and, per name, the same quantity as written or as
  // a canonical quantity.
  static bool SameQuantities(const json::value& a, const json::value& b) {
    const json::object* x = a.if_object();
    const json::object* y = b.if_object();
    if (!x || !y || x->size() != y->size()) return false;
    for (const auto& [name, value] : *x) {
      const json::value* other = y->if_contains(name);
      if (!other) return false;
      if (value == *other) continue;
      if (!value.is_string() || !other->is_string()) return false;
      auto qa = api::Quantity::Parse(value.get_string());
      auto qb = api::Quantity::Parse(other->get_string());
      if (!qa.ok() || !qb.ok() || qa.value().Compare(qb.value()) != 0) return false;
    }
    return true;
  }

  store::Store& store_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewRuntimeClass(const AdmissionPluginContext& context) {
  return std::make_unique<RuntimeClass>(context.store);
}

}  // namespace berth::apiserver
