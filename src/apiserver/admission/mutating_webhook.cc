// MutatingAdmissionWebhook: the webhooks of the MutatingWebhookConfigurations,
// called one after another (configurations by name, webhooks in order), each
// on the object as the ones before left it; a JSON Patch answer changes it. A
// webhook with reinvocationPolicy IfNeeded is called once more when a later
// webhook changed the object after it ran.

#include <boost/json.hpp>

#include "apiserver/admission/plugins.h"
#include "apiserver/admission/webhook/webhook.h"
#include "apiserver/patch/patch.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

class MutatingWebhook final : public AdmissionPlugin {
 public:
  explicit MutatingWebhook(store::Store& store) : store_(store), hooks_(store, true), caller_(store) {}

  std::string_view Name() const override { return "MutatingAdmissionWebhook"; }
  bool MayCallOut() override { return !hooks_.Hooks()->empty(); }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    auto hooks = hooks_.Hooks();
    if (hooks->empty()) return Status::Ok();
    // Matching and the review see the object as it stands now.
    AdmissionAttributes now = a;
    now.object = object;
    std::vector<const webhook::Hook*> called;  // IfNeeded hooks, with whether the object changed since
    std::vector<bool> changed_since;
    for (const webhook::Hook& hook : *hooks) {
      if (!webhook::Concerns(store_, hook, now)) continue;
      auto patched = Call(hook, now, object);
      if (!patched.ok()) return patched.status();
      if (patched.value()) {
        for (size_t i = 0; i < changed_since.size(); ++i) changed_since[i] = true;
      }
      if (hook.reinvoke_if_needed) {
        called.push_back(&hook);
        changed_since.push_back(false);
      }
    }
    for (size_t i = 0; i < called.size(); ++i) {
      if (!changed_since[i] || !webhook::Concerns(store_, *called[i], now)) continue;
      if (auto again = Call(*called[i], now, object); !again.ok()) return again.status();
    }
    return Status::Ok();
  }

 private:
  // One call; whether it changed the object.
  Result<bool> Call(const webhook::Hook& hook, const AdmissionAttributes& a, json::object* object) {
    auto verdict = webhook::Run(caller_, hook, a, object);
    if (!verdict.ok()) return verdict.status();
    if (!verdict.value()) return false;  // failed open
    const webhook::Verdict& v = *verdict.value();
    if (a.effects) a.effects->warnings.insert(a.effects->warnings.end(), v.warnings.begin(), v.warnings.end());
    if (!v.allowed) return v.denial;
    if (!v.patch || object == nullptr) return false;
    auto patched = ApplyPatch(PatchType::kJson, a.kind.kind, json::value(*object), *v.patch);
    if (!patched.ok()) {
      return Status::Internal("Internal error occurred: JSON Patch of webhook \"" + hook.name +
                              "\" does not apply: " + patched.status().message());
    }
    if (!patched.value().is_object()) {
      return Status::Internal("Internal error occurred: JSON Patch of webhook \"" + hook.name +
                              "\" left no object");
    }
    if (patched.value().get_object() == *object) return false;
    *object = std::move(patched.value().get_object());
    if (a.effects) a.effects->patched = true;
    return true;
  }

  store::Store& store_;
  webhook::HookSource hooks_;
  webhook::Caller caller_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewMutatingAdmissionWebhook(const AdmissionPluginContext& context) {
  return std::make_unique<MutatingWebhook>(context.store);
}

}  // namespace berth::apiserver
