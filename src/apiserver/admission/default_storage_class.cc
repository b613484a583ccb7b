#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "apiserver/admission/plugins.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's DefaultStorageClass: a claim that names no class (the field absent,
// not "") gets the default StorageClass.
class DefaultStorageClass final : public AdmissionPlugin {
 public:
  explicit DefaultStorageClass(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "DefaultStorageClass"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPersistentVolumeClaim}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    if (const json::value* named = spec.if_contains("storageClassName"); named && !named->is_null()) {
      return Status::Ok();
    }
    if (api::ObjectPtr sc = NewestDefault(store_, api::Kind::kStorageClass, "storageclass.kubernetes.io/is-default-class",
                                          "storageclass.beta.kubernetes.io/is-default-class")) {
      spec["storageClassName"] = sc->name();
    }
    return Status::Ok();
  }

 private:
  store::Store& store_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewDefaultStorageClass(const AdmissionPluginContext& context) {
  return std::make_unique<DefaultStorageClass>(context.store);
}

}  // namespace berth::apiserver
