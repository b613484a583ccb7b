#include "scheduler/framework/volume_lister.h"

#include <utility>

#include "api/json_fields.h"
#include "api/quantity.h"

namespace berth::scheduler {

namespace json = boost::json;

namespace {

std::string ClaimKey(std::string_view ns, std::string_view name) {
  std::string key(ns);
  key += '/';
  key += name;
  return key;
}

std::optional<int64_t> QuantityBytes(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_string()) return std::nullopt;
  auto q = api::Quantity::Parse(it->value().get_string());
  if (!q.ok()) return std::nullopt;
  return q.value().Value();
}

// The in-tree sources kube translates to CSI (CSI migration, GA and locked on
// for these), keyed by the spec field, with the field that names the volume.
struct MigratedSource {
  std::string_view field, driver, id_field;
};
constexpr MigratedSource kMigratedSources[] = {
    {"awsElasticBlockStore", "ebs.csi.aws.com", "volumeID"},
    {"gcePersistentDisk", "pd.csi.storage.gke.io", "pdName"},
    {"azureDisk", "disk.csi.azure.com", "diskURI"},
    {"cinder", "cinder.csi.openstack.org", "volumeID"},
};

VolumeEntryPtr MakeEntry(const api::ObjectPtr& pv) {
  auto entry = std::make_shared<VolumeEntry>();
  entry->object = pv;
  entry->view = pv->As<api::PersistentVolumeView>();
  entry->unhealthy = api::Annotation(*pv, kVolumeHealthyAnnotation) == "false";
  entry->being_deleted = api::BeingDeleted(*pv);
  if (const json::object* spec = api::Spec(*pv)) {
    if (const json::object* csi = api::ObjectAt(spec, "csi")) {
      entry->driver = std::string(api::StringAt(csi, "driver"));
      entry->handle = std::string(api::StringAt(csi, "volumeHandle"));
    } else {
      for (const auto& source : kMigratedSources) {
        if (const json::object* s = api::ObjectAt(spec, source.field)) {
          entry->driver = std::string(source.driver);
          entry->handle = std::string(api::StringAt(s, source.id_field));
          break;
        }
      }
    }
  }
  return entry;
}

}  // namespace

bool HasClaims(const PodInfo& pod) {
  for (const auto& v : pod.view->volumes) {
    if (!v.claim_name.empty()) return true;
  }
  return false;
}

void VolumeLister::Changed() {
  std::lock_guard lock(wait_mu_);
  ++generation_;
  wait_cv_.notify_all();
}

bool VolumeLister::OnVolume(const api::ObjectPtr& pv) {
  if (!pv->As<api::PersistentVolumeView>()) return false;
  VolumeEntryPtr entry = MakeEntry(pv);
  std::unique_lock lock(mu_);
  auto& slot = volumes_[pv->name()];
  const bool added = !slot;
  if (slot && slot->view->storage_class_name != entry->view->storage_class_name) {
    auto it = by_class_.find(slot->view->storage_class_name);
    if (it != by_class_.end()) it->second.erase(pv->name());
  }
  slot = entry;
  by_class_[entry->view->storage_class_name][pv->name()] = entry;
  Changed();
  return added;
}

void VolumeLister::OnVolumeDelete(const std::string& name) {
  std::unique_lock lock(mu_);
  auto it = volumes_.find(name);
  if (it == volumes_.end()) return;
  auto c = by_class_.find(it->second->view->storage_class_name);
  if (c != by_class_.end()) c->second.erase(name);
  volumes_.erase(it);
  assumed_.erase(name);
  Changed();
}

bool VolumeLister::OnClaim(const api::ObjectPtr& pvc) {
  if (!pvc->As<api::PersistentVolumeClaimView>()) return false;
  std::unique_lock lock(mu_);
  const bool added = claims_.insert_or_assign(ClaimKey(pvc->namespace_name(), pvc->name()), pvc).second;
  Changed();
  return added;
}

