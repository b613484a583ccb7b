// kube's pod warnings (pkg/api/pod/warnings.go, pkg/api/node/util.go), in
// kube's order and with its field paths and texts. Maps are walked in their
// stored order (kube's Go maps have none).

#include "api/validation/warnings.h"

#include <map>
#include <set>
#include <utility>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/quantity.h"

namespace berth::api {

namespace json = boost::json;

namespace {

std::string Index(std::string_view path, size_t i) { return std::string(path) + "[" + std::to_string(i) + "]"; }
std::string Key(std::string_view path, std::string_view key) {
  return std::string(path) + "[" + std::string(key) + "]";
}

std::string_view DeprecatedNodeLabel(std::string_view key) {
  static const std::map<std::string_view, std::string_view> kLabels = {
      {"beta.kubernetes.io/arch", "deprecated since v1.14; use \"kubernetes.io/arch\" instead"},
      {"beta.kubernetes.io/os", "deprecated since v1.14; use \"kubernetes.io/os\" instead"},
      {"failure-domain.beta.kubernetes.io/region", "deprecated since v1.17; use \"topology.kubernetes.io/region\" instead"},
      {"failure-domain.beta.kubernetes.io/zone", "deprecated since v1.17; use \"topology.kubernetes.io/zone\" instead"},
      {"beta.kubernetes.io/instance-type", "deprecated since v1.17; use \"node.kubernetes.io/instance-type\" instead"},
      {"app.kubernetes.io/created-by", "deprecated since v1.9"},
      {"scheduler.alpha.kubernetes.io/preferAvoidPods", "deprecated since v1.22; use Taints and Tolerations instead"},
      {"node-role.kubernetes.io/master", "use \"node-role.kubernetes.io/control-plane\" instead"},
  };
  auto it = kLabels.find(key);
  return it == kLabels.end() ? std::string_view() : it->second;
}

using Warnings = std::vector<std::string>;

void NodeSelectorTermWarnings(const json::value& term, const std::string& path, Warnings& out) {
  const json::array* expressions = term.is_object() ? ArrayAt(&term.get_object(), "matchExpressions") : nullptr;
  if (!expressions) return;
  for (size_t i = 0; i < expressions->size(); ++i) {
    const json::value& e = (*expressions)[i];
    if (!e.is_object()) continue;
    std::string_view key = StringAt(e.get_object(), "key");
    if (std::string_view msg = DeprecatedNodeLabel(key); !msg.empty()) {
      out.push_back(Index(path + ".matchExpressions", i) + ".key: " + std::string(key) + " is " + std::string(msg));
    }
  }
}

void NodeLabelWarnings(const json::object* spec, const std::string& p, Warnings& out) {
  if (const json::object* selector = ObjectAt(spec, "nodeSelector")) {
    for (const auto& [key, value] : *selector) {
      if (std::string_view msg = DeprecatedNodeLabel(key); !msg.empty()) {
        out.push_back(Key(p + "nodeSelector", key) + ": " + std::string(msg));
      }
    }
  }
  const json::object* node_affinity = ObjectAt(ObjectAt(spec, "affinity"), "nodeAffinity");
  if (const json::object* required = ObjectAt(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
    const std::string path = p + "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
    if (const json::array* terms = ArrayAt(required, "nodeSelectorTerms")) {
      for (size_t i = 0; i < terms->size(); ++i) NodeSelectorTermWarnings((*terms)[i], Index(path, i), out);
    }
  }
  if (const json::array* preferred = ArrayAt(node_affinity, "preferredDuringSchedulingIgnoredDuringExecution")) {
    const std::string path = p + "affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";
    for (size_t i = 0; i < preferred->size(); ++i) {
      const json::value& term = (*preferred)[i];
      const json::object* preference = term.is_object() ? ObjectAt(&term.get_object(), "preference") : nullptr;
      if (preference) NodeSelectorTermWarnings(*preference, Index(path, i) + ".preference", out);
    }
  }
  if (const json::array* spread = ArrayAt(spec, "topologySpreadConstraints")) {
    for (size_t i = 0; i < spread->size(); ++i) {
      const json::object* c = (*spread)[i].if_object();
      if (!c) continue;
      const std::string path = Index(p + "topologySpreadConstraints", i);
      std::string_view key = StringAt(c, "topologyKey");
      if (std::string_view msg = DeprecatedNodeLabel(key); !msg.empty()) {
        out.push_back(path + ".topologyKey: " + std::string(key) + " is " + std::string(msg));
      }
      if (!ObjectAt(c, "labelSelector")) out.push_back(path + ".labelSelector: a null labelSelector results in matching no pod");
    }
  }
}

void DeprecatedAnnotationWarnings(const json::object* annotations, const std::string& prefix, Warnings& out) {
  static const std::pair<std::string_view, std::string_view> kAnnotations[] = {
      {"scheduler.alpha.kubernetes.io/critical-pod", "non-functional in v1.16+; use the \"priorityClassName\" field instead"},
      {"security.alpha.kubernetes.io/sysctls", "non-functional in v1.11+; use the \"sysctls\" field instead"},
      {"security.alpha.kubernetes.io/unsafe-sysctls", "non-functional in v1.11+; use the \"sysctls\" field instead"},
  };
  if (!annotations) return;
  for (const auto& [key, message] : kAnnotations) {
    if (annotations->contains(key)) {
      out.push_back(Key(prefix + "metadata.annotations", key) + ": " + std::string(message));
    }
  }
}

void VolumeWarnings(const json::array* volumes, const std::string& p, Warnings& out) {
  static const std::pair<std::string_view, std::string_view> kDeprecated[] = {
      {"photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"},
      {"gitRepo", "deprecated in v1.11"},
      {"scaleIO", "deprecated in v1.16, non-functional in v1.22+"},
      {"flocker", "deprecated in v1.22, non-functional in v1.25+"},
      {"storageos", "deprecated in v1.22, non-functional in v1.25+"},
      {"quobyte", "deprecated in v1.22, non-functional in v1.25+"},
      {"glusterfs", "deprecated in v1.25, non-functional in v1.26+"},
      {"cephfs", "deprecated in v1.28, non-functional in v1.31+"},
      {"rbd", "deprecated in v1.28, non-functional in v1.31+"},
  };
  if (!volumes) return;
  for (size_t i = 0; i < volumes->size(); ++i) {
    const json::object* v = (*volumes)[i].if_object();
    if (!v) continue;
    for (const auto& [source, message] : kDeprecated) {
      if (!v->contains(source)) continue;
      // kube names the field by its Go name in this one message.
      std::string_view shown = source == "storageos" ? "storageOS" : source;
      out.push_back(Index(p + "volumes", i) + "." + std::string(shown) + ": " + std::string(message));
    }
  }
}

// The paths of projected service account tokens, and the projected items
// that would overwrite one.
void ProjectedPathWarnings(const json::array* volumes, const std::string& p, Warnings& out) {
  if (!volumes) return;
  auto sources_of = [](const json::value& v) -> const json::array* {
    return v.is_object() ? ArrayAt(ObjectAt(&v.get_object(), "projected"), "sources") : nullptr;
  };
  std::set<std::string, std::less<>> tokens;
  for (const json::value& v : *volumes) {
    if (const json::array* sources = sources_of(v)) {
      for (const json::value& s : *sources) {
        const json::object* token = s.is_object() ? ObjectAt(&s.get_object(), "serviceAccountToken") : nullptr;
        if (token) tokens.emplace(StringAt(token, "path"));
      }
    }
  }
  if (tokens.empty()) return;
  auto duplicated = [&](std::string_view path) { return tokens.find(path) != tokens.end(); };
  for (size_t i = 0; i < volumes->size(); ++i) {
    const json::array* sources = sources_of((*volumes)[i]);
    if (!sources) continue;
    const std::string base = Index(p + "volumes", i) + ".projected.sources.";
    for (const json::value& s : *sources) {
      if (!s.is_object()) continue;
      const json::object& source = s.get_object();
      // kube's paths for these: configMap, secrets (sic), downwardAPI.
      const std::pair<std::string_view, std::string_view> kItems[] = {
          {"configMap", "configMap"}, {"secret", "secrets"}, {"downwardAPI", "downwardAPI"}};
      for (const auto& [field, shown] : kItems) {
        const json::array* items = ArrayAt(ObjectAt(&source, field), "items");
        if (!items) continue;
        for (size_t j = 0; j < items->size(); ++j) {
          std::string_view path = (*items)[j].is_object() ? StringAt((*items)[j].get_object(), "path") : "";
          if (duplicated(path)) {
            out.push_back(Index(base + std::string(shown), j) + ": has duplicated path with ServiceAccountToken \"" +
                          std::string(path) + "\"");
          }
        }
      }
      if (const json::object* bundle = ObjectAt(&source, "clusterTrustBundle")) {
        std::string_view path = StringAt(bundle, "path");
        if (duplicated(path)) {
          out.push_back(base + "ClusterTrustBundle: has duplicated path with ServiceAccountToken \"" +
                        std::string(path) + "\"");
        }
      }
    }
  }
}

// Entries of `list` whose `field` repeats an earlier one's.
void DuplicateWarnings(const json::array* list, std::string_view field, const std::string& path,
                       std::string_view what, Warnings& out) {
  if (!list || list->size() < 2) return;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string_view value = (*list)[i].is_object() ? StringAt((*list)[i].get_object(), field) : "";
    if (!seen.emplace(value).second) {
      out.push_back(Index(path, i) + "." + std::string(field) + ": duplicate " + std::string(what) + " \"" +
                    std::string(value) + "\"");
    }
  }
}

void FractionalBytes(const json::object* list, std::string_view name, const std::string& path, Warnings& out) {
  const json::value* value = list ? list->if_contains(name) : nullptr;
  if (!value || !value->is_string()) return;
  auto q = Quantity::Parse(value->get_string());
  if (!q.ok() || q.value().MilliValue() % 1000 == 0) return;
  out.push_back(Key(path, name) + ": fractional byte value \"" + q.value().ToString() +
                "\" is invalid, must be an integer");
}

void FractionalResourceWarnings(const json::object* resources, const std::string& path, Warnings& out) {
  const json::object* limits = ObjectAt(resources, "limits");
  const json::object* requests = ObjectAt(resources, "requests");
  FractionalBytes(limits, "memory", path + ".limits", out);
  FractionalBytes(requests, "memory", path + ".requests", out);
  FractionalBytes(limits, "ephemeral-storage", path + ".limits", out);
  FractionalBytes(requests, "ephemeral-storage", path + ".requests", out);
}

// kube's rule: a repeated name warns unless its value refers to the earlier
// one ("$(X)…", not only "$(X)") and is not a valueFrom.
void EnvWarnings(const json::array* env, const std::string& path, Warnings& out) {
  if (!env || env->size() < 2) return;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < env->size(); ++i) {
    const json::object* e = (*env)[i].if_object();
    if (!e) continue;
    std::string_view name = StringAt(e, "name");
    if (seen.emplace(name).second) continue;
    const std::string ref = "$(" + std::string(name) + ")";
    std::string_view value = StringAt(e, "value");
    const bool bad = e->contains("valueFrom") || value == ref || value.find(ref) == std::string_view::npos;
    if (bad) {
      out.push_back(Index(path, i) + ": hides previous definition of \"" + std::string(name) +
                    "\", which may be dropped when using apply");
    }
  }
}

// Calls `visit(container, path)` for the init, regular and ephemeral
// containers, in that order (kube's VisitContainersWithPath).
template <typename Visit>
void VisitContainers(const json::object* spec, const std::string& p, Visit visit) {
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"}) {
    const json::array* containers = ArrayAt(spec, list);
    if (!containers) continue;
    for (size_t i = 0; i < containers->size(); ++i) {
      if (const json::object* c = (*containers)[i].if_object()) visit(*c, Index(p + std::string(list), i));
    }
  }
}

