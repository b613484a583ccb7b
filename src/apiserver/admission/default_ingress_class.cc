#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "apiserver/admission/plugins.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's DefaultIngressClass: an Ingress that names no class (neither
// spec.ingressClassName nor the kubernetes.io/ingress.class annotation) gets
// the default IngressClass.
class DefaultIngressClass final : public AdmissionPlugin {
 public:
  explicit DefaultIngressClass(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "DefaultIngressClass"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kIngress}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object)) return Status::Ok();
    const json::object* annotations = api::ObjectAt(api::ObjectAt(*object, "metadata"), "annotations");
    if (annotations && annotations->contains("kubernetes.io/ingress.class")) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    if (const json::value* named = spec.if_contains("ingressClassName"); named && !named->is_null()) {
      return Status::Ok();
    }
    if (api::ObjectPtr ic =
            NewestDefault(store_, api::Kind::kIngressClass, "ingressclass.kubernetes.io/is-default-class")) {
      spec["ingressClassName"] = ic->name();
    }
    return Status::Ok();
  }

 private:
  store::Store& store_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewDefaultIngressClass(const AdmissionPluginContext& context) {
  return std::make_unique<DefaultIngressClass>(context.store);
}

}  // namespace berth::apiserver
