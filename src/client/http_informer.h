#pragma once
// An informer over the Kubernetes HTTP API: LIST a resource, then WATCH from
// the list's resourceVersion (with bookmarks); on 410 Gone, an ERROR event or
// a dropped connection it lists again and delivers the difference, so a lost
// watch never loses an event. Runs on its own thread after Start.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "client/http_client.h"
#include "client/informer_cache.h"

namespace berth::client {

class HttpInformer final : public InformerSource {
 public:
  // `collection`: the list path, e.g. "/api/v1/pods".
  HttpInformer(HttpClient& client, std::string collection, InformerHandlers handlers);
  ~HttpInformer() override;
  // The first list (handlers run on the caller's thread), then the watch thread.
  Status Start() override;
  void Stop() override;

 private:
  Status List();
  void Run();

  HttpClient& client_;
  std::string collection_;
  InformerCache cache_;
  std::string resource_version_;
  std::atomic<bool> stop_{false};
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  bool done_ = false;  // guarded by done_mu_: the watch thread has returned
  std::thread thread_;
};

}  // namespace berth::client
