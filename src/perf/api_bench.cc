#include "perf/api_bench.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "perf/process_stats.h"
#include "perf/summary.h"
#include "perf/store_bench.h"
#include "perf/synthetic.h"

namespace berth::perf {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// The nodes --nodes registers.
const NodeShape kNode{"4", "32Gi", 110};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Where the server listens; `tls` set: it speaks TLS (--tls-dir), and the
// benchmark's connections verify it with that client context.
struct Endpoint {
  uint16_t port = 0;
  ssl::context* tls = nullptr;
  std::string token;  // set: every request carries it as a bearer token
};

class Connection {
 public:
  explicit Connection(const Endpoint& endpoint) : socket_(ioc_), token_(endpoint.token) {
    socket_.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), endpoint.port));
    socket_.set_option(tcp::no_delay(true));
    if (endpoint.tls) {
      tls_.emplace(socket_, *endpoint.tls);
      tls_->handshake(ssl::stream_base::client);
    }
  }
  int Request(http::verb verb, const std::string& target, const std::string& body,
              std::string* out = nullptr) {
    http::request<http::string_body> req(verb, target, 11);
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    if (!token_.empty()) req.set(http::field::authorization, "Bearer " + token_);
    req.keep_alive(true);
    req.body() = body;
    req.prepare_payload();
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);  // a LIST of many pods is large
    if (tls_) {
      http::write(*tls_, req);
      http::read(*tls_, buffer_, parser);
    } else {
      http::write(socket_, req);
      http::read(socket_, buffer_, parser);
    }
    auto& res = parser.get();
    if (out) *out = std::move(res.body());
    return res.result_int();
  }
  // The raw byte stream, for watches read by hand.
  void Write(const std::string& bytes) {
    if (tls_) {
      net::write(*tls_, net::buffer(bytes));
    } else {
      net::write(socket_, net::buffer(bytes));
    }
  }
  size_t ReadSome(char* buf, size_t size, boost::system::error_code& ec) {
    return tls_ ? tls_->read_some(net::buffer(buf, size), ec) : socket_.read_some(net::buffer(buf, size), ec);
  }

 private:
  net::io_context ioc_;
  tcp::socket socket_;
  std::optional<ssl::stream<tcp::socket&>> tls_;
  beast::flat_buffer buffer_;
  std::string token_;
};

// Runs `work(connection, index)` for indices [0, n) over `connections` connections;
// returns per-request latencies in ms.
std::vector<double> Drive(const Endpoint& port, int connections, int64_t n,
                          const std::function<void(Connection&, int64_t)>& work) {
  std::atomic<int64_t> next{0};
  std::vector<std::vector<double>> latencies(static_cast<size_t>(connections));
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      Connection conn(port);
      for (int64_t i; (i = next.fetch_add(1)) < n;) {
        auto start = Clock::now();
        work(conn, i);
        latencies[static_cast<size_t>(c)].push_back(Seconds(Clock::now() - start) * 1000);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  return all;
}

void Row(std::FILE* out, const std::string& metric, double value, const std::string& unit) {
  std::fprintf(out, "%-56s %14.2f %s\n", metric.c_str(), value, unit.c_str());
  std::fflush(out);
}

}  // namespace

