// Writes over HTTP whose answers wait for durability without holding a thread
// (Request::may_defer → Response::when_ready): creates and pod bindings.

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "apiserver/api_server.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

class DeferredWriteTest : public ::testing::Test {
 protected:
  void Open(bool durable) {
    store::MemoryStore::Options options;
    options.inject_fault = [this](std::string_view call) {
      return call == "fdatasync" ? fsync_error_.load() : 0;
    };
    if (durable) {
      char pattern[] = "/tmp/berth-deferred-XXXXXX";
      ASSERT_NE(::mkdtemp(pattern), nullptr);
      dir_ = pattern;
      options.data_dir = dir_;
    }
    store_ = std::move(store::MemoryStore::Open(options)).value();
    // No serviceaccount controller runs: without ServiceAccount admission, as
    // kube's integration tests run kube-apiserver.
    api_ = std::make_unique<ApiServer>(*store_, ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
    ASSERT_TRUE(api_->Bootstrap().ok());
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  Response Post(const std::string& path, const std::string& body, bool may_defer) {
    Request r;
    r.method = "POST";
    r.path = path;
    r.body = body;
    r.content_type = "application/json";
    r.accept = "application/json";
    r.may_defer = may_defer;
    return api_->Handle(r);
  }

  // Calls the response's when_ready and waits (bounded) for it to call back.
  static bool WaitReady(Response& response) {
    auto ready = std::make_shared<std::atomic<bool>>(false);
    response.when_ready([ready] { ready->store(true); });
    for (int i = 0; i < 5000 && !ready->load(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return ready->load();
  }

  std::string NodeNameOf(const std::string& pod) {
    auto got = store_->Get(api::StorageKey(api::Kind::kPod, "default", pod));
    return got.ok() ? got.value()->FieldValue("spec.nodeName") : "<missing>";
  }

  static constexpr const char* kPods = "/api/v1/namespaces/default/pods";
  static std::string Pod(const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
           R"("},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
  }
  static std::string Binding(const std::string& name, const std::string& node) {
    return R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + name +
           R"("},"target":{"apiVersion":"v1","kind":"Node","name":")" + node + R"("}})";
  }

  std::string dir_;
  std::atomic<int> fsync_error_{0};  // injected into the log's fdatasyncs
  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<ApiServer> api_;
};

TEST_F(DeferredWriteTest, DurableCreatesAndBindingsAnswerOnceVisible) {
  Open(/*durable=*/true);
  Response created = Post(kPods, Pod("a"), /*may_defer=*/true);
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_TRUE(created.when_ready);
  ASSERT_TRUE(WaitReady(created));
  EXPECT_EQ(NodeNameOf("a"), "");  // visible once ready
  ASSERT_TRUE(created.finalize);   // the answer is made once the write is
  created.finalize(created);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_NE(created.body.find(R"("resourceVersion":")"), std::string::npos) << created.body;

  Response bound = Post(std::string(kPods) + "/a/binding", Binding("a", "n1"), true);
  ASSERT_EQ(bound.status, 201) << bound.body;
  EXPECT_EQ(json::parse(bound.body).as_object()["status"], "Success");
  ASSERT_TRUE(bound.when_ready);
  ASSERT_TRUE(WaitReady(bound));
  EXPECT_EQ(NodeNameOf("a"), "n1");

  // A binding that fails wrote nothing and has nothing to wait for.
  Response again = Post(std::string(kPods) + "/a/binding", Binding("a", "n2"), true);
  EXPECT_EQ(again.status, 409);
  EXPECT_FALSE(again.when_ready);
  EXPECT_EQ(NodeNameOf("a"), "n1");
}

TEST_F(DeferredWriteTest, AFailedFsyncAnswersTheHeldWriteWithTheErrorAndReadyzFails) {
  Open(/*durable=*/true);
  ASSERT_EQ(Post(kPods, Pod("before"), /*may_defer=*/false).status, 201);  // durable
  fsync_error_ = EIO;
  Response created = Post(kPods, Pod("a"), /*may_defer=*/true);
  ASSERT_EQ(created.status, 201) << created.body;  // ordered and logged, not yet durable
  ASSERT_TRUE(created.when_ready);
  ASSERT_TRUE(WaitReady(created));
  // What the HTTP server does before sending the held answer.
  ASSERT_TRUE(created.finalize);
  created.finalize(created);
  EXPECT_EQ(created.status, 500);
  EXPECT_NE(created.body.find("fdatasync"), std::string::npos) << created.body;
  EXPECT_NE(created.body.find("InternalError"), std::string::npos) << created.body;

  Response refused = Post(kPods, Pod("b"), /*may_defer=*/false);
  EXPECT_EQ(refused.status, 500);
  EXPECT_NE(refused.body.find("until it is restarted"), std::string::npos) << refused.body;
  Request readyz;
  readyz.method = "GET";
  readyz.path = "/readyz";
  Response ready = api_->Handle(readyz);
  EXPECT_EQ(ready.status, 500);
  EXPECT_NE(ready.body.find("fdatasync"), std::string::npos) << ready.body;
  Request healthz = readyz;
  healthz.path = "/healthz";
  EXPECT_EQ(api_->Handle(healthz).status, 200);  // alive: reads go on
  EXPECT_EQ(NodeNameOf("before"), "");
  EXPECT_EQ(NodeNameOf("a"), "<missing>");
}

TEST_F(DeferredWriteTest, WithoutMayDeferOrWithoutALogNothingIsHeld) {
  Open(/*durable=*/true);
  ASSERT_EQ(Post(kPods, Pod("a"), false).status, 201);
  Response bound = Post(std::string(kPods) + "/a/binding", Binding("a", "n1"), false);
  ASSERT_EQ(bound.status, 201) << bound.body;
  EXPECT_FALSE(bound.when_ready);
  EXPECT_EQ(NodeNameOf("a"), "n1");  // waited for in the call
  TearDown();
  dir_.clear();

  Open(/*durable=*/false);
  // A create is written when its when_ready is called (Store::CreateAsync);
  // in memory it is visible at once, so it calls back within the call.
  Response created = Post(kPods, Pod("b"), true);
  ASSERT_TRUE(created.when_ready);
  bool called = false;
  created.when_ready([&] { called = true; });
  EXPECT_TRUE(called);
  ASSERT_TRUE(created.finalize);
  created.finalize(created);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_NE(created.body.find(R"("name":"b")"), std::string::npos) << created.body;
  Response b = Post(std::string(kPods) + "/b/binding", Binding("b", "n1"), true);
  ASSERT_EQ(b.status, 201);
  EXPECT_FALSE(b.when_ready);
  EXPECT_EQ(NodeNameOf("b"), "n1");
}

}  // namespace
}  // namespace berth::apiserver
