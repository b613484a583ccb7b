#include "api/codec/json_parse.h"
#include "apiserver/authz/rbac/rbac_authorizer.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

namespace berth::apiserver::rbac {

namespace json = boost::json;

Verdict RbacAuthorizer::Authorize(const Attributes& attributes) const {
  std::vector<std::string> errors;
  std::string allowed_by;
  index_.VisitRules(
      attributes.user, attributes.ns,
      [&](const std::string& source, const PolicyRule& rule) {
        if (!RuleAllows(attributes, rule)) return false;
        allowed_by = source;
        return true;
      },
      &errors);
  if (!allowed_by.empty()) return {Decision::kAllow, "RBAC: allowed by " + allowed_by};
  if (errors.empty()) return {Decision::kNoOpinion, ""};
  std::string reason = "RBAC: ";
  if (errors.size() == 1) return {Decision::kNoOpinion, reason + errors.front()};
  reason += "[";
  for (size_t i = 0; i < errors.size(); ++i) reason += (i ? ", " : "") + errors[i];
  return {Decision::kNoOpinion, reason + "]"};
}

namespace {

constexpr std::string_view kGroup = "rbac.authorization.k8s.io";

bool InGroup(const UserInfo& user, std::string_view group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

std::string QuotedList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? " \"" : "\"") + values[i] + "\"";
  return out + "]";
}

// kube's NewForbidden message for the object written.
Status Forbidden(const Attributes& request, std::string_view name, const std::string& why) {
  return Status(StatusCode::kForbidden, request.resource + "." + std::string(kGroup) + " \"" +
                                            std::string(name) + "\" is forbidden: " + why);
}

bool Allowed(const Authorizer& chain, const Attributes& request, std::string verb,
             std::string resource, std::string name) {
  Attributes a;
  a.user = request.user;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.group = std::string(kGroup);
  a.version = "*";
  a.resource = std::move(resource);
  a.ns = request.ns;
  a.name = std::move(name);
  return chain.Authorize(a).decision == Decision::kAllow;
}

// validation.ConfirmNoEscalation: the writer's rules in `ns` must cover `rules`.
Status ConfirmNoEscalation(const PolicyIndex& index, const Attributes& request,
                           std::string_view name, const std::vector<PolicyRule>& rules) {
  std::vector<std::string> errors;
  std::vector<PolicyRule> missing =
      Uncovered(index.RulesFor(request.user, request.ns, &errors), rules);
  if (missing.empty()) return Status::Ok();
  // validation.CompactRules: one line per group, resource and names, verbs merged.
  std::vector<PolicyRule> compact;
  for (PolicyRule& rule : missing) {
    auto same = std::find_if(compact.begin(), compact.end(), [&](const PolicyRule& c) {
      return rule.non_resource_urls.empty() && c.non_resource_urls.empty() &&
             c.api_groups == rule.api_groups && c.resources == rule.resources &&
             c.resource_names == rule.resource_names;
    });
    if (same == compact.end()) {
      compact.push_back(std::move(rule));
    } else if (std::find(same->verbs.begin(), same->verbs.end(), rule.verbs.front()) ==
               same->verbs.end()) {
      same->verbs.push_back(rule.verbs.front());
    }
  }
  std::set<std::string> lines;
  for (const PolicyRule& rule : compact) lines.insert(CompactString(rule));
  std::string message = "user \"" + request.user.name +
                        "\" (groups=" + QuotedList(request.user.groups) +
                        ") is attempting to grant RBAC permissions not currently held:";
  for (const std::string& line : lines) message += "\n" + line;
  if (!errors.empty()) {
    message += "; resolution errors: [";
    for (size_t i = 0; i < errors.size(); ++i) message += (i ? " " : "") + errors[i];
    message += "]";
  }
  return Forbidden(request, name, message);
}

}  // namespace

Status CheckEscalation(const PolicyIndex& index, const Authorizer& chain, const Attributes& request,
                       std::string_view body, std::string_view patch_type) {
  if (!request.resource_request || request.group != kGroup || !request.subresource.empty())
    return Status::Ok();
  const bool role = request.resource == "roles" || request.resource == "clusterroles";
  const bool binding =
      request.resource == "rolebindings" || request.resource == "clusterrolebindings";
  if ((!role && !binding) ||
      (request.verb != "create" && request.verb != "update" && request.verb != "patch")) {
    return Status::Ok();
  }
  // system:masters is what the API server's own loopback client uses: it may do anything.
  if (InGroup(request.user, "system:masters")) return Status::Ok();

  const bool patch = request.verb == "patch";
  const bool readable_patch = !patch || patch_type.starts_with("application/merge-patch+json") ||
                              patch_type.starts_with("application/strategic-merge-patch+json");
  boost::system::error_code ec;
  json::value parsed = readable_patch ? api::ParseJson(body, ec) : json::value();
  const json::object* object = !ec && parsed.is_object() ? &parsed.get_object() : nullptr;
  std::string name = request.name;
  if (object && name.empty()) {
    if (const json::value* meta = object->if_contains("metadata"); meta && meta->is_object()) {
      if (const json::value* n = meta->get_object().if_contains("name"); n && n->is_string())
        name = n->get_string();
    }
  }

  if (role) {
    if (Allowed(chain, request, "escalate", request.resource, name)) return Status::Ok();
    if (!object) {
      return Forbidden(
          request, name,
          "escalation checks cover create, update, merge and strategic merge patches: this write "
          "needs the escalate verb");
    }
    if (request.resource == "clusterroles" && object->contains("aggregationRule") &&
        !object->at("aggregationRule").is_null()) {
      return Forbidden(request, name,
                       "must have cluster-admin privileges to use the aggregationRule");
    }
    // A patch without rules leaves them as they are.
    if (patch && !object->contains("rules")) return Status::Ok();
    return ConfirmNoEscalation(index, request, name, RulesFromJson(object->if_contains("rules")));
  }

  // Bindings: the roleRef written, or (a patch) the one stored.
  std::string kind, role_name;
  if (object) {
    if (const json::value* ref = object->if_contains("roleRef"); ref && ref->is_object()) {
      const json::object& r = ref->get_object();
      if (auto* k = r.if_contains("kind"); k && k->is_string()) kind = k->get_string();
      if (auto* n = r.if_contains("name"); n && n->is_string()) role_name = n->get_string();
    }
  }
  if (patch && kind.empty()) {
    if (object && !object->contains("subjects")) return Status::Ok();
    if (auto stored = index.BindingRoleRef(request.ns, name)) std::tie(kind, role_name) = *stored;
  }
  if (kind.empty())
    return Status::Ok();  // nothing granted (validation refuses a binding without a roleRef)
  const std::string ref_resource = kind == "Role" ? "roles" : "clusterroles";
  if (Allowed(chain, request, "bind", ref_resource, role_name)) return Status::Ok();
  if (!object) {
    return Forbidden(
        request, name,
        "escalation checks cover create, update, merge and strategic merge patches: this write "
        "needs the bind verb");
  }
  auto rules = index.RoleRules(kind, request.ns, role_name);
  if (!rules.ok()) return Forbidden(request, name, rules.status().message());
  return ConfirmNoEscalation(index, request, name, rules.value());
}

}  // namespace berth::apiserver::rbac
