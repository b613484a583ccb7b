// Scheduler extenders: the configuration and its validation, kube's wire
// format, and the scheduler calling a small HTTP extender on 127.0.0.1.

#include "scheduler/extender/extender.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <functional>
#include <thread>

#include "fake_cluster.h"
#include "scheduler/extender/extender_wire.h"
#include "scheduler/framework/config.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

namespace json = boost::json;
using testing::FakeCluster;
using testing::NodeObject;
using testing::Pod;

// ---- A small HTTP/1.1 server: one thread per connection, keep-alive ----

class TestExtenderServer {
 public:
  struct Answer {
    int status = 200;
    std::string body;
    std::chrono::milliseconds delay{0};
  };
  using Handler = std::function<Answer(const std::string& path, const json::value& body)>;

  explicit TestExtenderServer(Handler handler) : handler_(std::move(handler)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;  // a free port
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    socklen_t len = sizeof addr;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(listener_, 64);
    acceptor_ = std::thread([this] { Accept(); });
  }
  ~TestExtenderServer() {
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    acceptor_.join();
    std::lock_guard lock(mu_);
    for (int fd : connections_fds_) shutdown(fd, SHUT_RDWR);
    for (auto& t : connections_) t.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return accepted_.load(); }
  // The bodies received, by path, in order.
  std::vector<json::value> Received(const std::string& path) {
    std::lock_guard lock(mu_);
    std::vector<json::value> out;
    for (const auto& [p, body] : received_) {
      if (p == path) out.push_back(body);
    }
    return out;
  }

 private:
  void Accept() {
    while (!stopping_) {
      int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      accepted_++;
      std::lock_guard lock(mu_);
      connections_fds_.push_back(fd);
      connections_.emplace_back([this, fd] { Serve(fd); });
    }
  }

  void Serve(int fd) {
    std::string buffer;
    char chunk[65536];
    while (true) {
      size_t header_end;
      while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n <= 0) return close(fd), void();
        buffer.append(chunk, n);
      }
      std::string headers = buffer.substr(0, header_end);
      size_t length = 0;
      if (size_t at = headers.find("Content-Length: "); at != std::string::npos) {
        length = std::stoul(headers.substr(at + 16));
      }
      while (buffer.size() < header_end + 4 + length) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n <= 0) return close(fd), void();
        buffer.append(chunk, n);
      }
      std::string path = headers.substr(5, headers.find(' ', 5) - 5);  // "POST /path HTTP/1.1"
      json::value body = json::parse(buffer.substr(header_end + 4, length));
      buffer.erase(0, header_end + 4 + length);
      {
        std::lock_guard lock(mu_);
        received_.emplace_back(path, body);
      }
      Answer answer = handler_(path, body);
      if (answer.delay.count() > 0) std::this_thread::sleep_for(answer.delay);
      std::string response = "HTTP/1.1 " + std::to_string(answer.status) +
                             " X\r\nContent-Type: application/json\r\nContent-Length: " +
                             std::to_string(answer.body.size()) + "\r\n\r\n" + answer.body;
      if (send(fd, response.data(), response.size(), MSG_NOSIGNAL) < 0) return close(fd), void();
    }
  }

  Handler handler_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> connections_;                       // guarded by mu_
  std::vector<int> connections_fds_;                           // guarded by mu_
  std::vector<std::pair<std::string, json::value>> received_;  // guarded by mu_
};

// The node names an ExtenderArgs carries, in either form.
std::vector<std::string> NodesIn(const json::value& args) {
  std::vector<std::string> out;
  const json::object& o = args.as_object();
  if (!o.at("NodeNames").is_null()) {
    for (const auto& n : o.at("NodeNames").as_array()) out.emplace_back(n.as_string());
  } else {
    for (const auto& n : o.at("Nodes").at("items").as_array())
      out.emplace_back(n.at("metadata").at("name").as_string());
  }
  return out;
}

std::string Config(const std::string& extenders) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: "
         "KubeSchedulerConfiguration\nextenders:\n" +
         extenders;
}

// ---- Configuration ----