void VolumeLister::OnClaimDelete(const api::ObjectPtr& pvc) {
  std::unique_lock lock(mu_);
  claims_.erase(ClaimKey(pvc->namespace_name(), pvc->name()));
  Changed();
}

bool VolumeLister::OnStorageClass(const api::ObjectPtr& sc) {
  if (!sc->As<api::StorageClassView>()) return false;
  std::unique_lock lock(mu_);
  return classes_.insert_or_assign(sc->name(), sc).second;
}

void VolumeLister::OnStorageClassDelete(const std::string& name) {
  std::unique_lock lock(mu_);
  classes_.erase(name);
}

bool VolumeLister::OnCSINode(const api::ObjectPtr& csi_node) {
  auto limits = std::make_shared<std::unordered_map<std::string, int64_t>>();
  if (const json::array* drivers = api::ArrayAt(api::Spec(*csi_node), "drivers")) {
    for (const json::value& d : *drivers) {
      if (!d.is_object()) continue;
      const json::object* allocatable = api::ObjectAt(&d.get_object(), "allocatable");
      if (!allocatable || !allocatable->contains("count")) continue;
      (*limits)[std::string(api::StringAt(d.get_object(), "name"))] = api::IntAt(allocatable, "count");
    }
  }
  std::unique_lock lock(mu_);
  const bool added = !csi_node_names_.contains(csi_node->name());
  csi_node_names_.insert(csi_node->name());
  SetCSINodeLimits(csi_node->name(), std::move(limits));
  return added;
}

void VolumeLister::OnCSINodeDelete(const std::string& name) {
  std::unique_lock lock(mu_);
  csi_node_names_.erase(name);
  SetCSINodeLimits(name, nullptr);
}

void VolumeLister::SetCSINodeLimits(const std::string& node,
                                    std::shared_ptr<const std::unordered_map<std::string, int64_t>> limits) {
  auto it = csi_nodes_.find(node);
  if (it != csi_nodes_.end()) {
    for (const auto& [driver, count] : *it->second) limits_.erase(limits_.find(count));
    csi_nodes_.erase(it);
  }
  if (limits) {
    for (const auto& [driver, count] : *limits) limits_.insert(count);
    csi_nodes_.emplace(node, std::move(limits));
  }
  smallest_limit_.store(limits_.empty() ? std::numeric_limits<int64_t>::max() : *limits_.begin(),
                        std::memory_order_release);
}

bool VolumeLister::OnCSIDriver(const api::ObjectPtr& driver) {
  const bool capacity = api::BoolAt(api::Spec(*driver), "storageCapacity");
  std::unique_lock lock(mu_);
  return drivers_.insert_or_assign(driver->name(), capacity).second;
}

void VolumeLister::OnCSIDriverDelete(const std::string& name) {
  std::unique_lock lock(mu_);
  drivers_.erase(name);
}

bool VolumeLister::OnStorageCapacity(const api::ObjectPtr& capacity) {
  // CSIStorageCapacity keeps its fields at the top level, not under spec.
  const json::object& o = capacity->json();
  StorageCapacityEntry entry;
  entry.storage_class = std::string(api::StringAt(o, "storageClassName"));
  entry.capacity = QuantityBytes(o, "capacity");
  entry.maximum_volume_size = QuantityBytes(o, "maximumVolumeSize");
  if (auto it = o.find("nodeTopology"); it != o.end() && !it->value().is_null()) {
    auto selector = api::LabelSelector::FromJson(it->value());
    entry.node_topology = selector.ok() ? std::move(selector).value() : api::LabelSelector::Nothing();
  }
  std::unique_lock lock(mu_);
  return capacities_.insert_or_assign(ClaimKey(capacity->namespace_name(), capacity->name()), std::move(entry)).second;
}

void VolumeLister::OnStorageCapacityDelete(const api::ObjectPtr& capacity) {
  std::unique_lock lock(mu_);
  capacities_.erase(ClaimKey(capacity->namespace_name(), capacity->name()));
}

