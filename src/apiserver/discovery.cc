#include "apiserver/discovery.h"

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/kinds.h"
#include "apiserver/authz/authorization_filter.h"
#include "apiserver/registry/registry.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

json::array Verbs(const api::KindInfo& info) {
  if (info.create_only) return json::array{"create"};
  return json::array{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

json::array ToArray(std::span<const std::string_view> items) {
  json::array a;
  for (auto s : items) a.emplace_back(json::string(s));
  return a;
}

json::array ToArray(const std::vector<std::string>& items) {
  json::array a;
  for (const auto& s : items) a.emplace_back(json::string(s));
  return a;
}

// Resources answered by handlers of their own, not by a kind's strategy:
// AccessControl's reviews (create) and componentstatuses (get, list).
struct HandledResource {
  std::string_view group, version, kind, resource, singular;
  bool namespaced;
  std::vector<std::string_view> verbs;
  std::vector<std::string_view> short_names;
};

const std::vector<HandledResource>& HandledResources() {
  static const std::vector<HandledResource> resources = [] {
    std::vector<HandledResource> all;
    all.push_back({"", "v1", "ComponentStatus", "componentstatuses", "componentstatus", false, {"get", "list"}, {"cs"}});
    for (const auto& r : ReviewResources()) {
      all.push_back({r.group, r.version, r.kind, r.resource, r.singular, r.namespaced, {"create"}, {}});
    }
    return all;
  }();
  return resources;
}

// The groups berth serves, core ("") first, in registry order, then those
// only handled resources are in.
std::vector<std::string_view> Groups() {
  std::vector<std::string_view> groups;
  auto add = [&](std::string_view group) {
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
  };
  for (const auto& info : api::AllKinds()) add(info.group);
  for (const auto& handled : HandledResources()) add(handled.group);
  return groups;
}

// The handled resources of `group` and `version`.
std::vector<const HandledResource*> HandledOf(std::string_view group, std::string_view version) {
  std::vector<const HandledResource*> out;
  for (const auto& handled : HandledResources()) {
    if (handled.group == group && handled.version == version) out.push_back(&handled);
  }
  return out;
}

json::object AggregatedResource(const ResourceRegistry& registry, const api::KindInfo& info) {
  json::object r;
  r["resource"] = info.resource;
  r["responseKind"] = json::object{{"group", info.group}, {"version", info.version}, {"kind", info.name}};
  r["scope"] = info.namespaced ? "Namespaced" : "Cluster";
  r["singularResource"] = info.singular;
  r["verbs"] = Verbs(info);
  if (!info.short_names.empty()) r["shortNames"] = ToArray(info.short_names);
  if (!info.categories.empty()) r["categories"] = ToArray(info.categories);
  json::array subs;
  for (const Subresource* subresource : registry.ListedSubresources(info.kind)) {
    const Subresource::Description& s = subresource->description();
    json::object sub;
    sub["subresource"] = s.name;
    sub["responseKind"] = json::object{{"group", s.group}, {"version", s.version}, {"kind", s.kind}};
    sub["verbs"] = ToArray(s.verbs);
    subs.push_back(std::move(sub));
  }
  if (!subs.empty()) r["subresources"] = std::move(subs);
  return r;
}

// kube's version priority: GA before beta before alpha, higher numbers
// first within each ("v2" > "v1" > "v1beta2" > "v1beta1" > "v1alpha1"),
// then versions of other forms in alphabetical order.
bool HigherPriority(std::string_view a, std::string_view b) {
  struct Parsed {
    bool kube = false;
    int major = 0, stage = 0, minor = 0;  // stage: 2 GA, 1 beta, 0 alpha
  };
  auto parse = [](std::string_view v) {
    Parsed p;
    if (v.size() < 2 || v[0] != 'v' || v[1] < '1' || v[1] > '9') return p;
    size_t i = 1;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) p.major = p.major * 10 + (v[i++] - '0');
    std::string_view rest = v.substr(i);
    if (rest.empty()) {
      p.stage = 2;
    } else if (rest.starts_with("beta") || rest.starts_with("alpha")) {
      p.stage = rest.starts_with("beta") ? 1 : 0;
      rest.remove_prefix(p.stage == 1 ? 4 : 5);
      if (rest.empty()) return p;
      for (char c : rest) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return p;
        p.minor = p.minor * 10 + (c - '0');
      }
    } else {
      return p;
    }
    p.kube = true;
    return p;
  };
  Parsed pa = parse(a), pb = parse(b);
  if (pa.kube != pb.kube) return pa.kube;
  if (!pa.kube) return a < b;
  if (pa.stage != pb.stage) return pa.stage > pb.stage;
  if (pa.major != pb.major) return pa.major > pb.major;
  return pa.minor > pb.minor;
}

