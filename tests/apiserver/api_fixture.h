#pragma once
// An ApiServer over an in-memory store, bootstrapped, and a Call that sends
// it one request as the HTTP server would (no sockets): the fixture the
// API server's tests share.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "apiserver/api_server.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver::testing {

class ApiFixture : public ::testing::Test {
 protected:
  explicit ApiFixture(uint64_t seed = 42) : seed_(seed) {}

  void SetUp() override {
    store_ = std::move(store::MemoryStore::Open({})).value();
    ApiServer::Options options;
    options.seed = seed_;
    // As kube's integration tests run kube-apiserver: no serviceaccount
    // controller creates the accounts ServiceAccount admission requires.
    options.admission.disable = {"ServiceAccount"};
    Configure(options);
    api_ = std::make_unique<ApiServer>(*store_, options);
    ASSERT_TRUE(api_->Bootstrap().ok());
  }

  // Options of the server under test, changed by fixtures that need to.
  virtual void Configure(ApiServer::Options&) {}

  Response Call(const std::string& method, const std::string& target, const std::string& body = "",
                const std::string& content_type = "application/json",
                const std::string& accept = "application/json") {
    Request r;
    r.method = method;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = ParseQuery(target.substr(q + 1));
    r.body = body;
    r.content_type = content_type;
    r.accept = accept;
    return api_->Handle(r);
  }

  const uint64_t seed_;
  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<ApiServer> api_;
};

}  // namespace berth::apiserver::testing
