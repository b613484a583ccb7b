#include <boost/json.hpp>

#include "api/json_fields.h"
#include "apiserver/admission/plugins.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's NamespaceLifecycle: nothing is created in a namespace that does not
// exist or is being deleted; the system namespaces cannot be deleted.
class NamespaceLifecycle final : public AdmissionPlugin {
 public:
  explicit NamespaceLifecycle(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "NamespaceLifecycle"; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.operation == AdmissionOperation::kDelete) {
      if (a.kind.kind != api::Kind::kNamespace) return Status::Ok();
      for (std::string_view system : {"default", "kube-system", "kube-public"}) {
        if (a.name == system) return AdmissionForbidden(a, "this namespace may not be deleted");
      }
      return Status::Ok();
    }
    if (a.operation != AdmissionOperation::kCreate || !a.kind.namespaced) return Status::Ok();
    auto got = store_.Get(api::StorageKey(api::Kind::kNamespace, "", a.ns));
    if (!got.ok()) return Status::NotFound("namespaces \"" + std::string(a.ns) + "\" not found");
    if (api::BeingDeleted(*got.value())) {
      const std::string ns(a.ns);
      return Status(StatusCode::kForbidden,
                    std::string(a.kind.resource) + " \"" + std::string(a.name) +
                        "\" is forbidden: unable to create new content in namespace " + ns +
                        " because it is being terminated",
                    {{"NamespaceTerminating", "namespace " + ns + " is being terminated", "metadata.namespace"}});
    }
    return Status::Ok();
  }

 private:
  store::Store& store_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewNamespaceLifecycle(const AdmissionPluginContext& context) {
  return std::make_unique<NamespaceLifecycle>(context.store);
}

}  // namespace berth::apiserver