// The versions `group` is served in, preferred first.
std::vector<std::string_view> VersionsOf(std::string_view group, const std::vector<api::KindInfo>& kinds) {
  std::vector<std::string_view> versions;
  auto add = [&](std::string_view version) {
    if (std::find(versions.begin(), versions.end(), version) == versions.end()) versions.push_back(version);
  };
  for (const auto& info : kinds) {
    if (info.group == group) add(info.version);
  }
  for (const auto& handled : HandledResources()) {
    if (handled.group == group) add(handled.version);
  }
  std::stable_sort(versions.begin(), versions.end(), HigherPriority);
  return versions;
}

json::object AggregatedGroup(const ResourceRegistry& registry, std::string_view group) {
  std::vector<api::KindInfo> kinds = api::AllKinds();
  json::array versions;
  for (std::string_view version : VersionsOf(group, kinds)) {
    json::array resources;
    for (const auto& info : kinds) {
      if (info.group == group && info.version == version) resources.push_back(AggregatedResource(registry, info));
    }
    for (const HandledResource* handled : HandledOf(group, version)) {
      json::object r{
          {"resource", handled->resource},
          {"responseKind", json::object{{"group", handled->group}, {"version", handled->version}, {"kind", handled->kind}}},
          {"scope", handled->namespaced ? "Namespaced" : "Cluster"},
          {"singularResource", handled->singular},
          {"verbs", ToArray(handled->verbs)}};
      if (!handled->short_names.empty()) r["shortNames"] = ToArray(handled->short_names);
      resources.push_back(std::move(r));
    }
    versions.push_back(json::object{{"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
  }
  json::object g;
  g["metadata"] = json::object{{"name", group}};
  g["versions"] = std::move(versions);
  return g;
}

json::object AggregatedList(DiscoveryFormat format, json::array items) {
  json::object o;
  o["kind"] = "APIGroupDiscoveryList";
  o["apiVersion"] = format == DiscoveryFormat::kAggregatedV2Beta1 ? "apidiscovery.k8s.io/v2beta1"
                                                                   : "apidiscovery.k8s.io/v2";
  o["metadata"] = json::object();
  o["items"] = std::move(items);
  return o;
}

std::string GroupVersion(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

json::object LegacyGroup(std::string_view group) {
  json::array versions;
  for (std::string_view version : VersionsOf(group, api::AllKinds())) {
    versions.push_back(json::object{{"groupVersion", GroupVersion(group, version)}, {"version", version}});
  }
  json::object g;
  g["name"] = group;
  g["preferredVersion"] = versions.empty() ? json::value(nullptr) : versions.front();
  g["versions"] = std::move(versions);
  return g;
}

// The aggregated group versions of groups served nowhere here, by group, in
// the order given.
std::vector<std::pair<std::string, std::vector<std::string>>> AggregatedGroups(
    const std::vector<AggregatedVersion>& aggregated) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  const auto local = Groups();
  for (const auto& a : aggregated) {
    if (std::find(local.begin(), local.end(), a.group) != local.end()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == a.group; });
    if (it == groups.end()) it = groups.insert(groups.end(), {a.group, {}});
    it->second.push_back(a.version);
  }
  return groups;
}

json::object LegacyAggregatedGroup(const std::string& group, const std::vector<std::string>& versions) {
  json::array listed;
  for (const auto& v : versions) listed.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
  json::object g;
  g["name"] = group;
  g["preferredVersion"] = listed.front();
  g["versions"] = std::move(listed);
  return g;
}

}  // namespace

DiscoveryFormat NegotiateDiscovery(std::string_view accept) {
  // The first acceptable type in the client's list wins.
  size_t pos = 0;
  while (pos <= accept.size()) {
    size_t comma = accept.find(',', pos);
    std::string_view part = accept.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    bool aggregated = part.find("as=APIGroupDiscoveryList") != std::string_view::npos &&
                      part.find("g=apidiscovery.k8s.io") != std::string_view::npos;
    if (aggregated && part.find("v=v2beta1") != std::string_view::npos) return DiscoveryFormat::kAggregatedV2Beta1;
    if (aggregated && part.find("v=v2") != std::string_view::npos) return DiscoveryFormat::kAggregatedV2;
    if (!aggregated && (part.find("application/json") != std::string_view::npos || part.find("*/*") != std::string_view::npos)) {
      return DiscoveryFormat::kLegacy;
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return DiscoveryFormat::kLegacy;
}

std::string_view DiscoveryContentType(DiscoveryFormat format) {
  switch (format) {
    case DiscoveryFormat::kAggregatedV2:
      return "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
    case DiscoveryFormat::kAggregatedV2Beta1:
      return "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
    case DiscoveryFormat::kLegacy:
      break;
  }
  return "application/json";
}

json::object CoreDiscovery(const ResourceRegistry& registry, DiscoveryFormat format, std::string_view server_address) {
  if (format != DiscoveryFormat::kLegacy) return AggregatedList(format, json::array{AggregatedGroup(registry, "")});
  json::object o;
  o["kind"] = "APIVersions";
  o["versions"] = json::array{"v1"};
  o["serverAddressByClientCIDRs"] =
      json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}};
  return o;
}

json::object GroupsDiscovery(const ResourceRegistry& registry, DiscoveryFormat format,
                             const std::vector<AggregatedVersion>& aggregated) {
  const auto others = AggregatedGroups(aggregated);
  if (format != DiscoveryFormat::kLegacy) {
    json::array items;
    for (auto group : Groups()) {
      if (!group.empty()) items.push_back(AggregatedGroup(registry, group));
    }
    for (const auto& [group, versions] : others) {
      json::array listed;
      for (const auto& v : versions) {
        listed.push_back(json::object{{"version", v}, {"resources", json::array()}, {"freshness", "Stale"}});
      }
      items.push_back(json::object{{"metadata", json::object{{"name", group}}}, {"versions", std::move(listed)}});
    }
    return AggregatedList(format, std::move(items));
  }
  json::array groups;
  for (auto group : Groups()) {
    if (!group.empty()) groups.push_back(LegacyGroup(group));
  }
  for (const auto& [group, versions] : others) groups.push_back(LegacyAggregatedGroup(group, versions));
  return json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
}

std::optional<json::object> ApiGroup(std::string_view group, const std::vector<AggregatedVersion>& aggregated) {
  auto groups = Groups();
  json::object g;
  if (group.empty()) return std::nullopt;
  if (std::find(groups.begin(), groups.end(), group) != groups.end()) {
    g = LegacyGroup(group);
  } else {
    const auto others = AggregatedGroups(aggregated);
    auto it = std::find_if(others.begin(), others.end(), [&](const auto& o) { return o.first == group; });
    if (it == others.end()) return std::nullopt;
    g = LegacyAggregatedGroup(it->first, it->second);
  }
  g["kind"] = "APIGroup";
  g["apiVersion"] = "v1";
  return g;
}

std::optional<json::object> ResourceList(const ResourceRegistry& registry, std::string_view group,
                                         std::string_view version) {
  json::array resources;
  for (const auto& info : api::AllKinds()) {
    if (info.group != group || info.version != version) continue;
    json::object r;
    r["name"] = info.resource;
    r["singularName"] = info.singular;
    r["namespaced"] = info.namespaced;
    r["kind"] = info.name;
    r["verbs"] = Verbs(info);
    if (!info.short_names.empty()) r["shortNames"] = ToArray(info.short_names);
    if (!info.categories.empty()) r["categories"] = ToArray(info.categories);
    resources.push_back(std::move(r));
    for (const Subresource* subresource : registry.ListedSubresources(info.kind)) {
      const Subresource::Description& s = subresource->description();
      json::object sub;
      sub["name"] = std::string(info.resource) + "/" + s.name;
      sub["singularName"] = "";
      sub["namespaced"] = info.namespaced;
      if (!s.group.empty() && s.group != info.group) sub["group"] = s.group;
      if (s.group != info.group) sub["version"] = s.version;
      sub["kind"] = s.kind;
      sub["verbs"] = ToArray(s.verbs);
      resources.push_back(std::move(sub));
    }
  }
  for (const HandledResource* handled : HandledOf(group, version)) {
    json::object r{{"name", handled->resource},
                   {"singularName", handled->singular},
                   {"namespaced", handled->namespaced},
                   {"kind", handled->kind},
                   {"verbs", ToArray(handled->verbs)}};
    if (!handled->short_names.empty()) r["shortNames"] = ToArray(handled->short_names);
    resources.push_back(std::move(r));
  }
  if (resources.empty()) return std::nullopt;
  json::object o;
  o["kind"] = "APIResourceList";
  o["apiVersion"] = "v1";
  o["groupVersion"] = GroupVersion(group, version);
  o["resources"] = std::move(resources);
  return o;
}

std::vector<ServedGroup> ServedGroups() {
  const std::vector<api::KindInfo> kinds = api::AllKinds();
  std::vector<ServedGroup> served;
  for (std::string_view group : Groups()) served.push_back({group, VersionsOf(group, kinds)});
  return served;
}

json::object VersionInfo(std::string_view berth_version) {
  json::object o;
  o["major"] = "1";
  o["minor"] = "32";
  o["gitVersion"] = "v1.32.0-berth." + std::string(berth_version);
  o["gitCommit"] = "berth";
  o["gitTreeState"] = "clean";
  o["buildDate"] = "2026-11-22T00:00:00Z";
  o["goVersion"] = "none (berth is C++)";
  o["compiler"] = "g++";
  o["platform"] = "linux/amd64";
  return o;
}

}  // namespace berth::apiserver
