#include "apiserver/authz/authorization.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>

#include "api/selector.h"
#include "apiserver/api_server.h"
#include "apiserver/request_info.h"

namespace berth::apiserver {

namespace json = boost::json;

Result<std::vector<std::string>> ParseAuthorizationModes(std::string_view flag) {
  std::vector<std::string> modes;
  std::string_view rest = flag;
  while (true) {
    auto comma = rest.find(',');
    std::string mode(rest.substr(0, comma));
    if (!mode.empty()) modes.push_back(mode);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (modes.empty()) return Status::BadRequest("at least one authorization-mode must be passed");
  for (const std::string& mode : modes) {
    if (mode == "Node" || mode == "ABAC" || mode == "Webhook") {
      return Status::BadRequest(
          "authorization-mode \"" + mode +
          "\" is not supported by berth (supported: AlwaysAllow, AlwaysDeny, RBAC)");
    }
    if (mode != kModeAlwaysAllow && mode != kModeAlwaysDeny && mode != kModeRbac) {
      return Status::BadRequest("authorization-mode \"" + mode + "\" is not a valid mode");
    }
    if (std::count(modes.begin(), modes.end(), mode) > 1) {
      return Status::BadRequest("authorization-mode \"" + std::string(flag) +
                                "\" has mode specified more than once");
    }
  }
  return modes;
}

namespace {

class AlwaysAllow final : public Authorizer {
 public:
  Verdict Authorize(const Attributes&) const override { return {Decision::kAllow, ""}; }
};

class AlwaysDeny final : public Authorizer {
 public:
  Verdict Authorize(const Attributes&) const override {
    return {Decision::kDeny, "Everything is forbidden."};
  }
};

class Union final : public Authorizer {
 public:
  explicit Union(std::vector<std::unique_ptr<Authorizer>> chain) : chain_(std::move(chain)) {}
  Verdict Authorize(const Attributes& attributes) const override {
    std::string reasons;
    for (const auto& authorizer : chain_) {
      Verdict verdict = authorizer->Authorize(attributes);
      if (verdict.decision != Decision::kNoOpinion) return verdict;
      if (!verdict.reason.empty()) reasons += (reasons.empty() ? "" : "\n") + verdict.reason;
    }
    return {Decision::kNoOpinion, reasons};
  }

 private:
  std::vector<std::unique_ptr<Authorizer>> chain_;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::unique_ptr<Authorizer> MakeAlwaysAllow() { return std::make_unique<AlwaysAllow>(); }
std::unique_ptr<Authorizer> MakeAlwaysDeny() { return std::make_unique<AlwaysDeny>(); }
std::unique_ptr<Authorizer> MakeUnion(std::vector<std::unique_ptr<Authorizer>> chain) {
  return std::make_unique<Union>(std::move(chain));
}

Attributes RequestAttributes(const Request& request, const UserInfo& user) {
  Attributes a;
  a.user = user;
  auto info = ParseResourcePath(request.path);
  if (!info) {
    a.path = request.path;
    a.verb = Lower(request.method);
    return a;
  }
  a.resource_request = true;
  a.group = info->group;
  a.version = info->version;
  a.resource = info->resource;
  a.subresource = info->subresource;
  a.ns = info->ns;
  a.name = info->name;
  // A namespace's own requests (/api/v1/namespaces/NAME[/status]) are in it.
  if (a.group.empty() && a.resource == "namespaces" && !a.name.empty()) a.ns = a.name;
  const std::string& method = request.method;
  const bool watch = info->watch_path || request.QueryBool("watch");
  if (method == "GET" || method == "HEAD") {
    a.verb = watch ? "watch" : (a.name.empty() ? "list" : "get");
  } else if (method == "POST") {
    a.verb = "create";
  } else if (method == "PUT") {
    a.verb = "update";
  } else if (method == "PATCH") {
    a.verb = "patch";
  } else if (method == "DELETE") {
    a.verb = a.name.empty() ? "deletecollection" : "delete";
  } else {
    a.verb = Lower(method);
  }
  if ((a.verb == "list" || a.verb == "watch") && a.name.empty()) {
    if (auto selector = request.Query("fieldSelector")) {
      auto parsed = api::FieldSelector::Parse(*selector);
      if (parsed.ok()) {
        for (const auto& r : parsed->requirements()) {
          if (r.field == "metadata.name" && r.equals) a.name = r.value;
        }
      }
    }
  }
  return a;
}

std::string ForbiddenMessage(const Attributes& a) {
  const std::string user = "User \"" + a.user.name + "\"";
  if (!a.resource_request) return user + " cannot " + a.verb + " path \"" + a.path + "\"";
  std::string resource = a.resource;
  if (!a.subresource.empty()) resource += "/" + a.subresource;
  std::string message = user + " cannot " + a.verb + " resource \"" + resource +
                        "\" in API group \"" + a.group + "\"";
  if (!a.ns.empty()) return message + " in the namespace \"" + a.ns + "\"";
  return message + " at the cluster scope";
}

Response ForbiddenResponse(const Attributes& a, const std::string& reason) {
  std::string cause = ForbiddenMessage(a);
  if (!reason.empty()) cause += ": " + reason;
  std::string message;
  StatusDetails details;
  if (!a.resource_request || a.resource.empty()) {
    message = "forbidden: " + cause;
  } else {
    std::string qualified = a.group.empty() ? a.resource : a.resource + "." + a.group;
    message = a.name.empty() ? qualified + " is forbidden: " + cause
                             : qualified + " \"" + a.name + "\" is forbidden: " + cause;
    details = StatusDetails{a.name, a.group, a.resource};
  }
  Response response = ErrorResponse(Status(StatusCode::kForbidden, message), details);
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  return response;
}

}  // namespace berth::apiserver
