#include "scheduler/plugins/volume_binding/volume_binding.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "scheduler/framework/volume_lister.h"
#include "scheduler/plugins/volume_binding/volume_matching.h"

namespace berth::scheduler {

namespace json = boost::json;

namespace {

constexpr std::string_view kStateKey = "VolumeBinding";
constexpr std::string_view kBindCompleted = "pv.kubernetes.io/bind-completed";
constexpr std::string_view kBoundByController = "pv.kubernetes.io/bound-by-controller";
constexpr std::string_view kSelectedNode = "volume.kubernetes.io/selected-node";
constexpr std::string_view kStorageProvisioner = "volume.kubernetes.io/storage-provisioner";
constexpr std::string_view kBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner";

// What Filter chose on one node for the pod's delayed claims.
struct NodeBindings {
  std::vector<std::pair<size_t, VolumeEntryPtr>> static_bindings;  // delayed claim → PV
  std::vector<size_t> provisions;                                  // delayed claims to provision
};

class BindingState final : public StateData {
 public:
  std::vector<VolumeEntryPtr> bound_volumes;  // the bound claims' PVs; nullptr: missing
  std::vector<Claim> delayed;                 // unbound WaitForFirstConsumer claims, smallest first
  std::vector<std::vector<VolumeEntryPtr>> candidates;  // per delayed claim: PVs of its class

  // Filter's choices, by node (Filter runs concurrently for the cycle's nodes).
  mutable std::mutex mu;
  mutable std::unordered_map<std::string, NodeBindings> by_node;  // guarded by mu