struct PortSeen {
  std::string path;
  std::string_view host_ip;
  int64_t host_port;
};

void PortWarnings(const json::object* spec, const std::string& p, Warnings& out) {
  std::map<std::string, std::vector<PortSeen>> all;
  VisitContainers(spec, p, [&](const json::object& c, const std::string& path) {
    const json::array* ports = ArrayAt(&c, "ports");
    if (!ports) return;
    for (size_t i = 0; i < ports->size(); ++i) {
      const json::object* port = (*ports)[i].if_object();
      if (!port) continue;
      const std::string at = Index(path + ".ports", i);
      std::string_view host_ip = StringAt(port, "hostIP");
      const int64_t host_port = IntAt(port, "hostPort");
      const int64_t container_port = IntAt(port, "containerPort");
      std::string_view protocol = StringAt(port, "protocol");
      if (!host_ip.empty() && host_port == 0) {
        // Go's %+v of the port.
        out.push_back(at + ": hostIP set without hostPort: {Name:" + std::string(StringAt(port, "name")) +
                      " HostPort:0 ContainerPort:" + std::to_string(container_port) +
                      " Protocol:" + std::string(protocol) + " HostIP:" + std::string(host_ip) + "}");
      }
      auto& others = all[std::to_string(container_port) + "/" + std::string(protocol)];
      for (const PortSeen& other : others) {
        if (host_ip == other.host_ip && host_port == other.host_port) {
          out.push_back(at + ": duplicate port definition with " + other.path);
        } else if (host_port == 0 || other.host_port == 0) {
          out.push_back(at + ": overlapping port definition with " + other.path);
        } else if (host_port == other.host_port && (host_ip.empty() != other.host_ip.empty())) {
          out.push_back(at + ": dangerously ambiguous port definition with " + other.path);
        }
      }
      others.push_back({at, host_ip, host_port});
    }
  });
}

