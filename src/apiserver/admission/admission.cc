#include "apiserver/admission/admission.h"

#include <algorithm>

#include "apiserver/admission/plugins.h"
#include "apiserver/http.h"

namespace berth::apiserver {

std::string_view OperationName(AdmissionOperation op) {
  switch (op) {
    case AdmissionOperation::kCreate:
      return "CREATE";
    case AdmissionOperation::kUpdate:
      return "UPDATE";
    case AdmissionOperation::kDelete:
      return "DELETE";
  }
  return "";
}

const std::vector<KubeAdmissionPlugin>& KubeAdmissionOrder() {
  // kube-apiserver 1.32's AllOrderedPlugins and its default set.
  static const std::vector<KubeAdmissionPlugin> names = {
      {"AlwaysAdmit", false},
      {"NamespaceAutoProvision", false},
      {"NamespaceLifecycle", true},
      {"NamespaceExists", false},
      {"LimitPodHardAntiAffinityTopology", false},
      {"LimitRanger", true},
      {"ServiceAccount", true},
      {"NodeRestriction", false},
      {"TaintNodesByCondition", true},
      {"AlwaysPullImages", false},
      {"ImagePolicyWebhook", false},
      {"PodSecurity", true},
      {"PodNodeSelector", false},
      {"Priority", true},
      {"DefaultTolerationSeconds", true},
      {"PodTolerationRestriction", false},
      {"EventRateLimit", false},
      {"ExtendedResourceToleration", false},
      {"DefaultStorageClass", true},
      {"StorageObjectInUseProtection", true},
      {"OwnerReferencesPermissionEnforcement", false},
      {"PersistentVolumeClaimResize", true},
      {"RuntimeClass", true},
      {"CertificateApproval", true},
      {"CertificateSigning", true},
      {"ClusterTrustBundleAttest", true},
      {"CertificateSubjectRestriction", true},
      {"DefaultIngressClass", true},
      {"DenyServiceExternalIPs", false},
      {"MutatingAdmissionPolicy", false},
      {"MutatingAdmissionWebhook", true},
      {"ValidatingAdmissionPolicy", true},
      {"ValidatingAdmissionWebhook", true},
      {"ResourceQuota", true},
      {"AlwaysDeny", false},
  };
  return names;
}

namespace {

bool Named(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

std::string AdmissionPluginsHelp() {
  return "Admission plugins to run besides the defaults (kube's names, comma-separated; berth has " +
         InTreeAdmissionPlugins().JoinedNames() + ")";
}

Status CheckAdmissionOptions(const AdmissionOptions& options) {
  const auto& names = KubeAdmissionOrder();
  for (const auto& [flag, list] : {std::pair{"--enable-admission-plugins", &options.enable},
                                   std::pair{"--disable-admission-plugins", &options.disable}}) {
    for (const auto& name : *list) {
      auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.name == name; });
      if (it == names.end()) return Status::BadRequest(std::string(flag) + ": plugin \"" + name + "\" is unknown");
      if (list == &options.enable && !InTreeAdmissionPlugins().Find(name)) {
        return Status::BadRequest(std::string(flag) + ": berth does not implement the admission plugin " + name);
      }
      if (list == &options.enable && Named(options.disable, name)) {
        return Status::BadRequest("--enable-admission-plugins and --disable-admission-plugins both name " + name);
      }
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<AdmissionChain>> AdmissionChain::Make(const AdmissionOptions& options, store::Store& store) {
  if (Status s = CheckAdmissionOptions(options); !s.ok()) return s;
  auto chain = std::make_unique<AdmissionChain>();
  const AdmissionPluginContext context{options, store};
  for (const auto& n : KubeAdmissionOrder()) {
    const std::string name(n.name);
    // kube's default set includes plugins berth does not have (webhooks,
    // PodSecurity, ...): those are left out.
    const AdmissionPluginFactory* make = InTreeAdmissionPlugins().Find(name);
    if (!make || Named(options.disable, name) || !(n.on_by_default || Named(options.enable, name))) continue;
    chain->plugins_.push_back((*make)(context));
  }
  chain->by_kind_.resize(api::kBuiltinKindCount);
  for (const auto& plugin : chain->plugins_) {
    std::vector<api::Kind> kinds = plugin->Kinds();
    if (kinds.empty()) {
      chain->every_kind_.push_back(plugin.get());
      for (auto& list : chain->by_kind_) list.push_back(plugin.get());
      continue;
    }
    for (api::Kind kind : kinds) chain->by_kind_[static_cast<size_t>(kind)].push_back(plugin.get());
  }
  return chain;
}

Status AdmissionChain::Admit(const AdmissionAttributes& a, boost::json::object* object) const {
  const auto& plugins = api::IsBuiltin(a.kind.kind) ? by_kind_[static_cast<size_t>(a.kind.kind)] : every_kind_;
  for (AdmissionPlugin* plugin : plugins) {
    if (Status s = plugin->Admit(a, object); !s.ok()) return s;
  }
  return Status::Ok();
}

Status AdmissionChain::Validate(const AdmissionAttributes& a) const {
  const auto& plugins = api::IsBuiltin(a.kind.kind) ? by_kind_[static_cast<size_t>(a.kind.kind)] : every_kind_;
  for (AdmissionPlugin* plugin : plugins) {
    if (Status s = plugin->Validate(a); !s.ok()) return s;
  }
  return Status::Ok();
}

bool AdmissionChain::MayCallOut() const {
  return std::any_of(plugins_.begin(), plugins_.end(), [](const auto& p) { return p->MayCallOut(); });
}

std::vector<std::string> AdmissionChain::Enabled() const {
  std::vector<std::string> names;
  for (const auto& plugin : plugins_) names.emplace_back(plugin->Name());
  return names;
}

void TakeWarnings(AdmissionEffects& effects, Request& request) {
  for (auto& w : effects.warnings) request.AddWarning(std::move(w));
  effects.warnings.clear();
}

Status AdmissionForbidden(const AdmissionAttributes& a, std::string_view why) {
  std::string resource(a.kind.resource);
  if (!a.kind.group.empty()) resource += "." + std::string(a.kind.group);
  return Status(StatusCode::kForbidden, resource + " \"" + std::string(a.name) + "\" is forbidden: " + std::string(why));
}

}  // namespace berth::apiserver
