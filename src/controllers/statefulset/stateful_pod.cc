#include "controllers/statefulset/stateful_pod.h"

#include <boost/json.hpp>
#include <charconv>

#include "api/json_fields.h"
#include "controllers/history.h"
#include "controllers/owner_references.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

const json::array* ClaimTemplates(const api::Object& set) {
  const json::object* spec = api::Spec(set);
  return spec ? api::ArrayAt(*spec, "volumeClaimTemplates") : nullptr;
}

std::string_view TemplateName(const json::value& claim_template) {
  const json::object* t = claim_template.if_object();
  return t ? api::StringAt(api::ObjectAt(*t, "metadata"), "name") : std::string_view();
}

std::string_view ServiceName(const api::Object& set) {
  return api::StringAt(api::Spec(set), "serviceName");
}

// The group of an apiVersion ("apps/v1" → "apps", "v1" → "").
std::string_view GroupOf(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

// kube's matchesRef: the reference names `o` by group, kind and name (any uid).
bool NamesObject(const json::object& ref, const api::Object& o) {
  return api::StringAt(ref, "name") == o.name() && api::StringAt(ref, "kind") == o.info().name &&
         GroupOf(api::StringAt(ref, "apiVersion")) == GroupOf(o.info().ApiVersion());
}

const json::array* OwnerRefs(const api::Object& o) {
  return api::ArrayAt(api::Metadata(o), "ownerReferences");
}

bool HasOwnerRef(const api::Object& target, const api::Object& owner) {
  const json::array* refs = OwnerRefs(target);
  if (!refs) return false;
  for (const auto& r : *refs) {
    if (r.is_object() && api::StringAt(r.get_object(), "uid") == owner.uid()) return true;
  }
  return false;
}

// A reference naming `o` with another uid: left by an earlier namesake.
bool HasStaleOwnerRef(const api::Object& target, const api::Object& o) {
  const json::array* refs = OwnerRefs(target);
  if (!refs) return false;
  for (const auto& r : *refs) {
    if (r.is_object() && NamesObject(r.get_object(), o))
      return api::StringAt(r.get_object(), "uid") != o.uid();
  }
  return false;
}

// A controller reference to something other than the set or the pod.
bool HasUnexpectedController(const api::Object& claim, const api::Object& set,
                             const api::Object& pod) {
  const json::array* refs = OwnerRefs(claim);
  if (!refs) return false;
  for (const auto& r : *refs) {
    if (!r.is_object() || !api::BoolAt(&r.get_object(), "controller")) continue;
    std::string_view uid = api::StringAt(r.get_object(), "uid");
    if (uid != set.uid() && uid != pod.uid()) return true;
  }
  return false;
}

// A reference to the set or the pod that is not a controller reference.
bool HasNonControllerOwner(const api::Object& claim, const api::Object& set,
                           const api::Object& pod) {
  const json::array* refs = OwnerRefs(claim);
  if (!refs) return false;
  for (const auto& r : *refs) {
    if (!r.is_object()) continue;
    std::string_view uid = api::StringAt(r.get_object(), "uid");
    if ((uid == set.uid() || uid == pod.uid()) && !api::BoolAt(&r.get_object(), "controller"))
      return true;
  }
  return false;
}

}  // namespace

StatefulPodIdentity ParseStatefulPodName(std::string_view pod_name) {
  auto dash = pod_name.rfind('-');
  if (dash == std::string_view::npos || dash + 1 >= pod_name.size()) return {};
  std::string_view digits = pod_name.substr(dash + 1);
  int64_t ordinal = -1;
  for (char c : digits) {
    if (c < '0' || c > '9') return {};
  }
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
  // kube parses the ordinal as a 32-bit integer.
  if (ec != std::errc() || end != digits.data() + digits.size() || ordinal > INT32_MAX) return {};
  return {pod_name.substr(0, dash), ordinal};
}

std::string StatefulPodName(std::string_view set_name, int64_t ordinal) {
  return std::string(set_name) + "-" + std::to_string(ordinal);
}

std::string StatefulClaimName(std::string_view template_name, std::string_view set_name,
                              int64_t ordinal) {
  return std::string(template_name) + "-" + std::string(set_name) + "-" + std::to_string(ordinal);
}