void NullSelectorWarnings(const json::object* affinity, std::string_view kind, const std::string& p, Warnings& out) {
  const json::object* a = ObjectAt(affinity, kind);
  const std::string base = p + "affinity." + std::string(kind) + ".";
  if (const json::array* required = ArrayAt(a, "requiredDuringSchedulingIgnoredDuringExecution")) {
    for (size_t i = 0; i < required->size(); ++i) {
      const json::object* t = (*required)[i].if_object();
      if (t && !ObjectAt(t, "labelSelector")) {
        out.push_back(Index(base + "requiredDuringSchedulingIgnoredDuringExecution", i) +
                      ".labelSelector: a null labelSelector results in matching no pod");
      }
    }
  }
  if (const json::array* preferred = ArrayAt(a, "preferredDuringSchedulingIgnoredDuringExecution")) {
    for (size_t i = 0; i < preferred->size(); ++i) {
      const json::object* t = (*preferred)[i].if_object();
      if (t && !ObjectAt(ObjectAt(t, "podAffinityTerm"), "labelSelector")) {
        out.push_back(Index(base + "preferredDuringSchedulingIgnoredDuringExecution", i) +
                      ".podAffinityTerm.labelSelector: a null labelSelector results in matching no pod");
      }
    }
  }
}

}  // namespace

