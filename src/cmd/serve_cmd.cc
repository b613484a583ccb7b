// berth serve: the API server with its durable embedded store, in one process.

#include <signal.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "api/quantity.h"
#include "apiserver/api_server.h"
#include "apiserver/event_expiry.h"
#include "apiserver/http_server.h"
#include "cmd/commands.h"
#include "cmd/controller_runtime.h"
#include "cmd/scheduler_runtime.h"
#include "cmd/server_metrics.h"
#include "cmd/termination_signals.h"
#include "controllers/json_util.h"
#include "store/memory/memory_store.h"

namespace berth::cmd {
namespace {

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";
  std::string data_dir = "berth-data";
  bool in_memory = false;
  std::string token_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  int max_inflight = 400;
  int64_t max_body_bytes = 3 * 1024 * 1024;
  int64_t watch_history = 100'000;
  int64_t not_ready_toleration = 300;
  int64_t unreachable_toleration = 300;
  uint64_t seed = 0;
  bool scheduler = true;
  std::string scheduler_config;
  int concurrent = 2;
  bool controllers = true;
  std::string event_ttl = "1h";
  std::string node_monitor_grace_period = "40s";
  std::string node_monitor_period = "5s";
  int sim_nodes = 0;
  std::string sim_cpu = "8";
  std::string sim_memory = "32Gi";
  int64_t sim_pods = 110;
  int sim_zones = 3;
  std::string sim_node_prefix = "sim-node-";
  std::string sim_config;
  std::string sim_heartbeat_period = "10s";
};

// The simulated fleet from the --sim-* flags: --sim-nodes uniform nodes plus
// the groups of --sim-config.
Result<controllers::SimNodesOptions> SimFleet(const ServeOptions& o) {
  controllers::SimNodesOptions sim;
  if (o.sim_nodes < 0) return Status::BadRequest("--sim-nodes " + std::to_string(o.sim_nodes) + ": must be at least 0");
  for (const auto& [flag, value] : {std::pair{"--sim-cpu", o.sim_cpu}, {"--sim-memory", o.sim_memory}}) {
    if (!api::Quantity::Parse(value).ok()) return Status::BadRequest(std::string(flag) + " " + value + ": not a quantity");
  }
  if (o.sim_pods < 1) return Status::BadRequest("--sim-pods must be at least 1");
  if (o.sim_zones < 0) return Status::BadRequest("--sim-zones must be at least 0");
  if (o.sim_nodes > 0) {
    controllers::SimNodeGroup g;
    g.count = o.sim_nodes;
    g.name_prefix = o.sim_node_prefix;
    g.cpu = o.sim_cpu;
    g.memory = o.sim_memory;
    g.pods = o.sim_pods;
    static constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyz";
    for (int z = 0; z < o.sim_zones; ++z) {
      g.zones.push_back(z < 26 ? "zone-" + std::string(1, kLetters[static_cast<size_t>(z)]) : "zone-" + std::to_string(z));
    }
    sim.groups.push_back(std::move(g));
  }
  if (!o.sim_config.empty()) {
    auto groups = controllers::LoadSimNodeGroups(o.sim_config);
    if (!groups.ok()) return Status::BadRequest("--sim-config " + groups.status().message());
    for (auto& g : groups.value()) sim.groups.push_back(std::move(g));
  }
  auto heartbeat = controllers::ParseGoDuration(o.sim_heartbeat_period);
  if (!heartbeat || heartbeat->count() <= 0) {
    return Status::BadRequest("--sim-heartbeat-period " + o.sim_heartbeat_period + ": expected a duration such as 10s");
  }
  sim.heartbeat_period = *heartbeat;
  return sim;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "berth serve: %s\n", message.c_str());
  return 1;
}