TEST(ExtenderConfig, ReadsEveryField) {
  auto parsed = ParseSchedulerConfig(Config(R"(- urlPrefix: https://extender.example:8443/scheduler
  filterVerb: filter
  prioritizeVerb: prioritize
  preemptVerb: preempt
  bindVerb: bind
  weight: 3
  enableHTTPS: true
  tlsConfig:
    insecure: false
    serverName: extender.example
    certFile: /etc/c.crt
    keyFile: /etc/c.key
    caFile: /etc/ca.crt
    caData: aGVsbG8=
  httpTimeout: 1m30s
  nodeCacheCapable: true
  managedResources:
  - name: example.com/gpu
    ignoredByScheduler: true
  ignorable: true
- urlPrefix: http://127.0.0.1:9000
)"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->extenders.size(), 2u);
  const ExtenderConfig& e = parsed->extenders[0];
  EXPECT_EQ(e.url_prefix, "https://extender.example:8443/scheduler");
  EXPECT_EQ(e.filter_verb, "filter");
  EXPECT_EQ(e.prioritize_verb, "prioritize");
  EXPECT_EQ(e.preempt_verb, "preempt");
  EXPECT_EQ(e.bind_verb, "bind");
  EXPECT_EQ(e.weight, 3);
  EXPECT_TRUE(e.enable_https);
  ASSERT_TRUE(e.tls_config.has_value());
  EXPECT_EQ(e.tls_config->server_name, "extender.example");
  EXPECT_EQ(e.tls_config->ca_file, "/etc/ca.crt");
  EXPECT_EQ(e.tls_config->ca_data, "hello");  // base64, as Go reads []byte
  EXPECT_EQ(e.http_timeout, std::chrono::seconds(90));
  EXPECT_TRUE(e.node_cache_capable);
  ASSERT_EQ(e.managed_resources.size(), 1u);
  EXPECT_EQ(e.managed_resources[0].name, "example.com/gpu");
  EXPECT_TRUE(e.managed_resources[0].ignored_by_scheduler);
  EXPECT_TRUE(e.ignorable);
  // Unset: kube's zero values (the timeout becomes 5s when the extender is built).
  const ExtenderConfig& plain = parsed->extenders[1];
  EXPECT_EQ(plain.http_timeout.count(), 0);
  EXPECT_FALSE(plain.tls_config.has_value());
  EXPECT_FALSE(plain.ignorable);
}

TEST(ExtenderConfig, ValidationErrorsNameTheField) {
  struct Case {
    const char* name;
    std::string extenders;
    std::string error;
  };
  const Case cases[] = {
      {"prioritizer without weight", "- urlPrefix: http://a\n  prioritizeVerb: p\n",
       "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"},
      {"negative weight", "- urlPrefix: http://a\n  prioritizeVerb: p\n  weight: -2\n",
       "extenders[0].weight: Invalid value: -2: must have a positive weight applied to it"},
      {"two binders",
       "- urlPrefix: http://a\n  bindVerb: b\n- urlPrefix: http://b\n  bindVerb: b\n",
       "extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can "
       "implement bind"},
      {"native resource", "- urlPrefix: http://a\n  managedResources:\n  - name: cpu\n",
       "extenders[0].managedResources[0].name: Invalid value: \"cpu\": is an invalid extended "
       "resource name"},
      {"kubernetes.io resource",
       "- urlPrefix: http://a\n  managedResources:\n  - name: kubernetes.io/x\n",
       "extenders[0].managedResources[0].name: Invalid value: \"kubernetes.io/x\": is an invalid "
       "extended resource "
       "name"},
      {"malformed resource",
       "- urlPrefix: http://a\n  managedResources:\n  - name: example.com/-x\n",
       "extenders[0].managedResources[0].name: Invalid value: \"example.com/-x\": name part must "
       "consist of"},
      {"resource managed twice",
       "- urlPrefix: http://a\n  managedResources:\n  - name: example.com/gpu\n- urlPrefix: "
       "http://b\n"
       "  managedResources:\n  - name: example.com/gpu\n",
       "extenders[1].managedResources[0].name: Invalid value: \"example.com/gpu\": duplicate "
       "extender managed "
       "resource name"},
      {"bad timeout", "- urlPrefix: http://a\n  httpTimeout: soon\n",
       "extenders[0].httpTimeout: Invalid value: \"soon\": must be a duration"},
      {"bad base64", "- urlPrefix: http://a\n  tlsConfig:\n    caData: '%%%'\n",
       "extenders[0].tlsConfig.caData: Invalid value: \"%%%\": must be base64-encoded bytes"},
      {"unknown field", "- urlPrefix: http://a\n  filterverb: f\n",
       "unknown field \"extenders[0].filterverb\""},
      {"not a list", "  urlPrefix: http://a\n", "extenders: Invalid value: {...}: must be a list"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseSchedulerConfig(Config(c.extenders));
    ASSERT_FALSE(parsed.ok()) << c.name;
    EXPECT_NE(parsed.status().message().find(c.error), std::string::npos)
        << c.name << ": " << parsed.status().message();
  }
}

TEST(ExtenderConfig, AnUnusableUrlFailsTheSchedulerAtStart) {
  SchedulerConfig config;
  config.extenders.push_back({.url_prefix = "ftp://x", .filter_verb = "filter"});
  auto s = Scheduler::Create(config, InTreeRegistry(), {}, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("extenders[0].urlPrefix"), std::string::npos)
      << s.status().message();
}

// ---- Wire format ----

TEST(ExtenderWire, ArgsCarryThePodAndANodeListOrNames) {
  auto pod = Pod("p");
  auto a = std::make_shared<NodeInfo>(NodeObject("a"));
  auto b = std::make_shared<NodeInfo>(NodeObject("b"));
  const NodeInfo* nodes[] = {a.get(), b.get()};

  json::value full = json::parse(EncodeExtenderArgs(*pod->object, nodes, false));
  EXPECT_EQ(full.at("Pod").at("metadata").at("name").as_string(), "p");
  EXPECT_TRUE(full.at("NodeNames").is_null());
  EXPECT_EQ(full.at("Nodes").at("items").as_array().size(), 2u);
  EXPECT_EQ(full.at("Nodes").at("items").at(1).at("status").at("allocatable").at("cpu").as_string(),
            "4");

  json::value names = json::parse(EncodeExtenderArgs(*pod->object, nodes, true));
  EXPECT_TRUE(names.at("Nodes").is_null());
  EXPECT_EQ(names.at("NodeNames"), json::parse(R"(["a","b"])"));
}

TEST(ExtenderWire, FilterResultKeysAreReadWithoutRegardToCase) {
  // Go's encoding/json matches keys case-insensitively; extenders in other
  // languages often write them in lower case.
  auto r = DecodeExtenderFilterResult(
      R"({"nodenames":["a"],"failedNodes":{"b":"no disk"},"FAILEDANDUNRESOLVABLENODES":{"c":"gone"},"error":"",
          "extra":1})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->node_names, (std::vector<std::string>{"a"}));
  EXPECT_FALSE(r->nodes.has_value());
  ASSERT_EQ(r->failed_nodes.size(), 1u);
  EXPECT_EQ(r->failed_nodes[0], (std::pair<std::string, std::string>{"b", "no disk"}));
  EXPECT_EQ(r->failed_and_unresolvable_nodes[0].second, "gone");

  auto list = DecodeExtenderFilterResult(
      R"({"Nodes":{"items":[{"metadata":{"name":"x"}}]},"Error":"boom"})");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->nodes, (std::vector<std::string>{"x"}));
  EXPECT_EQ(list->error, "boom");

  EXPECT_FALSE(DecodeExtenderFilterResult(R"({"NodeNames":"a"})").ok());
  EXPECT_FALSE(DecodeExtenderFilterResult("not json").ok());
}