  // Reserve's choice (written and read on the cycle's and binding's thread).
  NodeBindings chosen;
  bool reserved = false;
};

bool FullyBound(const api::Object& pvc) {
  return !pvc.As<api::PersistentVolumeClaimView>()->volume_name.empty() &&
         api::Metadata(pvc) && api::ObjectAt(api::Metadata(pvc), "annotations") &&
         api::ObjectAt(api::Metadata(pvc), "annotations")->contains(kBindCompleted);
}

// Why an ephemeral volume's claim is not this pod's (kube's VolumeIsForPod), "" when it is.
std::string NotOwnedByPod(const api::Object& pvc, const PodInfo& pod) {
  if (const json::array* owners = api::ArrayAt(api::Metadata(pvc), "ownerReferences")) {
    for (const json::value& o : *owners) {
      if (o.is_object() && api::StringAt(o.get_object(), "uid") == pod.uid() &&
          api::BoolAt(&o.get_object(), "controller")) {
        return "";
      }
    }
  }
  return "PVC " + pvc.namespace_name() + "/" + pvc.name() + " was not created for pod " + pod.namespace_name() + "/" +
         pod.name() + " (pod is not owner)";
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

json::object& Annotations(json::object& object) {
  return api::MutableObject(api::MutableObject(object, "metadata"), "annotations");
}

// The object as last seen, to be written back with a change: its
// resourceVersion makes the write conditional (Conflict when it moved).
json::object ForUpdate(const api::Object& seen) {
  json::object object = seen.json();
  if (seen.resource_version() > 0) {
    api::MutableObject(object, "metadata")["resourceVersion"] = std::to_string(seen.resource_version());
  }
  return object;
}

}  // namespace

VolumeBinding::VolumeBinding(const Handle& handle, std::chrono::seconds bind_timeout)
    : handle_(handle), bind_timeout_(bind_timeout) {
  metrics::Registry* registry = handle.MetricsRegistry();
  if (!registry) return;
  // Registered by the scheduler (kube's names and help); found here by name.
  auto& cache = registry->AddCounter("scheduler_volume_binder_cache_requests_total",
                                     "[ALPHA] Total number for request volume binding cache", {"operation"});
  auto& stage = registry->AddCounter("scheduler_volume_scheduling_stage_error_total",
                                     "[ALPHA] Volume scheduling stage error count", {"operation"});
  cache_add_ = &cache.WithLabels({"add"});
  cache_delete_ = &cache.WithLabels({"delete"});
  assume_errors_ = &stage.WithLabels({"assume"});
  bind_errors_ = &stage.WithLabels({"bind"});
}

PluginStatus VolumeBinding::PreFilter(CycleState& state, const PodInfo& pod) const {
  VolumeLister* volumes = handle_.Volumes();
  if (!volumes || !HasClaims(pod)) return PluginStatus::Skip();

  auto data = std::make_unique<BindingState>();
  bool unbound_immediate = false;
  for (const auto& v : pod.view->volumes) {
    if (v.claim_name.empty()) continue;
    api::ObjectPtr pvc = volumes->Claim(pod.namespace_name(), v.claim_name);
    if (!pvc) {
      // Normal for a moment after a pod with a generic ephemeral volume is created.
      if (v.ephemeral) {
        return PluginStatus::Unresolvable("waiting for ephemeral volume controller to create the persistentvolumeclaim " +
                                          Quoted(v.claim_name));
      }
      return PluginStatus::Unresolvable("persistentvolumeclaim " + Quoted(v.claim_name) + " not found");
    }
    const auto* view = pvc->As<api::PersistentVolumeClaimView>();
    if (view->phase == "Lost") {
      return PluginStatus::Unresolvable("persistentvolumeclaim " + Quoted(pvc->name()) +
                                        " bound to non-existent persistentvolume " + Quoted(view->volume_name));
    }
    if (api::BeingDeleted(*pvc)) {
      return PluginStatus::Unresolvable("persistentvolumeclaim " + Quoted(pvc->name()) + " is being deleted");
    }
    if (v.ephemeral) {
      if (std::string why = NotOwnedByPod(*pvc, pod); !why.empty()) return PluginStatus::Unresolvable(why);
    }
    if (FullyBound(*pvc)) {
      data->bound_volumes.push_back(volumes->Volume(view->volume_name));
      continue;
    }
    Claim claim = MakeClaim(*volumes, pvc);
    // A pre-bound claim (spec.volumeName set) waits for the PV controller
    // like an Immediate one.
    if (claim.class_view && claim.class_view->wait_for_first_consumer && view->volume_name.empty()) {
      data->delayed.push_back(std::move(claim));
    } else {
      unbound_immediate = true;
    }
  }
  // kube's message: the PV controller binds these; the pod comes back on a claim's update.
  if (unbound_immediate) return PluginStatus::Unresolvable(std::string(kUnboundImmediate));
  // The smallest claims choose first, so that each gets the smallest PV that fits.
  std::stable_sort(data->delayed.begin(), data->delayed.end(),
                   [](const Claim& a, const Claim& b) { return a.view->requested_bytes < b.view->requested_bytes; });
  for (const Claim& c : data->delayed) data->candidates.push_back(volumes->VolumesOfClass(c.class_name));
  state.Write(kStateKey, std::move(data));
  return {};
}

PluginStatus VolumeBinding::Filter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  const auto* data = state.Get<BindingState>(kStateKey);
  if (!data) return {};
  std::vector<std::string> reasons;
  bool node_conflict = false, pv_missing = false, unhealthy = false;
  for (const VolumeEntryPtr& v : data->bound_volumes) {
    if (!v) {
      pv_missing = true;
    } else if (v->unhealthy) {
      unhealthy = true;
    } else if (!VolumeFitsNode(*v, node)) {
      node_conflict = true;
    }
  }
  if (node_conflict) reasons.emplace_back(kNodeConflict);
  if (pv_missing) reasons.emplace_back(kPVNotExist);

