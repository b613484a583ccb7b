#include "controllers/volume/sim_provisioner.h"

#include <algorithm>
#include <boost/json.hpp>
#include <climits>
#include <set>

#include "api/json_fields.h"
#include "api/quantity.h"
#include "api/storage_views.h"
#include "controllers/for_update.h"
#include "controllers/volume/persistent_volume_controller.h"
#include "controllers/volume/volume_matching.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr char kDriverLabel[] = "csi.storage.k8s.io/drivername";
constexpr char kManagedByLabel[] = "csi.storage.k8s.io/managed-by";
constexpr char kManagedBy[] = "external-provisioner";
constexpr char kCapacityPrefix[] = "sim-";

bool LocalClass(const api::Object& storage_class) {
  return api::StringAt(api::ObjectAt(storage_class.json(), "parameters"), kSimLocalParameter) ==
         "true";
}

std::string_view Label(const api::Object& o, std::string_view key) {
  auto v = o.labels().Get(key);
  return v ? *v : std::string_view();
}

// The segment a provisioned volume was made in: the value of its node
// affinity's zone or hostname requirement.
std::string SegmentOf(const api::Object& volume) {
  const json::object* affinity =
      api::ObjectAt(api::ObjectAt(api::Spec(volume), "nodeAffinity"), "required");
  const json::array* terms = api::ArrayAt(affinity, "nodeSelectorTerms");
  if (!terms || terms->empty() || !terms->front().is_object()) return "";
  const json::array* expressions = api::ArrayAt(terms->front().get_object(), "matchExpressions");
  if (!expressions) return "";
  for (const auto& e : *expressions) {
    if (!e.is_object()) continue;
    const std::string_view key = api::StringAt(e.get_object(), "key");
    const json::array* values = api::ArrayAt(e.get_object(), "values");
    if ((key == kZoneLabel || key == kHostnameLabel) && values && !values->empty() &&
        values->front().is_string()) {
      return std::string(values->front().get_string());
    }
  }
  return "";
}

