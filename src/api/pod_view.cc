#include "api/pod_view.h"

#include <algorithm>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/object.h"
#include "api/time/rfc3339.h"

namespace berth::api {

namespace json = boost::json;

namespace {

struct ContainerRequests {
  ResourceList requests;
  ResourceList non_zero;
};

// One container: its requests (limits standing in for missing requests) and
// the non-zero variant; host ports and image appended to `view`.
ContainerRequests ReadContainer(JsonReader& reader, const json::object& c, const FieldPath& at,
                                PodView& view) {
  ContainerRequests out;
  if (std::string image = reader.String(c, "image", at); !image.empty()) view.images.push_back(image);
  if (const json::object* res = reader.Object(c, "resources", at)) {
    FieldPath rpath = at.Field("resources");
    std::vector<std::string> requested;
    if (const json::value* v = reader.Member(*res, "requests")) {
      auto list = ParseResourceList(*v, rpath.Field("requests").ToString(), &requested);
      if (!list.ok()) {
        reader.Fail(list.status());
        return out;
      }
      out.requests = std::move(list).value();
    }
    if (const json::value* v = reader.Member(*res, "limits")) {
      std::vector<std::string> limited;
      auto list = ParseResourceList(*v, rpath.Field("limits").ToString(), &limited);
      if (!list.ok()) {
        reader.Fail(list.status());
        return out;
      }
      for (const auto& name : limited) {
        if (std::find(requested.begin(), requested.end(), name) == requested.end()) {
          out.requests.Set(name, list.value().Get(name));
          requested.push_back(name);
        }
      }
    }
    out.non_zero = out.requests;
    auto has = [&](std::string_view n) {
      return std::find(requested.begin(), requested.end(), n) != requested.end();
    };
    if (!has(kResourceCpu)) out.non_zero.milli_cpu = kDefaultMilliCpuRequest;
    if (!has(kResourceMemory)) out.non_zero.memory = kDefaultMemoryRequest;
  } else {
    out.non_zero.milli_cpu = kDefaultMilliCpuRequest;
    out.non_zero.memory = kDefaultMemoryRequest;
  }
  return out;
}

void ReadHostPorts(JsonReader& reader, const json::object& c, const FieldPath& at, PodView& view) {
  const json::array* ports = reader.Array(c, "ports", at);
  if (!ports) return;
  FieldPath list = at.Field("ports");
  for (size_t i = 0; i < ports->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* p = reader.ElementObject((*ports)[i], here);
    if (!p) return;
    auto host_port = reader.Int(*p, "hostPort", here);
    if (!host_port || *host_port <= 0) continue;
    HostPort hp;
    hp.port = static_cast<int32_t>(*host_port);
    hp.protocol = reader.String(*p, "protocol", here);
    if (hp.protocol.empty()) hp.protocol = "TCP";
    hp.host_ip = reader.String(*p, "hostIP", here);
    if (hp.host_ip.empty()) hp.host_ip = "0.0.0.0";
    view.host_ports.push_back(std::move(hp));
  }
}

// Kube's PodRequests: containers summed; init containers run one at a time
// before them, each alongside the sidecars started before it; sidecars
// (restartable init containers) keep running with the containers.
void ComputeRequests(JsonReader& reader, const json::object& spec, const FieldPath& at, PodView& view) {
  ResourceList sum, sum_non_zero;
  if (const json::array* containers = reader.Array(spec, "containers", at)) {
    FieldPath list = at.Field("containers");
    for (size_t i = 0; i < containers->size(); ++i) {
      FieldPath here = list.Index(static_cast<int>(i));
      const json::object* c = reader.ElementObject((*containers)[i], here);
      if (!c) return;
      ContainerRequests r = ReadContainer(reader, *c, here, view);
      sum.Add(r.requests);
      sum_non_zero.Add(r.non_zero);
      ReadHostPorts(reader, *c, here, view);
    }
  }
  ResourceList sidecars, sidecars_non_zero, init_max, init_max_non_zero;
  if (const json::array* inits = reader.Array(spec, "initContainers", at)) {
    FieldPath list = at.Field("initContainers");
    for (size_t i = 0; i < inits->size(); ++i) {
      FieldPath here = list.Index(static_cast<int>(i));
      const json::object* c = reader.ElementObject((*inits)[i], here);
      if (!c) return;
      ContainerRequests r = ReadContainer(reader, *c, here, view);
      bool sidecar = reader.String(*c, "restartPolicy", here) == "Always";
      if (sidecar) {
        sidecars.Add(r.requests);
        sidecars_non_zero.Add(r.non_zero);
        r.requests = sidecars;
        r.non_zero = sidecars_non_zero;
        ReadHostPorts(reader, *c, here, view);
      } else {
        r.requests.Add(sidecars);
        r.non_zero.Add(sidecars_non_zero);
      }
      init_max.SetMax(r.requests);
      init_max_non_zero.SetMax(r.non_zero);
    }
  }
  sum.Add(sidecars);
  sum_non_zero.Add(sidecars_non_zero);
  sum.SetMax(init_max);
  sum_non_zero.SetMax(init_max_non_zero);
  if (const json::value* overhead = reader.Member(spec, "overhead"); overhead && reader.ok()) {
    auto list = ParseResourceList(*overhead, at.Field("overhead").ToString());
    if (!list.ok()) return reader.Fail(list.status());
    sum.Add(list.value());
    sum_non_zero.Add(list.value());
  }
  view.requests = std::move(sum);
  view.non_zero_requests = std::move(sum_non_zero);
}

LabelSelector ReadLabelSelector(JsonReader& reader, const json::object& parent, std::string_view name,
                                const FieldPath& at) {
  const json::value* v = reader.Member(parent, name);
  if (!v) return LabelSelector::Nothing();
  if (!v->is_object()) {
    reader.Fail(at.Field(name), "expected an object");
    return LabelSelector::Nothing();
  }
  // A selector with an invalid operator or value selects nothing here;
  // validation reports it on create.
  auto selector = LabelSelector::FromJson(*v);
  return selector.ok() ? std::move(selector).value() : LabelSelector::Nothing();
}

PodAffinityTerm ReadAffinityTerm(JsonReader& reader, const json::object& o, const FieldPath& at) {
  PodAffinityTerm term;
  term.label_selector = ReadLabelSelector(reader, o, "labelSelector", at);
  term.namespaces = reader.StringList(o, "namespaces", at);
  if (reader.Member(o, "namespaceSelector")) {
    term.namespace_selector = ReadLabelSelector(reader, o, "namespaceSelector", at);
  }
  term.topology_key = reader.String(o, "topologyKey", at);
  term.match_label_keys = reader.StringList(o, "matchLabelKeys", at);
  term.mismatch_label_keys = reader.StringList(o, "mismatchLabelKeys", at);
  return term;
}

PodAffinityRules ReadAffinityRules(JsonReader& reader, const json::object& o, const FieldPath& at) {
  PodAffinityRules rules;
  if (const json::array* req = reader.Array(o, "requiredDuringSchedulingIgnoredDuringExecution", at)) {
    FieldPath list = at.Field("requiredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; i < req->size(); ++i) {
      FieldPath here = list.Index(static_cast<int>(i));
      const json::object* t = reader.ElementObject((*req)[i], here);
      if (!t) return {};
      rules.required.push_back(ReadAffinityTerm(reader, *t, here));
    }
  }
  if (const json::array* pref = reader.Array(o, "preferredDuringSchedulingIgnoredDuringExecution", at)) {
    FieldPath list = at.Field("preferredDuringSchedulingIgnoredDuringExecution");
    for (size_t i = 0; i < pref->size(); ++i) {
      FieldPath here = list.Index(static_cast<int>(i));
      const json::object* w = reader.ElementObject((*pref)[i], here);
      if (!w) return {};
      WeightedPodAffinityTerm weighted;
      weighted.weight = static_cast<int32_t>(reader.Int(*w, "weight", here).value_or(0));
      if (const json::object* t = reader.Object(*w, "podAffinityTerm", here)) {
        weighted.term = ReadAffinityTerm(reader, *t, here.Field("podAffinityTerm"));
      }
      rules.preferred.push_back(std::move(weighted));
    }
  }
  return rules;
}

void ReadAffinity(JsonReader& reader, const json::object& spec, const FieldPath& at, PodView& view) {
  const json::object* affinity = reader.Object(spec, "affinity", at);
  if (!affinity) return;
  FieldPath apath = at.Field("affinity");
  if (const json::object* na = reader.Object(*affinity, "nodeAffinity", apath)) {
    FieldPath npath = apath.Field("nodeAffinity");
    if (const json::object* req =
            reader.Object(*na, "requiredDuringSchedulingIgnoredDuringExecution", npath)) {
      view.required_node_affinity =
          ReadNodeSelector(reader, *req, npath.Field("requiredDuringSchedulingIgnoredDuringExecution"));
    }
    if (const json::array* pref = reader.Array(*na, "preferredDuringSchedulingIgnoredDuringExecution", npath)) {
      FieldPath list = npath.Field("preferredDuringSchedulingIgnoredDuringExecution");
      for (size_t i = 0; i < pref->size(); ++i) {
        FieldPath here = list.Index(static_cast<int>(i));
        const json::object* p = reader.ElementObject((*pref)[i], here);
        if (!p) return;
        PreferredSchedulingTerm term;
        term.weight = static_cast<int32_t>(reader.Int(*p, "weight", here).value_or(0));
        if (const json::object* t = reader.Object(*p, "preference", here)) {
          term.preference = ReadNodeSelectorTerm(reader, *t, here.Field("preference"));
        }
        view.preferred_node_affinity.push_back(std::move(term));
      }
    }
  }
  if (const json::object* pa = reader.Object(*affinity, "podAffinity", apath)) {
    view.pod_affinity = ReadAffinityRules(reader, *pa, apath.Field("podAffinity"));
  }
  if (const json::object* paa = reader.Object(*affinity, "podAntiAffinity", apath)) {
    view.pod_anti_affinity = ReadAffinityRules(reader, *paa, apath.Field("podAntiAffinity"));
  }
}

void ReadSpreadConstraints(JsonReader& reader, const json::object& spec, const FieldPath& at,
                           PodView& view) {
  const json::array* array = reader.Array(spec, "topologySpreadConstraints", at);
  if (!array) return;
  FieldPath list = at.Field("topologySpreadConstraints");
  for (size_t i = 0; i < array->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* o = reader.ElementObject((*array)[i], here);
    if (!o) return;
    TopologySpreadConstraint c;
    c.max_skew = static_cast<int32_t>(reader.Int(*o, "maxSkew", here).value_or(0));
    c.topology_key = reader.String(*o, "topologyKey", here);
    c.do_not_schedule = reader.String(*o, "whenUnsatisfiable", here) != "ScheduleAnyway";
    c.label_selector = ReadLabelSelector(reader, *o, "labelSelector", here);
    if (auto m = reader.Int(*o, "minDomains", here)) c.min_domains = static_cast<int32_t>(*m);
    c.node_affinity_honor = reader.String(*o, "nodeAffinityPolicy", here) != "Ignore";
    c.node_taints_honor = reader.String(*o, "nodeTaintsPolicy", here) == "Honor";
    c.match_label_keys = reader.StringList(*o, "matchLabelKeys", here);
    view.topology_spread_constraints.push_back(std::move(c));
  }
}

void ReadVolumes(JsonReader& reader, const json::object& spec, const FieldPath& at, std::string_view pod_name,
                 PodView& view) {
  const json::array* array = reader.Array(spec, "volumes", at);
  if (!array) return;
  FieldPath list = at.Field("volumes");
  for (size_t i = 0; i < array->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* o = reader.ElementObject((*array)[i], here);
    if (!o) return;
    PodVolume v;
    v.name = reader.String(*o, "name", here);
    if (const json::object* pvc = reader.Object(*o, "persistentVolumeClaim", here)) {
      v.claim_name = reader.String(*pvc, "claimName", here.Field("persistentVolumeClaim"));
    } else if (reader.Object(*o, "ephemeral", here)) {
      v.ephemeral = true;
      v.claim_name = std::string(pod_name) + "-" + v.name;
    }
    view.volumes.push_back(std::move(v));
  }
}

void ReadOwners(JsonReader& reader, const json::object& meta, const FieldPath& at, PodView& view) {
  const json::array* array = reader.Array(meta, "ownerReferences", at);
  if (!array) return;
  FieldPath list = at.Field("ownerReferences");
  for (size_t i = 0; i < array->size(); ++i) {
    FieldPath here = list.Index(static_cast<int>(i));
    const json::object* o = reader.ElementObject((*array)[i], here);
    if (!o) return;
    OwnerReference r;
    r.api_version = reader.String(*o, "apiVersion", here);
    r.kind = reader.String(*o, "kind", here);
    r.name = reader.String(*o, "name", here);
    r.uid = reader.String(*o, "uid", here);
    r.controller = reader.Bool(*o, "controller", here);
    view.owner_references.push_back(std::move(r));
  }
}

}  // namespace

const OwnerReference* PodView::ControllerRef() const {
  for (const auto& r : owner_references) {
    if (r.controller) return &r;
  }
  return nullptr;
}

bool HostPortsConflict(const HostPort& a, const HostPort& b) {
  if (a.port != b.port || a.protocol != b.protocol) return false;
  return a.host_ip == b.host_ip || a.host_ip == "0.0.0.0" || b.host_ip == "0.0.0.0";
}

Result<std::shared_ptr<const TypedView>> ParsePodView(const json::object& pod) {
  auto view = std::make_shared<PodView>();
  JsonReader reader;
  FieldPath root;
  std::string pod_name;
  if (const json::object* meta = reader.Object(pod, "metadata", root)) {
    FieldPath mpath = root.Field("metadata");
    pod_name = reader.String(*meta, "name", mpath);
    view->terminating = reader.Member(*meta, "deletionTimestamp") != nullptr;
    ReadOwners(reader, *meta, mpath, *view);
  }
  if (const json::object* spec = reader.Object(pod, "spec", root)) {
    FieldPath s = root.Field("spec");
    ComputeRequests(reader, *spec, s, *view);
    view->node_selector = reader.StringMap(*spec, "nodeSelector", s);
    ReadAffinity(reader, *spec, s, *view);
    view->tolerations = ReadTolerations(reader, *spec, s);
    ReadSpreadConstraints(reader, *spec, s, *view);
    if (auto p = reader.Int(*spec, "priority", s)) {
      view->priority = static_cast<int32_t>(*p);
      view->has_priority = true;
    }
    view->priority_class_name = reader.String(*spec, "priorityClassName", s);
    view->preemption_policy = reader.String(*spec, "preemptionPolicy", s);
    if (view->preemption_policy.empty()) view->preemption_policy = "PreemptLowerPriority";
    view->scheduler_name = reader.String(*spec, "schedulerName", s);
    if (view->scheduler_name.empty()) view->scheduler_name = kDefaultSchedulerName;
    view->node_name = reader.String(*spec, "nodeName", s);
    if (const json::array* gates = reader.Array(*spec, "schedulingGates", s)) {
      FieldPath list = s.Field("schedulingGates");
      for (size_t i = 0; i < gates->size(); ++i) {
        FieldPath here = list.Index(static_cast<int>(i));
        const json::object* g = reader.ElementObject((*gates)[i], here);
        if (!g) break;
        view->scheduling_gates.push_back(reader.String(*g, "name", here));
      }
    }
    ReadVolumes(reader, *spec, s, pod_name, *view);
  } else {
    view->scheduler_name = kDefaultSchedulerName;
  }
  if (const json::object* status = reader.Object(pod, "status", root)) {
    FieldPath st = root.Field("status");
    view->phase = reader.String(*status, "phase", st);
    view->nominated_node_name = reader.String(*status, "nominatedNodeName", st);
  }
  if (!reader.ok()) return reader.status();
  return std::shared_ptr<const TypedView>(std::move(view));
}

bool IsPodReady(const Object& pod) {
  const json::object* ready = FindCondition(StatusOf(pod), "Ready");
  return ready && StringAt(*ready, "status") == "True";
}

std::string_view PodReadySince(const Object& pod) {
  const json::object* ready = FindCondition(StatusOf(pod), "Ready");
  return ready && StringAt(*ready, "status") == "True" ? StringAt(*ready, "lastTransitionTime")
                                                       : std::string_view();
}

bool IsPodAvailable(const Object& pod, int64_t min_ready_seconds,
                    std::chrono::system_clock::time_point now) {
  const json::object* ready = FindCondition(StatusOf(pod), "Ready");
  if (!ready || StringAt(*ready, "status") != "True") return false;
  if (min_ready_seconds <= 0) return true;
  auto since = ParseRfc3339(StringAt(*ready, "lastTransitionTime"));
  return since && *since + std::chrono::seconds(min_ready_seconds) <= now;
}

bool IsPodActive(const Object& pod) {
  std::string_view phase = StringAt(StatusOf(pod), "phase");
  return phase != "Succeeded" && phase != "Failed" && !BeingDeleted(pod);
}

}  // namespace berth::api