int64_t SetReplicas(const api::Object& set) { return api::IntAt(api::Spec(set), "replicas", 1); }

int64_t StartOrdinal(const api::Object& set) {
  const json::object* spec = api::Spec(set);
  return api::IntAt(spec ? api::ObjectAt(*spec, "ordinals") : nullptr, "start", 0);
}

bool OrdinalInRange(const api::Object& set, int64_t ordinal) {
  int64_t start = StartOrdinal(set);
  return ordinal >= start && ordinal < start + SetReplicas(set);
}

json::object NewStatefulPod(const api::Object& set, const json::object& pod_template,
                            int64_t ordinal, std::string_view revision_hash) {
  // kube's GetPodFromTemplate: the template's labels, annotations and
  // finalizers, its spec, and the set as controller.
  json::object meta;
  if (const json::object* tmeta = api::ObjectAt(pod_template, "metadata")) {
    for (const char* field : {"labels", "annotations", "finalizers"}) {
      if (auto it = tmeta->find(field); it != tmeta->end() && !it->value().is_null())
        meta[field] = it->value();
    }
  }
  meta["ownerReferences"] = json::array{ControllerRef(set)};
  json::object spec =
      api::ObjectAt(pod_template, "spec") ? *api::ObjectAt(pod_template, "spec") : json::object();
  json::object pod{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", std::move(meta)},
                   {"spec", std::move(spec)}};
  api::MutableObject(pod, "metadata")["name"] = StatefulPodName(set.name(), ordinal);
  UpdateIdentity(set, pod);
  // kube's initIdentity: hostname and subdomain are set at creation only.
  json::object& pod_spec = api::MutableObject(pod, "spec");
  pod_spec["hostname"] = StatefulPodName(set.name(), ordinal);
  if (std::string_view service = ServiceName(set); !service.empty())
    pod_spec["subdomain"] = service;
  UpdateStorage(set, pod);
  api::MutableObject(api::MutableObject(pod, "metadata"), "labels")[kControllerRevisionHashLabel] =
      revision_hash;
  return pod;
}

bool IdentityMatches(const api::Object& set, const api::Object& pod) {
  auto id = ParseStatefulPodName(pod.name());
  if (id.ordinal < 0 || id.parent != set.name() || pod.namespace_name() != set.namespace_name())
    return false;
  auto name_label = pod.labels().Get(kStatefulSetPodNameLabel);
  auto index_label = pod.labels().Get(kPodIndexLabel);
  return name_label && *name_label == pod.name() && index_label &&
         *index_label == std::to_string(id.ordinal);
}