// A DNS-1123 subdomain made of `text`.
std::string ObjectNameOf(std::string text) {
  for (char& c : text) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '-';
  }
  if (text.size() > 253) text.resize(253);
  while (!text.empty() && !std::isalnum(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// A label value made of `text` (at most 63 characters, alphanumeric at both ends).
std::string LabelValueOf(const std::string& text) {
  std::string value = ObjectNameOf(text);
  if (value.size() > 63) value.resize(63);
  while (!value.empty() && !std::isalnum(static_cast<unsigned char>(value.back())))
    value.pop_back();
  return value;
}

std::string FormatBytes(int64_t bytes) {
  return api::Quantity::FromInt(bytes, api::Quantity::Format::kBinarySI).ToString();
}

bool Allowed(const api::StorageClassView& sc, const api::Object& node) {
  if (sc.allowed_topologies.empty()) return true;
  return std::any_of(
      sc.allowed_topologies.begin(), sc.allowed_topologies.end(),
      [&](const api::NodeSelectorTerm& term) { return term.Matches(node.labels(), node.name()); });
}

// The spec of the volume provisioned for `claim` in `storage_class` (the
// claim's class `class_name`) by `driver`: the claim's request and access
// modes, the class's reclaim policy and mount options, bound to the claim.
json::object ProvisionedVolumeSpec(const api::Object& claim, const api::Object& storage_class,
                                   const std::string& class_name, const std::string& driver) {
  const auto* pvc = claim.As<api::PersistentVolumeClaimView>();
  const auto& sc = *storage_class.As<api::StorageClassView>();
  const json::object* claim_spec = api::Spec(claim);
  json::object spec;
  std::string request(
      api::StringAt(api::ObjectAt(api::ObjectAt(claim_spec, "resources"), "requests"), "storage"));
  if (request.empty()) request = "0";
  spec["capacity"] = json::object{{"storage", request}};
  if (const json::value* modes = claim_spec->if_contains("accessModes"))
    spec["accessModes"] = *modes;
  spec["volumeMode"] = pvc->volume_mode;
  spec["storageClassName"] = class_name;
  spec["persistentVolumeReclaimPolicy"] = sc.reclaim_policy.empty() ? "Delete" : sc.reclaim_policy;
  if (const json::value* options = storage_class.json().if_contains("mountOptions"))
    spec["mountOptions"] = *options;
  spec["claimRef"] = json::object{{"kind", "PersistentVolumeClaim"},
                                  {"namespace", claim.namespace_name()},
                                  {"name", claim.name()},
                                  {"uid", claim.uid()},
                                  {"apiVersion", "v1"},
                                  {"resourceVersion", std::to_string(claim.resource_version())}};
  spec["csi"] = json::object{
      {"driver", driver},
      {"volumeHandle", "sim-" + claim.uid()},
      {"volumeAttributes",
       json::object{{"storage.kubernetes.io/csiProvisionerIdentity", "berth-sim-" + driver}}}};
  return spec;
}

// A volume's nodeAffinity that keeps it to `segment` (`key` In [segment]).
json::object RequiredNodeAffinity(const char* key, const std::string& segment) {
  json::object requirement{{"key", key}, {"operator", "In"}, {"values", json::array{segment}}};
  return json::object{
      {"required", json::object{{"nodeSelectorTerms",
                                 json::array{json::object{
                                     {"matchExpressions", json::array{requirement}}}}}}}};
}

}  // namespace

SimStorageCapacity StorageCapacityFromGroups(const std::vector<SimNodeGroup>& groups) {
  SimStorageCapacity capacity;
  for (const auto& g : groups) {
    if (g.storage_classes.empty()) continue;
    auto parsed = api::Quantity::Parse(g.storage_capacity);
    const int64_t bytes = parsed.ok() ? parsed.value().Value() : 0;
    std::string zone_override;
    for (const auto& [k, v] : g.labels) {
      if (k == kZoneLabel) zone_override = v;
    }
    for (int i = 0; i < g.count; ++i) {
      const std::string node = g.name_prefix + std::to_string(i);
      std::string zone = zone_override;
      if (zone.empty() && !g.zones.empty()) zone = g.zones[static_cast<size_t>(i) % g.zones.size()];
      for (const auto& storage_class : g.storage_classes) {
        capacity.per_zone[storage_class][zone] += bytes;
        capacity.per_node[storage_class][node] += bytes;
      }
    }
  }
  return capacity;
}

SimCsiProvisioner::SimCsiProvisioner(const ControllerContext& context, SimStorageCapacity capacity)
    : Controller("sim-csi-provisioner", context, 2),
      capacity_(std::move(capacity)),
      claims_(context.informers.For(api::Kind::kPersistentVolumeClaim)),
      volumes_(context.informers.For(api::Kind::kPersistentVolume)),
      classes_(context.informers.For(api::Kind::kStorageClass)),
      nodes_(context.informers.For(api::Kind::kNode)),
      capacities_(context.informers.For(api::Kind::kCSIStorageCapacity)),
      events_(context.events) {
  auto claim_changed = [this](const api::ObjectPtr& claim) {
    if (!api::Annotation(*claim, kAnnStorageProvisioner).empty())
      Enqueue(client::ObjectKey(*claim));
  };
  claims_.AddHandlers({claim_changed, claim_changed, nullptr});
  auto volume_changed = [this](const api::ObjectPtr& volume) {
    if (api::Annotation(*volume, kAnnProvisionedBy).empty()) return;
    Track(*volume);
    Enqueue(kCapacityKey);
  };
  auto volume_deleted = [this](const api::ObjectPtr& volume) {
    {
      std::lock_guard lock(mu_);
      if (!provisioned_.erase(volume->name())) return;
    }
    Enqueue(kCapacityKey);
    // Room freed: claims that found none try again.
    for (const auto& claim : claims_.List()) {
      if (api::StringAt(api::StatusOf(*claim), "phase") == "Pending" &&
          !api::Annotation(*claim, kAnnStorageProvisioner).empty()) {
        Enqueue(client::ObjectKey(*claim));
      }
    }
  };
  volumes_.AddHandlers({volume_changed, volume_changed, volume_deleted});
  auto class_changed = [this](const api::ObjectPtr&) { Enqueue(kCapacityKey); };
  classes_.AddHandlers({class_changed, class_changed, class_changed});
}

SimCsiProvisioner::~SimCsiProvisioner() { Stop(); }

void SimCsiProvisioner::Start() {
  Run();
  Enqueue(kCapacityKey);
}

void SimCsiProvisioner::Track(const api::Object& volume) {
  const auto* pv = volume.As<api::PersistentVolumeView>();
  if (!pv) return;
  std::lock_guard lock(mu_);
  provisioned_[volume.name()] =
      Usage{pv->storage_class_name, SegmentOf(volume), pv->capacity_bytes};
}

int64_t SimCsiProvisioner::Free(const std::string& storage_class, const std::string& segment,
                                bool local) const {
  if (!capacity_.Limited(storage_class)) return INT64_MAX;
  const auto& table = local ? capacity_.per_node : capacity_.per_zone;
  int64_t free = 0;
  if (auto c = table.find(storage_class); c != table.end()) {
    if (auto s = c->second.find(segment); s != c->second.end()) free = s->second;
  }
  for (const auto& [name, usage] : provisioned_) {
    if (usage.storage_class == storage_class && usage.segment == segment) free -= usage.bytes;
  }
  return free;
}

Status SimCsiProvisioner::Reconcile(const std::string& key) {
  if (key == kCapacityKey) return PublishCapacity();
  api::ObjectPtr claim = claims_.Get(key);
  return claim ? Provision(claim) : Status::Ok();
}

Status SimCsiProvisioner::Provision(const api::ObjectPtr& claim) {
  const auto* pvc = claim->As<api::PersistentVolumeClaimView>();
  if (!pvc || api::BeingDeleted(*claim) || !pvc->volume_name.empty() || pvc->phase != "Pending")
    return Status::Ok();
  const std::string driver(api::Annotation(*claim, kAnnStorageProvisioner));
  const std::string class_name = ClaimClass(*claim);
  api::ObjectPtr storage_class = classes_.Get(class_name);
  if (driver.empty() || !storage_class) return Status::Ok();
  const auto& sc = *storage_class->As<api::StorageClassView>();
  if (sc.provisioner != driver || driver == kNoProvisioner) return Status::Ok();
  if (sc.wait_for_first_consumer && pvc->selected_node.empty()) return Status::Ok();
  const std::string volume_name = "pvc-" + claim->uid();
  if (volumes_.Get(volume_name)) return Status::Ok();

  client::EventRecorder recorder(events_, {driver, ""});
  auto fail = [&](const std::string& why) {
    recorder.Event(*claim, "Warning", "ProvisioningFailed",
                   "failed to provision volume with StorageClass \"" + class_name + "\": " + why);
    // Retried: capacity may be freed, nodes may come.
    EnqueueAfter(client::ObjectKey(*claim), std::chrono::seconds(10));
    return Status::Ok();
  };
  const bool local = LocalClass(*storage_class);
  const char* topology_key = local ? kHostnameLabel : kZoneLabel;

  std::unique_lock lock(mu_);
  if (provisioned_.count(volume_name)) return Status::Ok();  // made; the cache has not seen it yet
  auto chosen = ChooseSegment(pvc->selected_node, *storage_class, class_name);
  if (!chosen.ok()) return fail(chosen.status().message());
  const std::string segment = std::move(chosen).value();
  const int64_t free = Free(class_name, segment, local);
  if (free < pvc->requested_bytes) {
    return fail("rpc error: code = ResourceExhausted desc = insufficient capacity in " +
                std::string(topology_key) + "=" + segment + ": requested " +
                FormatBytes(pvc->requested_bytes) + ", available " +
                FormatBytes(std::max<int64_t>(free, 0)));
  }
  // Reserved before the write, so that a concurrent decision counts it.
  provisioned_[volume_name] = Usage{class_name, segment, pvc->requested_bytes};
  lock.unlock();

  recorder.Event(*claim, "Normal", "Provisioning",
                 "External provisioner is provisioning volume for claim \"" +
                     client::ObjectKey(*claim) + "\"");
  json::object spec = ProvisionedVolumeSpec(*claim, *storage_class, class_name, driver);
  if (!segment.empty()) spec["nodeAffinity"] = RequiredNodeAffinity(topology_key, segment);
  json::object volume{
      {"apiVersion", "v1"},
      {"kind", "PersistentVolume"},
      {"metadata", json::object{{"name", volume_name},
                                {"annotations", json::object{{kAnnProvisionedBy, driver}}}}},
      {"spec", std::move(spec)}};
  auto created = client_.Create(api::Kind::kPersistentVolume, "", std::move(volume));
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
    {
      std::lock_guard relock(mu_);
      provisioned_.erase(volume_name);
    }
    return fail(created.status().message());
  }
  recorder.Event(*claim, "Normal", "ProvisioningSucceeded",
                 "Successfully provisioned volume " + volume_name);
  Enqueue(kCapacityKey);
  return Status::Ok();
}

