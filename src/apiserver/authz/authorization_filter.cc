#include "apiserver/authz/authorization_filter.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apiserver/api_server.h"
#include "apiserver/authz/rbac/policy_index.h"
#include "apiserver/authz/rbac/rbac_authorizer.h"
#include "apiserver/schema/protobuf.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube-apiserver puts this in front of the configured chain: members of
// system:masters (its own loopback client among them) may do anything.
class PrivilegedGroup final : public Authorizer {
 public:
  Verdict Authorize(const Attributes& a) const override {
    const auto& groups = a.user.groups;
    if (std::find(groups.begin(), groups.end(), "system:masters") != groups.end())
      return {Decision::kAllow, ""};
    return {Decision::kNoOpinion, ""};
  }
};

// 127.0.0.0/8, ::1 and IPv4-mapped loopback; an empty address is an
// in-process or test caller without a socket.
bool LoopbackPeer(std::string_view address) {
  if (address.empty() || address == "::1") return true;
  if (address.starts_with("::ffff:")) address.remove_prefix(7);
  return address.starts_with("127.");
}

bool PublicInfoPath(std::string_view path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz" || path == "/version" ||
         path == "/version/";
}

}  // namespace

AccessControl::AccessControl(store::Store& store, AccessOptions options)
    : store_(store), options_(std::move(options)), index_(std::make_unique<rbac::PolicyIndex>(store)) {
  std::vector<std::unique_ptr<Authorizer>> chain;
  chain.push_back(std::make_unique<PrivilegedGroup>());
  for (const std::string& mode : options_.authorization_modes) {
    if (mode == kModeAlwaysAllow) {
      chain.push_back(MakeAlwaysAllow());
    } else if (mode == kModeAlwaysDeny) {
      chain.push_back(MakeAlwaysDeny());
    } else if (mode == kModeRbac) {
      rbac_ = true;
      chain.push_back(std::make_unique<rbac::RbacAuthorizer>(*index_));
    }
  }
  authorizer_ = MakeUnion(std::move(chain));
}

AccessControl::~AccessControl() { index_->Stop(); }

Status AccessControl::Start() { return index_->Start(); }

std::optional<Result<UserInfo>> AccessControl::ServiceAccountUser(const Request& request) const {
  if (!options_.service_account_tokens) return std::nullopt;
  std::string_view token = BearerToken(request);
  if (token.empty()) return std::nullopt;
  return AuthenticateServiceAccount(token, *options_.service_account_tokens, store_);
}

bool AccessControl::HasMode(std::string_view mode) const {
  const auto& modes = options_.authorization_modes;
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

std::optional<Response> AccessControl::Admit(const Request& request, UserInfo& user) const {
  if (request.trusted) {
    user = UserInfo{request.trusted_user.empty() ? "system:apiserver" : request.trusted_user,
                    "",
                    {std::string(kAuthenticatedGroup)}};
    if (user.name != "system:kube-scheduler") return std::nullopt;
  } else if (auto account = ServiceAccountUser(request)) {
    if (!account->ok()) return ErrorResponse(Status(StatusCode::kUnauthorized, "Unauthorized"));
    user = std::move(*account).value();
  } else if (!Authenticating()) {
    user = AnonymousUser();
  } else if (auto found = Authenticate(request, options_.tokens, options_.client_certificates)) {
    user = std::move(*found);
  } else {
    // Credentials nobody knows are refused, as kube does, whatever the path.
    if (HasCredentials(request))
      return ErrorResponse(Status(StatusCode::kUnauthorized, "Unauthorized"));
    user = AnonymousUser();
    if (!options_.anonymous_auth || HasMode(kModeAlwaysAllow) || !LoopbackPeer(request.remote_address)) {
      // Health and version stay open, as kube's system:public-info-viewer leaves them.
      if (PublicInfoPath(request.path)) return std::nullopt;
      return ErrorResponse(Status(StatusCode::kUnauthorized, "Unauthorized"));
    }
  }
  Attributes attributes = RequestAttributes(request, user);
  Verdict verdict = authorizer_->Authorize(attributes);
  if (verdict.decision != Decision::kAllow) return ForbiddenResponse(attributes, verdict.reason);
  if (rbac_) {
    // kubectl create role|rolebinding|clusterrole|clusterrolebinding sends protobuf.
    std::string decoded;
    if (request.content_type.starts_with(kProtobufContentType) &&
        attributes.group == "rbac.authorization.k8s.io") {
      if (auto kind = api::KindFromResource(attributes.group, attributes.resource)) {
        if (auto value = DecodeProtobuf(request.body, *kind); value.ok())
          decoded = json::serialize(value.value());
      }
    }
    Status escalation =
        rbac::CheckEscalation(*index_, *authorizer_, attributes,
                              decoded.empty() ? request.body : decoded, request.content_type);
    if (!escalation.ok()) {
      return ErrorResponse(escalation,
                           StatusDetails{attributes.name, attributes.group, attributes.resource});
    }
  }
  return std::nullopt;
}

}  // namespace berth::apiserver
