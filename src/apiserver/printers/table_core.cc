// Printers of core/v1 kinds. LimitRange has none in kube: it prints Name + Created At.

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <optional>
#include <set>

#include "api/json_fields.h"
#include "api/time/duration.h"
#include "api/time/rfc3339.h"
#include "apiserver/printers/table_printers.h"

namespace berth::apiserver::table {

namespace json = boost::json;
using api::ArrayAt;
using api::IntAt;
using api::ObjectAt;
using api::StringAt;
using Clock = std::chrono::system_clock;

namespace {

bool ConditionIs(const json::object* status, std::string_view type, std::string_view value) {
  if (const json::array* conditions = ArrayAt(status, "conditions")) {
    for (const auto& c : *conditions) {
      if (StringAt(c.if_object(), "type") == type)
        return StringAt(c.if_object(), "status") == value;
    }
  }
  return false;
}

// ---- Pod ----

constexpr Column kPodColumns[] = {{"Name", "string", 0, "name"},
                                  {"Ready", "string"},
                                  {"Status", "string"},
                                  {"Restarts", "string"},
                                  {"Age", "string"},
                                  {"IP", "string", 1},
                                  {"Node", "string", 1},
                                  {"Nominated Node", "string", 1},
                                  {"Readiness Gates", "string", 1}};

// A container's lastState.terminated.finishedAt, when later than `latest`.
void NoteRestart(const json::object* container_status, std::optional<Clock::time_point>& latest) {
  const json::object* terminated = ObjectAt(ObjectAt(container_status, "lastState"), "terminated");
  if (!terminated) return;
  auto finished = api::ParseRfc3339(StringAt(terminated, "finishedAt"));
  if (finished && (!latest || *latest < *finished)) latest = finished;
}

// "ExitCode:1" or "Signal:9" for a terminated state without a reason.
std::string ExitText(const json::object* terminated) {
  if (int64_t signal = IntAt(terminated, "signal"); signal != 0)
    return "Signal:" + std::to_string(signal);
  return "ExitCode:" + std::to_string(IntAt(terminated, "exitCode"));
}

// What kube's printPod works out of a pod's container statuses.
struct PodStatusSummary {
  std::string reason;  // the Status column
  size_t ready = 0;    // ready containers (sidecars included)
  int64_t restarts = 0, sidecar_restarts = 0;
  std::optional<Clock::time_point> last_restart, last_sidecar_restart;
  bool initializing = false;  // an init container has not finished
};

// status.reason, else the phase; SchedulingGated while a gate holds the pod.
std::string PodReason(const json::object* status, const std::string& phase) {
  std::string reason = Text(status, "reason", phase);
  if (const json::array* conditions = ArrayAt(status, "conditions")) {
    for (const auto& c : *conditions) {
      if (StringAt(c.if_object(), "type") == "PodScheduled" &&
          StringAt(c.if_object(), "reason") == "SchedulingGated") {
        reason = "SchedulingGated";
      }
    }
  }
  return reason;
}

// The names of the sidecars: init containers with restartPolicy Always,
// each of them added to `count`.
std::set<std::string, std::less<>> RestartableInitContainers(const json::array* init_containers,
                                                             size_t& count) {
  std::set<std::string, std::less<>> restartable_init;
  if (init_containers) {
    for (const auto& c : *init_containers) {
      if (StringAt(c.if_object(), "restartPolicy") == "Always") {
        restartable_init.emplace(StringAt(c.if_object(), "name"));
        ++count;
      }
    }
  }
  return restartable_init;
}

// Restarts of every init container (sidecars apart too), ready sidecars,
// and the first init container not done: "Init:<reason>" or "Init:i/n".
void ReadInitContainerStatuses(const json::object* status,
                               const std::set<std::string, std::less<>>& restartable_init,
                               size_t init_count, PodStatusSummary& s) {
  const json::array* statuses = ArrayAt(status, "initContainerStatuses");
  if (!statuses) return;
  for (size_t i = 0; i < statuses->size(); ++i) {
    const json::object* c = (*statuses)[i].if_object();
    const json::object* state = ObjectAt(c, "state");
    const json::object* terminated = ObjectAt(state, "terminated");
    const json::object* waiting = ObjectAt(state, "waiting");
    bool sidecar = restartable_init.contains(StringAt(c, "name"));
    s.restarts += IntAt(c, "restartCount");
    NoteRestart(c, s.last_restart);
    if (sidecar) {
      s.sidecar_restarts += IntAt(c, "restartCount");
      NoteRestart(c, s.last_sidecar_restart);
    }
    if (terminated && IntAt(terminated, "exitCode") == 0) continue;
    if (sidecar && api::BoolAt(c, "started")) {
      if (api::BoolAt(c, "ready")) ++s.ready;
      continue;
    }
    s.initializing = true;
    if (terminated) {
      s.reason = StringAt(terminated, "reason").empty()
                     ? "Init:" + ExitText(terminated)
                     : "Init:" + std::string(StringAt(terminated, "reason"));
    } else if (waiting && !StringAt(waiting, "reason").empty() &&
               StringAt(waiting, "reason") != "PodInitializing") {
      s.reason = "Init:" + std::string(StringAt(waiting, "reason"));
    } else {
      s.reason = "Init:" + std::to_string(i) + "/" + std::to_string(init_count);
    }
    break;
  }
}

// Once initialized: restarts are the sidecars' and the containers', the
// reason the last waiting or terminated container's, and ready containers
// are counted.
void ReadContainerStatuses(const json::object* status, PodStatusSummary& s) {
  s.restarts = s.sidecar_restarts;
  s.last_restart = s.last_sidecar_restart;
  bool has_running = false;
  if (const json::array* statuses = ArrayAt(status, "containerStatuses")) {
    for (auto it = statuses->rbegin(); it != statuses->rend(); ++it) {
      const json::object* c = it->if_object();
      const json::object* state = ObjectAt(c, "state");
      const json::object* terminated = ObjectAt(state, "terminated");
      const json::object* waiting = ObjectAt(state, "waiting");
      s.restarts += IntAt(c, "restartCount");
      NoteRestart(c, s.last_restart);
      if (waiting && !StringAt(waiting, "reason").empty()) {
        s.reason = StringAt(waiting, "reason");
      } else if (terminated) {
        s.reason = StringAt(terminated, "reason").empty()
                       ? ExitText(terminated)
                       : std::string(StringAt(terminated, "reason"));
      } else if (api::BoolAt(c, "ready") && ObjectAt(state, "running")) {
        has_running = true;
        ++s.ready;
      }
    }
  }
  if (s.reason == "Completed" && has_running) {
    s.reason = ConditionIs(status, "Ready", "True") ? "Running" : "NotReady";
  }
}

// "3", or "3 (5m ago)" since the last restart.
std::string RestartsText(const PodStatusSummary& s, Clock::time_point now) {
  std::string restarts_text = std::to_string(s.restarts);
  if (s.restarts != 0 && s.last_restart) {
    restarts_text +=
        " (" +
        api::HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *s.last_restart)) +
        " ago)";
  }
  return restarts_text;
}

