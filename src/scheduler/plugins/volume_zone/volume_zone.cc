#include "scheduler/plugins/volume_zone/volume_zone.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/volume_lister.h"

namespace berth::scheduler {

namespace {

constexpr std::string_view kStateKey = "VolumeZone";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";
constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr std::string_view kTopologyLabels[] = {kBetaZone, kBetaRegion, kZone, kRegion};

// The same label under its other name (GA ↔ beta), as kube's Filter tries both.
std::string_view OtherName(std::string_view key) {
  if (key == kZone) return kBetaZone;
  if (key == kBetaZone) return kZone;
  if (key == kRegion) return kBetaRegion;
  return kRegion;
}

struct PVTopology {
  std::string key;
  std::vector<std::string> values;  // the label's value split at "__"
};

class ZoneState final : public StateData {
 public:
  std::vector<PVTopology> topologies;
};

std::vector<std::string> SplitZones(std::string_view value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t at = value.find("__", start);
    out.emplace_back(value.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 2;
  }
  return out;
}

}  // namespace

PluginStatus VolumeZone::PreFilter(CycleState& state, const PodInfo& pod) const {
  VolumeLister* volumes = handle_.Volumes();
  if (!volumes) return PluginStatus::Skip();
  if (!HasClaims(pod)) return PluginStatus::Skip();
  auto data = std::make_unique<ZoneState>();
  for (const auto& v : pod.view->volumes) {
    if (v.claim_name.empty()) continue;
    api::ObjectPtr pvc = volumes->Claim(pod.namespace_name(), v.claim_name);
    if (!pvc) return PluginStatus::Unresolvable("persistentvolumeclaim \"" + v.claim_name + "\" not found");
    const std::string& pv_name = pvc->As<api::PersistentVolumeClaimView>()->volume_name;
    if (pv_name.empty()) {
      const std::string class_name = ClaimClass(*pvc);
      if (class_name.empty()) {
        return PluginStatus::Unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
      }
      api::ObjectPtr sc = volumes->StorageClass(class_name);
      if (!sc) return PluginStatus::Unresolvable("storageclass.storage.k8s.io \"" + class_name + "\" not found");
      if (sc->As<api::StorageClassView>()->wait_for_first_consumer) continue;
      return PluginStatus::Unresolvable("PersistentVolume had no name");
    }
    VolumeEntryPtr pv = volumes->Volume(pv_name);
    if (!pv) return PluginStatus::Unresolvable("persistentvolume \"" + pv_name + "\" not found");
    for (std::string_view key : kTopologyLabels) {
      if (auto value = pv->object->labels().Get(key)) data->topologies.push_back({std::string(key), SplitZones(*value)});
    }
  }
  if (data->topologies.empty()) return PluginStatus::Skip();
  state.Write(kStateKey, std::move(data));
  return {};
}

PluginStatus VolumeZone::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const auto* data = state.Get<ZoneState>(kStateKey);
  if (!data) return {};
  const api::Labels& labels = node.labels();
  if (std::none_of(std::begin(kTopologyLabels), std::end(kTopologyLabels),
                   [&](std::string_view key) { return labels.Has(key); })) {
    return {};
  }
  for (const PVTopology& t : data->topologies) {
    auto value = labels.Get(t.key);
    if (!value) value = labels.Get(OtherName(t.key));
    if (!value || std::find(t.values.begin(), t.values.end(), *value) == t.values.end()) {
      return PluginStatus::Unresolvable(std::string(kReason));
    }
  }
  return {};
}

}  // namespace berth::scheduler
