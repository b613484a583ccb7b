#pragma once
// The controller runtime: a rate-limited work queue of object keys fed by
// informer handlers, and a pool of workers that call Reconcile for one key at
// a time (never the same key on two workers). A reconcile that fails is
// retried with per-key exponential backoff; one that succeeds is forgotten.
// Reconcile functions read the informers' caches, compare with the desired
// state and write the difference: they are idempotent, so running one twice,
// or after a crash, converges to the same state.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/status.h"
#include "api/time/clock.h"
#include "client/event_recorder.h"
#include "client/informer_factory.h"
#include "client/rest_client.h"
#include "client/worker_pool.h"
#include "client/workqueue.h"
#include "metrics/metrics.h"

namespace berth::controllers {

// What every controller is built from.
struct ControllerContext {
  client::RestClient& client;
  client::InformerFactory& informers;
  metrics::Registry* registry = nullptr;  // nullptr: no metrics
  client::EventBroadcaster* events = nullptr;  // nullptr: no events recorded
  // Where the controller's time comes from: its queue's delays and every time
  // it reads. nullptr: api::RealClock. REQUIRES: outlives the controller.
  api::Clock* clock = nullptr;
};

class Controller {
 public:
  Controller(std::string name, const ControllerContext& context, int workers);
  virtual ~Controller();

  // Starts the workers (after the informers have synced).
  void Run();
  // Shuts the queue down and joins the workers.
  void Stop();

  const std::string& name() const { return name_; }
  // Exposed for tests: reconcile one key now, on the caller's thread.
  Status ReconcileForTest(const std::string& key) { return Reconcile(key); }

 protected:
  virtual Status Reconcile(const std::string& key) = 0;

  void Enqueue(const std::string& key) { queue_.Add(key); }
  void EnqueueAfter(const std::string& key, std::chrono::milliseconds delay) { queue_.AddAfter(key, delay); }

  client::RestClient& client_;
  client::InformerFactory& informers_;
  api::Clock& clock_;

 private:
  std::string name_;
  int workers_;
  client::WorkQueue queue_;
  metrics::Counter* errors_ = nullptr;
  std::unique_ptr<client::WorkerPool> pool_;
};

}  // namespace berth::controllers
