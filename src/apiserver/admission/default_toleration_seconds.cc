#include <boost/json.hpp>

#include "api/json_fields.h"
#include "apiserver/admission/plugins.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

bool ToleratesNoExecute(const json::array& tolerations, std::string_view key) {
  for (const auto& t : tolerations) {
    const json::object* o = t.if_object();
    if (!o) continue;
    std::string_view k = api::StringAt(*o, "key");
    bool key_matches = k.empty() ? api::StringAt(*o, "operator") == "Exists" : k == key;
    std::string_view effect = api::StringAt(*o, "effect");
    if (key_matches && (effect.empty() || effect == "NoExecute")) return true;
  }
  return false;
}

// kube's DefaultTolerationSeconds: every pod tolerates the not-ready and
// unreachable NoExecute taints for a while (300 s by default), unless it says
// otherwise. kube adds them on create only; berth adds them on an update of
// the pod too, so that a PUT leaving them out is not read as removing them.
class DefaultTolerationSeconds final : public AdmissionPlugin {
 public:
  explicit DefaultTolerationSeconds(const AdmissionOptions& options) : options_(options) {}
  std::string_view Name() const override { return "DefaultTolerationSeconds"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (a.operation == AdmissionOperation::kDelete || !a.subresource.empty() || !object) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    json::value& tv = spec["tolerations"];
    if (!tv.is_array()) tv = json::array();
    json::array& tolerations = tv.get_array();
    auto add = [&](std::string_view key, int64_t seconds) {
      if (ToleratesNoExecute(tolerations, key)) return;
      tolerations.push_back(
          json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", seconds}});
    };
    add("node.kubernetes.io/not-ready", options_.default_not_ready_toleration_seconds);
    add("node.kubernetes.io/unreachable", options_.default_unreachable_toleration_seconds);
    return Status::Ok();
  }

 private:
  AdmissionOptions options_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewDefaultTolerationSeconds(const AdmissionPluginContext& context) {
  return std::make_unique<DefaultTolerationSeconds>(context.options);
}

}  // namespace berth::apiserver