std::vector<std::string> PodSpecWarnings(const json::object* meta, const json::object* spec, std::string_view prefix) {
  Warnings out;
  if (!spec) return out;
  const std::string p = std::string(prefix) + "spec.";
  const std::string m(prefix);
  const json::object* annotations = ObjectAt(meta, "annotations");
  NodeLabelWarnings(spec, p, out);
  DeprecatedAnnotationWarnings(annotations, m, out);
  const json::array* volumes = ArrayAt(spec, "volumes");
  VolumeWarnings(volumes, p, out);
  ProjectedPathWarnings(volumes, p, out);
  DuplicateWarnings(ArrayAt(spec, "hostAliases"), "ip", p + "hostAliases", "ip", out);
  DuplicateWarnings(ArrayAt(spec, "imagePullSecrets"), "name", p + "imagePullSecrets", "name", out);
  if (const json::array* secrets = ArrayAt(spec, "imagePullSecrets")) {
    for (size_t i = 0; i < secrets->size(); ++i) {
      const json::object* s = (*secrets)[i].if_object();
      if (s && StringAt(s, "name").empty()) {
        out.push_back(Index(p + "imagePullSecrets", i) + ".name: invalid empty name \"\"");
      }
    }
  }
  FractionalBytes(ObjectAt(spec, "overhead"), "memory", p + "overhead", out);
  FractionalBytes(ObjectAt(spec, "overhead"), "ephemeral-storage", p + "overhead", out);
  constexpr std::string_view kSeccompPod = "seccomp.security.alpha.kubernetes.io/pod";
  constexpr std::string_view kSeccompContainer = "container.seccomp.security.alpha.kubernetes.io/";
  if (!ObjectAt(ObjectAt(spec, "securityContext"), "seccompProfile") && annotations &&
      annotations->contains(kSeccompPod)) {
    out.push_back(Key(m + "metadata.annotations", kSeccompPod) +
                  ": non-functional in v1.27+; use the \"seccompProfile\" field instead");
  }
  VisitContainers(spec, p, [&](const json::object& c, const std::string& path) {
    const std::string key = std::string(kSeccompContainer) + std::string(StringAt(c, "name"));
    if (!ObjectAt(ObjectAt(&c, "securityContext"), "seccompProfile") && annotations && annotations->contains(key)) {
      out.push_back(Key(m + "metadata.annotations", key) +
                    ": non-functional in v1.27+; use the \"seccompProfile\" field instead");
    }
    FractionalResourceWarnings(ObjectAt(&c, "resources"), path + ".resources", out);
    EnvWarnings(ArrayAt(&c, "env"), path + ".env", out);
  });
  PortWarnings(spec, p, out);
  if (const json::value* grace = spec->if_contains("terminationGracePeriodSeconds");
      grace && grace->is_int64() && grace->get_int64() < 0) {
    out.push_back(p + "terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1");
  }
  const json::object* affinity = ObjectAt(spec, "affinity");
  NullSelectorWarnings(affinity, "podAffinity", p, out);
  NullSelectorWarnings(affinity, "podAntiAffinity", p, out);
  return out;
}