Result<std::string> SimCsiProvisioner::ChooseSegment(const std::string& selected_node,
                                                     const api::Object& storage_class,
                                                     const std::string& class_name) const {
  const auto& sc = *storage_class.As<api::StorageClassView>();
  const bool local = LocalClass(storage_class);
  const char* topology_key = local ? kHostnameLabel : kZoneLabel;
  std::string segment;
  if (!selected_node.empty()) {
    api::ObjectPtr node = nodes_.Get(selected_node);
    if (!node) return Status::BadRequest("node \"" + selected_node + "\" not found");
    if (!Allowed(sc, *node)) {
      return Status::BadRequest("rpc error: code = InvalidArgument desc = node \"" + node->name() +
                                "\" is not in the class's allowedTopologies");
    }
    segment = std::string(Label(*node, topology_key));
    if (local && segment.empty()) segment = node->name();
    return segment;
  }
  // Immediate: the allowed segment with the most room (unlimited: the least used).
  std::set<std::string> segments;
  for (const auto& node : nodes_.List()) {
    if (!Allowed(sc, *node)) continue;
    std::string s(Label(*node, topology_key));
    if (local && s.empty()) s = node->name();
    if (!s.empty()) segments.insert(std::move(s));
  }
  if (segments.empty() && (local || !sc.allowed_topologies.empty())) {
    return Status::BadRequest(
        "rpc error: code = ResourceExhausted desc = no node in the class's topology");
  }
  int64_t best = INT64_MIN;
  for (const auto& s : segments) {
    int64_t score = Free(class_name, s, local);
    if (score == INT64_MAX) {
      score = 0;
      for (const auto& [name, usage] : provisioned_) {
        if (usage.storage_class == class_name && usage.segment == s) score -= usage.bytes;
      }
    }
    if (score > best) {
      best = score;
      segment = s;
    }
  }
  return segment;
}