// The first of status.podIPs, else status.podIP; "<none>".
std::string PodIp(const json::object* status) {
  std::string ip;
  if (const json::array* ips = ArrayAt(status, "podIPs"); ips && !ips->empty())
    ip = StringAt((*ips)[0].if_object(), "ip");
  if (ip.empty()) ip = StringAt(status, "podIP");
  return ip.empty() ? "<none>" : ip;
}

// "<true conditions>/<gates>", or "<none>" without readiness gates.
std::string ReadinessGatesText(const json::object* spec, const json::object* status) {
  const json::array* readiness = ArrayAt(spec, "readinessGates");
  if (!readiness || readiness->empty()) return "<none>";
  size_t true_conditions = 0;
  for (const auto& g : *readiness) {
    if (ConditionIs(status, StringAt(g.if_object(), "conditionType"), "True")) ++true_conditions;
  }
  return std::to_string(true_conditions) + "/" + std::to_string(readiness->size());
}

void PodRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object& o = object.json();
  const json::object* spec = ObjectAt(o, "spec");
  const json::object* status = ObjectAt(o, "status");
  std::string phase(StringAt(status, "phase"));
  PodStatusSummary s;
  s.reason = PodReason(status, phase);

  const json::array* containers = ArrayAt(spec, "containers");
  const json::array* init_containers = ArrayAt(spec, "initContainers");
  size_t total = containers ? containers->size() : 0;
  const std::set<std::string, std::less<>> restartable_init =
      RestartableInitContainers(init_containers, total);  // sidecars count among the containers

  ReadInitContainerStatuses(status, restartable_init,
                            init_containers ? init_containers->size() : 0, s);
  if (!s.initializing || ConditionIs(status, "Initialized", "True")) {
    ReadContainerStatuses(status, s);
  }
  if (api::BeingDeleted(object)) {
    if (StringAt(status, "reason") == "NodeLost") {
      s.reason = "Unknown";
    } else if (phase != "Succeeded" && phase != "Failed") {
      s.reason = "Terminating";
    }
  }

  cells.emplace_back(object.name());
  cells.emplace_back(std::to_string(s.ready) + "/" + std::to_string(total));
  cells.emplace_back(s.reason);
  cells.emplace_back(RestartsText(s, now));
  cells.emplace_back(Age(object, now));
  cells.emplace_back(PodIp(status));
  cells.emplace_back(Text(spec, "nodeName", "<none>"));
  cells.emplace_back(Text(status, "nominatedNodeName", "<none>"));
  cells.emplace_back(ReadinessGatesText(spec, status));
}

