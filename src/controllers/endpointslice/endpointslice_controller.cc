#include "controllers/endpointslice/endpointslice_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/json_fields.h"
#include "controllers/endpointslice/slice_plan.h"
#include "controllers/owner_references.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr char kSliceServiceIndex[] = "endpointslice-controller/service";
// kube's endpointSliceChangeMinSyncDelay: how long after someone else's
// change to a slice its Service is synced.
constexpr std::chrono::milliseconds kSliceChangeDelay{1000};

// "namespace/service" of a slice this controller manages; "" for others.
std::string ManagedSliceService(const api::Object& slice) {
  auto managed = slice.labels().Get(kManagedByLabel);
  auto service = slice.labels().Get(kServiceNameLabel);
  if (!managed || *managed != kEndpointSliceControllerName || !service || service->empty())
    return {};
  return client::ObjectKey(slice.namespace_name(), *service);
}

// kube's addTriggerTimeAnnotation: set to the sync's trigger time, or removed.
void SetTriggerTime(json::object& slice, const std::string& trigger_time) {
  json::object& meta = api::MutableObject(slice, "metadata");
  json::object& annotations = api::MutableObject(meta, "annotations");
  if (trigger_time.empty()) {
    annotations.erase(kLastChangeTriggerTimeAnnotation);
  } else {
    annotations[kLastChangeTriggerTimeAnnotation] = trigger_time;
  }
  if (annotations.empty()) meta.erase("annotations");
}

}  // namespace

EndpointSliceController::EndpointSliceController(const ControllerContext& context,
                                                 EndpointSliceOptions options)
    : ServiceEndpointsController("endpointslice", context, options.workers, options.batch_period),
      options_(options),
      nodes_(context.informers.For(api::Kind::kNode)),
      slices_(context.informers.For(api::Kind::kEndpointSlice)),
      events_(context.events, {"endpoint-slice-controller", ""}) {
  slices_.AddIndex(kSliceServiceIndex, [](const api::Object& slice) {
    std::string key = ManagedSliceService(slice);
    return key.empty() ? std::vector<std::string>() : std::vector<std::string>{key};
  });
  nodes_.AddHandlers({[this](const api::ObjectPtr& n) { NodeChanged(n, false); },
                      [this](const api::ObjectPtr& n) { NodeChanged(n, false); },
                      [this](const api::ObjectPtr& n) { NodeChanged(n, true); }});
  slices_.AddHandlers({[this](const api::ObjectPtr& s) { SliceChanged(s, false); },
                       [this](const api::ObjectPtr& s) { SliceChanged(s, false); },
                       [this](const api::ObjectPtr& s) { SliceChanged(s, true); }});
}

void EndpointSliceController::SliceChanged(const api::ObjectPtr& slice, bool deleted) {
  std::string key = ManagedSliceService(*slice);
  if (key.empty() || !tracker_.ShouldSync(key, *slice, deleted)) return;
  EnqueueAfter(key, std::max(kSliceChangeDelay, options_.batch_period));
}

void EndpointSliceController::NodeChanged(const api::ObjectPtr& node, bool deleted) {
  std::string zone(node->labels().Get("topology.kubernetes.io/zone").value_or(""));
  {
    std::lock_guard lock(zones_mu_);
    auto it = zones_.find(node->name());
    const bool known = it != zones_.end();
    if (deleted) {
      if (known) zones_.erase(it);
    } else {
      if (known && it->second == zone) return;
      zones_[node->name()] = zone;
    }
  }
  // The node's zone (or its existence) changed: its pods' endpoints did.
  std::vector<std::string> keys;
  for (const auto& pod : pods_.ByIndex(client::kNodeNameIndex, node->name())) {
    for (auto& key : memberships_.Matching(*pod)) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
    }
  }
  EnqueueServices(keys);
}

