#pragma once
// An informer over a store: lists one kind, delivers every object as an add,
// then follows a watch from the list's revision, delivering adds, updates and
// deletes in revision order on its own thread. A watch that expires (the
// informer fell behind the history window) is resumed by listing again; the
// difference is delivered as adds/updates/deletes, so handlers see a
// consistent stream. What `berth serve` runs in process; the HTTP informer
// for standalone use follows the same contract.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "api/kinds.h"
#include "client/informer_cache.h"
#include "store/store.h"

namespace berth::client {

class StoreInformer final : public InformerSource {
 public:
  using Handlers = InformerHandlers;

  StoreInformer(store::Store& store, api::Kind kind, Handlers handlers);
  ~StoreInformer() override;

  // Lists (handlers run on the caller's thread for the initial objects), then
  // starts the watch thread.
  Status Start() override;
  void Stop() override;

 private:
  Status Relist();
  void Run();

  store::Store& store_;
  api::Kind kind_;
  InformerCache cache_;                               // owned by the watch thread after Start
  int64_t revision_ = 0;                              // owned by the watch thread after Start
  std::mutex watch_mu_;
  std::shared_ptr<store::Watch> watch_;  // guarded by watch_mu_ (replaced on relist)
  std::atomic<bool> stop_{false};
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool wake_ = false;  // guarded by wake_mu_: the watch has news (or Stop)
  std::thread thread_;
};

}  // namespace berth::client
