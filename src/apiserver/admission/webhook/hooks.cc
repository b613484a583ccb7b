// The webhooks of the stored configurations and which writes each is about
// (kube's webhook/predicates: rules, namespace, object).

#include <algorithm>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/json_fields.h"
#include "api/object.h"
#include "apiserver/admission/webhook/webhook.h"
#include "store/store.h"

namespace berth::apiserver::webhook {

namespace json = boost::json;

namespace {

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const json::array* a = api::ArrayAt(o, key)) {
    for (const auto& v : *a) {
      if (v.is_string()) out.emplace_back(v.get_string());
    }
  }
  return out;
}

// A selector the configuration's validation admitted; one it could not parse
// marks the hook broken rather than matching everything.
api::LabelSelector SelectorAt(const json::object& hook, std::string_view key, Hook& out) {
  const json::value* v = hook.if_contains(key);
  if (v == nullptr || v->is_null()) return api::LabelSelector::Everything();
  auto parsed = api::LabelSelector::FromJson(*v);
  if (!parsed.ok()) {
    out.broken = std::string(key) + ": " + parsed.status().message();
    return api::LabelSelector::Nothing();
  }
  return std::move(parsed).value();
}

Rule ReadRule(const json::object& r) {
  Rule rule;
  rule.operations = Strings(r, "operations");
  rule.groups = Strings(r, "apiGroups");
  rule.versions = Strings(r, "apiVersions");
  rule.resources = Strings(r, "resources");
  if (std::string_view scope = api::StringAt(r, "scope"); !scope.empty()) rule.scope = std::string(scope);
  return rule;
}


bool Listed(const std::vector<std::string>& values, std::string_view value) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& v) { return v == "*" || v == value; });
}

// kube's resource matching: "pods" (not its subresources), "pods/status",
// "pods/*", "*" (every resource, no subresource), "*/status", "*/*".
bool MatchesResource(const std::vector<std::string>& patterns, std::string_view resource,
                     std::string_view subresource) {
  for (const std::string& pattern : patterns) {
    size_t slash = pattern.find('/');
    std::string_view res = std::string_view(pattern).substr(0, slash);
    std::string_view sub = slash == std::string::npos ? std::string_view() : std::string_view(pattern).substr(slash + 1);
    if (res != "*" && res != resource) continue;
    if (slash == std::string::npos ? subresource.empty() : (sub == "*" || sub == subresource)) return true;
  }
  return false;
}

// matchPolicy Equivalent: a rule naming another version of the resource's
// group matches too. berth serves each resource in one version, so any
// version named is one kube would convert the request to (kube's cross-group
// equivalents, extensions to apps, are not served here at all).
bool MatchesRule(const Rule& rule, bool equivalent, const AdmissionAttributes& a) {
  if (!Listed(rule.operations, OperationName(a.operation))) return false;
  if (!Listed(rule.groups, a.kind.group)) return false;
  if (!equivalent && !Listed(rule.versions, a.kind.version)) return false;
  // Subresources share their parent's scope; a Namespace is cluster-scoped.
  if (rule.scope == "Cluster" && a.kind.namespaced) return false;
  if (rule.scope == "Namespaced" && !a.kind.namespaced) return false;
  return MatchesResource(rule.resources, a.kind.resource, a.subresource);
}

api::Labels LabelsOf(const json::object* object) {
  api::Labels labels;
  const json::object* meta = api::ObjectAt(object, "metadata");
  if (const json::object* l = api::ObjectAt(meta, "labels")) {
    for (const auto& [k, v] : *l) {
      if (v.is_string()) labels.Set(k, v.get_string());
    }
  }
  return labels;
}

}  // namespace

void ReadClientConfig(const json::object* config, Hook& hook) {
  if (config == nullptr) return;
  if (const json::value* url = config->if_contains("url"); url && url->is_string()) {
    hook.url = std::string(url->get_string());
  }
  if (const json::object* service = api::ObjectAt(config, "service")) {
    ServiceRef ref;
    ref.ns = std::string(api::StringAt(service, "namespace"));
    ref.name = std::string(api::StringAt(service, "name"));
    ref.path = std::string(api::StringAt(service, "path"));
    ref.port = static_cast<int>(api::IntAt(service, "port", 443));
    hook.service = std::move(ref);
  }
  std::string_view bundle = api::StringAt(config, "caBundle");
  if (!bundle.empty()) {
    auto decoded = api::Base64Decode(bundle);
    if (auto* pem = std::get_if<std::string>(&decoded)) {
      hook.ca_bundle = std::move(*pem);
    } else {
      hook.broken = "clientConfig.caBundle: not base64";
    }
  }
}

