#pragma once
// What the EndpointSlice and Endpoints controller tests share: a real API
// server in process (InProcessApiTest), helpers that create nodes, pods (their
// status written through the client, as a kubelet would) and Services, and
// waits for the informers to catch up before a reconcile.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "api/json_fields.h"
#include "client/event_recorder.h"
#include "controllers/controller.h"
#include "in_process_api.h"

namespace berth::controllers {

class EndpointTestEnv : public InProcessApiTest {
 protected:
  using Object = boost::json::object;

  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    events_ = std::make_unique<client::EventBroadcaster>(*client_);
  }
  // Informers first: their threads call the controllers' handlers.
  void TearDown() override {
    informers_->Stop();
    for (auto& c : controllers_) c->Stop();
  }
  ControllerContext Context() { return {*client_, *informers_, nullptr, events_.get()}; }
  template <typename C, typename... Args>
  C& Make(Args&&... args) {
    auto c = std::make_unique<C>(std::forward<Args>(args)...);
    C& ref = *c;
    controllers_.push_back(std::move(c));
    return ref;
  }

  // Waits until the informer of `kind` holds `key` at `version` or later
  // (version 0: until it no longer holds `key`).
  void WaitCached(api::Kind kind, const std::string& key, int64_t version) {
    auto caught_up = [&] {
      auto cached = informers_->For(kind).Get(key);
      return version == 0 ? cached == nullptr : cached && cached->resource_version() >= version;
    };
    for (int i = 0; i < 5000 && !caught_up(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(caught_up()) << key;
  }
  void WaitCached(const api::ObjectPtr& o) {
    WaitCached(o->kind(), client::ObjectKey(*o), o->resource_version());
  }

  api::ObjectPtr MustCreate(api::Kind kind, const std::string& ns, Object o) {
    auto created = client_->Create(kind, ns, std::move(o));
    EXPECT_TRUE(created.ok()) << created.status().message();
    if (!created.ok()) return nullptr;
    WaitCached(created.value());
    return created.value();
  }

  api::ObjectPtr CreateNode(const std::string& name, const std::string& zone) {
    Object labels{{"kubernetes.io/hostname", name}};
    if (!zone.empty()) labels["topology.kubernetes.io/zone"] = zone;
    return MustCreate(api::Kind::kNode, "",
                      Object{{"apiVersion", "v1"},
                             {"kind", "Node"},
                             {"metadata", Object{{"name", name}, {"labels", labels}}}});
  }

  struct PodSpec {
    std::string name;
    std::string ip;  // "": no IP yet
    bool ready = true;
    std::string node = "node-a";
    Object labels{{"app", "web"}};
    boost::json::array ports;  // container ports
    Object spec_extra;         // e.g. hostname, subdomain
    bool held = false;         // a finalizer keeps it after deletion (terminating)
  };

  api::ObjectPtr CreatePod(const PodSpec& p) {
    Object container{{"name", "c"}, {"image", "i"}};
    if (!p.ports.empty()) container["ports"] = p.ports;
    Object spec{{"containers", boost::json::array{container}}};
    if (!p.node.empty()) spec["nodeName"] = p.node;
    for (const auto& [k, v] : p.spec_extra) spec[k] = v;
    Object meta{{"name", p.name}, {"labels", p.labels}};
    if (p.held) meta["finalizers"] = boost::json::array{"example.com/hold"};
    auto pod = MustCreate(
        api::Kind::kPod, "default",
        Object{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", spec}});
    if (!pod || p.ip.empty()) return pod;
    return SetPodStatus(p.name, p.ip, p.ready, "2026-01-01T00:00:00Z");
  }

  api::ObjectPtr SetPodStatus(const std::string& name, const std::string& ip, bool ready,
                              const std::string& transition) {
    auto pod = client_->Get(api::Kind::kPod, "default", name).value();
    Object next = pod->json();
    Object status{{"phase", "Running"},
                  {"podIP", ip},
                  {"podIPs", boost::json::array{Object{{"ip", ip}}}},
                  {"conditions", boost::json::array{Object{{"type", "Ready"},
                                                           {"status", ready ? "True" : "False"},
                                                           {"lastTransitionTime", transition}}}}};
    next["status"] = status;
    auto written = client_->UpdateStatus(api::Kind::kPod, next);
    EXPECT_TRUE(written.ok()) << written.status().message();
    if (!written.ok()) return nullptr;
    WaitCached(written.value());
    return written.value();
  }

  // Deletes a held pod: it stays, terminating.
  void Terminate(const std::string& name) {
    ASSERT_TRUE(client_->Delete(api::Kind::kPod, "default", name).ok());
    auto pod = client_->Get(api::Kind::kPod, "default", name);
    ASSERT_TRUE(pod.ok());
    ASSERT_TRUE(api::BeingDeleted(*pod.value()));
    WaitCached(pod.value());
  }

  api::ObjectPtr CreateService(const std::string& json_text) {
    return MustCreate(api::Kind::kService, "default", boost::json::parse(json_text).as_object());
  }

  // Reconciles `key`, retrying while the controller finds its cache behind
  // its own writes (Conflict), as its queue would.
  Status Reconcile(Controller& c, const std::string& key) {
    Status s;
    for (int i = 0; i < 2000; ++i) {
      s = c.ReconcileForTest(key);
      if (s.code() != StatusCode::kConflict) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return s;
  }

  std::unique_ptr<client::EventBroadcaster> events_;
  std::vector<std::unique_ptr<Controller>> controllers_;
};

}  // namespace berth::controllers
