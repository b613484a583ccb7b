#pragma once
// Permit plugins for the Permit tests: what a pod's label "permit" asks of
// them ("wait", "reject", "error"; anything else is allowed), with a
// Reserve that counts Unreserve calls.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/framework/config.h"
#include "scheduler/framework/registry.h"
#include "scheduler_test_util.h"

namespace berth::scheduler::testing {

struct PermitRecord {
  std::atomic<int> reserved{0};
  std::atomic<int> unreserved{0};
};

class LabelPermit final : public PermitPlugin, public ReservePlugin {
 public:
  LabelPermit(std::string name, std::chrono::milliseconds timeout,
              std::shared_ptr<PermitRecord> record)
      : name_(std::move(name)), timeout_(timeout), record_(std::move(record)) {}
  std::string_view Name() const override { return name_; }

  PluginStatus Reserve(CycleState&, const PodInfo&, const std::string&) const override {
    record_->reserved++;
    return {};
  }
  void Unreserve(CycleState&, const PodInfo&, const std::string&) const override {
    record_->unreserved++;
  }

  PermitDecision Permit(CycleState&, const PodInfo& pod, const std::string&) const override {
    const std::string_view asked = pod.labels().Get("permit").value_or("");
    if (asked == "wait") return {PluginStatus(Code::kWait, "wait"), timeout_};
    if (asked == "reject") return {PluginStatus::Unschedulable("rejected by " + name_), {}};
    if (asked == "error") return {PluginStatus::Error("boom"), {}};
    return {};
  }

 private:
  const std::string name_;
  const std::chrono::milliseconds timeout_;
  const std::shared_ptr<PermitRecord> record_;
};

// The in-tree registry plus one LabelPermit per (name, timeout).
inline Registry RegistryWithPermits(
    const std::vector<std::pair<std::string, std::chrono::milliseconds>>& plugins,
    const std::shared_ptr<PermitRecord>& record) {
  Registry r = InTreeRegistry();
  for (const auto& [name, timeout] : plugins) {
    r.Register(
        name,
        [name = name, timeout = timeout, record](const boost::json::object&,
                                                 const Handle&) -> Result<std::shared_ptr<Plugin>> {
          return std::shared_ptr<Plugin>(std::make_shared<LabelPermit>(name, timeout, record));
        });
  }
  return r;
}

// The default profile with `plugins` enabled at Reserve and Permit.
inline SchedulerConfig ConfigWithPermits(const std::vector<std::string>& plugins) {
  ProfileConfig profile;
  for (const auto& name : plugins) {
    profile.plugins.reserve.enabled.push_back({name});
    profile.plugins.permit.enabled.push_back({name});
  }
  SchedulerConfig config;
  config.profiles.push_back(profile);
  return config;
}

// A pod asking 100m cpu, labelled permit=<permit> (none when empty).
inline api::ObjectPtr PermitPod(const std::string& name, const std::string& permit = "") {
  const std::string labels = permit.empty() ? "{}" : R"({"permit":")" + permit + R"("})";
  auto o = api::Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
      R"(","namespace":"default","uid":"u-)" + name + R"(","labels":)" + labels +
      R"(},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"100m"}}}]}})");
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

}  // namespace berth::scheduler::testing
