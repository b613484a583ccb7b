#include "api/kinds.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>

namespace berth::api {
namespace {

using SV = std::string_view;

constexpr SV kAll[] = {"all"};
constexpr SV kNsShort[] = {"ns"};
constexpr SV kNoShort[] = {"no"};
constexpr SV kPoShort[] = {"po"};
constexpr SV kEvShort[] = {"ev"};
constexpr SV kPvShort[] = {"pv"};
constexpr SV kPvcShort[] = {"pvc"};
constexpr SV kRsShort[] = {"rs"};
constexpr SV kDeployShort[] = {"deploy"};
constexpr SV kScShort[] = {"sc"};
constexpr SV kPcShort[] = {"pc"};
constexpr SV kPdbShort[] = {"pdb"};
constexpr SV kCmShort[] = {"cm"};
constexpr SV kSvcShort[] = {"svc"};
constexpr SV kEpShort[] = {"ep"};
constexpr SV kSaShort[] = {"sa"};
constexpr SV kLimitsShort[] = {"limits"};
constexpr SV kQuotaShort[] = {"quota"};
constexpr SV kRcShort[] = {"rc"};
constexpr SV kStsShort[] = {"sts"};
constexpr SV kDsShort[] = {"ds"};
constexpr SV kCjShort[] = {"cj"};
constexpr SV kHpaShort[] = {"hpa"};
constexpr SV kIngShort[] = {"ing"};
constexpr SV kNetpolShort[] = {"netpol"};
constexpr SV kCrdShort[] = {"crd", "crds"};
constexpr SV kApiExtensions[] = {"api-extensions"};

// In Kind's order. Short names and categories as kube-apiserver 1.32 serves
// them; the subresources are filled in by WithSubresources below.
const std::array<KindInfo, kBuiltinKindCount> kBuiltinNames = {{
    {Kind::kNamespace, "", "v1", "Namespace", "namespaces", "namespace", false, kNsShort, {}},
    {Kind::kNode, "", "v1", "Node", "nodes", "node", false, kNoShort, {}},
    {Kind::kPod, "", "v1", "Pod", "pods", "pod", true, kPoShort, kAll},
    {Kind::kBinding, "", "v1", "Binding", "bindings", "binding", true, {}, {}},
    {Kind::kEvent, "", "v1", "Event", "events", "event", true, kEvShort, {}},
    {Kind::kPersistentVolume, "", "v1", "PersistentVolume", "persistentvolumes", "persistentvolume", false, kPvShort, {}},
    {Kind::kPersistentVolumeClaim, "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims",
     "persistentvolumeclaim", true, kPvcShort, {}},
    {Kind::kReplicaSet, "apps", "v1", "ReplicaSet", "replicasets", "replicaset", true, kRsShort, kAll},
    {Kind::kDeployment, "apps", "v1", "Deployment", "deployments", "deployment", true, kDeployShort, kAll},
    {Kind::kStorageClass, "storage.k8s.io", "v1", "StorageClass", "storageclasses", "storageclass", false, kScShort, {}},
    {Kind::kPriorityClass, "scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", "priorityclass", false,
     kPcShort, {}},
    {Kind::kPodDisruptionBudget, "policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", "poddisruptionbudget",
     true, kPdbShort, {}},
    {Kind::kLease, "coordination.k8s.io", "v1", "Lease", "leases", "lease", true, {}, {}},
    {Kind::kConfigMap, "", "v1", "ConfigMap", "configmaps", "configmap", true, kCmShort, {}},
    {Kind::kSecret, "", "v1", "Secret", "secrets", "secret", true, {}, {}},
    {Kind::kService, "", "v1", "Service", "services", "service", true, kSvcShort, kAll},
    {Kind::kEndpoints, "", "v1", "Endpoints", "endpoints", "endpoints", true, kEpShort, {}},
    {Kind::kServiceAccount, "", "v1", "ServiceAccount", "serviceaccounts", "serviceaccount", true, kSaShort, {}},
    {Kind::kLimitRange, "", "v1", "LimitRange", "limitranges", "limitrange", true, kLimitsShort, {}},
    {Kind::kResourceQuota, "", "v1", "ResourceQuota", "resourcequotas", "resourcequota", true, kQuotaShort, {}},
    {Kind::kPodTemplate, "", "v1", "PodTemplate", "podtemplates", "podtemplate", true, {}, {}},
    {Kind::kReplicationController, "", "v1", "ReplicationController", "replicationcontrollers",
     "replicationcontroller", true, kRcShort, kAll},
    {Kind::kStatefulSet, "apps", "v1", "StatefulSet", "statefulsets", "statefulset", true, kStsShort, kAll},
    {Kind::kDaemonSet, "apps", "v1", "DaemonSet", "daemonsets", "daemonset", true, kDsShort, kAll},
    {Kind::kControllerRevision, "apps", "v1", "ControllerRevision", "controllerrevisions", "controllerrevision", true,
     {}, {}},
    {Kind::kJob, "batch", "v1", "Job", "jobs", "job", true, {}, kAll},
    {Kind::kCronJob, "batch", "v1", "CronJob", "cronjobs", "cronjob", true, kCjShort, kAll},
    {Kind::kHorizontalPodAutoscaler, "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers",
     "horizontalpodautoscaler", true, kHpaShort, kAll},
    {Kind::kEndpointSlice, "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", "endpointslice", true, {}, {}},
    {Kind::kIngress, "networking.k8s.io", "v1", "Ingress", "ingresses", "ingress", true, kIngShort, {}},
    {Kind::kIngressClass, "networking.k8s.io", "v1", "IngressClass", "ingressclasses", "ingressclass", false, {}, {}},
    {Kind::kNetworkPolicy, "networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", "networkpolicy", true,
     kNetpolShort, {}},
    {Kind::kRole, "rbac.authorization.k8s.io", "v1", "Role", "roles", "role", true, {}, {}},
    {Kind::kClusterRole, "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "clusterrole", false, {}, {}},
    {Kind::kRoleBinding, "rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", "rolebinding", true, {}, {}},
    {Kind::kClusterRoleBinding, "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings",
     "clusterrolebinding", false, {}, {}},
    {Kind::kRuntimeClass, "node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", "runtimeclass", false, {}, {}},
    {Kind::kCSIDriver, "storage.k8s.io", "v1", "CSIDriver", "csidrivers", "csidriver", false, {}, {}},
    {Kind::kCSINode, "storage.k8s.io", "v1", "CSINode", "csinodes", "csinode", false, {}, {}},
    {Kind::kCSIStorageCapacity, "storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities",
     "csistoragecapacity", true, {}, {}},
    {Kind::kVolumeAttachment, "storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", "volumeattachment",
     false, {}, {}},
    {Kind::kCustomResourceDefinition, "apiextensions.k8s.io", "v1", "CustomResourceDefinition",
     "customresourcedefinitions", "customresourcedefinition", false, kCrdShort, kApiExtensions},
    {Kind::kMutatingWebhookConfiguration, "admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
     "mutatingwebhookconfigurations", "mutatingwebhookconfiguration", false, {}, kApiExtensions},
    {Kind::kValidatingWebhookConfiguration, "admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
     "validatingwebhookconfigurations", "validatingwebhookconfiguration", false, {}, kApiExtensions},
    {Kind::kAPIService, "apiregistration.k8s.io", "v1", "APIService", "apiservices", "apiservice", false, {},
     kApiExtensions},
    {Kind::kEventsEvent, "events.k8s.io", "v1", "Event", "events", "event", true, kEvShort, {}},
    {Kind::kHorizontalPodAutoscalerV1, "autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers",
     "horizontalpodautoscaler", true, kHpaShort, kAll},
}};

// kube-apiserver 1.32's status and scale subresources of the built-in kinds.
std::array<KindInfo, kBuiltinKindCount> WithSubresources() {
  std::array<KindInfo, kBuiltinKindCount> kinds = kBuiltinNames;
  for (Kind k : {Kind::kPod, Kind::kNode, Kind::kNamespace, Kind::kPersistentVolume, Kind::kPersistentVolumeClaim,
                 Kind::kDeployment, Kind::kReplicaSet, Kind::kPodDisruptionBudget, Kind::kService,
                 Kind::kReplicationController, Kind::kResourceQuota, Kind::kStatefulSet, Kind::kDaemonSet, Kind::kJob,
                 Kind::kCronJob, Kind::kHorizontalPodAutoscaler, Kind::kHorizontalPodAutoscalerV1, Kind::kIngress,
                 Kind::kVolumeAttachment, Kind::kCustomResourceDefinition, Kind::kAPIService}) {
    kinds[static_cast<int>(k)].status = true;
  }
  for (Kind k : {Kind::kDeployment, Kind::kReplicaSet, Kind::kStatefulSet, Kind::kReplicationController}) {
    kinds[static_cast<int>(k)].scale = true;
  }
  for (Kind k : {Kind::kDeployment, Kind::kReplicaSet, Kind::kPodDisruptionBudget, Kind::kStatefulSet,
                 Kind::kDaemonSet, Kind::kReplicationController, Kind::kJob, Kind::kCronJob,
                 Kind::kHorizontalPodAutoscaler, Kind::kHorizontalPodAutoscalerV1, Kind::kIngress,
                 Kind::kNetworkPolicy, Kind::kCustomResourceDefinition}) {
    kinds[static_cast<int>(k)].generation = true;
  }
  // kube's cohabiting resources and second versions: the same stored objects.
  kinds[static_cast<int>(Kind::kEventsEvent)].stored_as = Kind::kEvent;
  kinds[static_cast<int>(Kind::kHorizontalPodAutoscalerV1)].stored_as = Kind::kHorizontalPodAutoscaler;
  kinds[static_cast<int>(Kind::kBinding)].create_only = true;
  kinds[static_cast<int>(Kind::kPod)].pod_spec_path = "spec";
  kinds[static_cast<int>(Kind::kPodTemplate)].pod_spec_path = "template.spec";
  for (Kind k : {Kind::kDeployment, Kind::kReplicaSet, Kind::kStatefulSet, Kind::kDaemonSet,
                 Kind::kReplicationController, Kind::kJob}) {
    kinds[static_cast<int>(k)].pod_spec_path = "spec.template.spec";
  }
  kinds[static_cast<int>(Kind::kCronJob)].pod_spec_path = "spec.jobTemplate.spec.template.spec";
  return kinds;
}
const std::array<KindInfo, kBuiltinKindCount> kBuiltins = WithSubresources();

// A registered kind: its strings, and the KindInfo viewing them. Never freed
// (Info() hands out references); a re-registration with other names makes a
// new one and keeps the old.
struct Registered {
  KindSpec spec;
  std::vector<SV> short_views, category_views;
  KindInfo info{};
};

struct Table {
  // Indexed by Kind; built-ins point into kBuiltins. Written under mu, read lock-free.
  std::array<std::atomic<const KindInfo*>, kMaxKinds> infos{};
  std::shared_mutex mu;
  int count = kBuiltinKindCount;                       // guarded by mu
  std::vector<bool> served;                            // by Kind - kBuiltinKindCount; guarded by mu
  std::vector<std::unique_ptr<Registered>> registered;  // every version ever; guarded by mu
  std::atomic<bool> any_registered{false};

  Table() {
    for (const KindInfo& info : kBuiltins) infos[static_cast<int>(info.kind)].store(&info, std::memory_order_relaxed);
  }
};

Table& Kinds() {
  static Table table;
  return table;
}

std::string_view GroupSegment(const KindInfo& info) { return info.group.empty() ? SV("core") : info.group; }

void SplitApiVersion(SV api_version, SV& group, SV& version) {
  group = {};
  version = api_version;
  if (auto slash = api_version.find('/'); slash != SV::npos) {
    group = api_version.substr(0, slash);
    version = api_version.substr(slash + 1);
  }
}

// Registered kinds served now, in order. REQUIRES: t.mu held (shared or unique).
template <typename F>
void ForEachServed(Table& t, F&& f) {
  for (int i = kBuiltinKindCount; i < t.count; ++i) {
    if (!t.served[i - kBuiltinKindCount]) continue;
    if (f(*t.infos[i].load(std::memory_order_relaxed))) return;
  }
}

}  // namespace

std::string KindInfo::ApiVersion() const {
  if (group.empty()) return std::string(version);
  std::string s(group);
  s += '/';
  s += version;
  return s;
}

std::string QualifiedKind(const KindInfo& info) {
  std::string s(info.name);
  if (!info.group.empty()) {
    s += '.';
    s += info.group;
  }
  return s;
}

const KindInfo& Info(Kind kind) { return *Kinds().infos[static_cast<int>(kind)].load(std::memory_order_acquire); }

std::vector<KindInfo> AllKinds() {
  std::vector<KindInfo> out(kBuiltins.begin(), kBuiltins.end());
  Table& t = Kinds();
  if (!t.any_registered.load(std::memory_order_acquire)) return out;
  std::shared_lock lock(t.mu);
  ForEachServed(t, [&](const KindInfo& info) {
    out.push_back(info);
    return false;
  });
  return out;
}

std::optional<Kind> KindFromApiVersion(std::string_view api_version, std::string_view kind) {
  SV group, version;
  SplitApiVersion(api_version, group, version);
  for (const auto& info : kBuiltins) {
    if (info.name == kind && info.group == group && info.version == version) return info.kind;
  }
  Table& t = Kinds();
  if (!t.any_registered.load(std::memory_order_acquire)) return std::nullopt;
  std::optional<Kind> found;
  std::shared_lock lock(t.mu);
  ForEachServed(t, [&](const KindInfo& info) {
    if (info.name == kind && info.group == group && info.version == version) found = info.kind;
    return found.has_value();
  });
  return found;
}

std::optional<Kind> KindFromResource(std::string_view group, std::string_view resource) {
  for (const auto& info : kBuiltins) {
    if (info.resource == resource && info.group == group) return info.kind;
  }
  Table& t = Kinds();
  if (!t.any_registered.load(std::memory_order_acquire)) return std::nullopt;
  std::optional<Kind> found;
  std::shared_lock lock(t.mu);
  ForEachServed(t, [&](const KindInfo& info) {
    if (info.resource == resource && info.group == group) found = info.kind;
    return found.has_value();
  });
  return found;
}

std::optional<Kind> KindFromResource(std::string_view group, std::string_view version, std::string_view resource) {
  for (const auto& info : kBuiltins) {
    if (info.resource == resource && info.group == group && info.version == version) return info.kind;
  }
  Table& t = Kinds();
  if (!t.any_registered.load(std::memory_order_acquire)) return std::nullopt;
  std::optional<Kind> found;
  std::shared_lock lock(t.mu);
  ForEachServed(t, [&](const KindInfo& info) {
    if (info.resource == resource && info.group == group && info.version == version) found = info.kind;
    return found.has_value();
  });
  return found;
}

Result<Kind> RegisterKind(const KindSpec& spec) {
  for (const auto& info : kBuiltins) {
    if (info.group == spec.group && (info.name == spec.name || info.resource == spec.resource)) {
      return Status::Invalid("the group and kind or resource of built-in " + std::string(info.name) +
                             " cannot be registered again");
    }
  }
  Table& t = Kinds();
  std::unique_lock lock(t.mu);
  int number = -1;
  for (int i = kBuiltinKindCount; i < t.count; ++i) {
    const KindInfo& info = *t.infos[i].load(std::memory_order_relaxed);
    if (info.group == spec.group && info.version == spec.version && info.name == spec.name) number = i;
  }
  if (number < 0) {
    if (t.count == kMaxKinds) return Status::Invalid("too many kinds registered");
    number = t.count++;
    t.served.push_back(true);
  }
  auto r = std::make_unique<Registered>();
  r->spec = spec;
  for (const auto& s : r->spec.short_names) r->short_views.push_back(s);
  for (const auto& c : r->spec.categories) r->category_views.push_back(c);
  r->info = KindInfo{static_cast<Kind>(number), r->spec.group,   r->spec.version,  r->spec.name,
                     r->spec.resource,          r->spec.singular, r->spec.namespaced, r->short_views,
                     r->category_views,         false,            r->spec.status,     r->spec.scale};
  t.infos[number].store(&r->info, std::memory_order_release);
  t.served[number - kBuiltinKindCount] = true;
  t.registered.push_back(std::move(r));
  t.any_registered.store(true, std::memory_order_release);
  return static_cast<Kind>(number);
}

void UnregisterKind(Kind kind) {
  if (IsBuiltin(kind)) return;
  Table& t = Kinds();
  std::unique_lock lock(t.mu);
  const int i = static_cast<int>(kind);
  if (i < t.count) t.served[i - kBuiltinKindCount] = false;
}

std::string StorageKey(Kind kind, std::string_view ns, std::string_view name) {
  std::string key = StoragePrefix(kind, ns);
  key += name;
  return key;
}

std::string StoragePrefix(Kind kind, std::string_view ns) {
  const KindInfo& info = Info(StorageKindOf(kind));
  std::string key = "/";
  key += GroupSegment(info);
  key += '/';
  key += info.resource;
  key += '/';
  if (!ns.empty() && info.namespaced) {
    key += ns;
    key += '/';
  }
  return key;
}

}  // namespace berth::api
