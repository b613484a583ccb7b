#pragma once
// A scheduler wired to an in-memory fake API for tests: bindings are recorded
// and fed back as the informer would (the bound pod as an update).

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "scheduler/framework/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler_test_util.h"

namespace berth::scheduler::testing {

class FakeCluster : public SchedulerClient {
 public:
  explicit FakeCluster(SchedulerOptions options = {}, SchedulerConfig config = {},
                       const Registry& registry = InTreeRegistry()) {
    auto s = Scheduler::Create(config, registry, options, this);
    EXPECT_TRUE(s.ok()) << s.status().message();
    scheduler = std::move(s).value();
  }
  ~FakeCluster() override { scheduler->Stop(); }

  Status BindPod(const api::Object& pod, const std::string& node) override {
    {
      std::lock_guard lock(mu);
      binds[PodKey(pod)].push_back(node);
    }
    auto bound = pod.Edit([&](boost::json::object& o) { o["spec"].as_object()["nodeName"] = node; });
    if (!bound.ok()) return bound.status();
    scheduler->OnPodUpdate(bound.value());
    return Status::Ok();
  }
  Status ReportFailure(const api::Object& pod, std::string_view reason, const std::string& message,
                       const std::optional<std::string>& nominated_node) override {
    std::lock_guard lock(mu);
    failures[PodKey(pod)] = std::string(reason) + ": " + message;
    if (nominated_node) nominations[PodKey(pod)] = *nominated_node;
    return Status::Ok();
  }
  void ReportScheduled(const api::Object& pod, const std::string& node) override {
    std::lock_guard lock(mu);
    scheduled_reports[PodKey(pod)].push_back(node);
  }
  // Eviction as an API server with no kubelet does it: the pod is gone at
  // once; with hold_evictions, when the test calls DeliverEvictions.
  Status PreemptPod(const api::Object& victim, const api::Object& preemptor, const std::string& node) override {
    auto gone = victim.Edit([](boost::json::object&) {});  // an ObjectPtr of the same pod
    if (!gone.ok()) return gone.status();
    {
      std::lock_guard lock(mu);
      preempted.push_back(PodKey(victim) + " for " + PodKey(preemptor) + " on " + node);
      if (hold_evictions) {
        held_evictions.push_back(gone.value());
        return Status::Ok();
      }
    }
    scheduler->OnPodDelete(gone.value());
    return Status::Ok();
  }
  void DeliverEvictions() {
    std::vector<api::ObjectPtr> victims;
    {
      std::lock_guard lock(mu);
      victims.swap(held_evictions);
    }
    for (const auto& v : victims) scheduler->OnPodDelete(v);
  }
  Status SetNominatedNodeName(const api::Object& pod, const std::string& node) override {
    std::lock_guard lock(mu);
    nominations[PodKey(pod)] = node;
    return Status::Ok();
  }

  std::map<std::string, std::string> Placements() {
    std::lock_guard lock(mu);
    std::map<std::string, std::string> out;
    for (const auto& [pod, nodes] : binds) out[pod] = nodes.back();
    return out;
  }
  std::string FailureOf(const std::string& key) {
    std::lock_guard lock(mu);
    auto it = failures.find(key);
    return it == failures.end() ? "" : it->second;
  }
  bool WaitIdle() {
    return scheduler->WaitForIdle(std::chrono::steady_clock::now() + std::chrono::seconds(30));
  }

  std::unique_ptr<Scheduler> scheduler;
  std::mutex mu;
  std::map<std::string, std::vector<std::string>> binds;  // guarded by mu
  std::map<std::string, std::string> failures;            // guarded by mu
  std::map<std::string, std::vector<std::string>> scheduled_reports;  // guarded by mu
  std::vector<std::string> preempted;                                 // guarded by mu
  std::map<std::string, std::string> nominations;                     // guarded by mu
  bool hold_evictions = false;                                        // guarded by mu
  std::vector<api::ObjectPtr> held_evictions;                         // guarded by mu
};

}  // namespace berth::scheduler::testing