// ---- PodTemplate, ReplicationController ----

constexpr Column kPodTemplateColumns[] = {{"Name", "string", 0, "name"},
                                          {"Containers", "string"},
                                          {"Images", "string"},
                                          {"Pod Labels", "string"}};

void PodTemplateRow(const api::Object& object, Clock::time_point, json::array& cells) {
  const json::object* tmpl = ObjectAt(object.json(), "template");
  cells.emplace_back(object.name());
  ContainerCells(ObjectAt(tmpl, "spec"), cells);
  cells.emplace_back(FormatLabels(ObjectAt(ObjectAt(tmpl, "metadata"), "labels")));
}

constexpr Column kReplicationControllerColumns[] = {
    {"Name", "string", 0, "name"}, {"Desired", "integer"},   {"Current", "integer"},
    {"Ready", "integer"},          {"Age", "string"},        {"Containers", "string", 1},
    {"Images", "string", 1},       {"Selector", "string", 1}};

void ReplicationControllerRow(const api::Object& object, Clock::time_point now,
                              json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  cells.emplace_back(object.name());
  cells.emplace_back(IntAt(spec, "replicas", 1));
  cells.emplace_back(IntAt(status, "replicas"));
  cells.emplace_back(IntAt(status, "readyReplicas"));
  cells.emplace_back(Age(object, now));
  ContainerCells(TemplatePodSpec(spec), cells);
  cells.emplace_back(FormatLabels(ObjectAt(spec, "selector")));
}

// ---- Node, Namespace ----

constexpr Column kNodeColumns[] = {{"Name", "string", 0, "name"},
                                   {"Status", "string"},
                                   {"Roles", "string"},
                                   {"Age", "string"},
                                   {"Version", "string"},
                                   {"Internal-IP", "string", 1},
                                   {"External-IP", "string", 1},
                                   {"OS-Image", "string", 1},
                                   {"Kernel-Version", "string", 1},
                                   {"Container-Runtime", "string", 1}};

std::string NodeAddress(const json::object* status, std::string_view type) {
  if (const json::array* addresses = ArrayAt(status, "addresses")) {
    for (const auto& a : *addresses) {
      if (StringAt(a.if_object(), "type") == type)
        return std::string(StringAt(a.if_object(), "address"));
    }
  }
  return "<none>";
}

void NodeRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  std::string state = "Unknown";
  if (const json::array* conditions = ArrayAt(status, "conditions")) {
    for (const auto& c : *conditions) {
      if (StringAt(c.if_object(), "type") == "Ready") {
        state = StringAt(c.if_object(), "status") == "True" ? "Ready" : "NotReady";
      }
    }
  }
  if (api::BoolAt(spec, "unschedulable")) state += ",SchedulingDisabled";
  std::set<std::string> roles;
  for (const auto& [key, value] : object.labels()) {
    constexpr std::string_view kRolePrefix = "node-role.kubernetes.io/";
    if (key.starts_with(kRolePrefix) && key.size() > kRolePrefix.size())
      roles.insert(key.substr(kRolePrefix.size()));
    if (key == "kubernetes.io/role" && !value.empty()) roles.insert(value);
  }
  const json::object* info = ObjectAt(status, "nodeInfo");
  cells.emplace_back(object.name());
  cells.emplace_back(state);
  cells.emplace_back(Join({roles.begin(), roles.end()}, ",", "<none>"));
  cells.emplace_back(Age(object, now));
  cells.emplace_back(StringAt(info, "kubeletVersion"));
  cells.emplace_back(NodeAddress(status, "InternalIP"));
  cells.emplace_back(NodeAddress(status, "ExternalIP"));
  cells.emplace_back(Text(info, "osImage", "<unknown>"));
  cells.emplace_back(Text(info, "kernelVersion", "<unknown>"));
  cells.emplace_back(Text(info, "containerRuntimeVersion", "<unknown>"));
}

constexpr Column kNamespaceColumns[] = {
    {"Name", "string", 0, "name"}, {"Status", "string"}, {"Age", "string"}};

void NamespaceRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  cells.emplace_back(Text(api::StatusOf(object), "phase", "Active"));
  cells.emplace_back(Age(object, now));
}

// ---- Event ----

constexpr Column kEventColumns[] = {{"Last Seen", "string"},    {"Type", "string"},
                                    {"Reason", "string"},       {"Object", "string"},
                                    {"Subobject", "string", 1}, {"Source", "string", 1},
                                    {"Message", "string"},      {"First Seen", "string", 1},
                                    {"Count", "string", 1},     {"Name", "string", 1, "name"}};

void EventRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object& o = object.json();
  std::string first = Has(&o, "firstTimestamp") ? Since(StringAt(o, "firstTimestamp"), now)
                                                : Since(StringAt(o, "eventTime"), now);
  std::string last = Has(&o, "lastTimestamp") ? Since(StringAt(o, "lastTimestamp"), now) : first;
  int64_t count = IntAt(&o, "count");
  if (const json::object* series = ObjectAt(o, "series")) {
    last = Since(StringAt(series, "lastObservedTime"), now);
    count = IntAt(series, "count");
  } else if (count == 0) {
    count = 1;  // a singleton event of the events.k8s.io API
  }
  const json::object* involved = ObjectAt(o, "involvedObject");
  std::string target(StringAt(involved, "kind"));
  std::transform(target.begin(), target.end(), target.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (!StringAt(involved, "name").empty()) target += "/" + std::string(StringAt(involved, "name"));
  const json::object* source = ObjectAt(o, "source");
  std::string component(StringAt(source, "component"));
  if (component.empty()) component = StringAt(o, "reportingComponent");
  std::string host(StringAt(source, "host"));
  if (host.empty()) host = StringAt(o, "reportingInstance");
  std::string message(StringAt(o, "message"));
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  message.erase(message.begin(), std::find_if_not(message.begin(), message.end(), space));
  message.erase(std::find_if_not(message.rbegin(), message.rend(), space).base(), message.end());

  cells.emplace_back(last);
  cells.emplace_back(StringAt(o, "type"));
  cells.emplace_back(StringAt(o, "reason"));
  cells.emplace_back(target);
  cells.emplace_back(StringAt(involved, "fieldPath"));
  cells.emplace_back(host.empty() ? component : component + ", " + host);
  cells.emplace_back(message);
  cells.emplace_back(first);
  cells.emplace_back(count);
  cells.emplace_back(object.name());
}

// ---- PersistentVolume, PersistentVolumeClaim ----

// kube's GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each once.
std::string AccessModes(const json::array* modes) {
  auto has = [&](std::string_view mode) {
    return modes && std::any_of(modes->begin(), modes->end(), [&](const json::value& m) {
             return m.is_string() && m.get_string() == mode;
           });
  };
  std::vector<std::string> out;
  if (has("ReadWriteOnce")) out.push_back("RWO");
  if (has("ReadOnlyMany")) out.push_back("ROX");
  if (has("ReadWriteMany")) out.push_back("RWX");
  if (has("ReadWriteOncePod")) out.push_back("RWOP");
  return Join(out, ",");
}