// kube's static token file: token,user,uid[,"group1,group2"] per line.
Result<std::map<std::string, std::string>> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--token-file " + path + ": cannot be read");
  std::map<std::string, std::string> tokens;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ',')) fields.push_back(field);
    if (fields.size() < 3 || fields[0].empty() || fields[1].empty()) {
      return Status::BadRequest("--token-file " + path + ":" + std::to_string(number) +
                                ": expected token,user,uid[,\"groups\"]");
    }
    tokens[fields[0]] = fields[1];
  }
  if (tokens.empty()) return Status::BadRequest("--token-file " + path + ": no tokens");
  return tokens;
}

int Serve(const ServeOptions& o) {
  auto colon = o.listen.rfind(':');
  if (colon == std::string::npos) return Fail("--listen " + o.listen + ": expected HOST:PORT");
  std::string host = o.listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    port = std::stoi(o.listen.substr(colon + 1));
  } catch (...) {
    port = -1;
  }
  if (port < 0 || port > 65535) return Fail("--listen " + o.listen + ": invalid port");
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  if (ec) return Fail("--listen " + o.listen + ": invalid address \"" + host + "\"");
  const bool loopback = address.is_loopback();
  if (!loopback && (o.token_file.empty() || o.tls_cert_file.empty() || o.tls_key_file.empty())) {
    return Fail("--listen " + o.listen + " is not a loopback address: it requires --token-file, "
                "--tls-cert-file and --tls-private-key-file");
  }
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return Fail("--tls-cert-file and --tls-private-key-file must be given together");
  }

  apiserver::ApiServer::Options api_options;
  api_options.berth_version = BERTH_VERSION;
  api_options.advertise_address = o.listen;
  api_options.seed = o.seed;
  api_options.admission.default_not_ready_toleration_seconds = o.not_ready_toleration;
  api_options.admission.default_unreachable_toleration_seconds = o.unreachable_toleration;
  if (!o.token_file.empty()) {
    auto tokens = ReadTokenFile(o.token_file);
    if (!tokens.ok()) return Fail(tokens.status().message());
    api_options.tokens = std::move(tokens).value();
  }
  std::shared_ptr<boost::asio::ssl::context> tls;
  if (!o.tls_cert_file.empty()) {
    tls = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
    tls->use_certificate_chain_file(o.tls_cert_file, ec);
    if (ec) return Fail("--tls-cert-file " + o.tls_cert_file + ": " + ec.message());
    tls->use_private_key_file(o.tls_key_file, boost::asio::ssl::context::pem, ec);
    if (ec) return Fail("--tls-private-key-file " + o.tls_key_file + ": " + ec.message());
  }

  // Signals are taken by sigwait below; block them before any thread starts.
  TerminationSignals signals;

  ServerMetrics metrics;
  store::MemoryStore::Options store_options;
  if (!o.in_memory) store_options.data_dir = o.data_dir;
  store_options.history = o.watch_history;
  store_options.on_fsync = [&metrics](double seconds) { metrics.ObserveFsync(seconds); };
  auto opened = store::MemoryStore::Open(store_options);
  if (!opened.ok()) {
    return Fail("data directory " + o.data_dir + ": " + opened.status().message());
  }
  auto& store = *opened.value();
  for (const auto& note : store.recovery_report().notes) std::fprintf(stderr, "berth serve: %s\n", note.c_str());

  apiserver::HttpServer* server_ptr = nullptr;
  std::unique_ptr<InProcessScheduler> in_process_scheduler;
  std::unique_ptr<ControllerManager> controller_manager;
  api_options.metrics = [&] {
    std::string text = metrics.Render(store, server_ptr);
    if (in_process_scheduler) text += in_process_scheduler->scheduler().RenderMetrics();
    if (controller_manager) text += controller_manager->RenderMetrics();
    return text;
  };
  ControllerManagerOptions manager_options;
  manager_options.controllers = o.controllers;
  {
    Status flags =
        ParseNodeLifecycleFlags(o.node_monitor_grace_period, o.node_monitor_period, manager_options.lifecycle);
    if (!flags.ok()) return Fail(flags.message());
    if (o.sim_nodes != 0 || !o.sim_config.empty()) {
      auto fleet = SimFleet(o);
      if (!fleet.ok()) return Fail(fleet.status().message());
      // A heartbeat must come well within the grace period (kube renews at a quarter of it).
      fleet->heartbeat_period = std::min(fleet->heartbeat_period, manager_options.lifecycle.grace_period / 4);
      manager_options.sim = std::move(fleet).value();
    }
  }

  auto event_ttl = controllers::ParseGoDuration(o.event_ttl);
  if (!event_ttl || event_ttl->count() < 0) {
    return Fail("--event-ttl " + o.event_ttl + ": expected a duration such as 1h");
  }

  apiserver::ApiServer api(store, api_options);
  Status boot = api.Bootstrap();
  if (!boot.ok()) return Fail("bootstrap: " + boot.message());
  auto event_expiry = std::make_unique<apiserver::EventExpiry>(
      store, std::chrono::duration_cast<std::chrono::seconds>(*event_ttl));
  if (o.scheduler) {
    scheduler::SchedulerConfig config;
    if (!o.scheduler_config.empty()) {
      auto loaded = LoadSchedulerConfig(o.scheduler_config);
      if (!loaded.ok()) return Fail(loaded.status().message());
      config = std::move(loaded).value();
    }
    scheduler::SchedulerOptions options;
    options.concurrent = o.concurrent;
    options.seed = o.seed;
    auto created = InProcessScheduler::Create(api, store, config, options);
    if (!created.ok()) return Fail("--config " + o.scheduler_config + ": " + created.status().message());
    in_process_scheduler = std::move(created).value();
    Status started = in_process_scheduler->Start();
    if (!started.ok()) return Fail("scheduler: " + started.message());
  }

  if (o.controllers || manager_options.sim) {
    auto started = ControllerManager::Start(api, store, manager_options);
    if (!started.ok()) return Fail(started.status().message());
    controller_manager = std::move(started).value();
  }

  apiserver::HttpServer::Options http_options;
  http_options.address = host;
  http_options.port = static_cast<uint16_t>(port);
  http_options.max_inflight = o.max_inflight;
  http_options.max_body_bytes = static_cast<size_t>(o.max_body_bytes);
  http_options.tls = tls;
  // Handled on the io threads: reads of one object, and creates of ordinary
  // size (they answer once durable without holding the thread meanwhile).
  http_options.run_inline = [](const apiserver::Request& r) {
    return ((r.method == "GET" || r.method == "HEAD") && apiserver::IsSingleObjectRead(r)) ||
           apiserver::IsSmallCreate(r, 64 * 1024);
  };
  http_options.on_response = [&metrics](const apiserver::Request& r, int code, double seconds) {
    metrics.ObserveRequest(r, code, seconds);
  };
  auto server = apiserver::HttpServer::Start(
      http_options, [&api](apiserver::Request& request) { return api.Handle(request); });
  if (!server.ok()) return Fail(server.status().message());
  server_ptr = server.value().get();
  std::fprintf(stderr, "berth serve: listening on %s://%s:%u (store %s, revision %lld)\n",
               tls ? "https" : "http", host.c_str(), server.value()->port(),
               o.in_memory ? "in memory" : o.data_dir.c_str(),
               static_cast<long long>(store.CurrentRevision()));
  std::fflush(stderr);

  int signal_number = signals.Wait();
  std::fprintf(stderr, "berth serve: %s received, shutting down\n",
               signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  server.value()->Stop();  // in-flight requests finish first
  server_ptr = nullptr;
  if (controller_manager) controller_manager->Stop();
  if (in_process_scheduler) in_process_scheduler->Stop();
  event_expiry.reset();
  store.Close();  // the log is synced
  std::fprintf(stderr, "berth serve: stopped at revision %lld\n",
               static_cast<long long>(store.CurrentRevision()));
  return 0;
}

}  // namespace

