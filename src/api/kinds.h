#pragma once
// The registry of kinds berth serves: group/version/kind, REST resource name,
// scope and short names, as Kubernetes defines them.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace berth::api {

enum class Kind : unsigned char {
  kNamespace,
  kNode,
  kPod,
  kBinding,
  kEvent,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kReplicaSet,
  kDeployment,
  kStorageClass,
  kPriorityClass,
  kPodDisruptionBudget,
  kLease,
};
inline constexpr int kKindCount = 13;

struct KindInfo {
  Kind kind;
  std::string_view group;     // "" for the core group
  std::string_view version;   // "v1"
  std::string_view name;      // "Pod"
  std::string_view resource;  // "pods"
  std::string_view singular;  // "pod"
  bool namespaced;
  std::span<const std::string_view> short_names;
  // "v1" or "apps/v1", as written in apiVersion.
  std::string ApiVersion() const;
};

const KindInfo& Info(Kind kind);
std::span<const KindInfo> AllKinds();

// Looks a kind up by apiVersion ("v1", "apps/v1") and kind name ("Pod").
std::optional<Kind> KindFromApiVersion(std::string_view api_version, std::string_view kind);
// Looks a kind up by API group ("" for core) and plural resource name ("pods").
std::optional<Kind> KindFromResource(std::string_view group, std::string_view resource);

// Store keys: "/<group|core>/<resource>/<namespace>/<name>" for namespaced kinds,
// "/<group|core>/<resource>/<name>" for cluster-scoped ones. Keys of one kind
// (and of one namespace) share a prefix, so a list is a prefix range.
std::string StorageKey(Kind kind, std::string_view ns, std::string_view name);
// The prefix of every key of `kind`, or of `kind` in namespace `ns` when ns is non-empty.
std::string StoragePrefix(Kind kind, std::string_view ns = {});

}  // namespace berth::api
