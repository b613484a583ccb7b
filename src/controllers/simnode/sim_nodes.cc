#include "controllers/simnode/sim_nodes.h"

#include <algorithm>
#include <charconv>
#include <fstream>

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/quantity.h"
#include "api/resource_names.h"
#include "api/time/duration.h"
#include "api/time/rfc3339.h"
#include "controllers/simnode/sim_admission.h"
#include "log/log.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr char kLeaseNamespace[] = "kube-node-lease";
// Work-queue keys of nodes whose kubelet starts; pod keys are NAMESPACE/NAME
// and a namespace has no ':'.
constexpr char kNodeKeyPrefix[] = "node:";
// Work-queue keys of nodes whose allocatable lags their capacity.
constexpr char kAllocatableKeyPrefix[] = "allocatable:";

// The node's status.allocatable as a kubelet's status update leaves it: an
// extended resource of the capacity (a device plugin's, or patched in by
// hand as kube's e2e tests do) is allocatable in full, one no longer in the
// capacity is no longer allocatable, and the other resources keep what the
// kubelet reserved.
json::object SyncedAllocatable(const json::object* status) {
  const json::object* capacity = api::ObjectAt(status, "capacity");
  const json::object* current = api::ObjectAt(status, "allocatable");
  json::object allocatable = current ? *current : json::object();
  for (auto it = allocatable.begin(); it != allocatable.end();) {
    const bool gone = api::IsExtendedResourceName(it->key()) && !(capacity && capacity->contains(it->key()));
    it = gone ? allocatable.erase(it) : it + 1;
  }
  if (capacity) {
    for (const auto& [name, amount] : *capacity) {
      if (api::IsExtendedResourceName(name)) allocatable[name] = amount;
    }
  }
  return allocatable;
}

// Whether the node's allocatable lags its capacity (SyncedAllocatable).
bool AllocatableLags(const json::object* status) {
  const json::object* current = api::ObjectAt(status, "allocatable");
  return SyncedAllocatable(status) != (current ? *current : json::object());
}

}  // namespace

json::object SimNodeObject(const SimNodeGroup& g, const std::string& name, int index_in_group, const std::string& ip) {
  json::object labels{{"kubernetes.io/hostname", name},
                      {"kubernetes.io/os", "linux"},
                      {"kubernetes.io/arch", "amd64"},
                      {"beta.kubernetes.io/os", "linux"},
                      {"beta.kubernetes.io/arch", "amd64"},
                      {kSimManagedLabel, "true"}};
  if (!g.zones.empty()) {
    labels["topology.kubernetes.io/zone"] = g.zones[static_cast<size_t>(index_in_group) % g.zones.size()];
  }
  for (const auto& [k, v] : g.labels) labels[k] = v;
  json::object resources{{"cpu", g.cpu},
                         {"memory", g.memory},
                         {"pods", std::to_string(g.pods)},
                         {"ephemeral-storage", "100Gi"}};
  json::object spec;
  if (!g.taints.empty()) spec["taints"] = g.taints;
  return {{"metadata", json::object{{"name", name}, {"labels", std::move(labels)}}},
          {"spec", std::move(spec)},
          {"status",
           json::object{{"capacity", resources},
                        {"allocatable", resources},
                        {"addresses", json::array{json::object{{"type", "InternalIP"}, {"address", ip}},
                                                  json::object{{"type", "Hostname"}, {"address", name}}}},
                        {"nodeInfo", json::object{{"architecture", "amd64"},
                                                  {"operatingSystem", "linux"},
                                                  {"osImage", "berth simulated node"},
                                                  {"kernelVersion", "sim"},
                                                  {"containerRuntimeVersion", "sim://1.0"},
                                                  {"kubeletVersion", "v1.32.0"},
                                                  {"kubeProxyVersion", "v1.32.0"},
                                                  {"machineID", name},
                                                  {"systemUUID", name},
                                                  {"bootID", name}}}}}};
}

