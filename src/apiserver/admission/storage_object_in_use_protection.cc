#include <boost/json.hpp>

#include "api/json_fields.h"
#include "apiserver/admission/plugins.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's StorageObjectInUseProtection: every PersistentVolume is created with
// the finalizer kubernetes.io/pv-protection and every claim with
// kubernetes.io/pvc-protection; the PV and PVC protection controllers remove
// them once the object is no longer bound or in use by a pod.
class StorageObjectInUseProtection final : public AdmissionPlugin {
 public:
  std::string_view Name() const override { return "StorageObjectInUseProtection"; }
  std::vector<api::Kind> Kinds() const override {
    return {api::Kind::kPersistentVolume, api::Kind::kPersistentVolumeClaim};
  }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    const std::string_view finalizer = a.kind.kind == api::Kind::kPersistentVolume ? "kubernetes.io/pv-protection"
                                                                                   : "kubernetes.io/pvc-protection";
    json::object& metadata = api::MutableObject(*object, "metadata");
    json::value& list = metadata["finalizers"];
    if (!list.is_array()) list = json::array();
    json::array& finalizers = list.get_array();
    for (const auto& f : finalizers) {
      if (f.is_string() && f.get_string() == finalizer) return Status::Ok();
    }
    finalizers.emplace_back(finalizer);
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewStorageObjectInUseProtection(const AdmissionPluginContext&) {
  return std::make_unique<StorageObjectInUseProtection>();
}

}  // namespace berth::apiserver