TEST(ExtenderWire, PrioritiesBindingAndPreemption) {
  auto scores = DecodeHostPriorityList(R"([{"Host":"a","Score":7},{"host":"b","score":0}])");
  ASSERT_TRUE(scores.ok());
  ASSERT_EQ(scores->size(), 2u);
  EXPECT_EQ((*scores)[0].host, "a");
  EXPECT_EQ((*scores)[0].score, 7);
  EXPECT_FALSE(DecodeHostPriorityList(R"([{"Host":"a","Score":"high"}])").ok());

  auto pod = Pod("p");
  EXPECT_EQ(
      json::parse(EncodeExtenderBindingArgs(*pod->object, "n1")),
      json::parse(R"({"PodName":"p","PodNamespace":"default","PodUID":"uid-p","Node":"n1"})"));
  EXPECT_EQ(DecodeExtenderBindingResult(R"({"Error":"no"})").value(), "no");
  EXPECT_EQ(DecodeExtenderBindingResult("{}").value(), "");

  std::vector<std::pair<std::string, PreemptionVictims>> candidates = {{"n1", {{Pod("v")}, 1}}};
  json::value meta = json::parse(EncodeExtenderPreemptionArgs(*pod->object, candidates, true));
  EXPECT_TRUE(meta.at("NodeNameToVictims").is_null());
  EXPECT_EQ(meta.at("NodeNameToMetaVictims"),
            json::parse(R"({"n1":{"Pods":[{"UID":"uid-v"}],"NumPDBViolations":1}})"));
  json::value whole = json::parse(EncodeExtenderPreemptionArgs(*pod->object, candidates, false));
  EXPECT_TRUE(whole.at("NodeNameToMetaVictims").is_null());
  EXPECT_EQ(
      whole.at("NodeNameToVictims").at("n1").at("Pods").at(0).at("metadata").at("name").as_string(),
      "v");

  auto result = DecodeExtenderPreemptionResult(
      R"({"NodeNameToMetaVictims":{"n1":{"Pods":[{"UID":"u1"},{"UID":"u2"}],"NumPDBViolations":2}}})");
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->size(), 1u);
  EXPECT_EQ((*result)[0].first, "n1");
  EXPECT_EQ((*result)[0].second.pod_uids, (std::vector<std::string>{"u1", "u2"}));
  EXPECT_EQ((*result)[0].second.pdb_violations, 2);
}

