#include <boost/json.hpp>

#include "api/json_fields.h"
#include "apiserver/admission/plugins.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's AlwaysPullImages: every container of a pod pulls its image always.
class AlwaysPullImages final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "AlwaysPullImages"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod}; }
  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.operation == AdmissionOperation::kDelete || !a.subresource.empty() || !object) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
      json::value* containers = spec.if_contains(list);
      if (!containers || !containers->is_array()) continue;
      for (auto& c : containers->get_array()) {
        if (c.is_object()) c.get_object()["imagePullPolicy"] = "Always";
      }
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewAlwaysPullImages(const AdmissionPluginContext&) {
  return std::make_unique<AlwaysPullImages>();
}

}  // namespace berth::apiserver