// The beta annotation wins over spec.storageClassName, as in kube's helpers.
std::string StorageClassOf(const api::Object& object) {
  const json::object* annotations = ObjectAt(api::Metadata(object), "annotations");
  if (annotations && annotations->contains("volume.beta.kubernetes.io/storage-class")) {
    return std::string(StringAt(annotations, "volume.beta.kubernetes.io/storage-class"));
  }
  return std::string(StringAt(api::Spec(object), "storageClassName"));
}

std::string PhaseOrTerminating(const api::Object& object) {
  return api::BeingDeleted(object) ? "Terminating"
                                   : std::string(StringAt(api::StatusOf(object), "phase"));
}

constexpr Column kPersistentVolumeColumns[] = {
    {"Name", "string", 0, "name"}, {"Capacity", "string"},
    {"Access Modes", "string"},    {"Reclaim Policy", "string"},
    {"Status", "string"},          {"Claim", "string"},
    {"StorageClass", "string"},    {"VolumeAttributesClass", "string"},
    {"Reason", "string"},          {"Age", "string"},
    {"VolumeMode", "string", 1}};

void PersistentVolumeRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* claim = ObjectAt(spec, "claimRef");
  cells.emplace_back(object.name());
  cells.emplace_back(QuantityText(
      ObjectAt(spec, "capacity") ? ObjectAt(spec, "capacity")->if_contains("storage") : nullptr));
  cells.emplace_back(AccessModes(ArrayAt(spec, "accessModes")));
  cells.emplace_back(Text(spec, "persistentVolumeReclaimPolicy", "Retain"));
  cells.emplace_back(PhaseOrTerminating(object));
  cells.emplace_back(claim ? std::string(StringAt(claim, "namespace")) + "/" +
                                 std::string(StringAt(claim, "name"))
                           : "");
  cells.emplace_back(StorageClassOf(object));
  cells.emplace_back(Text(spec, "volumeAttributesClassName", "<unset>"));
  cells.emplace_back(StringAt(api::StatusOf(object), "reason"));
  cells.emplace_back(Age(object, now));
  cells.emplace_back(Text(spec, "volumeMode", "Filesystem"));
}

constexpr Column kPersistentVolumeClaimColumns[] = {{"Name", "string", 0, "name"},
                                                    {"Status", "string"},
                                                    {"Volume", "string"},
                                                    {"Capacity", "string"},
                                                    {"Access Modes", "string"},
                                                    {"StorageClass", "string"},
                                                    {"VolumeAttributesClass", "string"},
                                                    {"Age", "string"},
                                                    {"VolumeMode", "string", 1}};

void PersistentVolumeClaimRow(const api::Object& object, Clock::time_point now,
                              json::array& cells) {
  const json::object* spec = api::Spec(object);
  const json::object* status = api::StatusOf(object);
  std::string volume(StringAt(spec, "volumeName"));
  std::string capacity, modes;
  if (!volume.empty()) {  // capacity and modes are the bound volume's
    const json::object* cap = ObjectAt(status, "capacity");
    capacity = QuantityText(cap ? cap->if_contains("storage") : nullptr);
    modes = AccessModes(ArrayAt(status, "accessModes"));
  }
  cells.emplace_back(object.name());
  cells.emplace_back(PhaseOrTerminating(object));
  cells.emplace_back(volume);
  cells.emplace_back(capacity);
  cells.emplace_back(modes);
  cells.emplace_back(StorageClassOf(object));
  cells.emplace_back(Text(spec, "volumeAttributesClassName", "<unset>"));
  cells.emplace_back(Age(object, now));
  cells.emplace_back(Text(spec, "volumeMode", "Filesystem"));
}

// ---- ConfigMap, Secret, ServiceAccount ----

size_t Size(const json::object* o, std::string_view key) {
  const json::object* member = ObjectAt(o, key);
  return member ? member->size() : 0;
}

constexpr Column kConfigMapColumns[] = {
    {"Name", "string", 0, "name"}, {"Data", "string"}, {"Age", "string"}};

void ConfigMapRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  cells.emplace_back(Size(&object.json(), "data") + Size(&object.json(), "binaryData"));
  cells.emplace_back(Age(object, now));
}

constexpr Column kSecretColumns[] = {
    {"Name", "string", 0, "name"}, {"Type", "string"}, {"Data", "string"}, {"Age", "string"}};

void SecretRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object& o = object.json();
  // kube folds stringData into data on write; count a key in both once.
  size_t keys = Size(&o, "data");
  if (const json::object* string_data = ObjectAt(o, "stringData")) {
    const json::object* data = ObjectAt(o, "data");
    for (const auto& kv : *string_data) keys += data && data->contains(kv.key()) ? 0 : 1;
  }
  cells.emplace_back(object.name());
  cells.emplace_back(Text(&o, "type", "Opaque"));
  cells.emplace_back(keys);
  cells.emplace_back(Age(object, now));
}

constexpr Column kServiceAccountColumns[] = {
    {"Name", "string", 0, "name"}, {"Secrets", "string"}, {"Age", "string"}};

void ServiceAccountRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::array* secrets = ArrayAt(object.json(), "secrets");
  cells.emplace_back(object.name());
  cells.emplace_back(secrets ? secrets->size() : 0);
  cells.emplace_back(Age(object, now));
}

// ---- Service, Endpoints ----

constexpr Column kServiceColumns[] = {{"Name", "string", 0, "name"}, {"Type", "string"},
                                      {"Cluster-IP", "string"},      {"External-IP", "string"},
                                      {"Port(s)", "string"},         {"Age", "string"},
                                      {"Selector", "string", 1}};

std::vector<std::string> Strings(const json::array* a) {
  std::vector<std::string> out;
  if (a) {
    for (const auto& v : *a) {
      if (v.is_string()) out.emplace_back(v.get_string());
    }
  }
  return out;
}

// IPs (else hostnames) of a load balancer's ingress points, sorted, each once.
std::vector<std::string> LoadBalancerAddresses(const json::object* status) {
  std::set<std::string> out;
  if (const json::array* ingress = ArrayAt(ObjectAt(status, "loadBalancer"), "ingress")) {
    for (const auto& i : *ingress) {
      if (!StringAt(i.if_object(), "ip").empty()) {
        out.emplace(StringAt(i.if_object(), "ip"));
      } else if (!StringAt(i.if_object(), "hostname").empty()) {
        out.emplace(StringAt(i.if_object(), "hostname"));
      }
    }
  }
  return {out.begin(), out.end()};
}

std::string ServiceExternalIp(std::string_view type, const json::object* spec,
                              const json::object* status) {
  std::vector<std::string> external = Strings(ArrayAt(spec, "externalIPs"));
  if (type == "ClusterIP" || type == "NodePort") return Join(external, ",", "<none>");
  if (type == "LoadBalancer") {
    std::vector<std::string> all = LoadBalancerAddresses(status);
    if (all.empty() && external.empty()) return "<pending>";
    all.insert(all.end(), external.begin(), external.end());
    return Join(all, ",");
  }
  if (type == "ExternalName") return std::string(StringAt(spec, "externalName"));
  return "<unknown>";
}

void ServiceRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* spec = api::Spec(object);
  std::string type = Text(spec, "type", "ClusterIP");
  std::vector<std::string> cluster_ips = Strings(ArrayAt(spec, "clusterIPs"));
  std::string cluster_ip =
      !cluster_ips.empty() ? cluster_ips[0] : Text(spec, "clusterIP", "<none>");
  std::vector<std::string> ports;
  if (const json::array* list = ArrayAt(spec, "ports")) {
    for (const auto& p : *list) {
      const json::object* port = p.if_object();
      std::string text = std::to_string(IntAt(port, "port"));
      if (int64_t node_port = IntAt(port, "nodePort"); node_port > 0)
        text += ":" + std::to_string(node_port);
      ports.push_back(text + "/" + Text(port, "protocol", "TCP"));
    }
  }
  cells.emplace_back(object.name());
  cells.emplace_back(type);
  cells.emplace_back(cluster_ip);
  cells.emplace_back(ServiceExternalIp(type, spec, api::StatusOf(object)));
  cells.emplace_back(Join(ports, ",", "<none>"));
  cells.emplace_back(Age(object, now));
  cells.emplace_back(FormatLabels(ObjectAt(spec, "selector")));
}

constexpr Column kEndpointsColumns[] = {
    {"Name", "string", 0, "name"}, {"Endpoints", "string"}, {"Age", "string"}};