void AddServeCommand(CLI::App& app) {
  static ServeOptions o;
  auto* serve = app.add_subcommand("serve", "Run the API server with its embedded store");
  serve->add_option("--listen", o.listen, "Address to listen on (HOST:PORT)")->capture_default_str();
  serve->add_option("--data-dir", o.data_dir, "The store's data directory")->capture_default_str();
  serve->add_flag("--in-memory", o.in_memory, "Keep the store in memory only (nothing persisted)");
  serve->add_option("--token-file", o.token_file, "Static bearer tokens (kube's CSV format)");
  serve->add_option("--tls-cert-file", o.tls_cert_file, "TLS certificate (PEM)");
  serve->add_option("--tls-private-key-file", o.tls_key_file, "TLS private key (PEM)");
  serve->add_option("--max-requests-inflight", o.max_inflight, "Requests handled at once before 429")
      ->capture_default_str();
  serve->add_option("--max-request-body-bytes", o.max_body_bytes, "Larger request bodies get 413")
      ->capture_default_str();
  serve->add_option("--watch-history", o.watch_history, "Revisions kept for watch resumption")
      ->capture_default_str();
  serve->add_option("--default-not-ready-toleration-seconds", o.not_ready_toleration)
      ->capture_default_str();
  serve->add_option("--default-unreachable-toleration-seconds", o.unreachable_toleration)
      ->capture_default_str();
  serve->add_option("--seed", o.seed, "Seed for generated names, uids and scheduling decisions (0: random)");
  serve->add_flag("--scheduler,!--no-scheduler", o.scheduler, "Run the scheduler in process (default: yes)");
  serve->add_option("--config", o.scheduler_config,
                    "The scheduler's KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1)");
  serve->add_option("--concurrent", o.concurrent, "Scheduling cycles at once")->capture_default_str()
      ->check(CLI::Range(1, 256));
  serve->add_flag("--controllers,!--no-controllers", o.controllers,
                  "Run the controllers in process: ReplicaSet, Deployment, garbage collector, node lifecycle "
                  "(default: yes)");
  serve
      ->add_option("--event-ttl", o.event_ttl,
                   "How long Events are kept after their last write (0: forever)")
      ->capture_default_str();
  serve->add_option("--node-monitor-grace-period", o.node_monitor_grace_period,
                    "How long a node's kubelet may be silent before the node is marked unreachable")
      ->capture_default_str();
  serve->add_option("--node-monitor-period", o.node_monitor_period, "How often node health is checked")
      ->capture_default_str();
  serve->add_option("--sim-nodes", o.sim_nodes, "Register this many simulated nodes (with simulated kubelets)")
      ->capture_default_str();
  serve->add_option("--sim-cpu", o.sim_cpu, "Each simulated node's CPU")->capture_default_str();
  serve->add_option("--sim-memory", o.sim_memory, "Each simulated node's memory")->capture_default_str();
  serve->add_option("--sim-pods", o.sim_pods, "Each simulated node's pod capacity")->capture_default_str();
  serve->add_option("--sim-zones", o.sim_zones,
                    "Zones the simulated nodes are spread over (topology.kubernetes.io/zone zone-a, zone-b, ...)")
      ->capture_default_str();
  serve->add_option("--sim-node-prefix", o.sim_node_prefix, "Name prefix of the simulated nodes")
      ->capture_default_str();
  serve->add_option("--sim-config", o.sim_config,
                    "A YAML file of simulated node groups (count, namePrefix, cpu, memory, pods, zones, labels, taints)");
  serve->add_option("--sim-heartbeat-period", o.sim_heartbeat_period,
                    "How often simulated kubelets renew their Lease (at most a quarter of the grace period)")
      ->capture_default_str();
  serve->callback([] { SetExitCode(Serve(o)); });
}

}  // namespace berth::cmd