// ---- One extender over HTTP ----

struct ExtenderFixture : ::testing::Test {
  metrics::Registry registry;
  metrics::Family<metrics::Histogram>& durations = registry.AddHistogram(
      "scheduler_extender_request_duration_seconds", "", metrics::ExponentialBuckets(0.0001, 2, 18),
      {"extender", "verb", "result"});
  std::shared_ptr<NodeInfo> a = std::make_shared<NodeInfo>(NodeObject("a"));
  std::shared_ptr<NodeInfo> b = std::make_shared<NodeInfo>(NodeObject("b"));
  std::shared_ptr<NodeInfo> c = std::make_shared<NodeInfo>(NodeObject("c"));
  std::vector<const NodeInfo*> nodes{a.get(), b.get(), c.get()};

  std::unique_ptr<Extender> Make(ExtenderConfig config) {
    auto e = Extender::Create(config, durations);
    EXPECT_TRUE(e.ok()) << e.status().message();
    return std::move(e).value();
  }
};

TEST_F(ExtenderFixture, FilterKeepsTheNodesTheExtenderReturns) {
  TestExtenderServer server([](const std::string&, const json::value& args) {
    json::array items;
    for (const auto& n : args.at("Nodes").at("items").as_array()) {
      if (n.at("metadata").at("name") != "b") items.push_back(n);
    }
    json::object result{{"Nodes", json::object{{"items", items}}},
                        {"FailedNodes", json::object{{"b", "too warm"}}}};
    return TestExtenderServer::Answer{200, json::serialize(result)};
  });
  auto e = Make({.url_prefix = server.url() + "/", .filter_verb = "filter"});
  auto r = e->Filter(*Pod("p"), nodes);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->feasible, (std::vector<const NodeInfo*>{a.get(), c.get()}));
  EXPECT_EQ(r->failed, (std::vector<std::pair<std::string, std::string>>{{"b", "too warm"}}));
  // The trailing '/' of urlPrefix is not doubled.
  EXPECT_EQ(server.Received("/filter").size(), 1u);
}

