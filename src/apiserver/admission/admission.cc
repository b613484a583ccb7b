#include "apiserver/admission/admission.h"

#include <algorithm>

namespace berth::apiserver {

const std::vector<AdmissionPluginName>& AdmissionPluginNames() {
  // kube-apiserver 1.32's AllOrderedPlugins, its default set, and berth's.
  static const std::vector<AdmissionPluginName> names = {
      {"AlwaysAdmit", false, true},
      {"NamespaceAutoProvision", false, false},
      {"NamespaceLifecycle", true, true},
      {"NamespaceExists", false, false},
      {"LimitPodHardAntiAffinityTopology", false, false},
      {"LimitRanger", true, true},
      {"ServiceAccount", true, false},
      {"NodeRestriction", false, false},
      {"TaintNodesByCondition", true, false},
      {"AlwaysPullImages", false, true},
      {"ImagePolicyWebhook", false, false},
      {"PodSecurity", true, false},
      {"PodNodeSelector", false, false},
      {"Priority", true, true},
      {"DefaultTolerationSeconds", true, true},
      {"PodTolerationRestriction", false, false},
      {"EventRateLimit", false, false},
      {"ExtendedResourceToleration", false, false},
      {"DefaultStorageClass", true, true},
      {"StorageObjectInUseProtection", true, true},
      {"OwnerReferencesPermissionEnforcement", false, false},
      {"PersistentVolumeClaimResize", true, false},
      {"RuntimeClass", true, true},
      {"CertificateApproval", true, false},
      {"CertificateSigning", true, false},
      {"ClusterTrustBundleAttest", true, false},
      {"CertificateSubjectRestriction", true, false},
      {"DefaultIngressClass", true, true},
      {"DenyServiceExternalIPs", false, false},
      {"MutatingAdmissionPolicy", false, false},
      {"MutatingAdmissionWebhook", true, false},
      {"ValidatingAdmissionPolicy", true, false},
      {"ValidatingAdmissionWebhook", true, false},
      {"ResourceQuota", true, true},
      {"AlwaysDeny", false, true},
  };
  return names;
}

namespace {

bool Named(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

Status CheckAdmissionOptions(const AdmissionOptions& options) {
  const auto& names = AdmissionPluginNames();
  for (const auto& [flag, list] : {std::pair{"--enable-admission-plugins", &options.enable},
                                   std::pair{"--disable-admission-plugins", &options.disable}}) {
    for (const auto& name : *list) {
      auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.name == name; });
      if (it == names.end()) return Status::BadRequest(std::string(flag) + ": plugin \"" + name + "\" is unknown");
      if (list == &options.enable && !it->implemented) {
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
  for (const auto& n : AdmissionPluginNames()) {
    const std::string name(n.name);
    // kube's default set includes plugins berth does not have (webhooks,
    // PodSecurity, ...): those are left out.
    if (!n.implemented || Named(options.disable, name) || !(n.on_by_default || Named(options.enable, name))) continue;
    auto plugin = MakeAdmissionPlugin(name, options, store);
    if (!plugin) return Status::Internal("admission plugin " + name + " is listed as implemented but not built");
    chain->plugins_.push_back(std::move(plugin));
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

std::vector<std::string> AdmissionChain::Enabled() const {
  std::vector<std::string> names;
  for (const auto& plugin : plugins_) names.emplace_back(plugin->Name());
  return names;
}

Status AdmissionForbidden(const AdmissionAttributes& a, std::string_view why) {
  std::string resource(a.kind.resource);
  if (!a.kind.group.empty()) resource += "." + std::string(a.kind.group);
  return Status(StatusCode::kForbidden, resource + " \"" + std::string(a.name) + "\" is forbidden: " + std::string(why));
}

}  // namespace berth::apiserver
