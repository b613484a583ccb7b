#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "api/validation/validation.h"
#include "apiserver/admission/plugins.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's Priority: a pod's spec.priority and preemptionPolicy come from its
// PriorityClass (or the global default class) and may not be set by hand;
// an update keeps them; at most one PriorityClass is the global default.
class Priority final : public AdmissionPlugin {
 public:
  explicit Priority(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "Priority"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod, api::Kind::kPriorityClass}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.kind.kind != api::Kind::kPod || !a.subresource.empty() || !object) return Status::Ok();
    if (a.operation == AdmissionOperation::kCreate) return AdmitPod(a, *object);
    if (a.operation == AdmissionOperation::kUpdate && a.old) {
      // The priority set at creation stays.
      const json::object* old_spec = api::ObjectAt(*a.old, "spec");
      json::object& spec = api::MutableObject(*object, "spec");
      for (std::string_view field : {"priority", "preemptionPolicy"}) {
        if (const json::value* v = old_spec ? old_spec->if_contains(field) : nullptr) spec[field] = *v;
      }
    }
    return Status::Ok();
  }

  Status Validate(const AdmissionAttributes& a) override {
    if (a.kind.kind != api::Kind::kPriorityClass || !a.object) return Status::Ok();
    if (a.operation != AdmissionOperation::kCreate && a.operation != AdmissionOperation::kUpdate) return Status::Ok();
    auto g = a.object->find("globalDefault");
    if (g == a.object->end() || g->value() != true) return Status::Ok();
    auto classes = store_.List({.prefix = api::StoragePrefix(api::Kind::kPriorityClass)});
    if (!classes.ok()) return classes.status();
    for (const auto& pc : classes->items) {
      auto other = pc->json().find("globalDefault");
      if (other == pc->json().end() || other->value() != true || pc->name() == a.name) continue;
      return AdmissionForbidden(a, "PriorityClass " + pc->name() + " is already marked as default. Only one default can exist");
    }
    return Status::Ok();
  }

 private:
  Status AdmitPod(const AdmissionAttributes& a, json::object& object) {
    json::object& spec = api::MutableObject(object, "spec");
    std::string class_name(api::StringAt(spec, "priorityClassName"));
    int64_t priority = 0;
    std::string preemption = "PreemptLowerPriority";
    auto read_class = [&](const api::ObjectPtr& pc) {
      const json::object& o = pc->json();
      if (auto v = o.find("value"); v != o.end() && v->value().is_number()) priority = v->value().to_number<int64_t>();
      if (auto p = api::StringAt(o, "preemptionPolicy"); !p.empty()) preemption = std::string(p);
    };
    if (!class_name.empty()) {
      auto pc = store_.Get(api::StorageKey(api::Kind::kPriorityClass, "", class_name));
      const api::SystemPriorityClass* system = nullptr;
      for (const auto& c : api::SystemPriorityClasses()) {
        if (c.name == class_name) system = &c;
      }
      if (!pc.ok() && system) {
        priority = system->value;  // a store bootstrapped before the classes were
      } else if (!pc.ok()) {
        return AdmissionForbidden(a, "no PriorityClass with name " + class_name + " was found");
      } else {
        read_class(pc.value());
      }
    } else {
      auto classes = store_.List({.prefix = api::StoragePrefix(api::Kind::kPriorityClass)});
      if (classes.ok()) {
        for (const auto& pc : classes->items) {
          if (auto g = pc->json().find("globalDefault"); g != pc->json().end() && g->value() == true) {
            read_class(pc);
            spec["priorityClassName"] = pc->name();
            break;
          }
        }
      }
    }
    if (auto p = spec.find("priority");
        p != spec.end() && p->value().is_number() && p->value().to_number<int64_t>() != priority) {
      return AdmissionForbidden(a, "the integer value of priority (" + std::to_string(p->value().to_number<int64_t>()) +
                                       ") must not be provided in pod spec; priority admission controller computed " +
                                       std::to_string(priority) + " from the given PriorityClass name");
    }
    spec["priority"] = priority;
    if (!spec.contains("preemptionPolicy")) spec["preemptionPolicy"] = preemption;
    return Status::Ok();
  }

  store::Store& store_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewPriority(const AdmissionPluginContext& context) {
  return std::make_unique<Priority>(context.store);
}

}  // namespace berth::apiserver
