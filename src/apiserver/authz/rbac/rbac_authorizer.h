#pragma once
// kube's RBAC authorizer over a PolicyIndex, and the escalation check kube's
// RBAC storage makes on writes of Roles, ClusterRoles and their bindings.

#include <boost/json/fwd.hpp>

#include "apiserver/authz/authorization.h"
#include "apiserver/authz/rbac/policy_index.h"

namespace berth::apiserver::rbac {

// Allows a request when a rule bound to its user (directly, through a
// group, or as a service account) allows it; otherwise NoOpinion, with the
// reason `RBAC: <errors>` when a binding's role is missing. An allowed
// verdict's reason names the binding: `RBAC: allowed by ClusterRoleBinding
// "x" of ClusterRole "y" to User "z"`.
class RbacAuthorizer final : public Authorizer {
 public:
  explicit RbacAuthorizer(const PolicyIndex& index) : index_(index) {}
  Verdict Authorize(const Attributes& attributes) const override;

 private:
  const PolicyIndex& index_;
};

// The write of a Role, ClusterRole, RoleBinding or ClusterRoleBinding that
// `request` makes (create and update with `body` the new object; patch with
// `body` the patch, `patch_type` its content type), checked as kube's RBAC
// storage does: allowed for system:masters, for a writer `chain` allows to
// `escalate` the role (`bind` the referred role), or when the writer holds
// every permission the object grants (in the object's namespace). Forbidden
// with kube's message ("user "alice" (groups=[…]) is attempting to grant
// RBAC permissions not currently held: …") otherwise. Ok for every other
// request.
//
// Partial: a JSON patch or server-side apply of these kinds is not
// evaluated; it needs escalate (roles) or bind (bindings).
Status CheckEscalation(const PolicyIndex& index, const Authorizer& chain, const Attributes& request,
                       std::string_view body, std::string_view patch_type);

}  // namespace berth::apiserver::rbac