std::vector<Hook> ReadHooks(const json::object& configuration, bool mutating) {
  std::vector<Hook> hooks;
  const json::array* webhooks = api::ArrayAt(configuration, "webhooks");
  if (webhooks == nullptr) return hooks;
  const std::string config_name(api::StringAt(api::ObjectAt(configuration, "metadata"), "name"));
  for (const auto& w : *webhooks) {
    if (!w.is_object()) continue;
    const json::object& o = w.get_object();
    Hook hook;
    hook.configuration = config_name;
    hook.name = std::string(api::StringAt(o, "name"));
    hook.mutating = mutating;
    ReadClientConfig(api::ObjectAt(o, "clientConfig"), hook);
    if (const json::array* rules = api::ArrayAt(o, "rules")) {
      for (const auto& r : *rules) {
        if (r.is_object()) hook.rules.push_back(ReadRule(r.get_object()));
      }
    }
    hook.fail_open = api::StringAt(o, "failurePolicy") == "Ignore";
    hook.match_equivalent = api::StringAt(o, "matchPolicy") != "Exact";
    hook.namespace_selector = SelectorAt(o, "namespaceSelector", hook);
    hook.object_selector = SelectorAt(o, "objectSelector", hook);
    hook.timeout = std::chrono::seconds(api::IntAt(&o, "timeoutSeconds", 10));
    hook.reinvoke_if_needed = api::StringAt(o, "reinvocationPolicy") == "IfNeeded";
    hook.review_versions = Strings(o, "admissionReviewVersions");
    hooks.push_back(std::move(hook));
  }
  return hooks;
}

bool MatchesRules(const Hook& hook, const AdmissionAttributes& a) {
  return std::any_of(hook.rules.begin(), hook.rules.end(),
                     [&](const Rule& r) { return MatchesRule(r, hook.match_equivalent, a); });
}

bool MatchesObjectSelector(const Hook& hook, const AdmissionAttributes& a) {
  if (hook.object_selector.Empty()) return true;
  // Either object may match (a create has no old one, a delete no new one).
  return (a.object && hook.object_selector.Matches(LabelsOf(a.object))) ||
         (a.old && hook.object_selector.Matches(LabelsOf(a.old)));
}

bool MatchesNamespaceSelector(const Hook& hook, const AdmissionAttributes& a, const api::Labels* namespace_labels) {
  if (hook.namespace_selector.Empty()) return true;
  if (a.kind.kind == api::Kind::kNamespace) {
    // A Namespace is matched by its own labels (the old ones on delete).
    const json::object* self = a.object ? a.object : a.old;
    return hook.namespace_selector.Matches(LabelsOf(self));
  }
  if (!a.kind.namespaced) return true;  // other cluster-scoped objects: never skipped
  return namespace_labels != nullptr && hook.namespace_selector.Matches(*namespace_labels);
}

std::optional<api::Labels> NamespaceLabels(store::Store& store, const AdmissionAttributes& a) {
  if (!a.kind.namespaced || a.ns.empty()) return std::nullopt;
  auto ns = store.Get(api::StorageKey(api::Kind::kNamespace, "", a.ns));
  if (!ns.ok()) return std::nullopt;
  return ns.value()->labels();
}

bool Concerns(store::Store& store, const Hook& hook, const AdmissionAttributes& a) {
  if (a.kind.kind == api::Kind::kMutatingWebhookConfiguration ||
      a.kind.kind == api::Kind::kValidatingWebhookConfiguration) {
    return false;
  }
  if (!MatchesRules(hook, a) || !MatchesObjectSelector(hook, a)) return false;
  if (hook.namespace_selector.Empty() || a.kind.kind == api::Kind::kNamespace || !a.kind.namespaced) {
    return MatchesNamespaceSelector(hook, a, nullptr);
  }
  std::optional<api::Labels> labels = NamespaceLabels(store, a);
  return MatchesNamespaceSelector(hook, a, labels ? &*labels : nullptr);
}

HookSource::HookSource(store::Store& store, bool mutating)
    : store_(store), mutating_(mutating), hooks_(std::make_shared<const std::vector<Hook>>()) {}
HookSource::~HookSource() = default;

std::shared_ptr<const std::vector<Hook>> HookSource::Hooks() {
  std::lock_guard lock(mu_);
  // Nothing changed since the last list: the watch has no event (the common
  // case, a cheap check on every write).
  if (watch_ && !watch_->Done() && watch_->Poll().empty()) return hooks_;
  const api::Kind kind =
      mutating_ ? api::Kind::kMutatingWebhookConfiguration : api::Kind::kValidatingWebhookConfiguration;
  const std::string prefix = api::StoragePrefix(kind);
  auto listed = store_.List({.prefix = prefix});
  if (!listed.ok()) {
    watch_.reset();  // listed again on the next write
    return hooks_;
  }
  // Listed in key order: configurations by name, as kube sorts them.
  auto hooks = std::make_shared<std::vector<Hook>>();
  for (const auto& o : listed->items) {
    for (Hook& h : ReadHooks(o->json(), mutating_)) hooks->push_back(std::move(h));
  }
  hooks_ = std::move(hooks);
  auto watch = store_.WatchFrom({.prefix = prefix, .resource_version = listed->revision});
  watch_ = watch.ok() ? std::move(watch).value() : nullptr;
  return hooks_;
}

}  // namespace berth::apiserver::webhook