namespace {

// The host part (1 to 65534) of a pod IP 10.244.x.y the kubelets handed out.
std::optional<uint32_t> PodIpHost(std::string_view ip) {
  constexpr std::string_view kPrefix = "10.244.";
  if (!ip.starts_with(kPrefix)) return std::nullopt;
  ip.remove_prefix(kPrefix.size());
  auto dot = ip.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  uint32_t hi = 0, lo = 0;
  auto parse = [](std::string_view t, uint32_t& out) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size() && out <= 255;
  };
  if (!parse(ip.substr(0, dot), hi) || !parse(ip.substr(dot + 1), lo)) return std::nullopt;
  uint32_t host = hi << 8 | lo;
  if (host == 0 || host > 65534) return std::nullopt;
  return host;
}

}  // namespace

Result<std::vector<SimNodeGroup>> LoadSimNodeGroups(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return Status::BadRequest(path + ": cannot be read");
  } catch (const YAML::Exception& e) {
    return Status::BadRequest(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  auto at = [&](const YAML::Node& n) { return path + ":" + std::to_string(n.Mark().line + 1) + ": "; };
  if (!root.IsMap() || !root["groups"] || !root["groups"].IsSequence()) {
    return Status::BadRequest(path + ": expected a map with a list `groups:`");
  }
  std::vector<SimNodeGroup> groups;
  int index = 0;
  for (const auto& g : root["groups"]) {
    if (!g.IsMap()) return Status::BadRequest(at(g) + "groups[" + std::to_string(index) + "]: expected a map");
    SimNodeGroup group;
    group.name_prefix = "sim-" + std::to_string(index) + "-";
    try {
      for (const auto& kv : g) {
        std::string key = kv.first.as<std::string>();
        const YAML::Node& v = kv.second;
        std::string field = "groups[" + std::to_string(index) + "]." + key;
        if (key == "count") {
          group.count = v.as<int>();
          if (group.count < 0) return Status::BadRequest(at(v) + field + ": must be at least 0");
        } else if (key == "namePrefix") {
          group.name_prefix = v.as<std::string>();
        } else if (key == "cpu" || key == "memory") {
          std::string q = v.as<std::string>();
          if (!api::Quantity::Parse(q).ok()) return Status::BadRequest(at(v) + field + ": not a quantity: " + q);
          (key == "cpu" ? group.cpu : group.memory) = q;
        } else if (key == "pods") {
          group.pods = v.as<int64_t>();
        } else if (key == "zones") {
          group.zones = v.as<std::vector<std::string>>();
        } else if (key == "labels") {
          for (const auto& l : v) group.labels.emplace_back(l.first.as<std::string>(), l.second.as<std::string>());
        } else if (key == "taints") {
          for (const auto& t : v) {
            json::object taint{{"key", t["key"].as<std::string>()},
                               {"effect", t["effect"] ? t["effect"].as<std::string>() : "NoSchedule"}};
            if (t["value"]) taint["value"] = t["value"].as<std::string>();
            std::string_view effect = taint["effect"].get_string();
            if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
              return Status::BadRequest(at(t) + field + ": effect must be NoSchedule, PreferNoSchedule or NoExecute");
            }
            group.taints.push_back(std::move(taint));
          }
        } else if (key == "storageClasses") {
          group.storage_classes = v.as<std::vector<std::string>>();
        } else if (key == "storageCapacity") {
          std::string q = v.as<std::string>();
          auto parsed = api::Quantity::Parse(q);
          if (!parsed.ok() || parsed.value().Sign() < 0) {
            return Status::BadRequest(at(v) + field + ": not a quantity of 0 or more: " + q);
          }
          group.storage_capacity = q;
        } else {
          return Status::BadRequest(at(kv.first) + field + ": unknown field");
        }
      }
    } catch (const YAML::Exception& e) {
      return Status::BadRequest(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    if (!group.storage_classes.empty() && group.storage_capacity.empty()) {
      return Status::BadRequest(at(g) + "groups[" + std::to_string(index) +
                                "]: storageClasses needs a storageCapacity");
    }
    groups.push_back(std::move(group));
    ++index;
  }
  return groups;
}

SimNodes::SimNodes(const ControllerContext& context, SimNodesOptions options)
    : Controller("simkubelet", context, 4),
      options_(std::move(options)),
      broadcaster_(context.events),
      nodes_(context.informers.For(api::Kind::kNode)),
      pods_(context.informers.For(api::Kind::kPod)) {
  for (const auto& g : options_.groups) {
    for (int i = 0; i < g.count; ++i) {
      std::string name = g.name_prefix + std::to_string(i);
      kubelet_events_.emplace(name, client::EventRecorder(context.events, {"kubelet", name}));
      names_.insert(std::move(name));
    }
  }
  auto pod_changed = [this](const api::ObjectPtr& pod) {
    const auto* view = pod->As<api::PodView>();
    if (view && Ours(view->node_name)) Enqueue(client::ObjectKey(*pod));
  };
  // Also for a pod whose node left the fleet meanwhile (deleted): the IP
  // and backoffs it held go, and PodGone only frees what the pod's UID holds.
  auto pod_deleted = [this](const api::ObjectPtr& pod) {
    const auto* view = pod->As<api::PodView>();
    if (view && !view->node_name.empty()) PodGone(*pod);
  };
  pods_.AddHandlers({pod_changed, pod_changed, pod_deleted});
  // A node brought back up: its kubelet catches up with its pods.
  auto node_changed = [this](const api::ObjectPtr& node) {
    if (!Ours(node->name())) Adopt(node);
    if (!Ours(node->name()) || Down(node->name())) return;
    if (AllocatableLags(api::StatusOf(*node))) Enqueue(kAllocatableKeyPrefix + node->name());
    for (const auto& pod : pods_.ByIndex(client::kNodeNameIndex, node->name())) Enqueue(client::ObjectKey(*pod));
  };
  auto node_deleted = [this](const api::ObjectPtr& node) {
    std::unique_lock lock(names_mu_);
    names_.erase(node->name());
    kubelet_events_.erase(node->name());
  };
  nodes_.AddHandlers({[this](const api::ObjectPtr& node) { Adopt(node); }, node_changed, node_deleted});
}

int SimNodes::size() const {
  std::shared_lock lock(names_mu_);
  return static_cast<int>(names_.size());
}

std::vector<std::string> SimNodes::Names() const {
  std::shared_lock lock(names_mu_);
  return {names_.begin(), names_.end()};
}

client::EventRecorder SimNodes::Recorder(const std::string& node) const {
  std::shared_lock lock(names_mu_);
  auto it = kubelet_events_.find(node);
  return it == kubelet_events_.end() ? client::EventRecorder() : it->second;
}

void SimNodes::Adopt(const api::ObjectPtr& node) {
  if (node->labels().Get(kSimManagedLabel) != "true") return;
  {
    std::unique_lock lock(names_mu_);
    if (!names_.insert(node->name()).second) return;
    kubelet_events_.emplace(node->name(), client::EventRecorder(broadcaster_, {"kubelet", node->name()}));
  }
  // The kubelet's start (lease, Ready) is a write: it runs on a worker.
  Enqueue(std::string(kNodeKeyPrefix) + node->name());
}

SimNodes::~SimNodes() {
  heartbeat_.reset();  // returns once a heartbeat is not running
  Stop();
}

bool SimNodes::Ours(const std::string& node) const {
  if (node.empty()) return false;
  std::shared_lock lock(names_mu_);
  return names_.contains(node);
}

bool SimNodes::Down(const std::string& node) const {
  auto n = nodes_.Get(node);
  return n && api::Annotation(*n, kSimDownAnnotation) == "true";
}

Status SimNodes::Register() {
  uint32_t host = 0;
  for (const auto& g : options_.groups) {
    for (int i = 0; i < g.count; ++i) {
      ++host;
      std::string name = g.name_prefix + std::to_string(i);
      std::string ip = "10.0." + std::to_string((host >> 8) & 255) + "." + std::to_string(host & 255);
      auto created = client_.Create(api::Kind::kNode, "", SimNodeObject(g, name, i, ip));
      if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) return created.status();
      auto node = created.ok() ? created : client_.Get(api::Kind::kNode, "", name);
      if (!node.ok()) return node.status();
      // A node taken down (berth sim node-down) stays down across a restart:
      // no lease renewal, no Ready.
      if (api::Annotation(*node.value(), kSimDownAnnotation) == "true") continue;
      if (Status s = StartKubelet(node.value()); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status SimNodes::StartKubelet(const api::ObjectPtr& node) {
  if (Status s = RenewLease(node->name()); !s.ok()) return s;
  Recorder(node->name()).Event(*node, "Normal", "Starting", "Starting kubelet.");
  return ReportReady(node);
}

void SimNodes::Start() {
  Run();
  heartbeat_ = std::make_unique<api::Ticker>(clock_, options_.heartbeat_period, [this] { Heartbeat(); });
}

Status SimNodes::RenewLease(const std::string& node) {
  std::string now = api::FormatMicroTime(clock_.WallNow());
  json::object patch{{"spec", json::object{{"renewTime", now}}}};
  auto patched = client_.Patch(api::Kind::kLease, kLeaseNamespace, node, json::serialize(patch));
  if (patched.ok()) return Status::Ok();
  if (patched.status().code() != StatusCode::kNotFound) return patched.status();
  int64_t duration = std::max<int64_t>(1, 4 * options_.heartbeat_period.count() / 1000);
  json::object lease{{"metadata", json::object{{"name", node}, {"namespace", kLeaseNamespace}}},
                     {"spec", json::object{{"holderIdentity", node},
                                           {"leaseDurationSeconds", duration},
                                           {"renewTime", now}}}};
  auto created = client_.Create(api::Kind::kLease, kLeaseNamespace, std::move(lease));
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) return created.status();
  return Status::Ok();
}

Status SimNodes::ReportReady(const api::ObjectPtr& node) {
  const auto* ready = api::FindCondition(api::StatusOf(*node), "Ready");
  if (ready && api::StringAt(*ready, "status") == "True") return Status::Ok();
  json::object next = node->json();
  json::object& status = api::MutableObject(next, "status");
  std::string now = api::FormatRfc3339(clock_.WallNow());
  api::SetCondition(status, {"MemoryPressure", "False", "KubeletHasSufficientMemory",
                            "kubelet has sufficient memory available"},
                    now, {.heartbeat = true});
  api::SetCondition(status, {"DiskPressure", "False", "KubeletHasNoDiskPressure",
                            "kubelet has no disk pressure"},
                    now, {.heartbeat = true});
  api::SetCondition(status, {"PIDPressure", "False", "KubeletHasSufficientPID",
                            "kubelet has sufficient PID available"},
                    now, {.heartbeat = true});
  api::SetCondition(status, {"Ready", "True", "KubeletReady",
                            "kubelet is posting ready status"},
                    now, {.heartbeat = true});
  auto written = client_.UpdateStatus(api::Kind::kNode, next);
  if (!written.ok()) return written.status();
  // The kubelet records each condition it changed.
  client::EventRecorder recorder = Recorder(node->name());
  for (const char* status_now : {"NodeHasSufficientMemory", "NodeHasNoDiskPressure",
                                 "NodeHasSufficientPID", "NodeReady"}) {
    recorder.Event(*written.value(), "Normal", status_now, "Node " + node->name() + " status is now: " + status_now);
  }
  return Status::Ok();
}

Status SimNodes::ReportAllocatable(const std::string& name) {
  api::ObjectPtr node = nodes_.Get(name);
  if (!node || !Ours(name) || Down(name)) return Status::Ok();
  if (!AllocatableLags(api::StatusOf(*node))) return Status::Ok();
  json::object next = node->json();
  api::MutableObject(next, "status")["allocatable"] = SyncedAllocatable(api::StatusOf(*node));
  auto written = client_.UpdateStatus(api::Kind::kNode, next);
  // A newer node came meanwhile: its update enqueues the node again.
  if (!written.ok() && written.status().code() != StatusCode::kConflict &&
      written.status().code() != StatusCode::kNotFound) {
    return written.status();
  }
  return Status::Ok();
}

void SimNodes::Heartbeat() {
  for (const auto& name : Names()) {
    if (Down(name)) continue;
    Status s = RenewLease(name);
    if (s.ok()) {
      if (auto node = nodes_.Get(name)) s = ReportReady(node);
    }
    if (!s.ok() && s.code() != StatusCode::kConflict) {
      BERTH_LOG_ERROR(s.message(), "Simulated kubelet failed to report its node", {"node", name});
    }
  }
}

Status SimNodes::Reconcile(const std::string& key) {
  if (key.starts_with(kAllocatableKeyPrefix)) {
    return ReportAllocatable(key.substr(std::string_view(kAllocatableKeyPrefix).size()));
  }
  if (key.starts_with(kNodeKeyPrefix)) {
    api::ObjectPtr node = nodes_.Get(key.substr(std::string_view(kNodeKeyPrefix).size()));
    if (!node || !Ours(node->name()) || Down(node->name())) return Status::Ok();
    return StartKubelet(node);
  }
  api::ObjectPtr pod = pods_.Get(key);
  if (!pod) return Status::Ok();
  const auto* view = pod->As<api::PodView>();
  if (!view || !Ours(view->node_name) || Down(view->node_name)) return Status::Ok();
  if (api::BeingDeleted(*pod)) {
    // The simulated containers stop after their stop duration, cut short at
    // the end of the grace period; then the kubelet's final, immediate delete.
    if (auto wait = TimeUntilStopped(*pod); wait.count() > 0) {
      EnqueueAfter(key, wait + std::chrono::milliseconds(10));
      return Status::Ok();
    }
    Status s = client_.Delete(api::Kind::kPod, pod->namespace_name(), pod->name(),
                              {.grace_period_seconds = 0, .uid_precondition = pod->uid()});
    if (s.ok() && api::StringAt(api::StatusOf(*pod), "phase") == "Running") {
      ContainerEvents(*pod, "Killing", [](std::string_view name, std::string_view) {
        return "Stopping container " + std::string(name);
      });
    }
    return s.ok() || s.code() == StatusCode::kNotFound || s.code() == StatusCode::kConflict ? Status::Ok() : s;
  }
  return RunPod(pod);
}

std::chrono::milliseconds SimNodes::TimeUntilStopped(const api::Object& pod) const {
  const json::object* meta = api::Metadata(pod);
  auto deadline = api::ParseRfc3339(api::StringAt(meta, "deletionTimestamp"));
  if (!deadline) return std::chrono::milliseconds(0);
  // Deletion was asked for a grace period before the deadline.
  const auto requested = *deadline - std::chrono::seconds(api::IntAt(meta, "deletionGracePeriodSeconds"));
  std::chrono::milliseconds stop_for{0};
  if (auto d = api::Annotation(pod, kSimStopDurationAnnotation); !d.empty()) {
    if (auto parsed = api::ParseGoDuration(d)) stop_for = *parsed;
  }
  // Containers that stop at once have stopped: no need to read the clock
  // (deletionTimestamp has whole seconds, so "requested" can be up to a
  // second after the moment the delete was asked).
  if (stop_for.count() <= 0) return std::chrono::milliseconds(0);
  const auto stopped_at = std::min(requested + stop_for, *deadline);
  const auto wall = clock_.WallNow();
  if (wall >= stopped_at) return std::chrono::milliseconds(0);
  return std::chrono::ceil<std::chrono::milliseconds>(stopped_at - wall);
}

Status SimNodes::RunPod(const api::ObjectPtr& pod) {
  const json::object* old_status = api::StatusOf(*pod);
  std::string_view phase = api::StringAt(old_status, "phase");
  if (phase == "Succeeded" || phase == "Failed") {
    PodGone(*pod);  // its sandbox is gone: the address is free again
    return Status::Ok();
  }
  const json::object& current = pod->json();
  const SimRun run = SimRunOf(current, options_.default_run_duration);
  json::object next = current;
  json::object& status = api::MutableObject(next, "status");
  const auto now = clock_.WallNow();
  CrashBackoffs backoffs;
  {
    std::lock_guard lock(mu_);
    if (auto it = backoffs_.find(pod->uid()); it != backoffs_.end()) backoffs = it->second;
  }
  SimPodStep step;
  std::string new_ip;
  if ((phase != "Running" && phase != "Pending") || api::StringAt(status, "startTime").empty()) {
    // Pending and bound: admitted, then started (a started pod stays
    // Pending while an image cannot be pulled).
    if (std::optional<PodRejection> rejection = Admit(*pod)) return RejectPod(*pod, *rejection);
    auto ip = AllocateIp(pod->uid());
    if (!ip.ok()) return ip.status();
    new_ip = ip.value();
    status["podIP"] = new_ip;
    status["podIPs"] = json::array{json::object{{"ip", new_ip}}};
    if (auto node = nodes_.Get(pod->As<api::PodView>()->node_name)) {
      const json::array* addresses = api::ArrayAt(api::StatusOf(*node), "addresses");
      if (addresses && !addresses->empty() && addresses->at(0).is_object()) {
        std::string host_ip(api::StringAt(addresses->at(0).get_object(), "address"));
        status["hostIP"] = host_ip;
        status["hostIPs"] = json::array{json::object{{"ip", host_ip}}};
      }
    }
    step = StartPodStatus(current, status, now, run, backoffs);
  } else {
    step = AdvancePodStatus(current, status, now, run, backoffs);
  }
  const std::string key = client::ObjectKey(*pod);
  if (step.wake) {
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(*step.wake - now);
    EnqueueAfter(key, std::max(wait, std::chrono::milliseconds(0)) + std::chrono::milliseconds(10));
  }
  if (old_status && status == *old_status) return Status::Ok();
  auto written = client_.UpdateStatus(api::Kind::kPod, next);
  if (!written.ok()) {
    if (!new_ip.empty()) ReleaseIp(new_ip, pod->uid());
    // Gone: nothing to do. Otherwise the next attempt starts from the pod as
    // it is then (the backoffs above were not kept).
    return written.status().code() == StatusCode::kNotFound ? Status::Ok() : written.status();
  }
  {
    std::lock_guard lock(mu_);
    backoffs_[pod->uid()] = std::move(backoffs);
  }
  RecordEvents(*written.value(), step.events);
  std::string_view phase_now = api::StringAt(status, "phase");
  if (phase_now == "Succeeded" || phase_now == "Failed") PodGone(*written.value());
  return Status::Ok();
}

Result<std::string> SimNodes::AllocateIp(const std::string& uid) {
  // 10.244.0.1 to 10.244.255.254: host parts 1 to 65534.
  constexpr uint32_t kHosts = 65534;
  std::lock_guard lock(mu_);
  if (!ips_seeded_) {
    ips_seeded_ = true;
    // Live pods keep their addresses; new ones continue after the highest
    // address handed out, so finished pods' addresses are reused only once
    // the range wraps around (as before the restart).
    for (const auto& pod : pods_.List()) {
      const auto* view = pod->As<api::PodView>();
      if (!view || !Ours(view->node_name)) continue;
      auto host = PodIpHost(api::StringAt(api::StatusOf(*pod), "podIP"));
      if (!host) continue;
      next_ip_ = std::max(next_ip_, *host);
      std::string_view phase = api::StringAt(api::StatusOf(*pod), "phase");
      if (phase != "Succeeded" && phase != "Failed") ips_in_use_.emplace(*host, pod->uid());
    }
  }
  for (uint32_t tried = 0; tried < kHosts; ++tried) {
    uint32_t host = next_ip_ % kHosts + 1;
    ++next_ip_;
    if (ips_in_use_.emplace(host, uid).second) {
      return "10.244." + std::to_string(host >> 8) + "." + std::to_string(host & 255);
    }
  }
  return Status::Unavailable("simulated kubelets: every pod IP of 10.244.0.0/16 is in use");
}

void SimNodes::ReleaseIp(std::string_view ip, const std::string& uid) {
  auto host = PodIpHost(ip);
  if (!host) return;
  std::lock_guard lock(mu_);
  if (auto it = ips_in_use_.find(*host); it != ips_in_use_.end() && it->second == uid) ips_in_use_.erase(it);
}

void SimNodes::PodGone(const api::Object& pod) {
  ReleaseIp(api::StringAt(api::StatusOf(pod), "podIP"), pod.uid());
  std::lock_guard lock(mu_);
  backoffs_.erase(pod.uid());
  admitted_.erase(pod.uid());
}

std::optional<PodRejection> SimNodes::Admit(const api::Object& pod) {
  const std::string& node_name = pod.As<api::PodView>()->node_name;
  api::ObjectPtr node = nodes_.Get(node_name);
  if (!node) return std::nullopt;  // gone: the pod goes with it
  // One admission at a time, so that two pods bound at once cannot both
  // take the last room or the same host port.
  std::lock_guard lock(admit_mu_);
  std::vector<api::ObjectPtr> admitted;
  const std::vector<api::ObjectPtr> on_node = pods_.ByIndex(client::kNodeNameIndex, node_name);
  {
    std::lock_guard state(mu_);  // not held while the informer is read
    for (const auto& other : on_node) {
      if (other->uid() == pod.uid()) continue;
      std::string_view phase = api::StringAt(api::StatusOf(*other), "phase");
      if (phase == "Succeeded" || phase == "Failed") continue;
      const bool started = !api::StringAt(api::StatusOf(*other), "startTime").empty();
      if (started || admitted_.count(other->uid())) admitted.push_back(other);
    }
  }
  std::optional<PodRejection> rejection = CheckPodAdmission(pod, *node, admitted);
  if (!rejection) {
    std::lock_guard state(mu_);
    admitted_.insert(pod.uid());
  }
  return rejection;
}

Status SimNodes::RejectPod(const api::Object& pod, const PodRejection& rejection) {
  // kube's kubelet: a Warning event with the reason, and the pod Failed
  // with "Pod was rejected: ..." (its conditions and QoS class kept).
  json::object next = pod.json();
  json::object& status = api::MutableObject(next, "status");
  status["phase"] = "Failed";
  status["reason"] = rejection.reason;
  status["message"] = "Pod was rejected: " + rejection.message;
  auto written = client_.UpdateStatus(api::Kind::kPod, next);
  if (!written.ok()) return written.status().code() == StatusCode::kNotFound ? Status::Ok() : written.status();
  Recorder(pod.As<api::PodView>()->node_name).Event(*written.value(), "Warning", rejection.reason, rejection.message);
  PodGone(*written.value());
  return Status::Ok();
}

void SimNodes::RecordEvents(const api::Object& pod, const std::vector<KubeletEvent>& events) {
  const auto* view = pod.As<api::PodView>();
  if (!view) return;
  client::EventRecorder recorder = Recorder(view->node_name);
  for (const auto& e : events) recorder.Event(pod, e.type, e.reason, e.message);
}

void SimNodes::ContainerEvents(
    const api::Object& pod, std::string_view reason,
    const std::function<std::string(std::string_view, std::string_view)>& message) {
  const auto* view = pod.As<api::PodView>();
  const auto* spec = api::Spec(pod);
  const json::array* containers = spec ? api::ArrayAt(*spec, "containers") : nullptr;
  if (!view || !containers) return;
  client::EventRecorder recorder = Recorder(view->node_name);
  for (const auto& c : *containers) {
    if (!c.is_object()) continue;
    recorder.Event(
        pod, "Normal", reason,
        message(api::StringAt(c.get_object(), "name"), api::StringAt(c.get_object(), "image")));
  }
}

}  // namespace berth::controllers
