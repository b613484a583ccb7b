#include "scheduler/plugins/volume_limits/node_volume_limits.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "scheduler/framework/volume_lister.h"

namespace berth::scheduler {

namespace {

constexpr std::string_view kStateKey = "NodeVolumeLimits";

struct AttachableVolume {
  std::string driver;
  std::string unique;  // driver + "/" + handle: one attachment however many pods use it
};

class LimitsState final : public StateData {
 public:
  std::vector<AttachableVolume> volumes;  // the pod's, unique
};

// The attachable volume behind `claim_name` of a pod in `ns`; false when the
// claim is missing. An unbound claim counts under its class's provisioner
// (kube's placeholder handle "<namespace>-<claim>").
bool Resolve(const VolumeLister& volumes, const std::string& ns, const std::string& claim_name,
             std::optional<AttachableVolume>* out) {
  api::ObjectPtr pvc = volumes.Claim(ns, claim_name);
  if (!pvc) return false;
  const std::string& pv_name = pvc->As<api::PersistentVolumeClaimView>()->volume_name;
  if (!pv_name.empty()) {
    if (VolumeEntryPtr pv = volumes.Volume(pv_name); pv && !pv->driver.empty()) {
      *out = AttachableVolume{pv->driver, pv->driver + "/" + pv->handle};
    }
    return true;
  }
  const std::string class_name = ClaimClass(*pvc);
  if (class_name.empty()) return true;
  api::ObjectPtr sc = volumes.StorageClass(class_name);
  if (!sc) return true;
  const std::string& driver = sc->As<api::StorageClassView>()->provisioner;
  if (!driver.empty()) *out = AttachableVolume{driver, driver + "/" + ns + "-" + claim_name};
  return true;
}

}  // namespace

PluginStatus NodeVolumeLimits::PreFilter(CycleState& state, const PodInfo& pod) const {
  VolumeLister* volumes = handle_.Volumes();
  if (!volumes) return PluginStatus::Skip();
  if (!HasClaims(pod)) return PluginStatus::Skip();
  auto data = std::make_unique<LimitsState>();
  for (const auto& v : pod.view->volumes) {
    if (v.claim_name.empty()) continue;
    std::optional<AttachableVolume> attachable;
    if (!Resolve(*volumes, pod.namespace_name(), v.claim_name, &attachable)) {
      return PluginStatus::Unresolvable("persistentvolumeclaim \"" + v.claim_name + "\" not found");
    }
    if (!attachable) continue;
    const bool seen = std::any_of(data->volumes.begin(), data->volumes.end(),
                                  [&](const AttachableVolume& a) { return a.unique == attachable->unique; });
    if (!seen) data->volumes.push_back(std::move(*attachable));
  }
  if (data->volumes.empty()) return PluginStatus::Skip();
  state.Write(kStateKey, std::move(data));
  return {};
}

PluginStatus NodeVolumeLimits::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const auto* data = state.Get<LimitsState>(kStateKey);
  if (!data) return {};
  const VolumeLister& volumes = *handle_.Volumes();
  // The node's pods use at most this many volumes of any driver: when even
  // that many and all of the pod's fit under every limit, nothing needs
  // looking up (the common case, and the scheduling path's fast one).
  int64_t claims_on_node = 0;
  for (const PodInfoPtr& other : node.pods()) claims_on_node += static_cast<int64_t>(other->view->volumes.size());
  const int64_t most = claims_on_node + static_cast<int64_t>(data->volumes.size());
  if (most <= volumes.SmallestCSINodeLimit()) return {};
  auto limits = volumes.CSINodeLimits(node.name());
  if (!limits) return {};
  const bool surely_fits = std::all_of(data->volumes.begin(), data->volumes.end(), [&](const AttachableVolume& a) {
    auto limit = limits->find(a.driver);
    return limit == limits->end() || most <= limit->second;
  });
  if (surely_fits) return {};
  // What the node's pods attach already, for the limited drivers.
  std::unordered_map<std::string, std::unordered_set<std::string>> attached;
  for (const PodInfoPtr& other : node.pods()) {
    for (const auto& v : other->view->volumes) {
      if (v.claim_name.empty()) continue;
      std::optional<AttachableVolume> a;
      Resolve(volumes, other->namespace_name(), v.claim_name, &a);
      if (a && limits->count(a->driver)) attached[a->driver].insert(std::move(a->unique));
    }
  }
  std::unordered_map<std::string, int64_t> adding;
  for (const AttachableVolume& a : data->volumes) {
    auto limit = limits->find(a.driver);
    if (limit == limits->end()) continue;
    auto& on_node = attached[a.driver];
    if (on_node.count(a.unique)) continue;
    if (static_cast<int64_t>(on_node.size()) + ++adding[a.driver] > limit->second) {
      return PluginStatus::Unschedulable(std::string(kReason));
    }
  }
  return {};
}

}  // namespace berth::scheduler