bool StorageMatches(const api::Object& set, const api::Object& pod) {
  auto id = ParseStatefulPodName(pod.name());
  if (id.ordinal < 0) return false;
  const json::array* templates = ClaimTemplates(set);
  if (!templates) return true;
  const json::object* spec = api::Spec(pod);
  const json::array* volumes = spec ? api::ArrayAt(*spec, "volumes") : nullptr;
  for (const auto& t : *templates) {
    std::string_view name = TemplateName(t);
    bool found = false;
    if (volumes) {
      for (const auto& v : *volumes) {
        const json::object* vol = v.if_object();
        if (!vol || api::StringAt(*vol, "name") != name) continue;
        const json::object* pvc = api::ObjectAt(*vol, "persistentVolumeClaim");
        found = pvc &&
                api::StringAt(*pvc, "claimName") == StatefulClaimName(name, set.name(), id.ordinal);
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

void UpdateIdentity(const api::Object& set, json::object& pod) {
  json::object& meta = api::MutableObject(pod, "metadata");
  auto id = ParseStatefulPodName(api::StringAt(meta, "name"));
  std::string name = StatefulPodName(set.name(), id.ordinal);
  meta["name"] = name;
  meta["namespace"] = set.namespace_name();
  json::object& labels = api::MutableObject(meta, "labels");
  labels[kStatefulSetPodNameLabel] = name;
  labels[kPodIndexLabel] = std::to_string(id.ordinal);
}

void UpdateStorage(const api::Object& set, json::object& pod) {
  const json::array* templates = ClaimTemplates(set);
  if (!templates || templates->empty()) return;
  auto id = ParseStatefulPodName(api::StringAt(api::ObjectAt(pod, "metadata"), "name"));
  json::object& spec = api::MutableObject(pod, "spec");
  json::array volumes;
  for (const auto& t : *templates) {
    std::string_view name = TemplateName(t);
    volumes.push_back(json::object{
        {"name", name},
        {"persistentVolumeClaim",
         json::object{{"claimName", StatefulClaimName(name, set.name(), id.ordinal)}}}});
  }
  if (const json::array* current = api::ArrayAt(spec, "volumes")) {
    for (const auto& v : *current) {
      std::string_view name = v.is_object() ? api::StringAt(v.get_object(), "name") : "";
      bool replaced = false;
      for (const auto& t : *templates) replaced = replaced || TemplateName(t) == name;
      if (!replaced) volumes.push_back(v);
    }
  }
  spec["volumes"] = std::move(volumes);
}

std::vector<json::object> StatefulClaims(const api::Object& set, int64_t ordinal) {
  std::vector<json::object> claims;
  const json::array* templates = ClaimTemplates(set);
  if (!templates) return claims;
  const json::object* spec = api::Spec(set);
  const json::object* selector = spec ? api::ObjectAt(*spec, "selector") : nullptr;
  const json::object* match = selector ? api::ObjectAt(*selector, "matchLabels") : nullptr;
  for (const auto& t : *templates) {
    if (!t.is_object()) continue;
    json::object claim = t.get_object();
    claim.erase("status");
    claim["apiVersion"] = "v1";
    claim["kind"] = "PersistentVolumeClaim";
    json::object& meta = api::MutableObject(claim, "metadata");
    std::string name = StatefulClaimName(TemplateName(t), set.name(), ordinal);
    meta["name"] = name;
    meta["namespace"] = set.namespace_name();
    meta.erase("creationTimestamp");
    meta.erase("resourceVersion");
    meta.erase("uid");
    if (match) {
      json::object& labels = api::MutableObject(meta, "labels");
      for (const auto& [k, v] : *match) labels[k] = v;
    }
    claims.push_back(std::move(claim));
  }
  return claims;
}

ClaimRetention RetentionOf(const api::Object& set) {
  const json::object* spec = api::Spec(set);
  const json::object* policy =
      spec ? api::ObjectAt(*spec, "persistentVolumeClaimRetentionPolicy") : nullptr;
  return {api::StringAt(policy, "whenDeleted") == "Delete",
          api::StringAt(policy, "whenScaled") == "Delete"};
}

bool ClaimOwnerUpToDate(const api::Object& claim, const api::Object& set, const api::Object& pod) {
  // Managed by an earlier set or pod of the same name: not ours to touch.
  if (HasStaleOwnerRef(claim, set) || HasStaleOwnerRef(claim, pod)) return true;
  if (HasUnexpectedController(claim, set, pod))
    return !HasOwnerRef(claim, set) && !HasOwnerRef(claim, pod);
  if (HasNonControllerOwner(claim, set, pod)) return false;
  ClaimRetention policy = RetentionOf(set);
  bool scaled_down = !OrdinalInRange(set, ParseStatefulPodName(pod.name()).ordinal);
  bool want_set = policy.delete_when_deleted && !(policy.delete_when_scaled && scaled_down);
  bool want_pod = policy.delete_when_scaled && scaled_down;
  return HasOwnerRef(claim, set) == want_set && HasOwnerRef(claim, pod) == want_pod;
}

json::array ClaimOwnerReferences(const api::Object& claim, const api::Object& set,
                                 const api::Object& pod) {
  bool unexpected = HasUnexpectedController(claim, set, pod);
  json::array refs;
  if (const json::array* current = OwnerRefs(claim)) {
    for (const auto& r : *current) {
      if (r.is_object() && (NamesObject(r.get_object(), set) || NamesObject(r.get_object(), pod)))
        continue;  // ours: scrubbed, added again below as the policy wants
      refs.push_back(r);
    }
  }
  if (unexpected) return refs;
  ClaimRetention policy = RetentionOf(set);
  bool scaled_down = !OrdinalInRange(set, ParseStatefulPodName(pod.name()).ordinal);
  if (policy.delete_when_scaled && scaled_down) {
    refs.push_back(ControllerRef(pod));
  } else if (policy.delete_when_deleted) {
    refs.push_back(ControllerRef(set));
  }
  return refs;
}

}  // namespace berth::controllers
