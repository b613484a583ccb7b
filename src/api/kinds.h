#pragma once
// The kinds berth serves: group/version/kind, REST resource name, scope,
// short names and categories, as Kubernetes defines them. The built-in kinds
// are fixed; kinds of custom resources are registered while the server runs
// (one per served version of a CustomResourceDefinition) and keep their
// number for the life of the process, so that objects decoded under them stay
// valid after the definition goes.
//
// Thread-safe. Info() is lock-free; looking a kind up by name reads the
// built-ins without a lock and registered kinds under a shared lock.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace berth::api {

enum class Kind : uint16_t {
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
  // core/v1
  kConfigMap,
  kSecret,
  kService,
  kEndpoints,
  kServiceAccount,
  kLimitRange,
  kResourceQuota,
  kPodTemplate,
  kReplicationController,
  // apps/v1, batch/v1, autoscaling/v2
  kStatefulSet,
  kDaemonSet,
  kControllerRevision,
  kJob,
  kCronJob,
  kHorizontalPodAutoscaler,
  // discovery, networking, rbac, node, storage, apiextensions
  kEndpointSlice,
  kIngress,
  kIngressClass,
  kNetworkPolicy,
  kRole,
  kClusterRole,
  kRoleBinding,
  kClusterRoleBinding,
  kRuntimeClass,
  kCSIDriver,
  kCSINode,
  kCSIStorageCapacity,
  kVolumeAttachment,
  kCustomResourceDefinition,
  // admissionregistration.k8s.io/v1, apiregistration.k8s.io/v1
  kMutatingWebhookConfiguration,
  kValidatingWebhookConfiguration,
  kAPIService,
  // Served over the objects of another kind (KindInfo::stored_as):
  // events.k8s.io/v1 Event over core/v1 Events, autoscaling/v1 over
  // autoscaling/v2 HorizontalPodAutoscalers.
  kEventsEvent,
  kHorizontalPodAutoscalerV1,
};
// The built-in kinds are 0 … kBuiltinKindCount-1; registered kinds follow.
inline constexpr int kBuiltinKindCount = 47;
// At most this many kinds in one process (built-in and registered).
inline constexpr int kMaxKinds = 4096;

struct KindInfo {
  Kind kind;
  std::string_view group;     // "" for the core group
  std::string_view version;   // "v1"
  std::string_view name;      // "Pod"
  std::string_view resource;  // "pods"
  std::string_view singular;  // "pod"
  bool namespaced;
  std::span<const std::string_view> short_names;
  std::span<const std::string_view> categories;  // "all" for what `kubectl get all` lists
  bool builtin = true;
  // The status and scale subresources (apiserver/registry/registry.h serves them).
  bool status = false;
  bool scale = false;
  // metadata.generation is set to 1 on create and bumped when spec changes
  // (kube's strategies for kinds whose controllers report observedGeneration).
  bool generation = false;
  // Only POST is served (pods' bindings): no get, list, watch or delete.
  bool create_only = false;
  // Where the kind's pod spec lives, dotted ("spec", "spec.template.spec",
  // "spec.jobTemplate.spec.template.spec"); empty: it has none.
  std::string_view pod_spec_path;
  // Another group or version of the objects of this kind, as kube serves
  // events.k8s.io Events over core ones: objects are stored (and keyed) as
  // this kind and converted on the way in and out (api/conversion.h).
  std::optional<Kind> stored_as;
  // "v1" or "apps/v1", as written in apiVersion.
  std::string ApiVersion() const;
};

// REQUIRES: `kind` is built in or was registered.
const KindInfo& Info(Kind kind);
// The kind with its group, as kube names it in messages ("Deployment.apps",
// "MyApp.example.com"; core kinds alone: "Pod").
std::string QualifiedKind(const KindInfo& info);
// Every kind served now: the built-ins, then registered kinds in order.
std::vector<KindInfo> AllKinds();
inline bool IsBuiltin(Kind kind) { return static_cast<int>(kind) < kBuiltinKindCount; }
// The kind whose objects `kind` serves: Info(kind).stored_as, else `kind`.
inline Kind StorageKindOf(Kind kind) { return Info(kind).stored_as.value_or(kind); }

// Looks a served kind up by apiVersion ("v1", "apps/v1") and kind name ("Pod").
std::optional<Kind> KindFromApiVersion(std::string_view api_version, std::string_view kind);
// Looks a served kind up by API group ("" for core) and plural resource name
// ("pods"); of a resource served in several versions, the first registered.
std::optional<Kind> KindFromResource(std::string_view group, std::string_view resource);
// As above, in one version.
std::optional<Kind> KindFromResource(std::string_view group, std::string_view version, std::string_view resource);

// A kind to register (a custom resource's served version).
struct KindSpec {
  std::string group, version, name, resource, singular;
  bool namespaced = true;
  std::vector<std::string> short_names, categories;
  bool status = false, scale = false;
};
// Serves `spec`'s kind: the number it had before when group, version and
// kind name were registered already (its names and scope updated), else a
// new one. Invalid when it names a built-in kind or resource, or when the
// process has kMaxKinds kinds.
Result<Kind> RegisterKind(const KindSpec& spec);
// Stops serving a registered kind: lookups by name miss it; Info(kind) still
// answers. No-op for built-in kinds.
void UnregisterKind(Kind kind);

// Store keys: "/<group|core>/<resource>/<namespace>/<name>" for namespaced kinds,
// "/<group|core>/<resource>/<name>" for cluster-scoped ones. Keys of one kind
// (and of one namespace) share a prefix, so a list is a prefix range; the
// versions of one resource share their keys, and a kind stored as another
// has that kind's keys.
std::string StorageKey(Kind kind, std::string_view ns, std::string_view name);
// The prefix of every key of `kind`, or of `kind` in namespace `ns` when ns is non-empty.
std::string StoragePrefix(Kind kind, std::string_view ns = {});

}  // namespace berth::api