Status SimCsiProvisioner::PublishCapacity() {
  // What should exist: name → object.
  std::map<std::string, json::object> desired;
  std::set<std::string> drivers;
  std::unique_lock lock(mu_);
  for (const auto& storage_class : classes_.List()) {
    const auto* sc = storage_class->As<api::StorageClassView>();
    if (!sc || sc->provisioner == kNoProvisioner || !capacity_.Limited(storage_class->name()))
      continue;
    const bool local = LocalClass(*storage_class);
    const auto& table = (local ? capacity_.per_node : capacity_.per_zone).at(storage_class->name());
    drivers.insert(sc->provisioner);
    for (const auto& [segment, total] : table) {
      json::object match_labels;
      if (!segment.empty()) match_labels[local ? kHostnameLabel : kZoneLabel] = segment;
      std::string name = ObjectNameOf(kCapacityPrefix + storage_class->name() + "-" +
                                      (segment.empty() ? "all" : segment));
      desired[name] = json::object{
          {"apiVersion", "storage.k8s.io/v1"},
          {"kind", "CSIStorageCapacity"},
          {"metadata",
           json::object{{"name", name},
                        {"namespace", kCapacityNamespace},
                        {"labels", json::object{{kDriverLabel, LabelValueOf(sc->provisioner)},
                                                {kManagedByLabel, kManagedBy}}}}},
          {"storageClassName", storage_class->name()},
          {"nodeTopology", json::object{{"matchLabels", std::move(match_labels)}}},
          {"capacity",
           FormatBytes(std::max<int64_t>(Free(storage_class->name(), segment, local), 0))}};
    }
  }
  lock.unlock();
  Status first = Status::Ok();
  auto keep = [&first](const Status& s) {
    if (first.ok() && !s.ok() && s.code() != StatusCode::kNotFound &&
        s.code() != StatusCode::kAlreadyExists)
      first = s;
  };
  for (const auto& driver : drivers) {
    // The driver says its capacity is to be checked (kube's
    // CSIDriver.spec.storageCapacity). A provisioner name that cannot name an
    // object (kube's CSI driver names are DNS subdomains) gets none.
    if (ObjectNameOf(driver) != driver) continue;
    auto got = client_.Get(api::Kind::kCSIDriver, "", driver);
    if (got.ok() || got.status().code() != StatusCode::kNotFound) continue;
    json::object csi_driver{
        {"apiVersion", "storage.k8s.io/v1"},
        {"kind", "CSIDriver"},
        {"metadata", json::object{{"name", driver}}},
        {"spec", json::object{{"attachRequired", false},
                              {"podInfoOnMount", false},
                              {"storageCapacity", true},
                              {"volumeLifecycleModes", json::array{"Persistent"}}}}};
    auto created = client_.Create(api::Kind::kCSIDriver, "", std::move(csi_driver));
    if (!created.ok()) keep(created.status());
  }
  for (auto& [name, object] : desired) {
    api::ObjectPtr existing = capacities_.Get(client::ObjectKey(kCapacityNamespace, name));
    if (!existing) {
      auto created = client_.Create(api::Kind::kCSIStorageCapacity, kCapacityNamespace, object);
      if (!created.ok()) keep(created.status());
      continue;
    }
    if (api::StringAt(existing->json(), "capacity") == api::StringAt(object, "capacity")) continue;
    json::object next = ForUpdate(*existing);
    next["capacity"] = object["capacity"];
    auto written = client_.Update(api::Kind::kCSIStorageCapacity, next);
    if (!written.ok()) keep(written.status());
  }
  for (const auto& existing : capacities_.List()) {
    if (existing->namespace_name() != kCapacityNamespace ||
        Label(*existing, kManagedByLabel) != kManagedBy ||
        existing->name().rfind(kCapacityPrefix, 0) != 0 || desired.count(existing->name())) {
      continue;
    }
    keep(client_.Delete(api::Kind::kCSIStorageCapacity, kCapacityNamespace, existing->name()));
  }
  return first;
}

}  // namespace berth::controllers