  NodeBindings bindings;
  bool bind_conflict = false, no_space = false;
  if (!data->delayed.empty()) {
    VolumeLister& volumes = *handle_.Volumes();
    std::vector<std::string> chosen;
    for (size_t i = 0; i < data->delayed.size(); ++i) {
      const Claim& claim = data->delayed[i];
      bool skipped_unhealthy = false;
      VolumeEntryPtr match =
          FindMatchingVolume(volumes, claim, data->candidates[i], node, chosen, &skipped_unhealthy);
      if (match) {
        chosen.push_back(match->object->name());
        bindings.static_bindings.emplace_back(i, std::move(match));
        continue;
      }
      switch (CheckProvisioning(volumes, claim, node)) {
        case Provisioning::kPossible:
          bindings.provisions.push_back(i);
          break;
        case Provisioning::kNotEnoughSpace:
          no_space = true;
          break;
        case Provisioning::kImpossible:
          if (skipped_unhealthy) {
            unhealthy = true;
          } else {
            bind_conflict = true;
          }
          break;
      }
    }
  }
  if (bind_conflict) reasons.emplace_back(kBindConflict);
  if (no_space) reasons.emplace_back(kNotEnoughSpace);
  if (unhealthy) reasons.emplace_back(kUnhealthy);
  if (!reasons.empty()) return PluginStatus(Code::kUnschedulableAndUnresolvable, std::move(reasons));
  if (!data->delayed.empty()) {
    std::lock_guard lock(data->mu);
    data->by_node[node.name()] = std::move(bindings);
  }
  return {};
}

PluginStatus VolumeBinding::Reserve(CycleState& state, const PodInfo& pod, const std::string& node) const {
  auto* data = state.GetMutable<BindingState>(kStateKey);
  if (!data || data->delayed.empty()) return {};
  {
    std::lock_guard lock(data->mu);
    auto it = data->by_node.find(node);
    if (it == data->by_node.end()) {
      Count(assume_errors_);
      return PluginStatus::Error("no volume decisions for node " + node);
    }
    data->chosen = it->second;
  }
  VolumeLister& volumes = *handle_.Volumes();
  for (size_t n = 0; n < data->chosen.static_bindings.size(); ++n) {
    const auto& [i, pv] = data->chosen.static_bindings[n];
    if (!volumes.AssumeVolume(pv->object->name(), data->delayed[i].key)) {
      // A concurrent cycle took it since Filter: try again.
      for (size_t k = 0; k < n; ++k) {
        const auto& [j, taken] = data->chosen.static_bindings[k];
        volumes.ForgetVolume(taken->object->name(), data->delayed[j].key);
      }
      data->chosen = {};
      Count(assume_errors_);
      return PluginStatus::Unschedulable(std::string(kBindConflict));
    }
  }
  data->reserved = true;
  Count(cache_add_);
  return {};
}

void VolumeBinding::Unreserve(CycleState& state, const PodInfo& pod, const std::string& node) const {
  auto* data = state.GetMutable<BindingState>(kStateKey);
  if (!data || !data->reserved) return;
  VolumeLister& volumes = *handle_.Volumes();
  for (const auto& [i, pv] : data->chosen.static_bindings) volumes.ForgetVolume(pv->object->name(), data->delayed[i].key);
  data->reserved = false;
  Count(cache_delete_);
}

PluginStatus VolumeBinding::PreBind(CycleState& state, const PodInfo& pod, const std::string& node) const {
  PluginStatus s = BindVolumes(state, pod, node);
  if (!s.ok()) Count(bind_errors_);
  return s;
}

PluginStatus VolumeBinding::BindVolumes(CycleState& state, const PodInfo& pod, const std::string& node) const {
  auto* data = state.GetMutable<BindingState>(kStateKey);
  if (!data || data->delayed.empty() || !data->reserved) return {};
  VolumeLister& volumes = *handle_.Volumes();
  // kube's BindPodVolumes: the API writes first, then the wait for the PV controller.
  for (const auto& [i, pv] : data->chosen.static_bindings) {
    const Claim& claim = data->delayed[i];
    json::object object = ForUpdate(*pv->object);
    api::MutableObject(object, "spec")["claimRef"] =
        json::object{{"kind", "PersistentVolumeClaim"},
                     {"namespace", claim.object->namespace_name()},
                     {"name", claim.object->name()},
                     {"uid", claim.object->uid()},
                     {"apiVersion", "v1"},
                     {"resourceVersion", std::to_string(claim.object->resource_version())}};
    Annotations(object)[kBoundByController] = "yes";
    if (Status s = handle_.UpdatePersistentVolume(object); !s.ok()) {
      return PluginStatus::Error("binding volumes: " + s.message());
    }
  }
  for (size_t i : data->chosen.provisions) {
    const Claim& claim = data->delayed[i];
    json::object object = ForUpdate(*claim.object);
    json::object& annotations = Annotations(object);
    annotations[kSelectedNode] = node;
    annotations[kStorageProvisioner] = claim.class_view->provisioner;
    annotations[kBetaStorageProvisioner] = claim.class_view->provisioner;
    if (Status s = handle_.UpdatePersistentVolumeClaim(object); !s.ok()) {
      return PluginStatus::Error("binding volumes: " + s.message());
    }
  }

  const auto deadline = std::chrono::steady_clock::now() + bind_timeout_;
  while (true) {
    const uint64_t seen = volumes.Generation();
    // kube's checkBindings: every claim bound (its PV's claimRef seen too
    // for the static ones); a claim to provision that lost its selected
    // node was given up by the provisioner.
    bool done = true;
    for (size_t i = 0; i < data->delayed.size(); ++i) {
      const Claim& claim = data->delayed[i];
      api::ObjectPtr now = volumes.Claim(claim.object->namespace_name(), claim.object->name());
      if (!now) {
        return PluginStatus::Error("binding volumes: persistentvolumeclaim " + Quoted(claim.object->name()) +
                                   " not found");
      }
      const bool provisioned = std::find(data->chosen.provisions.begin(), data->chosen.provisions.end(), i) !=
                               data->chosen.provisions.end();
      if (!FullyBound(*now)) {
        if (provisioned && api::Annotation(*now, kSelectedNode).empty()) {
          return PluginStatus::Error("binding volumes: selectedNode annotation reset for PVC " +
                                     Quoted(claim.object->name()));
        }
        done = false;
        break;
      }
      VolumeEntryPtr pv = volumes.Volume(now->As<api::PersistentVolumeClaimView>()->volume_name);
      if (!pv || !pv->view->claim_ref || pv->view->claim_ref->name != claim.object->name() ||
          pv->view->claim_ref->ns != claim.object->namespace_name()) {
        done = false;
        break;
      }
    }
    if (done) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      return PluginStatus::Error("binding volumes: context deadline exceeded");
    }
    if (!volumes.WaitForChange(seen, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(1)))) {
      return PluginStatus::Error("binding volumes: the scheduler is stopping");
    }
  }
  // Bound as the API now says: the assumptions are no longer needed.
  for (const auto& [i, pv] : data->chosen.static_bindings) volumes.ForgetVolume(pv->object->name(), data->delayed[i].key);
  data->reserved = false;
  Count(cache_delete_);
  return {};
}

