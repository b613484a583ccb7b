#pragma once
// The fixture controller tests share: a real API server over an in-memory
// store, a RestClient through the server's own handler (every API rule
// applies), and informers over the store. Derived fixtures call
// InProcessApiTest::SetUp() first, start the informers once their
// controllers have asked for kinds, and stop them in TearDown.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "apiserver/api_server.h"
#include "client/informer_factory.h"
#include "client/rest_client.h"
#include "client/store_informer.h"
#include "cluster/in_process_transport.h"
#include "store/memory/memory_store.h"

namespace berth::controllers {

class InProcessApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::MemoryStore::Open({}).value();
    // No serviceaccount controller runs: without ServiceAccount admission, as
    // kube's integration tests run kube-apiserver.
    api_ = std::make_unique<apiserver::ApiServer>(*store_, apiserver::ApiServer::Options{.admission = {.disable = {"ServiceAccount"}}});
    ASSERT_TRUE(api_->Bootstrap().ok());
    client_ = std::make_unique<client::RestClient>(cluster::InProcessTransport(*api_));
    informers_ = std::make_unique<client::InformerFactory>([this](api::Kind kind, client::InformerHandlers h) {
      return std::make_unique<client::StoreInformer>(*store_, kind, std::move(h));
    });
  }

  // Polls (for at most 5 s) until `done` holds; false when it never did.
  static bool Eventually(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  }

  std::unique_ptr<store::MemoryStore> store_;
  std::unique_ptr<apiserver::ApiServer> api_;
  std::unique_ptr<client::RestClient> client_;
  std::unique_ptr<client::InformerFactory> informers_;
};

}  // namespace berth::controllers