TEST_F(ExtenderFixture, NodeCacheCapableExtendersExchangeNames) {
  TestExtenderServer server([](const std::string&, const json::value& args) {
    EXPECT_TRUE(args.at("Nodes").is_null());
    return TestExtenderServer::Answer{200, R"({"NodeNames":["c"]})"};
  });
  auto e = Make({.url_prefix = server.url(), .filter_verb = "filter", .node_cache_capable = true});
  auto r = e->Filter(*Pod("p"), nodes);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->feasible, (std::vector<const NodeInfo*>{c.get()}));
  EXPECT_EQ(NodesIn(server.Received("/filter").at(0)), (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(ExtenderFixture, FilterErrors) {
  std::string answer;
  TestExtenderServer server([&](const std::string&, const json::value&) {
    if (answer == "500") return TestExtenderServer::Answer{500, "{}"};
    return TestExtenderServer::Answer{200, answer};
  });
  auto e = Make({.url_prefix = server.url(), .filter_verb = "filter", .node_cache_capable = true});
  answer = R"({"Error":"the extender is unhappy"})";
  EXPECT_EQ(e->Filter(*Pod("p"), nodes).status().message(), "the extender is unhappy");
  answer = R"({"NodeNames":["elsewhere"]})";
  EXPECT_NE(
      e->Filter(*Pod("p"), nodes).status().message().find("claims a filtered node \"elsewhere\""),
      std::string::npos);
  answer = "500";
  EXPECT_EQ(e->Filter(*Pod("p"), nodes).status().message(),
            "failed filter with extender at URL " + server.url() + "/filter, code 500");
  // Neither Nodes nor NodeNames: no node passed (as in kube).
  answer = "{}";
  EXPECT_TRUE(e->Filter(*Pod("p"), nodes).value().feasible.empty());

  auto refused = Make({.url_prefix = "http://127.0.0.1:1", .filter_verb = "filter"});
  auto r = refused->Filter(*Pod("p"), nodes);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("Post \"http://127.0.0.1:1/filter\": "), std::string::npos)
      << r.status().message();
}

TEST_F(ExtenderFixture, ACallLongerThanHttpTimeoutFails) {
  TestExtenderServer server([](const std::string&, const json::value&) {
    return TestExtenderServer::Answer{200, R"({"NodeNames":["a"]})",
                                      std::chrono::milliseconds(600)};
  });
  auto e = Make({.url_prefix = server.url(),
                 .filter_verb = "filter",
                 .http_timeout = std::chrono::milliseconds(100),
                 .node_cache_capable = true});
  auto start = std::chrono::steady_clock::now();
  auto r = e->Filter(*Pod("p"), nodes);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("no answer within 100ms"), std::string::npos)
      << r.status().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST_F(ExtenderFixture, ConnectionsAreKeptAlive) {
  TestExtenderServer server([](const std::string&, const json::value&) {
    return TestExtenderServer::Answer{200, R"([{"Host":"a","Score":1}])"};
  });
  auto e = Make({.url_prefix = server.url(), .prioritize_verb = "prioritize", .weight = 1});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(e->Prioritize(*Pod("p"), nodes).ok());
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(server.Received("/prioritize").size(), 5u);
}

TEST_F(ExtenderFixture, ManagedResourcesDecideInterest) {
  auto any = Make({.url_prefix = "http://127.0.0.1:1"});
  auto gpu =
      Make({.url_prefix = "http://127.0.0.1:1", .managed_resources = {{"example.com/gpu", false}}});
  auto plain = Pod("plain");
  auto requests =
      Pod("requests",
          R"({"containers":[{"name":"c","resources":{"requests":{"example.com/gpu":"1"}}}]})");
  auto limits = Pod(
      "limits", R"({"containers":[{"name":"c","resources":{"limits":{"example.com/gpu":"1"}}}]})");
  auto init = Pod("init", R"({"containers":[{"name":"c"}],
      "initContainers":[{"name":"i","resources":{"requests":{"example.com/gpu":"1"}}}]})");
  EXPECT_TRUE(any->IsInterested(*plain));
  EXPECT_FALSE(gpu->IsInterested(*plain));
  EXPECT_TRUE(gpu->IsInterested(*requests));
  EXPECT_TRUE(gpu->IsInterested(*limits));
  EXPECT_TRUE(gpu->IsInterested(*init));
}

// ---- The scheduler with extenders ----

