#include "apiserver/authz/rbac/policy_rule.h"

#include <algorithm>
#include <boost/json.hpp>

namespace berth::apiserver::rbac {

namespace json = boost::json;

namespace {

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (!v || !v->is_array()) return out;
  for (const auto& item : v->get_array()) {
    if (item.is_string()) out.emplace_back(item.get_string());
  }
  return out;
}

json::array ToArray(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

bool Has(const std::vector<std::string>& set, std::string_view value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

bool HasAll(const std::vector<std::string>& set, const std::vector<std::string>& values) {
  return std::all_of(values.begin(), values.end(),
                     [&](const std::string& v) { return Has(set, v); });
}

bool VerbMatches(const PolicyRule& rule, std::string_view verb) {
  return Has(rule.verbs, "*") || Has(rule.verbs, verb);
}

bool GroupMatches(const PolicyRule& rule, std::string_view group) {
  return Has(rule.api_groups, "*") || Has(rule.api_groups, group);
}

bool ResourceMatches(const PolicyRule& rule, const std::string& combined,
                     std::string_view subresource) {
  for (const std::string& r : rule.resources) {
    if (r == "*" || r == combined) return true;
    // "*/scale" matches the scale subresource of every resource.
    if (!subresource.empty() && r.size() == subresource.size() + 2 && r.starts_with("*/") &&
        std::string_view(r).substr(2) == subresource) {
      return true;
    }
  }
  return false;
}

bool NameMatches(const PolicyRule& rule, std::string_view name) {
  return rule.resource_names.empty() || Has(rule.resource_names, name);
}

bool UrlMatches(const std::string& pattern, std::string_view path) {
  if (pattern == "*" || pattern == path) return true;
  return pattern.ends_with('*') &&
         path.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1));
}

// validation.resourceCoversAll: exact names, "*", or "*/sub" for "res/sub".
bool ResourcesCover(const std::vector<std::string>& owner,
                    const std::vector<std::string>& servant) {
  if (Has(owner, "*") || HasAll(owner, servant)) return true;
  for (const std::string& path : servant) {
    if (Has(owner, path)) continue;
    auto slash = path.find('/');
    if (slash == std::string::npos) return false;
    if (!Has(owner, "*/" + path.substr(slash + 1))) return false;
  }
  return true;
}

bool UrlsCover(const std::vector<std::string>& owner, const std::vector<std::string>& servant) {
  return std::all_of(servant.begin(), servant.end(), [&](const std::string& url) {
    return std::any_of(owner.begin(), owner.end(), [&](const std::string& o) {
      return o == url ||
             (o.ends_with('*') && url.starts_with(std::string_view(o).substr(0, o.size() - 1)));
    });
  });
}

bool RuleCovers(const PolicyRule& owner, const PolicyRule& servant) {
  const bool verbs = Has(owner.verbs, "*") || HasAll(owner.verbs, servant.verbs);
  const bool groups = Has(owner.api_groups, "*") || HasAll(owner.api_groups, servant.api_groups);
  const bool names =
      servant.resource_names.empty()
          ? owner.resource_names.empty()
          : owner.resource_names.empty() || HasAll(owner.resource_names, servant.resource_names);
  return verbs && groups && names && ResourcesCover(owner.resources, servant.resources) &&
         UrlsCover(owner.non_resource_urls, servant.non_resource_urls);
}

// validation.BreakdownRule: one rule per verb × group × resource (× name), and per verb × URL.
std::vector<PolicyRule> Breakdown(const PolicyRule& rule) {
  std::vector<PolicyRule> out;
  for (const auto& group : rule.api_groups) {
    for (const auto& resource : rule.resources) {
      for (const auto& verb : rule.verbs) {
        if (rule.resource_names.empty()) {
          out.push_back(PolicyRule{{verb}, {group}, {resource}, {}, {}});
        } else {
          for (const auto& name : rule.resource_names)
            out.push_back(PolicyRule{{verb}, {group}, {resource}, {name}, {}});
        }
      }
    }
  }
  for (const auto& url : rule.non_resource_urls) {
    for (const auto& verb : rule.verbs) out.push_back(PolicyRule{{verb}, {}, {}, {}, {url}});
  }
  return out;
}

}  // namespace