namespace {

std::string StoreLabel(const ApiBenchOptions& o) {
  if (!o.etcd_servers.empty()) return " (etcd)";
  return o.in_memory ? " (in memory)" : " (durable)";
}

// A definition with a structural schema of the usual shape (types, formats,
// enums, bounds, a default, a list with maxItems, int-or-string), and
// `o.custom_objects` creates of its objects over `o.connections`.
constexpr char kBenchCrd[] = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"widgets.bench.berth.dev"},
  "spec":{"group":"bench.berth.dev","scope":"Namespaced",
    "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
    "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
      "schema":{"openAPIV3Schema":{"type":"object","properties":{
        "spec":{"type":"object","required":["size","color"],"properties":{
          "size":{"type":"integer","format":"int32","minimum":0,"maximum":1000},
          "color":{"type":"string","enum":["red","green","blue"]},
          "image":{"type":"string","pattern":"^[a-z0-9./:-]+$","maxLength":200},
          "port":{"x-kubernetes-int-or-string":true},
          "replicas":{"type":"integer","default":1},
          "tags":{"type":"array","maxItems":8,"items":{"type":"string"}},
          "limits":{"type":"object","additionalProperties":{"type":"string"}}}},
        "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}})";

void CustomObjectCreates(const Endpoint& port, const ApiBenchOptions& o, Connection& setup, std::atomic<int64_t>& failures,
                         std::FILE* out, pid_t server) {
  if (setup.Request(http::verb::post, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", kBenchCrd) != 201) {
    failures++;
    return;
  }
  for (int i = 0; i < 400; ++i) {
    if (setup.Request(http::verb::get, "/apis/bench.berth.dev/v1/namespaces/bench/widgets?limit=1", "") == 200) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const double server_cpu_before = ProcessCpuSecondsOf(server);
  auto start = Clock::now();
  auto latencies = Drive(port, o.connections, o.custom_objects, [&](Connection& c, int64_t i) {
    std::string body = R"({"apiVersion":"bench.berth.dev/v1","kind":"Widget","metadata":{"name":"w)" +
                       std::to_string(i) + R"(","labels":{"app":"bench"}},"spec":{"size":)" +
                       std::to_string(i % 1000) + R"(,"color":"green","image":"registry.local/widget:1.0",)" +
                       R"("port":"http","tags":["a","b","c"],"limits":{"cpu":"500m","memory":"1Gi"}}})";
    if (c.Request(http::verb::post, "/apis/bench.berth.dev/v1/namespaces/bench/widgets", body) != 201) failures++;
  });
  const double elapsed = Seconds(Clock::now() - start);
  const double server_cpu = ProcessCpuSecondsOf(server) - server_cpu_before;
  Row(out,
      "custom object creates/s (schema-validated), " + std::to_string(o.connections) + " connections" +
          StoreLabel(o),
      static_cast<double>(o.custom_objects) / elapsed, "creates/s");
  Row(out, "  server CPU per custom object create", 1e6 * server_cpu / static_cast<double>(o.custom_objects), "us");
  Row(out, "  custom object create latency p50", Summarize(latencies).p50, "ms");
}

// Creates o.secrets Secrets of 1 KiB each (what encryption at rest costs is per Secret write).
void SecretCreates(const Endpoint& port, const ApiBenchOptions& o, std::atomic<int64_t>& failures,
                   std::FILE* out, pid_t server) {
  const std::string value(1024, 'x');
  const double server_cpu_before = ProcessCpuSecondsOf(server);
  auto start = Clock::now();
  auto latencies = Drive(port, o.connections, o.secrets, [&](Connection& c, int64_t i) {
    std::string body = R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s)" + std::to_string(i) +
                       R"("},"stringData":{"token":")" + value + R"("}})";
    if (c.Request(http::verb::post, "/api/v1/namespaces/bench/secrets", body) != 201) failures++;
  });
  const double elapsed = Seconds(Clock::now() - start);
  const double server_cpu = ProcessCpuSecondsOf(server) - server_cpu_before;
  const std::string encrypted = o.encryption_provider_config.empty() ? "" : ", encryption at rest";
  Row(out, "secret creates/s, " + std::to_string(o.connections) + " connections" + StoreLabel(o) + encrypted,
      static_cast<double>(o.secrets) / elapsed, "creates/s");
  Row(out, "  server CPU per secret create", 1e6 * server_cpu / static_cast<double>(o.secrets), "us");
  Row(out, "  secret create latency p50", Summarize(latencies).p50, "ms");
}
// A port nothing listens on yet, for the server to take.
uint16_t FreeLoopbackPort() {
  net::io_context ioc;
  tcp::acceptor a(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

// Where the forked server listens and the files it (and the external
// scheduler) are started with.
struct ServerLaunch {
  uint16_t port = 0;
  std::string listen;       // 127.0.0.1:PORT
  std::string server_url;   // http(s)://127.0.0.1:PORT
  std::string tls_dir;      // absolute; empty: plain HTTP
  std::string tokens;       // --token-file, written with --authorization-mode
  std::string data;         // --data-dir
  std::string etcd_prefix;  // unique per run, so runs never share keys
  std::string server_cert, server_key, client_ca;
};

ServerLaunch ServerLaunchFor(const ApiBenchOptions& o, uint16_t port) {
  namespace fs = std::filesystem;
  ServerLaunch launch;
  launch.port = port;
  launch.listen = "127.0.0.1:" + std::to_string(port);
  // --tls-dir: the server speaks TLS and wants client certificates; the
  // benchmark and the external scheduler present DIR/client.crt.
  launch.tls_dir = o.tls_dir.empty() ? "" : fs::absolute(o.tls_dir).string();
  launch.server_url = (launch.tls_dir.empty() ? "http://" : "https://") + launch.listen;
  launch.tokens = o.dir + "/tokens.csv";
  launch.data = o.dir + "/data";
  launch.etcd_prefix = "/berth-api-bench-" + std::to_string(::getpid()) + "-" +
                       std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  launch.server_cert = launch.tls_dir + "/server.crt";
  launch.server_key = launch.tls_dir + "/server.key";
  launch.client_ca = launch.tls_dir + "/ca.crt";
  return launch;
}

// The client context that verifies the server and presents DIR/client.crt;
// false (said on `err`) when a file is missing or bad.
bool LoadTlsClient(const std::string& tls_dir, std::optional<ssl::context>& tls_client, std::FILE* err) {
  tls_client.emplace(ssl::context::tls_client);
  boost::system::error_code ec;
  tls_client->set_verify_mode(ssl::verify_peer);
  tls_client->load_verify_file(tls_dir + "/ca.crt", ec);
  if (!ec) tls_client->use_certificate_chain_file(tls_dir + "/client.crt", ec);
  if (!ec) tls_client->use_private_key_file(tls_dir + "/client.key", ssl::context::pem, ec);
  if (ec) {
    std::fprintf(err, "berth api-bench: --tls-dir %s: %s (scripts/make-test-certs.sh makes the files)\n",
                 tls_dir.c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

// --authorization-mode: serve authorizes every request; the benchmark
// acts as user `bench` (a bearer token), bound to cluster-admin through
// RBAC (not system:masters, which kube lets through before any authorizer).
bool WriteTokenFile(const std::string& dir, const std::string& tokens, std::FILE* err) {
  std::filesystem::create_directories(dir);
  std::FILE* f = std::fopen(tokens.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(err, "berth api-bench: cannot write %s\n", tokens.c_str());
    return false;
  }
  std::fprintf(f, "bench-admin-token,bench-admin,1,\"system:masters\"\nbench-token,bench,2\n");
  std::fclose(f);
  return true;
}

// Forks `berth serve` with the flags the options ask for (its stderr to
// /dev/null); returns the child's pid.
pid_t StartServer(const ApiBenchOptions& o, const ServerLaunch& launch) {
  pid_t server = fork();
  if (server == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    std::vector<const char*> argv = {"berth",
                                     "serve",
                                     "--listen",
                                     launch.listen.c_str(),
                                     "--data-dir",
                                     launch.data.c_str(),
                                     "--max-requests-inflight",
                                     "10000",
                                     "--max-mutating-requests-inflight",
                                     "10000"};
    if (!o.audit_log_path.empty()) {
      argv.push_back("--audit-log-path");
      argv.push_back(o.audit_log_path.c_str());
    }
    if (o.in_memory) argv.push_back("--in-memory");
    if (!o.encryption_provider_config.empty()) {
      argv.push_back("--encryption-provider-config");
      argv.push_back(o.encryption_provider_config.c_str());
    }
    if (!o.etcd_servers.empty()) {
      argv.push_back("--etcd-servers");
      argv.push_back(o.etcd_servers.c_str());
      argv.push_back("--etcd-prefix");
      argv.push_back(launch.etcd_prefix.c_str());
    }
    if (!launch.tls_dir.empty()) {
      for (const char* a : {"--tls-cert-file", launch.server_cert.c_str(), "--tls-private-key-file",
                            launch.server_key.c_str(), "--client-ca-file", launch.client_ca.c_str()}) {
        argv.push_back(a);
      }
    }
    if (!o.authorization_mode.empty()) {
      for (const char* a : {"--token-file", launch.tokens.c_str(), "--authorization-mode", o.authorization_mode.c_str()}) {
        argv.push_back(a);
      }
    }
    if (o.api_only) {
      argv.push_back("--no-scheduler");
      argv.push_back("--no-controllers");
    } else if (o.external_scheduler) {
      argv.push_back("--no-scheduler");
    }
    argv.push_back(nullptr);
    execv(o.binary.c_str(), const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  return server;
}

void WaitUntilHealthy(const Endpoint& port) {
  for (int i = 0; i < 200; ++i) {
    try {
      Connection c(port);
      if (c.Request(http::verb::get, "/healthz", "") == 200) break;
    } catch (const std::exception&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
}

// Over TLS the scheduler reaches the server as kube-scheduler would:
// through a kubeconfig with the CA and a client certificate.
bool WriteSchedulerKubeconfig(const std::string& kubeconfig, const ServerLaunch& launch, std::FILE* err) {
  std::FILE* f = std::fopen(kubeconfig.c_str(), "w");
  if (f == nullptr) {
    std::fprintf(err, "berth api-bench: cannot write %s\n", kubeconfig.c_str());
    return false;
  }
  std::fprintf(f,
               "apiVersion: v1\nkind: Config\nclusters:\n- name: bench\n  cluster:\n    server: %s\n"
               "    certificate-authority: %s\nusers:\n- name: scheduler\n  user:\n"
               "    client-certificate: %s/client.crt\n    client-key: %s/client.key\ncontexts:\n"
               "- name: bench\n  context: {cluster: bench, user: scheduler}\ncurrent-context: bench\n",
               launch.server_url.c_str(), launch.client_ca.c_str(), launch.tls_dir.c_str(), launch.tls_dir.c_str());
  std::fclose(f);
  return true;
}

// Forks `berth scheduler` against the server (--server over HTTP, the
// kubeconfig over TLS); returns the child's pid.
pid_t StartExternalScheduler(const ApiBenchOptions& o, const ServerLaunch& launch, const std::string& kubeconfig) {
  const std::string qps = std::to_string(o.scheduler_qps), burst = std::to_string(o.scheduler_burst);
  pid_t scheduler = fork();
  if (scheduler == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 2);
    std::vector<const char*> argv = {"berth", "scheduler"};
    for (const char* a : {launch.tls_dir.empty() ? "--server" : "--kubeconfig",
                          launch.tls_dir.empty() ? launch.server_url.c_str() : kubeconfig.c_str(), "--kube-api-qps",
                          qps.c_str(), "--kube-api-burst", burst.c_str()}) {
      argv.push_back(a);
    }
    argv.push_back(nullptr);
    execv(o.binary.c_str(), const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  return scheduler;
}

// Binds user `bench` to cluster-admin (as the system:masters admin) and waits
// until the authorizer lets `bench` in.
void GrantBenchClusterAdmin(const Endpoint& port) {
  Endpoint admin = port;
  admin.token = "bench-admin-token";
  Connection grant(admin);
  grant.Request(http::verb::post, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                R"({"metadata":{"name":"bench"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",)"
                R"("kind":"ClusterRole","name":"cluster-admin"},"subjects":[{"kind":"User","name":"bench"}]})");
  // The binding reaches the authorizer through a watch.
  Connection probe(port);
  for (int i = 0; i < 400 && probe.Request(http::verb::get, "/api/v1/namespaces/default", "") != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
}

void RegisterNodes(const Endpoint& port, const ApiBenchOptions& o, std::atomic<int64_t>& failures) {
  Drive(port, o.connections, o.nodes, [&](Connection& c, int64_t i) {
    if (c.Request(http::verb::post, "/api/v1/nodes",
                  SyntheticNodeJson(SyntheticNodeName(i), i, kNode)) != 201)
      failures++;
  });
}

// Until no pod is left unbound (the scheduler of `berth serve`, or
// `berth scheduler` over HTTP, binds them); reports the end-to-end rate
// from `start`, when the creates began.
void WaitUntilAllBound(const ApiBenchOptions& o, Connection& setup, Clock::time_point start,
                       std::atomic<int64_t>& failures, std::FILE* out) {
  bool all_bound = false;
  for (int i = 0; i < 6000 && !all_bound; ++i) {
    std::string unbound;
    setup.Request(http::verb::get,
                  "/api/v1/namespaces/bench/pods?fieldSelector=spec.nodeName%3D&limit=1", "",
                  &unbound);
    all_bound = unbound.find("\"items\":[]") != std::string::npos;
    if (!all_bound) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  double scheduled = Seconds(Clock::now() - start);
  if (!all_bound) failures++;
  Row(out,
      "pods created over HTTP and bound on " + std::to_string(o.nodes) + " nodes, end to end" +
          (o.external_scheduler ? " (berth scheduler)" : ""),
      static_cast<double>(o.creates) / scheduled,
      all_bound ? "pods/s" : "pods/s (NOT all bound)");
}

// Creates o.creates pods over `o.connections`; with nodes, also until all are
// bound. Reports the rate, CPU per create, latencies and the server's RSS.
void PodCreates(const Endpoint& port, const ApiBenchOptions& o, Connection& setup, std::atomic<int64_t>& failures,
                std::FILE* out, pid_t server) {
  int64_t rss_before = RssBytesOf(server);
  const double server_cpu_before = ProcessCpuSecondsOf(server);
  const double client_cpu_before = ProcessCpuSeconds();
  auto start = Clock::now();
  auto create_lat = Drive(port, o.connections, o.creates, [&](Connection& c, int64_t i) {
    if (c.Request(http::verb::post, "/api/v1/namespaces/bench/pods",
                  SyntheticPodJson("bench", "p" + std::to_string(i), PodShape{})) != 201)
      failures++;
  });
  double elapsed = Seconds(Clock::now() - start);
  const double server_cpu = ProcessCpuSecondsOf(server) - server_cpu_before;
  const double client_cpu = ProcessCpuSeconds() - client_cpu_before;
  if (o.nodes > 0) WaitUntilAllBound(o, setup, start, failures, out);
  Row(out,
      "pod creates/s, " + std::to_string(o.connections) + " connections" +
          StoreLabel(o) + (o.api_only ? ", API only" : ""),
      static_cast<double>(o.creates) / elapsed, "creates/s");
  // CPU per create, steadier than the rate on a shared machine. The server's
  // includes whatever else serve did meanwhile (its scheduler and
  // controllers unless --api-only); the client's is this benchmark's.
  Row(out, "  server CPU per create", 1e6 * server_cpu / static_cast<double>(o.creates), "us");
  Row(out, "  benchmark client CPU per create", 1e6 * client_cpu / static_cast<double>(o.creates),
      "us");
  Row(out, "  create latency p50", Summarize(create_lat).p50, "ms");
  Row(out, "  create latency p99", Summarize(create_lat).p99, "ms");
  int64_t rss_after = RssBytesOf(server);
  Row(out, "server RSS with " + std::to_string(o.creates) + " pods",
      static_cast<double>(rss_after) / (1 << 20), "MiB");
  Row(out, "server RSS growth per 100k pods",
      static_cast<double>(rss_after - rss_before) / static_cast<double>(o.creates) * 100000 /
          (1 << 20),
      "MiB");
}

// The same connections and client for the cheapest request there is: what
// HTTP over loopback alone allows on this machine (the ceiling for creates).
void PodGets(const Endpoint& port, const ApiBenchOptions& o, std::atomic<int64_t>& failures, std::FILE* out) {
  auto start = Clock::now();
  auto get_lat = Drive(port, o.connections, o.gets, [&](Connection& c, int64_t i) {
    if (c.Request(http::verb::get,
                  "/api/v1/namespaces/bench/pods/p" + std::to_string((i * 7919) % o.creates),
                  "") != 200)
      failures++;
  });
  Row(out, "GET pod/s (" + std::to_string(o.connections) + " connections)",
      static_cast<double>(o.gets) / Seconds(Clock::now() - start), "gets/s");
  Row(out, "GET pod latency p50 (" + std::to_string(o.connections) + " connections)",
      Summarize(get_lat).p50, "ms");
  Row(out, "GET pod latency p99", Summarize(get_lat).p99, "ms");
}

// Every pod in one LIST, then a page of 500.
void PodLists(const ApiBenchOptions& o, Connection& setup, std::FILE* out) {
  std::vector<double> list_lat;
  for (int i = 0; i < 5; ++i) {
    auto t = Clock::now();
    std::string body;
    setup.Request(http::verb::get, "/api/v1/namespaces/bench/pods", "", &body);
    list_lat.push_back(Seconds(Clock::now() - t) * 1000);
  }
  Row(out, "LIST " + std::to_string(o.creates) + " pods latency (median of 5)",
      Summarize(list_lat).p50, "ms");
  std::vector<double> page_lat;
  for (int i = 0; i < 20; ++i) {
    auto t = Clock::now();
    setup.Request(http::verb::get, "/api/v1/namespaces/bench/pods?limit=500", "");
    page_lat.push_back(Seconds(Clock::now() - t) * 1000);
  }
  Row(out, "LIST ?limit=500 latency (median of 20)", Summarize(page_lat).p50, "ms");
}

// `o.watchers` watches of the bench pods from the current resourceVersion,
// each request written by hand on its own connection.
std::vector<std::unique_ptr<Connection>> OpenPodWatches(const Endpoint& port, const ApiBenchOptions& o,
                                                        Connection& setup) {
  std::string body;
  setup.Request(http::verb::get, "/api/v1/namespaces/bench/pods?limit=1", "", &body);
  auto rv_pos = body.find("\"resourceVersion\":\"");
  std::string rv = body.substr(rv_pos + 19, body.find('"', rv_pos + 19) - rv_pos - 19);
  std::vector<std::unique_ptr<Connection>> watches;
  for (int w = 0; w < o.watchers; ++w) {
    watches.push_back(std::make_unique<Connection>(port));
    std::string req = "GET /api/v1/namespaces/bench/pods?watch=true&resourceVersion=" + rv +
                      " HTTP/1.1\r\nHost: x\r\n" +
                      (port.token.empty() ? "" : "Authorization: Bearer " + port.token + "\r\n") + "\r\n";
    watches.back()->Write(req);
  }
  return watches;
}

// Reads `watch` until it has seen `events` ADDED events (true) or the stream
// ends first (false).
bool SawEveryEvent(Connection& watch, int64_t events) {
  const std::string marker = "\"type\":\"ADDED\"";
  int64_t seen = 0;
  std::string tail;
  char buf[65536];
  while (seen < events) {
    boost::system::error_code ec;
    size_t n = watch.ReadSome(buf, sizeof buf, ec);
    if (ec) break;
    tail.append(buf, n);
    size_t pos = 0;
    while ((pos = tail.find(marker, pos)) != std::string::npos) {
      ++seen;
      pos += marker.size();
    }
    tail.erase(0, tail.size() > marker.size() ? tail.size() - marker.size() : 0);
  }
  return seen >= events;
}

// Watch fan-out: every watcher must see every event. Returns how many did.
int WatchFanOut(const Endpoint& port, const ApiBenchOptions& o, Connection& setup, std::atomic<int64_t>& failures,
                std::FILE* out) {
  auto watches = OpenPodWatches(port, o, setup);
  std::atomic<int> complete{0};
  std::vector<std::thread> readers;
  for (int w = 0; w < o.watchers; ++w) {
    readers.emplace_back([&, w] {
      if (SawEveryEvent(*watches[static_cast<size_t>(w)], o.watch_events)) complete++;
    });
  }
  auto start = Clock::now();
  Drive(port, 4, o.watch_events, [&](Connection& c, int64_t i) {
    if (c.Request(http::verb::post, "/api/v1/namespaces/bench/pods",
                  SyntheticPodJson("bench", "w" + std::to_string(i), PodShape{})) != 201)
      failures++;
  });
  for (auto& r : readers) r.join();
  double elapsed = Seconds(Clock::now() - start);
  Row(out, "watch fan-out: watchers that saw every event", complete.load(),
      "of " + std::to_string(o.watchers));
  Row(out, "watch fan-out: events delivered/s (" + std::to_string(o.watchers) + " watchers)",
      static_cast<double>(o.watch_events) * o.watchers / elapsed, "events/s");
  return complete.load();
}

// The ceiling under the creates above: the same etcd through the store
// alone (the server is idle meanwhile).
void EtcdStoreAlone(const ApiBenchOptions& o, const std::string& etcd_prefix, std::atomic<int64_t>& failures,
                    std::FILE* out, std::FILE* err) {
  auto alone = EtcdStoreCreates(o.etcd_servers, etcd_prefix + "-store", o.connections, o.creates);
  if (!alone.ok()) {
    std::fprintf(err, "berth api-bench: the etcd store alone: %s\n", alone.status().message().c_str());
    failures++;
  } else {
    Row(out, "pod creates/s through the etcd store alone, " + std::to_string(o.connections) + " in flight",
        alone->creates_per_second, "creates/s");
    Row(out, "  its process's CPU per create", alone->cpu_us_per_create, "us");
    Row(out, "  store create latency p50", alone->latency_p50_ms, "ms");
    Row(out, "  store create latency p99", alone->latency_p99_ms, "ms");
    failures += alone->failures;
  }
}

}  // namespace

int ApiBench(const ApiBenchOptions& o, std::FILE* out, std::FILE* err) {
  namespace fs = std::filesystem;
  fs::remove_all(o.dir);
  fs::create_directories(o.dir);
  const ServerLaunch launch = ServerLaunchFor(o, FreeLoopbackPort());
  std::optional<ssl::context> tls_client;
  if (!launch.tls_dir.empty() && !LoadTlsClient(launch.tls_dir, tls_client, err)) return 2;
  if (!o.authorization_mode.empty() && !WriteTokenFile(o.dir, launch.tokens, err)) return 1;
  const Endpoint port{launch.port, tls_client ? &*tls_client : nullptr,
                      o.authorization_mode.empty() ? "" : "bench-token"};
  pid_t server = StartServer(o, launch);
  WaitUntilHealthy(port);
  pid_t scheduler = -1;
  if (o.external_scheduler) {
    const std::string kubeconfig = o.dir + "/scheduler.kubeconfig";
    if (!launch.tls_dir.empty() && !WriteSchedulerKubeconfig(kubeconfig, launch, err)) return 1;
    scheduler = StartExternalScheduler(o, launch, kubeconfig);
  }
  auto stop = [&] {
    int status;
    if (scheduler > 0) {
      kill(scheduler, SIGTERM);
      waitpid(scheduler, &status, 0);
    }
    kill(server, SIGTERM);
    waitpid(server, &status, 0);
  };
  try {
    std::fprintf(out, "%-56s %14s %s\n", "metric", "value", "unit");
    if (!o.authorization_mode.empty()) GrantBenchClusterAdmin(port);
    Connection setup(port);
    setup.Request(http::verb::post, "/api/v1/namespaces",
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})");
    // The account pods run as (ServiceAccount admission), made here as the
    // serviceaccount controller would (--api-only runs none); a 409 when
    // the controller was first.
    setup.Request(http::verb::post, "/api/v1/namespaces/bench/serviceaccounts",
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})");
    std::atomic<int64_t> failures{0};
    if (o.nodes > 0) RegisterNodes(port, o, failures);
    if (o.custom_objects > 0) CustomObjectCreates(port, o, setup, failures, out, server);
    if (o.secrets > 0) SecretCreates(port, o, failures, out, server);
    PodCreates(port, o, setup, failures, out, server);
    PodGets(port, o, failures, out);
    PodLists(o, setup, out);
    const int complete = WatchFanOut(port, o, setup, failures, out);
    if (!o.etcd_servers.empty()) EtcdStoreAlone(o, launch.etcd_prefix, failures, out, err);
    Row(out, "failed requests", static_cast<double>(failures.load()), "");
    stop();
    fs::remove_all(o.dir);
    return failures.load() == 0 && complete == o.watchers ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(err, "berth api-bench: %s\n", e.what());
    stop();
    return 1;
  }
}

}  // namespace berth::perf
