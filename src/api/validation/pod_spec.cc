// kube's rules for the pod fields the scheduler and controllers read
// (pkg/apis/core/validation): tolerations, node and pod (anti-)affinity,
// topology spread constraints, container ports, volumes and their mounts,
// the DNS policy and the priority class name; and nodes' taints. Called
// from ValidatePodSpec (pod_validation.cc) and ValidateObject.

#include <boost/json.hpp>
#include <set>

#include "api/json_fields.h"
#include "api/validation/groups.h"
#include "api/validation/name_validation.h"

namespace berth::api::validation {

namespace json = boost::json;

namespace {

constexpr std::string_view kNotPositive = "must be greater than zero";

const json::object* AsObject(const json::value& v) {
  return v.is_object() ? &v.get_object() : nullptr;
}

size_t ListSize(const json::object* o, std::string_view key) {
  const json::array* a = ArrayAt(o, key);
  return a ? a->size() : 0;
}

// kube's ValidateLabelName: a qualified name.
void LabelName(std::string_view key, const std::string& path, FieldErrors& errors) {
  for (const auto& m : IsQualifiedName(key)) errors.Invalid(path, key, m);
}

// The toleration as kube's message prints a core.Toleration (Go's %#v).
std::string GoToleration(const json::object& t) {
  std::string seconds = "(*int64)(nil)";
  if (const json::value* s = Present(&t, "tolerationSeconds"))
    seconds = "(*int64)(" + json::serialize(*s) + ")";
  return "core.Toleration{Key:" + GoQuote(StringAt(t, "key")) +
         ", Operator:" + GoQuote(StringAt(t, "operator")) +
         ", Value:" + GoQuote(StringAt(t, "value")) + ", Effect:" + GoQuote(StringAt(t, "effect")) +
         ", TolerationSeconds:" + seconds + "}";
}

// kube's validateTaintEffect.
void TaintEffect(std::string_view effect, bool allow_empty, const std::string& path,
                 FieldErrors& errors) {
  if (effect.empty()) {
    if (!allow_empty) errors.Required(path);
    return;
  }
  if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
    errors.NotSupported(path, effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"});
  }
}

}  // namespace

void LabelSelectorRules(const json::value* selector, const std::string& path, FieldErrors& errors) {
  const json::object* s = selector ? AsObject(*selector) : nullptr;
  if (!s) return;
  ValidateLabelMap(ObjectAt(s, "matchLabels"), path + ".matchLabels", errors);
  const json::array* expressions = ArrayAt(s, "matchExpressions");
  if (!expressions) return;
  for (size_t i = 0; i < expressions->size(); ++i) {
    const std::string e_path = IndexPath(path + ".matchExpressions", i);
    const json::object* e = AsObject((*expressions)[i]);
    const std::string_view op = StringAt(e, "operator");
    const size_t values = ListSize(e, "values");
    if (op == "In" || op == "NotIn") {
      if (values == 0)
        errors.Required(e_path + ".values", "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (values > 0) {
        errors.Forbidden(e_path + ".values",
                         "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      }
    } else {
      errors.Invalid(e_path + ".operator", op, "not a valid selector operator");
    }
    LabelName(StringAt(e, "key"), e_path + ".key", errors);
    if (const json::array* vs = ArrayAt(e, "values")) {
      for (size_t v = 0; v < vs->size(); ++v) {
        std::string_view value =
            (*vs)[v].is_string() ? std::string_view((*vs)[v].get_string()) : "";
        for (const auto& m : IsValidLabelValue(value))
          errors.Invalid(IndexPath(e_path + ".values", v), value, m);
      }
    }
  }
}

namespace {

// kube's ValidateNodeSelectorRequirement and validateNodeFieldSelectorRequirement.
void NodeSelectorTerm(const json::object* term, const std::string& path, FieldErrors& errors) {
  if (const json::array* expressions = ArrayAt(term, "matchExpressions")) {
    for (size_t i = 0; i < expressions->size(); ++i) {
      const std::string e_path = IndexPath(path + ".matchExpressions", i);
      const json::object* e = AsObject((*expressions)[i]);
      const std::string_view op = StringAt(e, "operator");
      const size_t values = ListSize(e, "values");
      if (op == "In" || op == "NotIn") {
        if (values == 0)
          errors.Required(e_path + ".values",
                          "must be specified when `operator` is 'In' or 'NotIn'");
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (values > 0) {
          errors.Forbidden(e_path + ".values",
                           "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        }
      } else if (op == "Gt" || op == "Lt") {
        if (values != 1) {
          errors.Required(e_path + ".values",
                          "must be specified single value when `operator` is 'Lt' or 'Gt'");
        }
      } else {
        errors.Invalid(e_path + ".operator", op, "not a valid selector operator");
      }
      LabelName(StringAt(e, "key"), e_path + ".key", errors);
    }
  }
  if (const json::array* fields = ArrayAt(term, "matchFields")) {
    for (size_t i = 0; i < fields->size(); ++i) {
      const std::string f_path = IndexPath(path + ".matchFields", i);
      const json::object* f = AsObject((*fields)[i]);
      const std::string_view op = StringAt(f, "operator");
      if (op == "In" || op == "NotIn") {
        if (ListSize(f, "values") != 1) {
          errors.Required(
              f_path + ".values",
              "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
        }
      } else {
        errors.Invalid(f_path + ".operator", op, "not a valid selector operator");
      }
      if (StringAt(f, "key") != "metadata.name") {
        errors.Invalid(f_path + ".key", StringAt(f, "key"), "not a valid field selector key");
      }
    }
  }
}

void Weight(const json::object* term, const std::string& path, FieldErrors& errors) {
  const json::value* w = Present(term, "weight");
  const int64_t weight = w && w->is_int64() ? w->get_int64() : 0;
  if (weight <= 0 || weight > 100)
    errors.InvalidValue(path + ".weight", w ? *w : json::value(0), "must be in the range 1-100");
}

// preferredDuringSchedulingIgnoredDuringExecution of node and pod (anti-)
// affinity: each entry's weight, and its term (under `term_field`) by `check`.
void PreferredTerms(const json::object* affinity, const std::string& path, std::string_view term_field,
                    void (*check)(const json::object*, const std::string&, FieldErrors&),
                    FieldErrors& errors) {
  const json::array* preferred = ArrayAt(affinity, "preferredDuringSchedulingIgnoredDuringExecution");
  if (!preferred) return;
  for (size_t i = 0; i < preferred->size(); ++i) {
    const std::string p_path = IndexPath(path + ".preferredDuringSchedulingIgnoredDuringExecution", i);
    const json::object* term = AsObject((*preferred)[i]);
    Weight(term, p_path, errors);
    check(ObjectAt(term, term_field), p_path + "." + std::string(term_field), errors);
  }
}

void NodeAffinity(const json::object* affinity, const std::string& path, FieldErrors& errors) {
  if (!affinity) return;
  if (const json::value* required =
          Present(affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
    const std::string r_path = path + ".requiredDuringSchedulingIgnoredDuringExecution";
    const json::array* terms = ArrayAt(AsObject(*required), "nodeSelectorTerms");
    if (!terms || terms->empty()) {
      errors.Required(r_path + ".nodeSelectorTerms", "must have at least one node selector term");
    } else {
      for (size_t i = 0; i < terms->size(); ++i) {
        NodeSelectorTerm(AsObject((*terms)[i]), IndexPath(r_path + ".nodeSelectorTerms", i),
                         errors);
      }
    }
  }
  PreferredTerms(affinity, path, "preference", NodeSelectorTerm, errors);
}

// kube's validatePodAffinityTerm.
void PodAffinityTerm(const json::object* term, const std::string& path, FieldErrors& errors) {
  LabelSelectorRules(Present(term, "labelSelector"), path + ".labelSelector", errors);
  LabelSelectorRules(Present(term, "namespaceSelector"), path + ".namespaceSelector", errors);
  if (const json::array* namespaces = ArrayAt(term, "namespaces")) {
    for (const json::value& ns : *namespaces) {
      std::string_view name = ns.is_string() ? std::string_view(ns.get_string()) : "";
      for (const auto& m : IsDns1123Label(name)) errors.Invalid(path + ".namespace", name, m);
    }
  }
  const std::string_view topology_key = StringAt(term, "topologyKey");
  if (topology_key.empty()) errors.Required(path + ".topologyKey", "can not be empty");
  LabelName(topology_key, path + ".topologyKey", errors);
}

void PodAffinity(const json::object* affinity, const std::string& path, FieldErrors& errors) {
  if (!affinity) return;
  if (const json::array* required =
          ArrayAt(affinity, "requiredDuringSchedulingIgnoredDuringExecution")) {
    for (size_t i = 0; i < required->size(); ++i) {
      PodAffinityTerm(AsObject((*required)[i]),
                      IndexPath(path + ".requiredDuringSchedulingIgnoredDuringExecution", i),
                      errors);
    }
  }
  PreferredTerms(affinity, path, "podAffinityTerm", PodAffinityTerm, errors);
}

// kube's validateTopologySpreadConstraints.
void TopologySpread(const json::array* constraints, const std::string& path, FieldErrors& errors) {
  if (!constraints) return;
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < constraints->size(); ++i) {
    const std::string c_path = IndexPath(path, i);
    const json::object* c = AsObject((*constraints)[i]);
    const json::value* skew = Present(c, "maxSkew");
    if (!skew || !skew->is_int64() || skew->get_int64() <= 0) {
      errors.InvalidValue(c_path + ".maxSkew", skew ? *skew : json::value(0), kNotPositive);
    }
    const std::string_view key = StringAt(c, "topologyKey");
    if (key.empty()) {
      errors.Required(c_path + ".topologyKey", "can not be empty");
    } else {
      LabelName(key, c_path + ".topologyKey", errors);
    }
    const std::string_view action = StringAt(c, "whenUnsatisfiable");
    if (action != "DoNotSchedule" && action != "ScheduleAnyway") {
      errors.NotSupported(c_path + ".whenUnsatisfiable", action,
                          {"DoNotSchedule", "ScheduleAnyway"});
    }
    if (!seen.emplace(std::string(key), std::string(action)).second) {
      errors.Duplicate(c_path + ".{topologyKey, whenUnsatisfiable}",
                       "{" + std::string(key) + ", " + std::string(action) + "}");
    }
    if (const json::value* min_domains = Present(c, "minDomains")) {
      if (!min_domains->is_int64() || min_domains->get_int64() <= 0) {
        errors.InvalidValue(c_path + ".minDomains", *min_domains, kNotPositive);
      }
      if (action != "DoNotSchedule") {
        errors.InvalidValue(c_path + ".minDomains", *min_domains,
                            "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not " +
                                std::string(action));
      }
    }
    for (std::string_view policy : {"nodeAffinityPolicy", "nodeTaintsPolicy"}) {
      if (const json::value* p = Present(c, policy)) {
        std::string_view value = p->is_string() ? std::string_view(p->get_string()) : "";
        if (value != "Honor" && value != "Ignore") {
          errors.NotSupported(c_path + "." + std::string(policy), value, {"Honor", "Ignore"});
        }
      }
    }
    LabelSelectorRules(Present(c, "labelSelector"), c_path + ".labelSelector", errors);
  }
}

// Volume sources in the order kube's validateVolumeSource looks at them.
// clang-format off
constexpr std::string_view kVolumeSources[] = {
    "hostPath", "emptyDir", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs",
    "iscsi", "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "quobyte", "cinder", "cephfs",
    "flexVolume", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "azureDisk",
    "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi",
    "ephemeral", "image"};
// clang-format on

}  // namespace

void ValidateTolerations(const json::array* tolerations, const std::string& path,
                         FieldErrors& errors) {
  if (!tolerations) return;
  for (size_t i = 0; i < tolerations->size(); ++i) {
    const std::string t_path = IndexPath(path, i);
    const json::object* t = AsObject((*tolerations)[i]);
    if (!t) continue;
    const std::string_view key = StringAt(t, "key");
    const std::string_view op = StringAt(t, "operator");
    const std::string_view effect = StringAt(t, "effect");
    const std::string_view value = StringAt(t, "value");
    if (!key.empty()) LabelName(key, t_path + ".key", errors);
    if (key.empty() && op != "Exists") {
      errors.Invalid(t_path + ".operator", op,
                     "operator must be Exists when `key` is empty, which means \"match all values "
                     "and all keys\"");
    }
    if (Present(t, "tolerationSeconds") && effect != "NoExecute") {
      errors.Invalid(t_path + ".effect", effect,
                     "effect must be 'NoExecute' when `tolerationSeconds` is set");
    }
    if (op.empty() || op == "Equal") {
      std::string problems;
      for (const auto& m : IsValidLabelValue(value)) problems += (problems.empty() ? "" : ";") + m;
      if (!problems.empty()) errors.Invalid(t_path + ".operator", value, problems);
    } else if (op == "Exists") {
      if (!value.empty()) {
        errors.InvalidGo(t_path + ".operator", GoToleration(*t),
                         "value must be empty when `operator` is 'Exists'");
      }
    } else {
      errors.NotSupported(t_path + ".operator", op, {"Equal", "Exists"});
    }
    TaintEffect(effect, true, t_path + ".effect", errors);
  }
}

void ValidateSchedulingFields(const json::object& spec, const std::string& path,
                              FieldErrors& errors) {
  ValidateTolerations(ArrayAt(spec, "tolerations"), path + ".tolerations", errors);
  if (const json::object* affinity = ObjectAt(&spec, "affinity")) {
    NodeAffinity(ObjectAt(affinity, "nodeAffinity"), path + ".affinity.nodeAffinity", errors);
    PodAffinity(ObjectAt(affinity, "podAffinity"), path + ".affinity.podAffinity", errors);
    PodAffinity(ObjectAt(affinity, "podAntiAffinity"), path + ".affinity.podAntiAffinity", errors);
  }
  TopologySpread(ArrayAt(spec, "topologySpreadConstraints"), path + ".topologySpreadConstraints",
                 errors);
  if (const json::value* dns = Present(&spec, "dnsPolicy")) {
    std::string_view policy = dns->is_string() ? std::string_view(dns->get_string()) : "";
    if (policy.empty()) {
      errors.Required(path + ".dnsPolicy");
    } else if (policy != "ClusterFirstWithHostNet" && policy != "ClusterFirst" &&
               policy != "Default" && policy != "None") {
      errors.NotSupported(path + ".dnsPolicy", policy,
                          {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"});
    }
  }
  if (std::string_view name = StringAt(spec, "priorityClassName"); !name.empty()) {
    for (const auto& m : IsDns1123Subdomain(name))
      errors.Invalid(path + ".priorityClassName", name, m);
  }
}

std::set<std::string> ValidateVolumes(const json::object& spec, const std::string& path,
                                      FieldErrors& errors) {
  std::set<std::string> names;
  const json::array* volumes = ArrayAt(spec, "volumes");
  if (!volumes) return names;
  for (size_t i = 0; i < volumes->size(); ++i) {
    const std::string v_path = IndexPath(path + ".volumes", i);
    const json::object* v = AsObject((*volumes)[i]);
    int sources = 0;
    for (std::string_view source : kVolumeSources) {
      if (!Present(v, source)) continue;
      if (sources > 0)
        errors.Forbidden(v_path + "." + std::string(source),
                         "may not specify more than 1 volume type");
      ++sources;
    }
    if (sources == 0) errors.Required(v_path, "must specify a volume type");
    const std::string name(StringAt(v, "name"));
    if (name.empty()) {
      errors.Required(v_path + ".name");
    } else {
      for (const auto& m : IsDns1123Label(name)) errors.Invalid(v_path + ".name", name, m);
    }
    if (!names.insert(name).second) errors.Duplicate(v_path + ".name", name);
  }
  return names;
}

void ValidateVolumeMounts(const json::object& container, const std::set<std::string>& volumes,
                          const std::string& path, FieldErrors& errors) {
  const json::array* mounts = ArrayAt(container, "volumeMounts");
  if (!mounts) return;
  std::set<std::string> paths;
  for (size_t i = 0; i < mounts->size(); ++i) {
    const std::string m_path = IndexPath(path + ".volumeMounts", i);
    const json::object* m = AsObject((*mounts)[i]);
    const std::string name(StringAt(m, "name"));
    if (name.empty()) {
      errors.Required(m_path + ".name");
    } else if (!volumes.contains(name)) {
      errors.NotFound(m_path + ".name", name);
    }
    const std::string mount_path(StringAt(m, "mountPath"));
    if (mount_path.empty()) {
      errors.Required(m_path + ".mountPath");
    } else if (!paths.insert(mount_path).second) {
      errors.Invalid(m_path + ".mountPath", mount_path, "must be unique");
    }
  }
}

void ValidateContainerPorts(const json::object& container, const std::string& path,
                            FieldErrors& errors) {
  const json::array* ports = ArrayAt(container, "ports");
  if (!ports) return;
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    const std::string p_path = IndexPath(path + ".ports", i);
    const json::object* p = AsObject((*ports)[i]);
    if (!p) continue;
    if (std::string_view name = StringAt(p, "name"); !name.empty()) {
      auto problems = IsValidPortName(name);
      for (const auto& m : problems) errors.Invalid(p_path + ".name", name, m);
      if (problems.empty() && !names.insert(std::string(name)).second)
        errors.Duplicate(p_path + ".name", name);
    }
    const json::value* container_port = Present(p, "containerPort");
    if (!container_port || (container_port->is_int64() && container_port->get_int64() == 0)) {
      errors.Required(p_path + ".containerPort");
    } else {
      ValidatePortNumber(*container_port, p_path + ".containerPort", errors);
    }
    if (const json::value* host_port = Present(p, "hostPort");
        host_port && !(host_port->is_int64() && host_port->get_int64() == 0)) {
      ValidatePortNumber(*host_port, p_path + ".hostPort", errors);
    }
    if (const json::value* protocol = Present(p, "protocol")) {
      std::string_view value =
          protocol->is_string() ? std::string_view(protocol->get_string()) : "";
      if (value.empty()) {
        errors.Required(p_path + ".protocol");
      } else if (value != "TCP" && value != "UDP" && value != "SCTP") {
        errors.NotSupported(p_path + ".protocol", value, {"SCTP", "TCP", "UDP"});
      }
    }
  }
}

void ValidateNodeTaints(const json::array* taints, const std::string& path, FieldErrors& errors) {
  if (!taints) return;
  std::set<std::pair<std::string, std::string>> seen;  // effect, key
  for (size_t i = 0; i < taints->size(); ++i) {
    const std::string t_path = IndexPath(path, i);
    const json::object* t = AsObject((*taints)[i]);
    const std::string_view key = StringAt(t, "key");
    const std::string_view value = StringAt(t, "value");
    const std::string_view effect = StringAt(t, "effect");
    LabelName(key, t_path + ".key", errors);
    std::string problems;
    for (const auto& m : IsValidLabelValue(value)) problems += (problems.empty() ? "" : ";") + m;
    if (!problems.empty()) errors.Invalid(t_path + ".value", value, problems);
    TaintEffect(effect, false, t_path + ".effect", errors);
    if (!seen.emplace(std::string(effect), std::string(key)).second) {
      errors.DuplicateGo(t_path,
                         "core.Taint{Key:" + GoQuote(key) + ", Value:" + GoQuote(value) +
                             ", Effect:" + GoQuote(effect) + ", TimeAdded:(*v1.Time)(nil)}",
                         "taints must be unique by key and effect pair");
    }
  }
}

}  // namespace berth::api::validation
