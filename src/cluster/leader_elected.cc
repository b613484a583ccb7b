#include "cluster/leader_elected.h"

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "client/http_informer.h"
#include "log/log.h"

namespace berth::cluster {

int RunLeaderElected(const std::string& command, const client::LeaderElectionConfig& config,
                     client::HttpClient& lease_client, client::TerminationSignals& signals,
                     const LeaderWork& work, const client::EventRecorder* events,
                     metrics::Registry* registry) {
  std::mutex mu;
  std::condition_variable cv;
  bool leading = false;    // guarded by mu: what the election says
  bool terminate = false;  // guarded by mu
  client::LeaderCallbacks callbacks{
      [&] {
        std::lock_guard lock(mu);
        leading = true;
        cv.notify_all();
      },
      [&] {
        std::lock_guard lock(mu);
        leading = false;
        cv.notify_all();
      },
      [&command](const std::string& identity) {
        const std::string leader = identity.empty() ? "nobody (released)" : identity;
        BERTH_LOG("berth " + command + ": the leader is " + leader, {"identity", identity});
      }};
  auto elector = client::LeaderElector::Create(config, client::HttpTransport(lease_client),
                                               std::move(callbacks),
                                               {.registry = registry, .recorder = events});
  if (!elector.ok()) {
    BERTH_LOG_ERROR(elector.status().message(), "berth " + command + ": cannot run the leader election");
    return 1;
  }
  const std::string lease = elector.value()->Describe();
  BERTH_LOG("berth " + command + ": competing for lease " + lease + " as " + config.identity, {"lease", lease},
            {"identity", config.identity});
  std::thread waiter([&] {
    signals.Wait();
    std::lock_guard lock(mu);
    terminate = true;
    cv.notify_all();
  });
  client::LeaderElector* e = elector.value().get();
  auto observe = [e](const api::ObjectPtr& lease) { e->Observe(*lease); };
  client::HttpInformer lease_watch(
      lease_client, "/apis/coordination.k8s.io/v1/namespaces/" + config.lock_namespace + "/leases",
      {observe, observe, [](const api::ObjectPtr&) {}});
  if (Status s = lease_watch.Start(); !s.ok()) {
    BERTH_LOG_ERROR(s.message(), "berth " + command + ": cannot watch leases (trying every retry period only)",
                    {"namespace", config.lock_namespace});
  }
  elector.value()->Start();

  int exit_code = 0;
  bool running = false;
  for (;;) {
    bool want;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return terminate || leading != running; });
      if (terminate) break;
      want = leading;
    }
    if (want) {
      if (Status s = work.start(*elector.value()); !s.ok()) {
        BERTH_LOG_ERROR(s.message(), "berth " + command + ": cannot start leading");
        exit_code = 1;
        break;
      }
      running = true;
      BERTH_LOG("berth " + command + ": leading: started");
    } else {
      work.stop();
      running = false;
      BERTH_LOG("berth " + command + ": lost the lease: stopped, following");
    }
  }
  // The work first: releasing the lease lets another replica start at once.
  if (running) work.stop();
  lease_watch.Stop();
  elector.value()->Stop();
  {
    std::lock_guard lock(mu);
    // The waiter still sits in sigwait: hand it a signal of its own.
    if (!terminate) pthread_kill(waiter.native_handle(), SIGTERM);
  }
  waiter.join();
  return exit_code;
}

}  // namespace berth::cluster