Status EndpointSliceController::Reconcile(const std::string& key) {
  api::ObjectPtr service = services_.Get(key);
  if (!service) {
    trigger_times_.Forget(key);
    tracker_.Forget(key);
    return DeleteOrphanedSlices(key);
  }
  if (!ManagesEndpoints(*service)) return Status::Ok();
  const std::vector<api::ObjectPtr> pods = SelectedPods(*service);

  std::vector<api::ObjectPtr> cached = slices_.ByIndex(kSliceServiceIndex, key);
  if (tracker_.Stale(key, cached)) {
    return Status(StatusCode::kConflict, "EndpointSlice informer cache is out of date");
  }
  std::vector<api::ObjectPtr> existing;
  for (auto& slice : cached) {
    if (!api::BeingDeleted(*slice)) existing.push_back(std::move(slice));
  }
  const std::string trigger_time = trigger_times_.Compute(*service, pods);

  const bool publish_not_ready = api::BoolAt(api::Spec(*service), "publishNotReadyAddresses");
  std::string node_errors;
  DesiredSlices desired;
  for (const auto& address_type : AddressTypesOf(*service)) {
    auto& groups = desired[address_type];
    for (const auto& pod : pods) {
      if (!ShouldPodBeInEndpoints(*pod, true)) continue;
      json::array ports = EndpointPorts(*service, *pod);
      std::string ports_key = PortsKey(&ports);
      auto [group, added] = groups.try_emplace(ports_key);
      if (added) group->second.ports = std::move(ports);
      std::string_view node_name = api::StringAt(api::Spec(*pod), "nodeName");
      api::ObjectPtr node = node_name.empty() ? nullptr : nodes_.Get(std::string(node_name));
      if (!node && !publish_not_ready) {
        if (!node_errors.empty()) node_errors += ", ";
        node_errors += "skipping Pod " + pod->name() + " for Service " + key + ": Node " +
                       std::string(node_name) + " Not Found";
        continue;
      }
      json::object endpoint = PodToEndpoint(*pod, node.get(), *service, address_type);
      if (api::ArrayAt(endpoint, "addresses")->empty()) continue;
      std::string id = EndpointIdentity(endpoint);
      group->second.endpoints[std::move(id)] = std::move(endpoint);
    }
  }
  SlicePlan plan = PlanSlices(*service, std::move(desired), existing,
                              static_cast<size_t>(std::max(1, options_.max_endpoints_per_slice)));
  Status applied = Apply(*service, key, std::move(plan), trigger_time);
  Status result = !applied.ok()         ? applied
                  : node_errors.empty() ? Status::Ok()
                                        : Status(StatusCode::kUnavailable, node_errors);
  if (!result.ok() && result.code() != StatusCode::kConflict) {
    events_.Event(*service, "Warning", "FailedToUpdateEndpointSlices",
                  "Error updating Endpoint Slices for Service " + key + ": " + result.message());
  }
  return result;
}

Status EndpointSliceController::DeleteOrphanedSlices(const std::string& key) {
  for (const auto& slice : slices_.ByIndex(kSliceServiceIndex, key)) {
    if (api::BeingDeleted(*slice)) continue;
    std::string_view owner_uid = ControllerUid(*slice, "Service");
    if (owner_uid.empty()) continue;
    // The cache may lag a Service created again under the name: ask the API.
    const std::string service_name(slice->labels().Get(kServiceNameLabel).value_or(""));
    auto live = client_.Get(api::Kind::kService, slice->namespace_name(), service_name);
    if (live.ok() && live.value()->uid() == owner_uid) continue;
    if (!live.ok() && live.status().code() != StatusCode::kNotFound) return live.status();
    Status s = client_.Delete(api::Kind::kEndpointSlice, slice->namespace_name(), slice->name(),
                              {.uid_precondition = slice->uid()});
    if (!s.ok() && s.code() != StatusCode::kNotFound && s.code() != StatusCode::kConflict) return s;
  }
  return Status::Ok();
}

Status EndpointSliceController::Apply(const api::Object& service, const std::string& key,
                                      SlicePlan plan, const std::string& trigger_time) {
  if (!api::BeingDeleted(service)) {
    for (auto& slice : plan.create) {
      SetTriggerTime(slice, trigger_time);
      auto created =
          client_.Create(api::Kind::kEndpointSlice, service.namespace_name(), std::move(slice));
      if (!created.ok()) {
        if (NamespaceTerminating(created.status())) return Status::Ok();
        return Status(created.status().code(), "failed to create EndpointSlice for Service " + key +
                                                   ": " + created.status().message());
      }
      tracker_.Wrote(key, *created.value());
    }
  }
  for (auto& slice : plan.update) {
    SetTriggerTime(slice, trigger_time);
    auto updated = client_.Update(api::Kind::kEndpointSlice, slice);
    if (!updated.ok()) {
      return Status(updated.status().code(),
                    "failed to update " +
                        std::string(api::StringAt(api::ObjectAt(slice, "metadata"), "name")) +
                        " EndpointSlice for Service " + key + ": " + updated.status().message());
    }
    tracker_.Wrote(key, *updated.value());
  }
  for (const auto& slice : plan.remove) {
    Status s = client_.Delete(api::Kind::kEndpointSlice, slice->namespace_name(), slice->name(),
                              {.uid_precondition = slice->uid()});
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      return Status(s.code(), "failed to delete " + slice->name() + " EndpointSlice for Service " +
                                  key + ": " + s.message());
    }
    if (s.ok()) tracker_.Deleted(key, *slice);
  }
  return Status::Ok();
}

}  // namespace berth::controllers
