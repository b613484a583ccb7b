// kube's ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount):
// a pod created without a service account runs as "default", and its
// account must exist. Unless the pod or its account opts out
// (automountServiceAccountToken), every init and regular container mounts a
// projected API access volume (the account's token, the cluster's CA, the
// namespace) at /var/run/secrets/kubernetes.io/serviceaccount. A pod without
// imagePullSecrets takes its account's. An account annotated
// kubernetes.io/enforce-mountable-secrets=true limits the secrets its pods
// may reference to those it lists. Mirror pods may reference no account,
// secret or token.

#include <chrono>
#include <random>
#include <set>
#include <thread>

#include <boost/json.hpp>

#include "api/go_bool.h"
#include "api/json_fields.h"
#include "apiserver/admission/plugins.h"
#include "apiserver/registry/system_fields.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kDefaultAccount = "default";
constexpr std::string_view kTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr std::string_view kTokenVolumePrefix = "kube-api-access-";
constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";
constexpr std::string_view kEnforceMountableSecrets = "kubernetes.io/enforce-mountable-secrets";
// kube's WarnOnlyBoundTokenExpirationSeconds: an hour and seven seconds.
constexpr int64_t kTokenExpirationSeconds = 3607;

bool IsMirrorPod(const json::object& pod) {
  const json::object* annotations = api::ObjectAt(api::ObjectAt(pod, "metadata"), "annotations");
  return annotations && annotations->contains(kMirrorPodAnnotation);
}