// An extender that rejects the nodes labelled reject=true (with a reason)
// and gives node "b" the top score; it records what it was asked.
TestExtenderServer::Handler LabelExtender() {
  return [](const std::string& path, const json::value& args) -> TestExtenderServer::Answer {
    if (path == "/filter") {
      json::array kept;
      json::object failed;
      for (const auto& n : args.at("Nodes").at("items").as_array()) {
        const json::value* labels = n.at("metadata").as_object().if_contains("labels");
        if (labels && labels->as_object().if_contains("reject")) {
          failed[n.at("metadata").at("name").as_string()] =
              "node(s) were rejected by the label extender";
        } else {
          kept.push_back(n);
        }
      }
      return {200, json::serialize(json::object{{"Nodes", json::object{{"items", kept}}},
                                                {"FailedNodes", failed}})};
    }
    if (path == "/prioritize") {
      json::array scores;
      for (const auto& n : args.at("Nodes").at("items").as_array()) {
        auto name = n.at("metadata").at("name").as_string();
        scores.push_back(json::object{{"Host", name}, {"Score", name == "b" ? 10 : 0}});
      }
      return {200, json::serialize(scores)};
    }
    if (path == "/bind") return {200, "{}"};
    return {404, ""};
  };
}

SchedulerConfig WithExtender(ExtenderConfig e) {
  SchedulerConfig config;
  config.extenders.push_back(std::move(e));
  return config;
}

