// kube's ResourceQuota admission plugin: a create that would take a
// namespace's usage past a quota's hard limits is refused ("exceeded quota"),
// and one the quota admits is charged to status.used at once, so concurrent
// creates cannot overrun it between the quota controller's recounts.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "api/quota.h"
#include "apiserver/admission/plugins.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

std::string Pretty(const api::QuotaUsage& usage, const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    auto it = usage.find(name);
    if (!out.empty()) out += ",";
    out += name + "=" + api::QuotaQuantity(name, it == usage.end() ? 0 : it->second);
  }
  return out;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

class ResourceQuota final : public AdmissionPlugin {
 public:
  explicit ResourceQuota(store::Store& store) : store_(store) {}
  std::string_view Name() const override { return "ResourceQuota"; }

  Status Validate(const AdmissionAttributes& a) override {
    if (!a.subresource.empty() || !a.object || !a.kind.namespaced) return Status::Ok();
    const bool update = a.operation == AdmissionOperation::kUpdate;
    // kube charges creates, and of updates only those of Services (a type
    // changed to NodePort or LoadBalancer) and PersistentVolumeClaims (a
    // larger request): by what they add.
    const bool charged_on_update =
        a.kind.kind == api::Kind::kService || a.kind.kind == api::Kind::kPersistentVolumeClaim;
    if (update && (!a.old || !charged_on_update)) return Status::Ok();
    if (!update && a.operation != AdmissionOperation::kCreate) return Status::Ok();
    for (int attempt = 0; attempt < 8; ++attempt) {
      auto listed = store_.List({.prefix = api::StoragePrefix(api::Kind::kResourceQuota, a.ns)});
      if (!listed.ok() || listed->items.empty()) return Status::Ok();
      const api::QuotaUsage usage =
          update ? api::QuotaIncrease(api::UsageOf(a.kind.kind, *a.old), api::UsageOf(a.kind.kind, *a.object))
                 : api::UsageOf(a.kind.kind, *a.object);
      if (usage.empty()) return Status::Ok();
      struct Charge {
        api::ObjectPtr quota;
        api::QuotaUsage used;
        std::vector<std::string> names;
      };
      std::vector<Charge> charges;
      for (const auto& quota : listed->items) {
        const json::object& q = quota->json();
        if (!api::QuotaCovers(q, a.kind.kind, *a.object)) continue;
        const json::object* status = api::ObjectAt(q, "status");
        const json::object* spec_hard = api::ObjectAt(api::ObjectAt(q, "spec"), "hard");
        const api::QuotaUsage hard = api::ReadQuotaList(api::ObjectAt(status, "hard"));
        std::vector<std::string> names;  // what the quota limits that the object uses
        for (const auto& [name, amount] : usage) {
          if (spec_hard && spec_hard->contains(name)) names.push_back(name);
        }
        if (a.kind.kind == api::Kind::kPod && spec_hard) {
          if (auto missing = api::MissingPodResources(*a.object, *spec_hard); !missing.empty()) {
            return AdmissionForbidden(a, "failed quota: " + quota->name() + ": must specify " + Join(missing, "; "));
          }
        }
        if (names.empty()) continue;
        api::QuotaUsage used = api::ReadQuotaList(api::ObjectAt(status, "used"));
        std::vector<std::string> unknown, exceeded;
        for (const auto& name : names) {
          if (!used.contains(name) || !hard.contains(name)) unknown.push_back(name);
        }
        if (!unknown.empty()) {
          // The quota controller has not counted it yet.
          return AdmissionForbidden(a, "status unknown for quota: " + quota->name() + ", resources: " + Join(unknown, ","));
        }
        for (const auto& name : names) {
          if (used[name] + usage.at(name) > hard.at(name)) exceeded.push_back(name);
        }
        if (!exceeded.empty()) {
          return AdmissionForbidden(a, "exceeded quota: " + quota->name() + ", requested: " + Pretty(usage, exceeded) +
                                           ", used: " + Pretty(used, exceeded) + ", limited: " + Pretty(hard, exceeded));
        }
        for (const auto& name : names) used[name] += usage.at(name);
        charges.push_back({quota, std::move(used), std::move(names)});
      }
      if (a.dry_run || charges.empty()) return Status::Ok();
      // Charge every quota; a quota changed meanwhile is checked again.
      bool conflict = false;
      for (const auto& charge : charges) {
        auto next = charge.quota->Edit([&](json::object& o) {
          json::object& used = api::MutableObject(api::MutableObject(o, "status"), "used");
          for (const auto& name : charge.names) used[name] = api::QuotaQuantity(name, charge.used.at(name));
        });
        if (!next.ok()) return next.status();
        auto written = store_.Update(next.value(), charge.quota->resource_version());
        if (written.ok()) continue;
        if (written.status().code() != StatusCode::kConflict) return written.status();
        conflict = true;
        break;
      }
      if (!conflict) return Status::Ok();
    }
    return Status(StatusCode::kConflict, "Operation cannot be fulfilled on resourcequotas: too many concurrent "
                                         "changes to the namespace's quotas, please try again");
  }

 private:
  store::Store& store_;
};

}  // namespace

std::unique_ptr<AdmissionPlugin> NewResourceQuota(const AdmissionPluginContext& context) {
  return std::make_unique<ResourceQuota>(context.store);
}

}  // namespace berth::apiserver