std::vector<api::ObjectPtr> VolumeLister::Volumes() const {
  std::shared_lock lock(mu_);
  std::vector<api::ObjectPtr> out;
  out.reserve(volumes_.size());
  for (const auto& [name, entry] : volumes_) out.push_back(entry->object);
  return out;
}

std::vector<api::ObjectPtr> VolumeLister::Claims() const {
  std::shared_lock lock(mu_);
  std::vector<api::ObjectPtr> out;
  out.reserve(claims_.size());
  for (const auto& [key, claim] : claims_) out.push_back(claim);
  return out;
}

VolumeEntryPtr VolumeLister::Volume(const std::string& name) const {
  std::shared_lock lock(mu_);
  auto it = volumes_.find(name);
  return it == volumes_.end() ? nullptr : it->second;
}

api::ObjectPtr VolumeLister::Claim(std::string_view ns, std::string_view name) const {
  const std::string key = ClaimKey(ns, name);
  std::shared_lock lock(mu_);
  auto it = claims_.find(key);
  return it == claims_.end() ? nullptr : it->second;
}

api::ObjectPtr VolumeLister::StorageClass(const std::string& name) const {
  std::shared_lock lock(mu_);
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : it->second;
}

std::vector<VolumeEntryPtr> VolumeLister::VolumesOfClass(const std::string& storage_class) const {
  std::vector<VolumeEntryPtr> out;
  std::shared_lock lock(mu_);
  auto it = by_class_.find(storage_class);
  if (it == by_class_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [name, entry] : it->second) out.push_back(entry);
  return out;
}

std::shared_ptr<const std::unordered_map<std::string, int64_t>> VolumeLister::CSINodeLimits(
    const std::string& node) const {
  std::shared_lock lock(mu_);
  auto it = csi_nodes_.find(node);
  return it == csi_nodes_.end() ? nullptr : it->second;
}

std::optional<bool> VolumeLister::DriverStorageCapacity(const std::string& driver) const {
  std::shared_lock lock(mu_);
  auto it = drivers_.find(driver);
  if (it == drivers_.end()) return std::nullopt;
  return it->second;
}

std::vector<StorageCapacityEntry> VolumeLister::Capacities(const std::string& storage_class) const {
  std::vector<StorageCapacityEntry> out;
  std::shared_lock lock(mu_);
  for (const auto& [key, entry] : capacities_) {
    if (entry.storage_class == storage_class) out.push_back(entry);
  }
  return out;
}

bool VolumeLister::AssumeVolume(const std::string& pv, const std::string& claim_key) {
  std::unique_lock lock(mu_);
  auto [it, inserted] = assumed_.try_emplace(pv, claim_key);
  return inserted || it->second == claim_key;
}

void VolumeLister::ForgetVolume(const std::string& pv, const std::string& claim_key) {
  std::unique_lock lock(mu_);
  auto it = assumed_.find(pv);
  if (it != assumed_.end() && it->second == claim_key) assumed_.erase(it);
}

std::string VolumeLister::AssumedClaim(const std::string& pv) const {
  std::shared_lock lock(mu_);
  auto it = assumed_.find(pv);
  return it == assumed_.end() ? "" : it->second;
}

uint64_t VolumeLister::Generation() const {
  std::lock_guard lock(wait_mu_);
  return generation_;
}

bool VolumeLister::WaitForChange(uint64_t seen, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(wait_mu_);
  wait_cv_.wait_until(lock, deadline, [&] { return shut_down_ || generation_ != seen; });
  return !shut_down_;
}

void VolumeLister::Shutdown() {
  std::lock_guard lock(wait_mu_);
  shut_down_ = true;
  wait_cv_.notify_all();
}

bool VolumeLister::IsShutDown() const {
  std::lock_guard lock(wait_mu_);
  return shut_down_;
}

}  // namespace berth::scheduler
