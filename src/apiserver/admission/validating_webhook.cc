// ValidatingAdmissionWebhook: the webhooks of the
// ValidatingWebhookConfigurations, after the object passed validation; any
// refusal refuses the write. kube calls them in parallel; berth calls them
// one after another (the outcome is the same: all must allow; a refusal is
// the first in configuration order, where kube's is whichever came first).

#include <boost/json.hpp>

#include "apiserver/admission/plugins.h"
#include "apiserver/admission/webhook/webhook.h"

namespace berth::apiserver {

namespace {

class ValidatingWebhook final : public AdmissionPlugin {
 public:
  explicit ValidatingWebhook(store::Store& store) : store_(store), hooks_(store, false), caller_(store) {}

  std::string_view Name() const override { return "ValidatingAdmissionWebhook"; }
  bool MayCallOut() override { return !hooks_.Hooks()->empty(); }

  Status Validate(const AdmissionAttributes& a) override {
    auto hooks = hooks_.Hooks();
    for (const webhook::Hook& hook : *hooks) {
      if (!webhook::Concerns(store_, hook, a)) continue;
      auto verdict = webhook::Run(caller_, hook, a, a.object);
      if (!verdict.ok()) return verdict.status();
      if (!verdict.value()) continue;  // failed open
      const webhook::Verdict& v = *verdict.value();
      if (a.effects) a.effects->warnings.insert(a.effects->warnings.end(), v.warnings.begin(), v.warnings.end());
      if (!v.allowed) return v.denial;
    }
    return Status::Ok();
  }

 private:
  store::Store& store_;
  webhook::HookSource hooks_;
  webhook::Caller caller_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewValidatingAdmissionWebhook(const AdmissionPluginContext& context) {
  return std::make_unique<ValidatingWebhook>(context.store);
}

}  // namespace berth::apiserver
