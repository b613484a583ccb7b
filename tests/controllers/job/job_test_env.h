#pragma once
// The fixture the Job and TTL-after-finished controller tests share: a real
// API server in process, informers over its store, a fake clock whose wall
// time starts on a whole second (timestamps in objects have whole seconds),
// helpers that play the kubelet's part by writing pod status, and a Job's
// JSON.

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "api/json_fields.h"
#include "api/time/clock.h"
#include "api/time/rfc3339.h"
#include "client/event_recorder.h"
#include "controllers/controller.h"
#include "in_process_api.h"

namespace berth::controllers {

// A Job named `name` with `spec_fields` (JSON members, may be empty) and a
// one-container template labelled app=x.
inline std::string JobJson(const std::string& name, const std::string& spec_fields,
                           const std::string& restart_policy = "Never") {
  return R"({"metadata":{"name":")" + name + R"("},"spec":{)" + spec_fields +
         (spec_fields.empty() ? "" : ",") + R"("template":{"metadata":{"labels":{"app":"x"}},
          "spec":{"restartPolicy":")" +
         restart_policy + R"(","containers":[{"name":"c","image":"i"}]}}}})";
}

// Whether the pod holds the Job controller's tracking finalizer.
inline bool HasFinalizer(const api::Object& pod) {
  const auto* f = api::ArrayAt(api::Metadata(pod), "finalizers");
  return f && std::find(f->begin(), f->end(),
                        boost::json::value("batch.kubernetes.io/job-tracking")) != f->end();
}

class JobEnv : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    events_ = std::make_unique<client::EventBroadcaster>(*client_);
  }
  // Informers first: their threads call the controllers' handlers.
  void TearDown() override { informers_->Stop(); }

  ControllerContext Context() { return {*client_, *informers_, nullptr, events_.get(), &clock_}; }

  api::ObjectPtr CreateJob(const std::string& json_text) {
    auto created =
        client_->Create(api::Kind::kJob, "default", boost::json::parse(json_text).as_object());
    EXPECT_TRUE(created.ok()) << created.status().message();
    return created.ok() ? created.value() : nullptr;
  }
  api::ObjectPtr GetJob(const std::string& name) {
    auto job = client_->Get(api::Kind::kJob, "default", name);
    return job.ok() ? job.value() : nullptr;
  }
  const boost::json::object& JobStatus(const std::string& name) {
    last_job_ = GetJob(name);
    static const boost::json::object kEmpty;
    const auto* status = last_job_ ? api::StatusOf(*last_job_) : nullptr;
    return status ? *status : kEmpty;
  }
  // Pods of the namespace, sorted by name.
  std::vector<api::ObjectPtr> Pods() {
    auto pods = client_->List(api::Kind::kPod, "default").value();
    std::sort(pods.begin(), pods.end(),
              [](const auto& a, const auto& b) { return a->name() < b->name(); });
    return pods;
  }
  std::vector<api::ObjectPtr> ActivePods() {
    std::vector<api::ObjectPtr> out;
    for (const auto& p : Pods()) {
      auto phase = api::StringAt(api::StatusOf(*p), "phase");
      if (phase != "Succeeded" && phase != "Failed" && !api::BeingDeleted(*p)) out.push_back(p);
    }
    return out;
  }

  // Waits until the informers hold exactly what the API server has (same
  // objects, same versions) for Jobs and Pods.
  void Settle() {
    for (int i = 0; i < 5000; ++i) {
      if (Matches(api::Kind::kJob) && Matches(api::Kind::kPod)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    FAIL() << "informers did not catch up";
  }
  // Settles, then reconciles `key` once and expects success.
  void Reconcile(Controller& c, const std::string& key) {
    Settle();
    Status s = c.ReconcileForTest(key);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  // Plays the kubelet: the pod finishes in `phase` with its container `c`
  // terminated with `exit_code` now, and `conditions` added.
  void FinishPod(const api::ObjectPtr& pod, const std::string& phase, int exit_code = 0,
                 boost::json::array conditions = {}) {
    auto fresh = client_->Get(api::Kind::kPod, "default", pod->name());
    ASSERT_TRUE(fresh.ok());
    boost::json::object o = fresh.value()->json();
    api::MutableObject(o, "metadata")["resourceVersion"] =
        std::to_string(fresh.value()->resource_version());
    const std::string now = api::FormatRfc3339(clock_.WallNow());
    boost::json::object& status = api::MutableObject(o, "status");
    status["phase"] = phase;
    status["containerStatuses"] = boost::json::array{boost::json::object{
        {"name", "c"},
        {"ready", false},
        {"restartCount", 0},
        {"image", "i"},
        {"imageID", ""},
        {"state",
         boost::json::object{
             {"terminated", boost::json::object{{"exitCode", exit_code},
                                                {"reason", exit_code ? "Error" : "Completed"},
                                                {"finishedAt", now}}}}}}};
    if (!conditions.empty()) status["conditions"] = std::move(conditions);
    auto written = client_->UpdateStatus(api::Kind::kPod, o);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }

  // Sets `field` of the Job's spec (e.g. "suspend") to `value`.
  void SetSpec(const std::string& name, const std::string& field, boost::json::value value) {
    auto job = GetJob(name);
    ASSERT_TRUE(job);
    boost::json::object o = job->json();
    api::MutableObject(o, "metadata")["resourceVersion"] = std::to_string(job->resource_version());
    api::MutableObject(o, "spec")[field] = std::move(value);
    auto written = client_->Update(api::Kind::kJob, o);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }

  // "<type> <reason>: <message>" of every Event about `name`, sorted, as many
  // times as it happened (the recorder folds repeats into one Event's count).
  std::vector<std::string> EventsAbout(const std::string& name) {
    events_->Flush();
    std::vector<std::string> out;
    auto listed = client_->List(api::Kind::kEvent, "default");
    EXPECT_TRUE(listed.ok());
    if (!listed.ok()) return out;
    for (const auto& e : listed.value()) {
      const boost::json::object& o = e->json();
      if (o.at("involvedObject").at("name") != boost::json::value(name)) continue;
      const std::string text = std::string(o.at("type").as_string()) + " " +
                               std::string(o.at("reason").as_string()) + ": " +
                               std::string(o.at("message").as_string());
      const int64_t count = std::max<int64_t>(1, api::IntAt(&o, "count", 1));
      for (int64_t i = 0; i < count; ++i) out.push_back(text);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The condition of `type` of the Job's status as "status reason: message"; "" when absent.
  static std::string ConditionOf(const boost::json::object& status, std::string_view type) {
    const boost::json::array* conditions = api::ArrayAt(status, "conditions");
    if (!conditions) return "";
    for (const auto& c : *conditions) {
      const auto& o = c.as_object();
      if (api::StringAt(o, "type") != type) continue;
      return std::string(api::StringAt(o, "status")) + " " +
             std::string(api::StringAt(o, "reason")) + ": " +
             std::string(api::StringAt(o, "message"));
    }
    return "";
  }

  api::FakeClock clock_{api::Clock::time_point(std::chrono::hours(1)),
                        std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())};
  std::unique_ptr<client::EventBroadcaster> events_;
  api::ObjectPtr last_job_;

 private:
  bool Matches(api::Kind kind) {
    auto listed = client_->List(kind, "default");
    if (!listed.ok()) return false;
    auto& informer = informers_->For(kind);
    if (informer.Size() != listed.value().size()) return false;
    for (const auto& o : listed.value()) {
      auto cached = informer.Get(client::ObjectKey(*o));
      if (!cached || cached->resource_version() != o->resource_version()) return false;
    }
    return true;
  }
};

}  // namespace berth::controllers