TEST(SchedulerWithExtenders, PodsLandWhereTheExtenderSays) {
  TestExtenderServer server(LabelExtender());
  FakeCluster cluster({}, WithExtender({.url_prefix = server.url(),
                                        .filter_verb = "filter",
                                        .prioritize_verb = "prioritize",
                                        .weight = 5}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a"));
  s.OnNodeAdd(NodeObject("b"));
  s.OnNodeAdd(NodeObject("c", "4", "8Gi", R"({"reject":"true"})"));
  s.Start();
  for (int i = 0; i < 3; ++i) s.OnPodAdd(Pod("p" + std::to_string(i))->object);
  ASSERT_TRUE(cluster.WaitIdle());
  auto placements = cluster.Placements();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(placements["default/p" + std::to_string(i)], "b");
  // The extender's prioritize saw only what its filter kept.
  for (const auto& args : server.Received("/prioritize")) {
    EXPECT_EQ(NodesIn(args), (std::vector<std::string>{"a", "b"}));
  }
  EXPECT_NE(s.RenderMetrics().find("scheduler_extender_request_duration_seconds_count{extender=\"" +
                                   server.url() + "\",verb=\"filter\",result=\"success\"} 3"),
            std::string::npos)
      << s.RenderMetrics();
}

TEST(SchedulerWithExtenders, APrioritizerScoresEvenWithoutScorePlugins) {
  TestExtenderServer server(LabelExtender());
  SchedulerConfig config =
      WithExtender({.url_prefix = server.url(), .prioritize_verb = "prioritize", .weight = 1});
  ProfileConfig profile;
  profile.plugins.score.disabled.push_back({"*"});
  config.profiles.push_back(profile);
  FakeCluster cluster({}, config);
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a"));
  s.OnNodeAdd(NodeObject("b"));
  s.OnNodeAdd(NodeObject("c"));
  s.Start();
  for (int i = 0; i < 3; ++i) s.OnPodAdd(Pod("p" + std::to_string(i))->object);
  ASSERT_TRUE(cluster.WaitIdle());
  auto placements = cluster.Placements();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(placements["default/p" + std::to_string(i)], "b");
}

TEST(SchedulerWithExtenders, TheExtendersReasonsAreInTheFailure) {
  TestExtenderServer server(LabelExtender());
  FakeCluster cluster({}, WithExtender({.url_prefix = server.url(), .filter_verb = "filter"}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a", "4", "8Gi", R"({"reject":"true"})"));
  s.OnNodeAdd(NodeObject("b", "4", "8Gi", R"({"reject":"true"})"));
  s.OnNodeAdd(NodeObject("small", "1"));
  s.Start();
  s.OnPodAdd(testing::PodRequesting("big", "2", "")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.FailureOf("default/big"),
            "Unschedulable: 0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were rejected "
            "by the label "
            "extender. preemption: 0/3 nodes are available: 3 No preemption victims found for "
            "incoming pod..");
}

TEST(SchedulerWithExtenders, UnresolvableRejectionsAreNotPreemptionCandidates) {
  TestExtenderServer server([](const std::string&, const json::value&) {
    return TestExtenderServer::Answer{
        200, R"({"NodeNames":[],"FailedAndUnresolvableNodes":{"a":"gone for good"}})"};
  });
  FakeCluster cluster(
      {}, WithExtender(
              {.url_prefix = server.url(), .filter_verb = "filter", .node_cache_capable = true}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a"));
  s.Start();
  s.OnPodAdd(Pod("p")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.FailureOf("default/p"),
            "Unschedulable: 0/1 nodes are available: 1 gone for good. preemption: 0/1 nodes are "
            "available: 1 "
            "Preemption is not helpful for scheduling..");
}

TEST(SchedulerWithExtenders, IgnorableErrorsAreSkippedOthersFailTheAttempt) {
  for (bool ignorable : {true, false}) {
    FakeCluster cluster({}, WithExtender({.url_prefix = "http://127.0.0.1:1",
                                          .filter_verb = "filter",
                                          .http_timeout = std::chrono::milliseconds(500),
                                          .ignorable = ignorable}));
    auto& s = *cluster.scheduler;
    s.OnNodeAdd(NodeObject("a"));
    s.Start();
    s.OnPodAdd(Pod("p")->object);
    if (ignorable) {
      ASSERT_TRUE(cluster.WaitIdle());
      EXPECT_EQ(cluster.Placements()["default/p"], "a");
    } else {
      // Backing off after an error, the pod is retried: wait for the first report.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (cluster.FailureOf("default/p").empty() &&
             std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      EXPECT_EQ(cluster.FailureOf("default/p")
                    .rfind("SchedulerError: Post \"http://127.0.0.1:1/filter\": ", 0),
                0u)
          << cluster.FailureOf("default/p");
      EXPECT_TRUE(cluster.Placements().empty());
    }
  }
}

TEST(SchedulerWithExtenders, PrioritizeErrorsAreIgnored) {
  TestExtenderServer server([](const std::string&, const json::value&) {
    return TestExtenderServer::Answer{500, ""};
  });
  FakeCluster cluster(
      {}, WithExtender({.url_prefix = server.url(), .prioritize_verb = "prioritize", .weight = 1}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a"));
  s.OnNodeAdd(NodeObject("b"));
  s.Start();
  s.OnPodAdd(Pod("p")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_FALSE(cluster.Placements()["default/p"].empty());
  EXPECT_EQ(server.Received("/prioritize").size(), 1u);
}

TEST(SchedulerWithExtenders, TheBinderExtenderBindsInsteadOfTheBindPlugin) {
  TestExtenderServer server(LabelExtender());
  FakeCluster cluster({}, WithExtender({.url_prefix = server.url(), .bind_verb = "bind"}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a"));
  s.Start();
  s.OnPodAdd(Pod("p")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_TRUE(cluster.Placements().empty());  // DefaultBinder did not bind
  EXPECT_EQ(s.stats().scheduled, 1u);
  auto binds = server.Received("/bind");
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds[0],
            json::parse(R"({"PodName":"p","PodNamespace":"default","PodUID":"uid-p","Node":"a"})"));
}

TEST(SchedulerWithExtenders, ABinderThatFailsFailsTheBinding) {
  TestExtenderServer server([](const std::string&, const json::value&) {
    return TestExtenderServer::Answer{200, R"({"Error":"the node is not ready for it"})"};
  });
  FakeCluster cluster({}, WithExtender({.url_prefix = server.url(), .bind_verb = "bind"}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a"));
  s.Start();
  s.OnPodAdd(Pod("p")->object);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cluster.FailureOf("default/p").empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(cluster.FailureOf("default/p"),
            "SchedulerError: binding rejected: the node is not ready for it");
}

TEST(SchedulerWithExtenders, AnUninterestedExtenderIsNotCalled) {
  TestExtenderServer server(LabelExtender());
  FakeCluster cluster({}, WithExtender({.url_prefix = server.url(),
                                        .filter_verb = "filter",
                                        .managed_resources = {{"example.com/gpu", false}}}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("a", "4", "8Gi", R"({"reject":"true"})"));
  s.Start();
  s.OnPodAdd(Pod("p")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  EXPECT_EQ(cluster.Placements()["default/p"], "a");
  EXPECT_TRUE(server.Received("/filter").empty());
}

TEST(SchedulerWithExtenders, ResourcesIgnoredBySchedulerAreNotCheckedByNodeResourcesFit) {
  const std::string spec =
      R"({"containers":[{"name":"c","resources":{"requests":{"example.com/gpu":"1"}}}]})";
  for (bool ignored : {false, true}) {
    TestExtenderServer server(LabelExtender());
    FakeCluster cluster({}, WithExtender({.url_prefix = server.url(),
                                          .filter_verb = "filter",
                                          .managed_resources = {{"example.com/gpu", ignored}}}));
    auto& s = *cluster.scheduler;
    s.OnNodeAdd(NodeObject("a"));  // no example.com/gpu
    s.Start();
    s.OnPodAdd(Pod("gpu", spec)->object);
    ASSERT_TRUE(cluster.WaitIdle());
    if (ignored) {
      EXPECT_EQ(cluster.Placements()["default/gpu"], "a");
    } else {
      EXPECT_NE(cluster.FailureOf("default/gpu").find("Insufficient example.com/gpu"),
                std::string::npos)
          << cluster.FailureOf("default/gpu");
    }
  }
}

PodInfoPtr PriorityPod(const std::string& name, int priority, const std::string& cpu,
                       const std::string& node = "") {
  return Pod(name, R"({"priority":)" + std::to_string(priority) +
                       (node.empty() ? "" : R"(,"nodeName":")" + node + "\"") +
                       R"(,"containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
                       R"("}}}]})");
}

TEST(SchedulerWithExtenders, PreemptExtendersNarrowTheCandidates) {
  // Two nodes where preemption would work; the extender keeps only n2 (with
  // the victim the scheduler proposed there).
  TestExtenderServer server([](const std::string&, const json::value& args) {
    json::object kept{{"n2", args.at("NodeNameToMetaVictims").at("n2")}};
    return TestExtenderServer::Answer{
        200, json::serialize(json::object{{"NodeNameToMetaVictims", kept}})};
  });
  FakeCluster cluster(
      {}, WithExtender(
              {.url_prefix = server.url(), .preempt_verb = "preempt", .node_cache_capable = true}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("n1", "1"));
  s.OnNodeAdd(NodeObject("n2", "1"));
  s.OnPodAdd(PriorityPod("low-1", 0, "1", "n1")->object);
  s.OnPodAdd(PriorityPod("low-2", 0, "1", "n2")->object);
  s.Start();
  s.OnPodAdd(PriorityPod("high", 10, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  {
    std::lock_guard lock(cluster.mu);
    EXPECT_EQ(cluster.preempted,
              (std::vector<std::string>{"default/low-2 for default/high on n2"}));
  }
  auto asked = server.Received("/preempt");
  ASSERT_FALSE(asked.empty());
  EXPECT_EQ(asked[0].at("NodeNameToMetaVictims").as_object().size(), 2u);
  EXPECT_EQ(asked[0].at("NodeNameToMetaVictims").at("n1"),
            json::parse(R"({"Pods":[{"UID":"uid-low-1"}],"NumPDBViolations":0})"));
}

TEST(SchedulerWithExtenders, APreemptExtenderThatKeepsNothingStopsPreemption) {
  TestExtenderServer server([](const std::string&, const json::value& args) {
    EXPECT_FALSE(args.at("NodeNameToVictims").is_null());  // whole pods: not node-cache-capable
    return TestExtenderServer::Answer{200, R"({"NodeNameToMetaVictims":{}})"};
  });
  FakeCluster cluster({}, WithExtender({.url_prefix = server.url(), .preempt_verb = "preempt"}));
  auto& s = *cluster.scheduler;
  s.OnNodeAdd(NodeObject("n1", "1"));
  s.OnPodAdd(PriorityPod("low", 0, "1", "n1")->object);
  s.Start();
  s.OnPodAdd(PriorityPod("high", 10, "1")->object);
  ASSERT_TRUE(cluster.WaitIdle());
  std::lock_guard lock(cluster.mu);
  EXPECT_TRUE(cluster.preempted.empty());
  EXPECT_EQ(cluster.failures["default/high"],
            "Unschedulable: 0/1 nodes are available: 1 Insufficient cpu. preemption: no candidate "
            "node for "
            "preemption.");
}

}  // namespace
}  // namespace berth::scheduler