namespace validation {

namespace {

// The pod template at `path` (keys from the object's root) when the object's
// spec changed (a create, or a new generation).
std::vector<std::string> TemplateWarningsAt(const Object& next, const Object* current,
                                            std::initializer_list<std::string_view> path) {
  if (current && Generation(next) == Generation(*current)) return {};
  const json::object* o = &next.json();
  std::string prefix;
  for (std::string_view key : path) {
    o = ObjectAt(o, key);
    prefix += std::string(key) + ".";
  }
  return o ? PodSpecWarnings(ObjectAt(o, "metadata"), ObjectAt(o, "spec"), prefix) : std::vector<std::string>{};
}

}  // namespace

std::vector<std::string> PodWarnings(const Object& next, const Object*) {
  return PodSpecWarnings(ObjectAt(&next.json(), "metadata"), ObjectAt(&next.json(), "spec"), "");
}

std::vector<std::string> WorkloadTemplateWarnings(const Object& next, const Object* current) {
  return TemplateWarningsAt(next, current, {"spec", "template"});
}

std::vector<std::string> CronJobTemplateWarnings(const Object& next, const Object* current) {
  return TemplateWarningsAt(next, current, {"spec", "jobTemplate", "spec", "template"});
}

std::vector<std::string> PodTemplateWarnings(const Object& next, const Object* current) {
  const json::object* tmpl = ObjectAt(&next.json(), "template");
  if (current) {
    const json::value* before = current->json().if_contains("template");
    const json::value* after = next.json().if_contains("template");
    if ((before && after && *before == *after) || (!before && !after)) return {};
  }
  return PodSpecWarnings(ObjectAt(tmpl, "metadata"), ObjectAt(tmpl, "spec"), "template.");
}

}  // namespace validation
}  // namespace berth::api