Result<std::shared_ptr<Plugin>> NewVolumeBinding(const json::object& args, const Handle& handle) {
  int64_t timeout = 600;
  for (const auto& [key, value] : args) {
    if (key == "bindTimeoutSeconds") {
      if (!value.is_int64() && !value.is_uint64()) {
        return Status::BadRequest("bindTimeoutSeconds: Invalid value: " + json::serialize(value) +
                                  ": must be an integer");
      }
      if (value.is_int64() && value.get_int64() < 0) {
        return Status::BadRequest("bindTimeoutSeconds: Invalid value: " + json::serialize(value) +
                                  ": invalid BindTimeoutSeconds, should not be a negative value");
      }
      // Go's time.Duration holds at most this many seconds.
      constexpr uint64_t kMaxSeconds = 9'223'372'036;
      if (value.is_uint64() ? value.get_uint64() > kMaxSeconds
                            : static_cast<uint64_t>(value.get_int64()) > kMaxSeconds) {
        return Status::BadRequest("bindTimeoutSeconds: Invalid value: " + json::serialize(value) + ": too large");
      }
      timeout = value.to_number<int64_t>();
    } else {
      return Status::BadRequest(std::string(key) + ": unknown field");
    }
  }
  return std::shared_ptr<Plugin>(std::make_shared<VolumeBinding>(handle, std::chrono::seconds(timeout)));
}

}  // namespace berth::scheduler