std::vector<PolicyRule> RulesFromJson(const json::value* rules) {
  std::vector<PolicyRule> out;
  if (!rules || !rules->is_array()) return out;
  for (const auto& item : rules->get_array()) {
    if (!item.is_object()) continue;
    const json::object& o = item.get_object();
    out.push_back(PolicyRule{Strings(o, "verbs"), Strings(o, "apiGroups"), Strings(o, "resources"),
                             Strings(o, "resourceNames"), Strings(o, "nonResourceURLs")});
  }
  return out;
}

json::array RulesToJson(const std::vector<PolicyRule>& rules) {
  json::array out;
  for (const PolicyRule& r : rules) {
    json::object o;
    o["verbs"] = ToArray(r.verbs);
    if (!r.api_groups.empty()) o["apiGroups"] = ToArray(r.api_groups);
    if (!r.resources.empty()) o["resources"] = ToArray(r.resources);
    if (!r.resource_names.empty()) o["resourceNames"] = ToArray(r.resource_names);
    if (!r.non_resource_urls.empty()) o["nonResourceURLs"] = ToArray(r.non_resource_urls);
    out.emplace_back(std::move(o));
  }
  return out;
}

std::vector<Subject> SubjectsFromJson(const json::value* subjects) {
  std::vector<Subject> out;
  if (!subjects || !subjects->is_array()) return out;
  for (const auto& item : subjects->get_array()) {
    if (!item.is_object()) continue;
    const json::object& o = item.get_object();
    Subject s;
    if (auto* v = o.if_contains("kind"); v && v->is_string()) s.kind = v->get_string();
    if (auto* v = o.if_contains("name"); v && v->is_string()) s.name = v->get_string();
    if (auto* v = o.if_contains("namespace"); v && v->is_string()) s.ns = v->get_string();
    out.push_back(std::move(s));
  }
  return out;
}

bool RuleAllows(const Attributes& a, const PolicyRule& rule) {
  if (!VerbMatches(rule, a.verb)) return false;
  if (!a.resource_request) {
    return std::any_of(rule.non_resource_urls.begin(), rule.non_resource_urls.end(),
                       [&](const std::string& url) { return UrlMatches(url, a.path); });
  }
  std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  return GroupMatches(rule, a.group) && ResourceMatches(rule, combined, a.subresource) &&
         NameMatches(rule, a.name);
}

bool SubjectMatches(const Subject& subject, const UserInfo& user,
                    std::string_view binding_namespace) {
  if (subject.kind == "User") return subject.name == user.name;
  if (subject.kind == "Group") return Has(user.groups, subject.name);
  if (subject.kind == "ServiceAccount") {
    std::string ns = subject.ns.empty() ? std::string(binding_namespace) : subject.ns;
    if (ns.empty() || subject.name.empty()) return false;
    return user.name == "system:serviceaccount:" + ns + ":" + subject.name;
  }
  return false;
}

std::vector<PolicyRule> Uncovered(const std::vector<PolicyRule>& owner,
                                  const std::vector<PolicyRule>& servant) {
  std::vector<PolicyRule> missing;
  for (const PolicyRule& rule : servant) {
    for (PolicyRule& part : Breakdown(rule)) {
      bool covered = std::any_of(owner.begin(), owner.end(),
                                 [&](const PolicyRule& o) { return RuleCovers(o, part); });
      if (!covered) missing.push_back(std::move(part));
    }
  }
  return missing;
}

std::string CompactString(const PolicyRule& rule) {
  std::string out = "{";
  auto field = [&](std::string_view name, const std::vector<std::string>& values) {
    if (values.empty()) return;
    if (out.size() > 1) out += ", ";
    out += std::string(name) + ":[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? " \"" : "\"") + values[i] + "\"";
    out += "]";
  };
  field("APIGroups", rule.api_groups);
  field("Resources", rule.resources);
  field("ResourceNames", rule.resource_names);
  field("NonResourceURLs", rule.non_resource_urls);
  field("Verbs", rule.verbs);
  return out + "}";
}

}  // namespace berth::apiserver::rbac
