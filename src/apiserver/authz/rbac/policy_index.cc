#include "apiserver/authz/rbac/policy_index.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/kinds.h"

namespace berth::apiserver::rbac {

namespace json = boost::json;

namespace {

const json::object* Field(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

std::string StringField(const json::object* o, std::string_view key) {
  if (!o) return {};
  const json::value* v = o->if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// kube's describeSubject.
std::string DescribeSubject(const Subject& s, std::string_view binding_namespace) {
  if (s.kind == "ServiceAccount") {
    return s.kind + " \"" + s.name + "/" + (s.ns.empty() ? std::string(binding_namespace) : s.ns) +
           "\"";
  }
  return s.kind + " \"" + s.name + "\"";
}

std::string NotFoundMessage(std::string_view kind, std::string_view name) {
  return std::string(kind == "Role" ? "role" : "clusterrole") + ".rbac.authorization.k8s.io \"" +
         std::string(name) + "\" not found";
}

}  // namespace

PolicyIndex::PolicyIndex(store::Store& store)
    : store_(store),
      role_prefix_(api::StoragePrefix(api::Kind::kRole)),
      cluster_role_prefix_(api::StoragePrefix(api::Kind::kClusterRole)),
      binding_prefix_(api::StoragePrefix(api::Kind::kRoleBinding)),
      cluster_binding_prefix_(api::StoragePrefix(api::Kind::kClusterRoleBinding)) {
  // The longest prefix the four kinds' keys share ("/rbac.authorization.k8s.io/").
  prefix_ = role_prefix_;
  for (const std::string* p : {&cluster_role_prefix_, &binding_prefix_, &cluster_binding_prefix_}) {
    size_t n = 0;
    while (n < prefix_.size() && n < p->size() && prefix_[n] == (*p)[n]) ++n;
    prefix_.resize(n);
  }
}

PolicyIndex::~PolicyIndex() { Stop(); }

void PolicyIndex::Clear() {
  roles_.clear();
  cluster_roles_.clear();
  cluster_bindings_.clear();
  role_bindings_.clear();
}

Status PolicyIndex::Relist() {
  auto listed = store_.List({.prefix = prefix_});
  if (!listed.ok()) return listed.status();
  std::unique_lock lock(mu_);
  Clear();
  for (const auto& object : listed->items)
    ApplyLocked({store::EventType::kAdded, object, listed->revision, {}});
  revision_ = listed->revision;
  return Status::Ok();
}

Status PolicyIndex::Start() {
  if (Status s = Relist(); !s.ok()) return s;
  // Aggregated roles (admin, edit, view) are usable from the first request.
  int written = 0;
  for (int round = 0, n = 0; round < 8 && (n = Aggregate()) > 0; ++round) written += n;
  // Follow from a list taken after those writes (a store with a short
  // history may have dropped the revision of the first list already).
  Result<std::unique_ptr<store::Watch>> watch = Status::Unavailable("not started");
  for (int attempt = 0; attempt < 5 && !watch.ok(); ++attempt) {
    if (written > 0 || attempt > 0) {
      if (Status s = Relist(); !s.ok()) return s;
    }
    watch = store_.WatchFrom({.prefix = prefix_, .resource_version = revision_});
  }
  if (!watch.ok()) return watch.status();
  watch_ = std::move(watch).value();
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void PolicyIndex::Stop() {
  {
    std::lock_guard lock(watch_mu_);
    stopping_ = true;
    if (watch_) watch_->Stop();
  }
  if (thread_.joinable()) thread_.join();
}

void PolicyIndex::Run() {
  while (!stopping_) {
    auto events = watch_->Next(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    if (stopping_) break;
    bool relist = watch_->Done();
    if (!events.empty()) {
      std::unique_lock lock(mu_);
      for (const auto& event : events) {
        if (event.type == store::EventType::kError) {
          relist = true;
        } else if (event.type != store::EventType::kBookmark) {
          ApplyLocked(event);
        }
        revision_ = std::max(revision_, event.revision);
      }
    }
    if (relist) {
      // Fell behind the store's history (or the stream ended): start over,
      // pausing while the store refuses (it may be closing).
      Status listed = Relist();
      auto watch = listed.ok()
                       ? store_.WatchFrom({.prefix = prefix_, .resource_version = revision_})
                       : Result<std::unique_ptr<store::Watch>>(listed);
      if (!watch.ok()) {
        for (int i = 0; i < 20 && !stopping_; ++i)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        continue;
      }
      std::lock_guard lock(watch_mu_);
      watch_ = std::move(watch).value();
      if (stopping_) watch_->Stop();
    }
    if (!events.empty() || relist) Aggregate();
  }
}

void PolicyIndex::Apply(const store::WatchEvent& event) {
  std::unique_lock lock(mu_);
  ApplyLocked(event);
}

void PolicyIndex::ApplyLocked(const store::WatchEvent& event) {
  if (!event.object) return;
  const api::Object& object = *event.object;
  const std::string& key = object.StorageKey();
  const bool gone = event.type == store::EventType::kDeleted;
  const json::object& o = object.json();
  if (key.starts_with(role_prefix_)) {
    std::string id = object.namespace_name() + "/" + object.name();
    if (gone) {
      roles_.erase(id);
    } else {
      roles_[id] = RulesFromJson(o.if_contains("rules"));
    }
  } else if (key.starts_with(cluster_role_prefix_)) {
    if (gone) {
      cluster_roles_.erase(object.name());
      return;
    }
    ClusterRole role{RulesFromJson(o.if_contains("rules")), object.labels(), std::nullopt,
                     event.object};
    if (const json::object* rule = Field(o, "aggregationRule")) {
      role.aggregation.emplace();
      if (const json::value* selectors = rule->if_contains("clusterRoleSelectors");
          selectors && selectors->is_array()) {
        for (const auto& s : selectors->get_array()) {
          auto selector = api::LabelSelector::FromJson(s);
          if (selector.ok()) role.aggregation->push_back(std::move(selector).value());
        }
      }
    }
    cluster_roles_[object.name()] = std::move(role);
  } else if (key.starts_with(binding_prefix_) || key.starts_with(cluster_binding_prefix_)) {
    const bool cluster = key.starts_with(cluster_binding_prefix_);
    auto& bindings = cluster ? cluster_bindings_ : role_bindings_[object.namespace_name()];
    if (gone) {
      bindings.erase(object.name());
      if (!cluster && bindings.empty()) role_bindings_.erase(object.namespace_name());
      return;
    }
    const json::object* ref = Field(o, "roleRef");
    bindings[object.name()] =
        Binding{object.name(), object.namespace_name(), StringField(ref, "kind"),
                StringField(ref, "name"), SubjectsFromJson(o.if_contains("subjects"))};
  }
}

void PolicyIndex::VisitRules(
    const UserInfo& user, std::string_view ns,
    const std::function<bool(const std::string&, const PolicyRule&)>& visit,
    std::vector<std::string>* errors) const {
  std::shared_lock lock(mu_);
  auto visit_binding = [&](const Binding& b, std::string_view binding_ns) -> bool {
    const Subject* matched = nullptr;
    for (const Subject& s : b.subjects) {
      if (SubjectMatches(s, user, binding_ns)) {
        matched = &s;
        break;
      }
    }
    if (!matched) return false;
    const std::vector<PolicyRule>* rules = nullptr;
    if (b.role_kind == "ClusterRole") {
      if (auto it = cluster_roles_.find(b.role_name); it != cluster_roles_.end())
        rules = &it->second.rules;
    } else if (b.role_kind == "Role" && !binding_ns.empty()) {
      if (auto it = roles_.find(std::string(binding_ns) + "/" + b.role_name); it != roles_.end())
        rules = &it->second;
    }
    if (!rules) {
      if (errors) errors->push_back(NotFoundMessage(b.role_kind, b.role_name));
      return false;
    }
    std::string source = binding_ns.empty()
                             ? "ClusterRoleBinding \"" + b.name + "\""
                             : "RoleBinding \"" + b.name + "/" + std::string(binding_ns) + "\"";
    source += " of " + b.role_kind + " \"" + b.role_name + "\" to " +
              DescribeSubject(*matched, binding_ns);
    for (const PolicyRule& rule : *rules) {
      if (visit(source, rule)) return true;
    }
    return false;
  };
  for (const auto& [name, binding] : cluster_bindings_) {
    if (visit_binding(binding, "")) return;
  }
  if (ns.empty()) return;
  if (auto it = role_bindings_.find(std::string(ns)); it != role_bindings_.end()) {
    for (const auto& [name, binding] : it->second) {
      if (visit_binding(binding, ns)) return;
    }
  }
}

std::vector<PolicyRule> PolicyIndex::RulesFor(const UserInfo& user, std::string_view ns,
                                              std::vector<std::string>* errors) const {
  std::vector<PolicyRule> rules;
  VisitRules(
      user, ns,
      [&](const std::string&, const PolicyRule& rule) {
        rules.push_back(rule);
        return false;
      },
      errors);
  return rules;
}

Result<std::vector<PolicyRule>> PolicyIndex::RoleRules(std::string_view kind, std::string_view ns,
                                                       std::string_view name) const {
  std::shared_lock lock(mu_);
  if (kind == "ClusterRole") {
    if (auto it = cluster_roles_.find(std::string(name)); it != cluster_roles_.end())
      return it->second.rules;
  } else if (kind == "Role") {
    if (auto it = roles_.find(std::string(ns) + "/" + std::string(name)); it != roles_.end())
      return it->second;
  }
  return Status::NotFound(NotFoundMessage(kind, name));
}

std::optional<std::pair<std::string, std::string>> PolicyIndex::BindingRoleRef(
    std::string_view ns, std::string_view name) const {
  std::shared_lock lock(mu_);
  const std::map<std::string, Binding>* bindings = &cluster_bindings_;
  if (!ns.empty()) {
    auto it = role_bindings_.find(std::string(ns));
    if (it == role_bindings_.end()) return std::nullopt;
    bindings = &it->second;
  }
  auto it = bindings->find(std::string(name));
  if (it == bindings->end()) return std::nullopt;
  return std::pair{it->second.role_kind, it->second.role_name};
}

int PolicyIndex::Aggregate() {
  std::vector<std::pair<api::ObjectPtr, std::vector<PolicyRule>>> changes;
  {
    std::shared_lock lock(mu_);
    for (const auto& [name, role] : cluster_roles_) {
      if (!role.aggregation) continue;
      std::vector<PolicyRule> rules;
      for (const auto& [other_name, other] : cluster_roles_) {  // by name
        if (other_name == name) continue;
        bool selected =
            std::any_of(role.aggregation->begin(), role.aggregation->end(),
                        [&](const api::LabelSelector& s) { return s.Matches(other.labels); });
        if (!selected) continue;
        for (const PolicyRule& rule : other.rules) {
          if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
        }
      }
      if (rules != role.rules) changes.emplace_back(role.object, std::move(rules));
    }
  }
  int written = 0;
  for (auto& [object, rules] : changes) {
    json::object next = object->json();
    next["rules"] = RulesToJson(rules);
    auto built = api::Object::FromJson(json::value(std::move(next)));
    if (!built.ok()) continue;
    auto stored = store_.Update(built.value(), object->resource_version());
    if (!stored.ok()) continue;  // changed meanwhile: its event brings another round
    Apply({store::EventType::kModified, stored.value(), stored.value()->resource_version(), {}});
    ++written;
  }
  return written;
}

}  // namespace berth::apiserver::rbac
