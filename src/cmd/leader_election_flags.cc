#include "cmd/leader_election_flags.h"

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/time/duration.h"
#include "client/http_informer.h"
#include "log/log.h"

namespace berth::cmd {

void AddLeaderElectionFlags(CLI::App& cmd, LeaderElectionFlags& f) {
  cmd.add_flag("--leader-elect", f.leader_elect,
               "Start a leader election client and gain leadership before executing the main loop. "
               "Enable this "
               "when running replicated components for high availability. (default true; "
               "--leader-elect=false turns it "
               "off)");
  cmd.add_option("--leader-elect-lease-duration", f.lease_duration,
                 "The duration that non-leader candidates will wait after observing a leadership "
                 "renewal until "
                 "attempting to acquire leadership of a led but unrenewed leader slot.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-renew-deadline", f.renew_deadline,
                 "The interval between attempts by the acting master to renew a leadership slot "
                 "before it stops "
                 "leading. This must be less than the lease duration.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-retry-period", f.retry_period,
                 "The duration the clients should wait between attempting acquisition and renewal "
                 "of a leadership.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-resource-lock", f.resource_lock,
                 "The type of resource object that is used for locking during leader election. "
                 "Supported options "
                 "are 'leases'.")
      ->capture_default_str();
  cmd.add_option("--leader-elect-resource-name", f.resource_name,
                 "The name of resource object that is used for locking during leader election.")
      ->capture_default_str();
  cmd.add_option(
         "--leader-elect-resource-namespace", f.resource_namespace,
         "The namespace of resource object that is used for locking during leader election.")
      ->capture_default_str();
}

Result<client::LeaderElectionConfig> LeaderElectionConfigFromFlags(const LeaderElectionFlags& f,
                                                                   const std::string& field_path) {
  client::LeaderElectionConfig config;
  struct {
    const char* flag;
    const std::string& text;
    std::chrono::milliseconds& out;
  } durations[] = {{"--leader-elect-lease-duration", f.lease_duration, config.lease_duration},
                   {"--leader-elect-renew-deadline", f.renew_deadline, config.renew_deadline},
                   {"--leader-elect-retry-period", f.retry_period, config.retry_period}};
  for (auto& d : durations) {
    auto parsed = api::ParseGoDuration(d.text);
    if (!parsed) {
      return Status::BadRequest("invalid argument \"" + d.text + "\" for \"" + d.flag +
                                "\" flag: time: invalid duration \"" + d.text + "\"");
    }
    d.out = *parsed;
  }
  // client-go's resourcelock.New.
  if (f.resource_lock == "endpoints" || f.resource_lock == "configmaps") {
    return Status::BadRequest(f.resource_lock + " lock is removed, migrate to " + f.resource_lock +
                              "leases (using version v0.27.x)");
  }
  if (f.resource_lock == "endpointsleases") {
    return Status::BadRequest("endpointsleases lock is removed, migrate to leases");
  }
  if (f.resource_lock == "configmapsleases") {
    return Status::BadRequest("configmapsleases lock is removed, migrated to leases");
  }
  if (f.resource_lock.empty()) return Status::Invalid(field_path + ".resourceLock: Required value");
  if (f.resource_lock != "leases")
    return Status::BadRequest("Invalid lock-type " + f.resource_lock);
  config.lock_namespace = f.resource_namespace;
  config.lock_name = f.resource_name;
  config.name = f.resource_name;
  config.identity = client::NewLeaderIdentity();
  if (Status s = client::ValidateLeaderElectionConfig(config, field_path); !s.ok()) return s;
  return config;
}

int RunLeaderElected(const std::string& command, const client::LeaderElectionConfig& config,
                     client::HttpClient& lease_client, TerminationSignals& signals,
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

}  // namespace berth::cmd
