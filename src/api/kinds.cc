#include "api/kinds.h"

#include <array>

namespace berth::api {
namespace {

constexpr std::string_view kNsShort[] = {"ns"};
constexpr std::string_view kNoShort[] = {"no"};
constexpr std::string_view kPoShort[] = {"po"};
constexpr std::string_view kEvShort[] = {"ev"};
constexpr std::string_view kPvShort[] = {"pv"};
constexpr std::string_view kPvcShort[] = {"pvc"};
constexpr std::string_view kRsShort[] = {"rs"};
constexpr std::string_view kDeployShort[] = {"deploy"};
constexpr std::string_view kScShort[] = {"sc"};
constexpr std::string_view kPcShort[] = {"pc"};
constexpr std::string_view kPdbShort[] = {"pdb"};

const std::array<KindInfo, kKindCount> kKinds = {{
    {Kind::kNamespace, "", "v1", "Namespace", "namespaces", "namespace", false, kNsShort},
    {Kind::kNode, "", "v1", "Node", "nodes", "node", false, kNoShort},
    {Kind::kPod, "", "v1", "Pod", "pods", "pod", true, kPoShort},
    {Kind::kBinding, "", "v1", "Binding", "bindings", "binding", true, {}},
    {Kind::kEvent, "", "v1", "Event", "events", "event", true, kEvShort},
    {Kind::kPersistentVolume, "", "v1", "PersistentVolume", "persistentvolumes",
     "persistentvolume", false, kPvShort},
    {Kind::kPersistentVolumeClaim, "", "v1", "PersistentVolumeClaim", "persistentvolumeclaims",
     "persistentvolumeclaim", true, kPvcShort},
    {Kind::kReplicaSet, "apps", "v1", "ReplicaSet", "replicasets", "replicaset", true, kRsShort},
    {Kind::kDeployment, "apps", "v1", "Deployment", "deployments", "deployment", true,
     kDeployShort},
    {Kind::kStorageClass, "storage.k8s.io", "v1", "StorageClass", "storageclasses",
     "storageclass", false, kScShort},
    {Kind::kPriorityClass, "scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses",
     "priorityclass", false, kPcShort},
    {Kind::kPodDisruptionBudget, "policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets",
     "poddisruptionbudget", true, kPdbShort},
    {Kind::kLease, "coordination.k8s.io", "v1", "Lease", "leases", "lease", true, {}},
}};

std::string_view GroupSegment(const KindInfo& info) {
  return info.group.empty() ? std::string_view("core") : info.group;
}

}  // namespace

std::string KindInfo::ApiVersion() const {
  if (group.empty()) return std::string(version);
  std::string s(group);
  s += '/';
  s += version;
  return s;
}

const KindInfo& Info(Kind kind) { return kKinds[static_cast<int>(kind)]; }
std::span<const KindInfo> AllKinds() { return kKinds; }

std::optional<Kind> KindFromApiVersion(std::string_view api_version, std::string_view kind) {
  std::string_view group, version = api_version;
  if (auto slash = api_version.find('/'); slash != std::string_view::npos) {
    group = api_version.substr(0, slash);
    version = api_version.substr(slash + 1);
  }
  for (const auto& info : kKinds) {
    if (info.name == kind && info.group == group && info.version == version) return info.kind;
  }
  return std::nullopt;
}

std::optional<Kind> KindFromResource(std::string_view group, std::string_view resource) {
  for (const auto& info : kKinds) {
    if (info.resource == resource && info.group == group) return info.kind;
  }
  return std::nullopt;
}

std::string StorageKey(Kind kind, std::string_view ns, std::string_view name) {
  std::string key = StoragePrefix(kind, ns);
  key += name;
  return key;
}

std::string StoragePrefix(Kind kind, std::string_view ns) {
  const KindInfo& info = Info(kind);
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
