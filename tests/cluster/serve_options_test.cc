// `berth serve`'s flags turned into the cluster's options
// (cluster::ClusterOptionsFromFlags): what each flag sets, and the errors
// that name a wrong one.

#include "cluster/serve.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/controller_manager.h"

namespace berth::cluster {
namespace {

ServeFlags Defaults() {
  ServeFlags f;
  f.profiling = false;
  return f;
}

std::string ErrorOf(const ServeFlags& f) {
  auto options = ClusterOptionsFromFlags(f, scheduler::InTreeRegistry());
  EXPECT_FALSE(options.ok());
  EXPECT_EQ(options.ok() ? StatusCode::kOk : options.status().code(), StatusCode::kBadRequest);
  return options.ok() ? "" : options.status().message();
}

TEST(ServeOptions, TheDefaultsAreKubesDefaults) {
  auto options = ClusterOptionsFromFlags(Defaults(), scheduler::InTreeRegistry());
  ASSERT_TRUE(options.ok()) << options.status().message();
  const ClusterOptions& o = options.value();
  EXPECT_EQ(o.data_dir, "berth-data");
  EXPECT_FALSE(o.etcd.has_value());
  EXPECT_EQ(o.event_ttl, std::chrono::hours(1));
  EXPECT_TRUE(o.scheduler);
  EXPECT_EQ(o.scheduler_options.concurrent, 2);
  EXPECT_EQ(o.cache_resync_period, std::chrono::seconds(30));
  EXPECT_EQ(o.api.authorization_modes, std::vector<std::string>{"AlwaysAllow"});
  EXPECT_EQ(o.api.admission.default_not_ready_toleration_seconds, 300);
  EXPECT_EQ(o.controllers.controllers, std::vector<std::string>{"*"});
  EXPECT_EQ(o.controllers.lifecycle.grace_period, std::chrono::seconds(40));
  EXPECT_FALSE(o.controllers.sim.has_value());
  ASSERT_TRUE(o.http.has_value());
  EXPECT_EQ(o.http->address, "127.0.0.1");
  EXPECT_EQ(o.http->port, 8080);
  EXPECT_EQ(o.http->inflight_limits.read_only, 400);
  EXPECT_EQ(o.http->inflight_limits.mutating, 200);
}

TEST(ServeOptions, FlagsSetWhatTheyName) {
  ServeFlags f = Defaults();
  f.in_memory = true;
  f.no_scheduler = true;
  f.no_controllers = true;
  f.event_ttl = "90s";
  f.concurrent = 4;
  f.enable_admission = {"AlwaysPullImages"};
  f.sim.nodes = 3;
  f.node_monitor_grace_period = "8s";
  auto options = ClusterOptionsFromFlags(f, scheduler::InTreeRegistry());
  ASSERT_TRUE(options.ok()) << options.status().message();
  const ClusterOptions& o = options.value();
  EXPECT_EQ(o.data_dir, "");
  EXPECT_FALSE(o.scheduler);
  EXPECT_TRUE(o.controllers.controllers.empty());
  EXPECT_EQ(o.event_ttl, std::chrono::seconds(90));
  EXPECT_EQ(o.scheduler_options.concurrent, 4);
  EXPECT_EQ(o.api.admission.enable, std::vector<std::string>{"AlwaysPullImages"});
  ASSERT_TRUE(o.controllers.sim.has_value());
  // A heartbeat comes within a quarter of the grace period.
  EXPECT_LE(o.controllers.sim->heartbeat_period, std::chrono::seconds(2));
}

TEST(ServeOptions, AWrongFlagIsNamed) {
  ServeFlags f = Defaults();
  f.event_ttl = "1x";
  EXPECT_EQ(ErrorOf(f), "--event-ttl 1x: expected a duration such as 1h");
  f = Defaults();
  f.cache_resync_period = "soon";
  EXPECT_EQ(ErrorOf(f), "--cache-resync-period soon: expected a duration such as 30s");
  f = Defaults();
  f.max_inflight = -1;
  EXPECT_EQ(ErrorOf(f), "--max-requests-inflight can not be negative value");
  f = Defaults();
  f.in_memory = true;
  f.etcd_servers = {"http://127.0.0.1:2379"};
  EXPECT_EQ(ErrorOf(f), "--in-memory and --etcd-servers exclude each other");
  f = Defaults();
  f.etcd_servers = {"http://127.0.0.1:2379"};
  f.etcd_prefix = "registry";
  EXPECT_EQ(ErrorOf(f), "--etcd-prefix registry: must start with /");
  f = Defaults();
  f.authorization_mode = "RBAC";
  EXPECT_EQ(ErrorOf(f), "--authorization-mode=RBAC needs an authenticator: --token-file or --client-ca-file");
  f = Defaults();
  f.tls_cert_file = "cert.pem";
  EXPECT_EQ(ErrorOf(f), "--tls-cert-file and --tls-private-key-file must be given together");
  f = Defaults();
  f.audit_policy_file = "policy.yaml";
  EXPECT_NE(ErrorOf(f).find("--audit-policy-file is not supported"), std::string::npos);
  f = Defaults();
  f.controller_names = {"nope"};
  EXPECT_EQ(ErrorOf(f), "--controllers: \"nope\" is not in the list of known controllers");
  // Its help names the controllers from the same registry, in start order.
  EXPECT_NE(ControllersHelp().find("(replicaset-controller, deployment-controller, daemonset-controller"),
            std::string::npos)
      << ControllersHelp();
  f = Defaults();
  f.enable_admission = {"NoSuchPlugin"};
  EXPECT_EQ(ErrorOf(f), "--enable-admission-plugins: plugin \"NoSuchPlugin\" is unknown");
}

}  // namespace
}  // namespace berth::cluster