// kube's formatEndpoints: the first three of ip:port (every port of every
// subset), then " + N more...".
std::string FormatEndpoints(const json::array* subsets) {
  if (!subsets || subsets->empty()) return "<none>";
  constexpr size_t kMax = 3;
  std::vector<std::string> list;
  bool more = false;
  size_t count = 0;
  auto add_all = [&](const json::array* addresses, const json::object* port) {
    if (!addresses) return;
    count += addresses->size();
    for (const auto& a : *addresses) {
      if (list.size() == kMax) {
        more = true;
        break;
      }
      std::string ip(StringAt(a.if_object(), "ip"));
      if (!port) {
        list.push_back(ip);
      } else {
        std::string host = ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
        list.push_back(host + ":" + std::to_string(IntAt(port, "port")));
      }
    }
  };
  for (const auto& s : *subsets) {
    const json::object* subset = s.if_object();
    const json::array* addresses = ArrayAt(subset, "addresses");
    const json::array* ports = ArrayAt(subset, "ports");
    if (!ports || ports->empty()) {
      add_all(addresses, nullptr);  // a headless service without ports
      continue;
    }
    for (const auto& p : *ports) add_all(addresses, p.if_object());
  }
  std::string out = Join(list, ",");
  if (more) out += " + " + std::to_string(count - kMax) + " more...";
  return out;
}

void EndpointsRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  cells.emplace_back(object.name());
  cells.emplace_back(FormatEndpoints(ArrayAt(object.json(), "subsets")));
  cells.emplace_back(Age(object, now));
}

// ---- ResourceQuota ----

// kube 1.32's order: Age before Request and Limit (1.33 moved Age last).
constexpr Column kResourceQuotaColumns[] = {
    {"Name", "string", 0, "name"}, {"Age", "string"}, {"Request", "string"}, {"Limit", "string"}};

void ResourceQuotaRow(const api::Object& object, Clock::time_point now, json::array& cells) {
  const json::object* status = api::StatusOf(object);
  const json::object* hard = ObjectAt(status, "hard");
  const json::object* used = ObjectAt(status, "used");
  std::vector<std::string> resources;
  if (hard) {
    for (const auto& kv : *hard) resources.emplace_back(kv.key());
  }
  std::sort(resources.begin(), resources.end());
  std::vector<std::string> requests, limits;
  for (const std::string& r : resources) {
    std::string text = r + ": " + QuantityText(used ? used->if_contains(r) : nullptr) + "/" +
                       QuantityText(hard->if_contains(r));
    (r.starts_with("limits.") ? limits : requests).push_back(std::move(text));
  }
  cells.emplace_back(object.name());
  cells.emplace_back(Age(object, now));
  cells.emplace_back(Join(requests, ", "));
  cells.emplace_back(Join(limits, ", "));
}

constexpr KindPrinter kPrinters[] = {
    {api::Kind::kPod, kPodColumns, PodRow},
    {api::Kind::kPodTemplate, kPodTemplateColumns, PodTemplateRow},
    {api::Kind::kReplicationController, kReplicationControllerColumns, ReplicationControllerRow},
    {api::Kind::kNode, kNodeColumns, NodeRow},
    {api::Kind::kNamespace, kNamespaceColumns, NamespaceRow},
    {api::Kind::kEvent, kEventColumns, EventRow},
    {api::Kind::kPersistentVolume, kPersistentVolumeColumns, PersistentVolumeRow},
    {api::Kind::kPersistentVolumeClaim, kPersistentVolumeClaimColumns, PersistentVolumeClaimRow},
    {api::Kind::kConfigMap, kConfigMapColumns, ConfigMapRow},
    {api::Kind::kSecret, kSecretColumns, SecretRow},
    {api::Kind::kServiceAccount, kServiceAccountColumns, ServiceAccountRow},
    {api::Kind::kService, kServiceColumns, ServiceRow},
    {api::Kind::kEndpoints, kEndpointsColumns, EndpointsRow},
    {api::Kind::kResourceQuota, kResourceQuotaColumns, ResourceQuotaRow},
};

}  // namespace

std::span<const KindPrinter> CorePrinters() { return kPrinters; }

}  // namespace berth::apiserver::table
