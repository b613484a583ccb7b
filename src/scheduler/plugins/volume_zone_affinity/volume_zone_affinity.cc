#include "scheduler/plugins/volume_zone_affinity/volume_zone_affinity.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "scheduler/framework/volume_lister.h"

namespace berth::scheduler {

namespace {

constexpr std::string_view kStateKey = "VolumeZoneAffinity";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";

class ZoneCounts final : public StateData {
 public:
  std::map<std::string, int64_t, std::less<>> by_zone;
};

// The zones a volume lives in (see the header), each once.
std::set<std::string> VolumeZones(const VolumeEntry& pv) {
  std::set<std::string> zones;
  if (auto label = pv.object->labels().Get(kZone)) {
    std::string_view rest = *label;
    while (true) {
      size_t at = rest.find("__");
      zones.emplace(rest.substr(0, at));
      if (at == std::string_view::npos) break;
      rest = rest.substr(at + 2);
    }
    return zones;
  }
  if (const auto& affinity = pv.view->node_affinity) {
    for (const auto& term : affinity->terms) {
      for (const auto& r : term.match_expressions) {
        if (r.key == kZone && r.op == api::NodeSelectorRequirement::Op::kIn) zones.insert(r.values.begin(), r.values.end());
      }
    }
  }
  return zones;
}

}  // namespace

PluginStatus VolumeZoneAffinity::PreScore(CycleState& state, const PodInfo& pod,
                                          std::span<const NodeInfo* const>) const {
  VolumeLister* volumes = handle_.Volumes();
  if (!volumes) return PluginStatus::Skip();
  std::set<std::string> classes;
  for (const auto& v : pod.view->volumes) {
    if (v.claim_name.empty()) continue;
    if (api::ObjectPtr pvc = volumes->Claim(pod.namespace_name(), v.claim_name)) {
      if (std::string c = ClaimClass(*pvc); !c.empty()) classes.insert(std::move(c));
    }
  }
  auto counts = std::make_unique<ZoneCounts>();
  for (const std::string& c : classes) {
    for (const VolumeEntryPtr& pv : volumes->VolumesOfClass(c)) {
      if (!pv->view->claim_ref) continue;  // only volumes holding data for some claim
      for (const std::string& zone : VolumeZones(*pv)) ++counts->by_zone[zone];
    }
  }
  if (counts->by_zone.empty()) return PluginStatus::Skip();
  state.Write(kStateKey, std::move(counts));
  return {};
}

PluginStatus VolumeZoneAffinity::Score(const CycleState& state, const PodInfo&, const NodeInfo& node,
                                       int64_t* score) const {
  *score = 0;
  const auto* counts = state.Get<ZoneCounts>(kStateKey);
  if (!counts) return {};
  if (auto zone = node.labels().Get(kZone)) {
    auto it = counts->by_zone.find(*zone);
    if (it != counts->by_zone.end()) *score = it->second;
  }
  return {};
}

PluginStatus VolumeZoneAffinity::NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore> scores) const {
  DefaultNormalizeScore(scores, false);
  return {};
}

}  // namespace berth::scheduler
