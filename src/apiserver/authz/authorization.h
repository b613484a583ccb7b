#pragma once
// Who may do what: kube-apiserver's authorization chain
// (--authorization-mode, a comma list tried in order; the first authorizer
// that allows or denies decides, none deciding denies) over the attributes
// kube's RequestInfoFactory derives from a request (verb, API group,
// resource, subresource, namespace, name, or a non-resource path).
//
// Modes: AlwaysAllow, AlwaysDeny and RBAC (apiserver/rbac/). kube's Node,
// ABAC and Webhook modes are not implemented and are refused by name.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"
#include "apiserver/authz/authentication.h"
#include "apiserver/http.h"

namespace berth::apiserver {

// kube's authorizer.AttributesRecord.
struct Attributes {
  UserInfo user;
  std::string
      verb;  // get list watch create update patch delete deletecollection, or a lower-case method
  bool resource_request = false;
  std::string group, version, resource, subresource, ns, name;  // resource requests
  std::string path;                                             // non-resource requests
};

enum class Decision { kAllow, kDeny, kNoOpinion };

struct Verdict {
  Decision decision = Decision::kNoOpinion;
  std::string reason;  // why (shown after the forbidden message when not empty)
};

// One authorizer of the chain. Thread-safe: Authorize runs on request threads.
class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Verdict Authorize(const Attributes& attributes) const = 0;
};

// The modes berth implements, as kube spells them.
inline constexpr std::string_view kModeAlwaysAllow = "AlwaysAllow";
inline constexpr std::string_view kModeAlwaysDeny = "AlwaysDeny";
inline constexpr std::string_view kModeRbac = "RBAC";

// Checks --authorization-mode's comma list: BadRequest naming an unknown
// mode, one berth lacks (Node, ABAC, Webhook) or a repeated one.
Result<std::vector<std::string>> ParseAuthorizationModes(std::string_view flag);

std::unique_ptr<Authorizer> MakeAlwaysAllow();
std::unique_ptr<Authorizer> MakeAlwaysDeny();
// Tries `chain` in order: the first Allow or Deny decides; otherwise
// NoOpinion with the reasons joined.
std::unique_ptr<Authorizer> MakeUnion(std::vector<std::unique_ptr<Authorizer>> chain);

// The request's attributes, as kube's RequestInfoFactory sees it: GET of a
// collection is list (watch with ?watch or a /watch/ path), DELETE of one
// deletecollection, a namespace's own requests are in that namespace, and a
// list or watch selecting metadata.name=X names X.
Attributes RequestAttributes(const Request& request, const UserInfo& user);

// kube's forbidden message: `User "alice" cannot create resource "pods" in
// API group "" in the namespace "default"` (or `at the cluster scope`, or
// `cannot get path "/metrics"`).
std::string ForbiddenMessage(const Attributes& attributes);
// The 403 Status kube answers a denied request with: `pods is forbidden: …`
// (`pods "web" is forbidden: …` with a name, `forbidden: …` for a path),
// then `: <reason>` when the authorizer gave one.
Response ForbiddenResponse(const Attributes& attributes, const std::string& reason);

}  // namespace berth::apiserver
