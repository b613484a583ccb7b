#include "scheduler/plugins/volume_restrictions/volume_restrictions.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/volume_lister.h"

namespace berth::scheduler {

namespace {

constexpr std::string_view kStateKey = "VolumeRestrictions";

class RestrictionsState final : public StateData {
 public:
  std::vector<std::string> read_write_once_pod;  // the pod's claims with ReadWriteOncePod, by name
  int64_t conflicts = 0;                         // other pods using one of them
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<RestrictionsState>(*this); }
};

// How many of `other`'s claims are among `claims` (it uses them on its node).
int64_t SharedClaims(const PodInfo& pod, const PodInfo& other, const std::vector<std::string>& claims) {
  if (other.namespace_name() != pod.namespace_name() || other.uid() == pod.uid()) return 0;
  int64_t n = 0;
  for (const auto& v : other.view->volumes) {
    if (!v.claim_name.empty() && std::find(claims.begin(), claims.end(), v.claim_name) != claims.end()) ++n;
  }
  return n;
}

}  // namespace

PluginStatus VolumeRestrictions::PreFilter(CycleState& state, const PodInfo& pod) const {
  VolumeLister* volumes = handle_.Volumes();
  if (!volumes) return PluginStatus::Skip();
  if (!HasClaims(pod)) return PluginStatus::Skip();
  auto data = std::make_unique<RestrictionsState>();
  for (const auto& v : pod.view->volumes) {
    if (v.claim_name.empty()) continue;
    api::ObjectPtr pvc = volumes->Claim(pod.namespace_name(), v.claim_name);
    if (!pvc) return PluginStatus::Unresolvable("persistentvolumeclaim \"" + v.claim_name + "\" not found");
    const auto& modes = pvc->As<api::PersistentVolumeClaimView>()->access_modes;
    if (std::find(modes.begin(), modes.end(), "ReadWriteOncePod") != modes.end()) {
      data->read_write_once_pod.push_back(v.claim_name);
    }
  }
  if (data->read_write_once_pod.empty()) return PluginStatus::Skip();
  // kube counts the claim's users over the whole snapshot (assumed pods included).
  for (const NodeInfoPtr& node : state.snapshot().nodes()) {
    for (const PodInfoPtr& other : node->pods()) data->conflicts += SharedClaims(pod, *other, data->read_write_once_pod);
  }
  state.Write(kStateKey, std::move(data));
  return {};
}

PluginStatus VolumeRestrictions::AddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                        const NodeInfo&) const {
  if (auto* data = state.GetMutable<RestrictionsState>(kStateKey)) {
    data->conflicts += SharedClaims(pod, other, data->read_write_once_pod);
  }
  return {};
}

PluginStatus VolumeRestrictions::RemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                           const NodeInfo&) const {
  if (auto* data = state.GetMutable<RestrictionsState>(kStateKey)) {
    data->conflicts -= SharedClaims(pod, other, data->read_write_once_pod);
  }
  return {};
}

PluginStatus VolumeRestrictions::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo&) const {
  const auto* data = state.Get<RestrictionsState>(kStateKey);
  if (data && data->conflicts > 0) return PluginStatus::Unschedulable(std::string(kReadWriteOncePodConflict));
  return {};
}

}  // namespace berth::scheduler