// kube's TokenVolumeSource: the token, the CA and the namespace.
json::object TokenVolume(const std::string& name) {
  json::object token{{"path", "token"}, {"expirationSeconds", kTokenExpirationSeconds}};
  json::object ca{{"name", "kube-root-ca.crt"}, {"items", json::array{json::object{{"key", "ca.crt"}, {"path", "ca.crt"}}}}};
  json::object ns_item{{"path", "namespace"},
                       {"fieldRef", json::object{{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}};
  json::array sources{json::object{{"serviceAccountToken", std::move(token)}}, json::object{{"configMap", std::move(ca)}},
                      json::object{{"downwardAPI", json::object{{"items", json::array{std::move(ns_item)}}}}}};
  return json::object{{"name", name},
                      {"projected", json::object{{"sources", std::move(sources)}, {"defaultMode", 420}}}};
}

// The pod's preference wins, then its account's; mounted by default.
bool ShouldAutomount(const json::object& account, const json::object& spec) {
  if (const json::value* pod = spec.if_contains("automountServiceAccountToken"); pod && pod->is_bool()) {
    return pod->get_bool();
  }
  if (const json::value* sa = account.if_contains("automountServiceAccountToken"); sa && sa->is_bool()) {
    return sa->get_bool();
  }
  return true;
}

bool EnforcesMountableSecrets(const json::object& account) {
  const json::object* annotations = api::ObjectAt(api::ObjectAt(account, "metadata"), "annotations");
  return annotations && api::ParseGoBool(api::StringAt(annotations, kEnforceMountableSecrets)).value_or(false);
}

std::set<std::string, std::less<>> NamesIn(const json::object& account, std::string_view list) {
  std::set<std::string, std::less<>> names;
  if (const json::array* items = api::ArrayAt(account, list)) {
    for (const auto& item : *items) {
      if (item.is_object()) names.emplace(api::StringAt(item.get_object(), "name"));
    }
  }
  return names;
}

// The secret named by each env var of the containers in `list`:
// "<what> <container> with envVar <name> referencing ...", kube's refusal.
Status EnvSecretsAllowed(const json::object& spec, std::string_view list, std::string_view what,
                         const std::set<std::string, std::less<>>& mountable, std::string_view account) {
  const json::array* containers = api::ArrayAt(spec, list);
  if (!containers) return Status::Ok();
  for (const auto& c : *containers) {
    const json::array* env = c.is_object() ? api::ArrayAt(c.get_object(), "env") : nullptr;
    if (!env) continue;
    for (const auto& e : *env) {
      const json::object* ref = e.is_object() ? api::ObjectAt(api::ObjectAt(e.get_object(), "valueFrom"), "secretKeyRef") : nullptr;
      if (!ref) continue;
      std::string_view secret = api::StringAt(ref, "name");
      if (mountable.contains(secret)) continue;
      return Status(StatusCode::kForbidden,
                    std::string(what) + " " + std::string(api::StringAt(c.get_object(), "name")) + " with envVar " +
                        std::string(api::StringAt(e.get_object(), "name")) + " referencing secret.secretName=\"" +
                        std::string(secret) + "\" is not allowed because service account " + std::string(account) +
                        " does not reference that secret");
    }
  }
  return Status::Ok();
}

// kube's limitSecretReferences: secret volumes, containers' secret env vars
// and image pull secrets only as the account lists them.
Status SecretReferencesAllowed(const json::object& account, const json::object& spec) {
  std::string_view name = api::StringAt(api::ObjectAt(account, "metadata"), "name");
  const auto mountable = NamesIn(account, "secrets");
  if (const json::array* volumes = api::ArrayAt(spec, "volumes")) {
    for (const auto& v : *volumes) {
      const json::object* secret = v.is_object() ? api::ObjectAt(v.get_object(), "secret") : nullptr;
      if (!secret) continue;
      std::string_view secret_name = api::StringAt(secret, "secretName");
      if (mountable.contains(secret_name)) continue;
      return Status(StatusCode::kForbidden, "volume with secret.secretName=\"" + std::string(secret_name) +
                                                "\" is not allowed because service account " + std::string(name) +
                                                " does not reference that secret");
    }
  }
  if (Status s = EnvSecretsAllowed(spec, "initContainers", "init container", mountable, name); !s.ok()) return s;
  if (Status s = EnvSecretsAllowed(spec, "containers", "container", mountable, name); !s.ok()) return s;
  const auto pull = NamesIn(account, "imagePullSecrets");
  if (const json::array* refs = api::ArrayAt(spec, "imagePullSecrets")) {
    for (size_t i = 0; i < refs->size(); ++i) {
      std::string_view ref = (*refs)[i].is_object() ? api::StringAt((*refs)[i].get_object(), "name") : "";
      if (pull.contains(ref)) continue;
      return Status(StatusCode::kForbidden, "imagePullSecrets[" + std::to_string(i) + "].name=\"" + std::string(ref) +
                                                "\" is not allowed because service account " + std::string(name) +
                                                " does not reference that imagePullSecret");
    }
  }
  return Status::Ok();
}

// Whether the pod names a secret anywhere (kube's VisitPodSecretNames, for
// the sources berth knows: pull secrets, containers' env, volumes).
bool ReferencesSecrets(const json::object& spec) {
  if (const json::array* pull = api::ArrayAt(spec, "imagePullSecrets"); pull && !pull->empty()) return true;
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    const json::array* containers = api::ArrayAt(spec, list);
    if (!containers) continue;
    for (const auto& c : *containers) {
      if (!c.is_object()) continue;
      if (const json::array* from = api::ArrayAt(c.get_object(), "envFrom")) {
        for (const auto& f : *from) {
          if (f.is_object() && api::ObjectAt(f.get_object(), "secretRef")) return true;
        }
      }
      if (const json::array* env = api::ArrayAt(c.get_object(), "env")) {
        for (const auto& e : *env) {
          if (e.is_object() && api::ObjectAt(api::ObjectAt(e.get_object(), "valueFrom"), "secretKeyRef")) return true;
        }
      }
    }
  }
  const json::array* volumes = api::ArrayAt(spec, "volumes");
  if (!volumes) return false;
  for (const auto& v : *volumes) {
    if (!v.is_object()) continue;
    for (const auto& [source, value] : v.get_object()) {
      const json::object* s = value.if_object();
      if (!s) continue;
      if (source == "secret" || source == "azureFile" || s->contains("secretRef") ||
          s->contains("nodePublishSecretRef")) {
        return true;
      }
      if (source == "projected") {
        if (const json::array* sources = api::ArrayAt(s, "sources")) {
          for (const auto& p : *sources) {
            if (p.is_object() && p.get_object().contains("secret")) return true;
          }
        }
      }
    }
  }
  return false;
}

bool UsesTokenProjection(const json::object& spec) {
  const json::array* volumes = api::ArrayAt(spec, "volumes");
  if (!volumes) return false;
  for (const auto& v : *volumes) {
    const json::array* sources = v.is_object() ? api::ArrayAt(api::ObjectAt(v.get_object(), "projected"), "sources") : nullptr;
    if (!sources) continue;
    for (const auto& s : *sources) {
      if (s.is_object() && s.get_object().contains("serviceAccountToken")) return true;
    }
  }
  return false;
}

class ServiceAccount final : public AdmissionPlugin {
 public:
  explicit ServiceAccount(store::Store& store) : store_(store), names_(std::random_device{}()) {}
  std::string_view Name() const override { return "ServiceAccount"; }
  std::vector<api::Kind> Kinds() const override { return {api::Kind::kPod}; }

  Status Admit(const AdmissionAttributes& a, json::object* object) override {
    if (!Creating(a, object) || IsMirrorPod(*object)) return Status::Ok();
    json::object& spec = api::MutableObject(*object, "spec");
    if (api::StringAt(spec, "serviceAccountName").empty()) spec["serviceAccountName"] = kDefaultAccount;
    // The deprecated alias names the same account (kube's v1 conversion).
    json::value name_value = spec["serviceAccountName"];  // copied: the insertion below may move the members
    spec["serviceAccount"] = std::move(name_value);
    const std::string name(api::StringAt(spec, "serviceAccountName"));
    auto account = Lookup(a, name);
    if (!account.ok()) return account.status();
    const json::object& sa = account.value()->json();
    if (ShouldAutomount(sa, spec)) MountToken(spec);
    const json::array* pull = api::ArrayAt(spec, "imagePullSecrets");
    const json::array* theirs = api::ArrayAt(sa, "imagePullSecrets");
    if ((!pull || pull->empty()) && theirs && !theirs->empty()) {
      json::array copied;
      for (const auto& ref : *theirs) {
        if (ref.is_object()) copied.push_back(json::object{{"name", api::StringAt(ref.get_object(), "name")}});
      }
      spec["imagePullSecrets"] = std::move(copied);
    }
    return Status::Ok();
  }

  Status Validate(const AdmissionAttributes& a) override {
    if (!a.object) return Status::Ok();
    const json::object* spec = api::ObjectAt(*a.object, "spec");
    if (!spec) return Status::Ok();
    if (a.operation == AdmissionOperation::kUpdate && a.subresource == "ephemeralcontainers") {
      return EphemeralContainersAllowed(a, *spec);
    }
    if (a.operation != AdmissionOperation::kCreate || !a.subresource.empty()) return Status::Ok();
    if (IsMirrorPod(*a.object)) return MirrorPodAllowed(a, *spec);
    std::string name(api::StringAt(spec, "serviceAccountName"));
    auto account = Lookup(a, name);
    if (!account.ok()) return account.status();
    if (!EnforcesMountableSecrets(account.value()->json())) return Status::Ok();
    Status allowed = SecretReferencesAllowed(account.value()->json(), *spec);
    return allowed.ok() ? allowed : AdmissionForbidden(a, allowed.message());
  }

 private:
  // The account, looked up again for a while when it is the default one
  // (the serviceaccount controller creates it just after its namespace):
  // as long as kube waits (ten looks 100-200 ms apart), looking every 20 ms.
  Result<api::ObjectPtr> Lookup(const AdmissionAttributes& a, const std::string& name) {
    const std::string key = api::StorageKey(api::Kind::kServiceAccount, a.ns, name);
    const int looks = name == kDefaultAccount ? 75 : 1;
    for (int i = 0; i < looks; ++i) {
      if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      auto got = store_.Get(key);
      if (got.ok()) return got;
      if (got.status().code() != StatusCode::kNotFound) return LookupError(a, name, got.status().message());
    }
    return LookupError(a, name, "serviceaccount \"" + name + "\" not found");
  }

  static Status LookupError(const AdmissionAttributes& a, std::string_view name, std::string_view why) {
    return AdmissionForbidden(a, "error looking up service account " + std::string(a.ns) + "/" + std::string(name) +
                                     ": " + std::string(why));
  }

  // kube's mountServiceAccountToken: one kube-api-access volume (an existing
  // one is kept), mounted read-only by every init and regular container
  // that has nothing at the token's path yet.
  void MountToken(json::object& spec) {
    std::string volume_name;
    if (const json::array* volumes = api::ArrayAt(spec, "volumes")) {
      for (const auto& v : *volumes) {
        std::string_view n = v.is_object() ? api::StringAt(v.get_object(), "name") : "";
        if (n.starts_with(kTokenVolumePrefix)) {
          volume_name = n;
          break;
        }
      }
    }
    const bool has_volume = !volume_name.empty();
    if (!has_volume) volume_name = names_.GenerateName(kTokenVolumePrefix);
    bool needs_volume = false;
    for (std::string_view list : {"initContainers", "containers"}) {
      json::value* containers = spec.if_contains(list);
      if (!containers || !containers->is_array()) continue;
      for (auto& c : containers->get_array()) {
        if (c.is_object() && AddTokenMount(c.get_object(), volume_name)) needs_volume = true;
      }
    }
    if (has_volume || !needs_volume) return;
    json::value& volumes = spec["volumes"];
    if (!volumes.is_array()) volumes = json::array();
    volumes.get_array().push_back(TokenVolume(volume_name));
  }

  // False when the container already mounts something at the token's path.
  static bool AddTokenMount(json::object& container, const std::string& volume_name) {
    json::value& mounts = container["volumeMounts"];
    if (!mounts.is_array()) mounts = json::array();
    for (const auto& m : mounts.get_array()) {
      if (m.is_object() && api::StringAt(m.get_object(), "mountPath") == kTokenMountPath) return false;
    }
    mounts.get_array().push_back(
        json::object{{"name", volume_name}, {"readOnly", true}, {"mountPath", kTokenMountPath}});
    return true;
  }

  static Status MirrorPodAllowed(const AdmissionAttributes& a, const json::object& spec) {
    if (!api::StringAt(spec, "serviceAccountName").empty()) {
      return AdmissionForbidden(a, "a mirror pod may not reference service accounts");
    }
    if (ReferencesSecrets(spec)) return AdmissionForbidden(a, "a mirror pod may not reference secrets");
    if (UsesTokenProjection(spec)) {
      return AdmissionForbidden(a, "a mirror pod may not use ServiceAccountToken volume projections");
    }
    return Status::Ok();
  }

  // kube's limitEphemeralContainerSecretReferences.
  Status EphemeralContainersAllowed(const AdmissionAttributes& a, const json::object& spec) {
    std::string name(api::StringAt(spec, "serviceAccountName"));
    if (name.empty()) {
      return AdmissionForbidden(a, "no service account specified for pod " + std::string(a.ns) + "/" + std::string(a.name));
    }
    auto account = Lookup(a, name);
    if (!account.ok()) return account.status();
    const json::object& sa = account.value()->json();
    if (!EnforcesMountableSecrets(sa)) return Status::Ok();
    Status allowed = EnvSecretsAllowed(spec, "ephemeralContainers", "ephemeral container", NamesIn(sa, "secrets"), name);
    return allowed.ok() ? allowed : AdmissionForbidden(a, allowed.message());
  }

  store::Store& store_;
  SystemFields names_;  // the token volumes' random suffixes
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewServiceAccount(const AdmissionPluginContext& context) {
  return std::make_unique<ServiceAccount>(context.store);
}

}  // namespace berth::apiserver
