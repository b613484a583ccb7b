#pragma once
// What a StatefulSet's pods and claims look like, by the rules of kube's
// pkg/controller/statefulset (stateful_set_utils.go): pure functions of the
// objects, so they are tested without a server.
//
// - Pod <set>-<ordinal>, labelled statefulset.kubernetes.io/pod-name,
//   apps.kubernetes.io/pod-index and controller-revision-hash; hostname the
//   pod's name and subdomain spec.serviceName (set at creation only).
// - Claim <template>-<set>-<ordinal> per volumeClaimTemplate, labelled with
//   the template's labels and the selector's matchLabels; the pod's volume
//   of the template's name refers to it.
// - persistentVolumeClaimRetentionPolicy as owner references on the claims
//   (kube's isClaimOwnerUpToDate / updateClaimOwnerRefForSetAndPod):
//   whenDeleted=Delete: the set is the claim's controller, so the garbage
//   collector deletes the claim with the set; whenScaled=Delete: a pod whose
//   ordinal left the range is the claim's controller instead, so the claim
//   goes with the pod.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"

namespace berth::controllers {

inline constexpr char kStatefulSetPodNameLabel[] = "statefulset.kubernetes.io/pod-name";
inline constexpr char kPodIndexLabel[] = "apps.kubernetes.io/pod-index";

// kube's getParentNameAndOrdinal: "<parent>-<digits>" → (parent, ordinal);
// ordinal -1 (and parent "") when the name is not of that form.
struct StatefulPodIdentity {
  std::string_view parent;
  int64_t ordinal = -1;
};
StatefulPodIdentity ParseStatefulPodName(std::string_view pod_name);

std::string StatefulPodName(std::string_view set_name, int64_t ordinal);
std::string StatefulClaimName(std::string_view template_name, std::string_view set_name,
                              int64_t ordinal);

// spec.replicas (default 1) and spec.ordinals.start (default 0).
int64_t SetReplicas(const api::Object& set);
int64_t StartOrdinal(const api::Object& set);
// Whether `ordinal` is in [start, start + replicas).
bool OrdinalInRange(const api::Object& set, int64_t ordinal);

// The pod for `ordinal` made from `pod_template` (a revision's template),
// owned by the set, labelled with `revision_hash` (kube's
// newStatefulSetPod + setPodRevision).
boost::json::object NewStatefulPod(const api::Object& set, const boost::json::object& pod_template,
                                   int64_t ordinal, std::string_view revision_hash);

// kube's identityMatches: name, namespace and the pod-name label agree with
// the pod's ordinal in this set.
bool IdentityMatches(const api::Object& set, const api::Object& pod);
// kube's storageMatches: every claim template has a volume of its name that
// refers to the pod's claim.
bool StorageMatches(const api::Object& set, const api::Object& pod);
// kube's updateIdentity and updateStorage, on a pod's JSON.
void UpdateIdentity(const api::Object& set, boost::json::object& pod);
void UpdateStorage(const api::Object& set, boost::json::object& pod);

// The claims of `ordinal`, in template order, each a PersistentVolumeClaim
// to create (name, namespace, labels; spec from the template).
std::vector<boost::json::object> StatefulClaims(const api::Object& set, int64_t ordinal);

// spec.persistentVolumeClaimRetentionPolicy (unknown values: Retain).
struct ClaimRetention {
  bool delete_when_deleted = false;
  bool delete_when_scaled = false;
};
ClaimRetention RetentionOf(const api::Object& set);

// Whether the claim's owner references agree with the policy for `pod`
// (claims with a stale reference to an earlier set or pod of the same name,
// or with another controller and none of ours, are left alone: true).
bool ClaimOwnerUpToDate(const api::Object& claim, const api::Object& set, const api::Object& pod);
// The claim's owner references as the policy wants them for `pod`.
boost::json::array ClaimOwnerReferences(const api::Object& claim, const api::Object& set,
                                        const api::Object& pod);

}  // namespace berth::controllers
