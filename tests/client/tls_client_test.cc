// HttpClient over TLS against berth's HTTP server, with certificates made by
// the test (openssl CLI): the chain is verified against the configured CA,
// the server's IP or DNS SAN against the host or tls-server-name, client
// certificates are verified by the server and mapped to user and groups, and
// watches stream over TLS too. Then the client's limits: 429 retried with
// Retry-After, writes not retried on a bare 500, requests in flight bounded,
// metrics counted.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/authz/authentication.h"
#include "apiserver/http_server.h"
#include "apiserver/serving_options.h"
#include "client/http_client.h"
#include "metrics/metrics.h"

namespace berth::client {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// scripts/make-test-certs.sh: a CA, a server certificate for IP 127.0.0.1 and
// DNS berth.test, a client certificate (CN alice, O dev and ops) from that
// CA; and another CA with a client certificate of its own (CN mallory).
class Certificates {
 public:
  Certificates() {
    dir_ = fs::temp_directory_path() / ("berth-tls-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ok_ =
        std::system(("bash " BERTH_SOURCE_DIR "/scripts/make-test-certs.sh '" + dir_.string() + "'")
                        .c_str()) == 0;
  }
  ~Certificates() { fs::remove_all(dir_); }
  bool ok() const { return ok_; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string pem(const std::string& name) const { return ReadFile(dir_ / name); }

 private:
  fs::path dir_;
  bool ok_ = false;
};

class TlsClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certs_ = new Certificates(); }
  static void TearDownTestSuite() { delete certs_; }

  void SetUp() override {
    ASSERT_TRUE(certs_->ok()) << "openssl could not make the test certificates";
    auto tls =
        apiserver::LoadTlsServerContext(certs_->path("server.crt"), certs_->path("server.key"));
    ASSERT_TRUE(tls.ok()) << tls.status().ToString();
    ASSERT_TRUE(
        apiserver::AddClientCertificateAuthority(*tls.value(), certs_->path("ca.crt")).ok());
    apiserver::HttpServer::Options options;
    options.port = 0;
    options.tls = tls.value();
    auto server =
        apiserver::HttpServer::Start(options, [this](apiserver::Request& r) { return Handle(r); });
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }
  void TearDown() override {
    if (server_) server_->Stop();
  }

  // /whoami answers "user|group,group|authorization"; /watch streams two
  // lines; /flaky answers 429 (Retry-After: 0) twice, then 200; /broken 500.
  apiserver::Response Handle(apiserver::Request& r) {
    apiserver::Response response;
    if (r.path == "/whoami") {
      std::string groups;
      for (const auto& g : r.client_certificate_groups) groups += (groups.empty() ? "" : ",") + g;
      response.body = r.client_certificate_user + "|" + groups + "|" + r.authorization;
    } else if (r.path == "/watch") {
      response.stream = std::make_shared<TwoLines>();
    } else if (r.path == "/flaky") {
      if (++flaky_ <= 2) {
        response.status = 429;
        response.headers.emplace_back("Retry-After", "0");
      }
    } else if (r.path == "/broken") {
      ++broken_;
      response.status = 500;
    } else if (r.path == "/slow") {
      int now = ++inflight_;
      for (int seen = most_.load(); now > seen && !most_.compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --inflight_;
    }
    return response;
  }

  class TwoLines : public apiserver::ResponseStream {
   public:
    void Start(std::function<void()> wake) override { wake(); }
    Chunk Pump() override { return {"{\"n\":1}\n{\"n\":2}\n", true}; }
    void Cancel() override {}
  };

  RestConfig Config() {
    RestConfig c;
    c.server = "https://127.0.0.1:" + std::to_string(server_->port());
    c.ca_pem = certs_->pem("ca.crt");
    c.qps = 0;
    return c;
  }

  static Certificates* certs_;
  std::unique_ptr<apiserver::HttpServer> server_;
  std::atomic<int> flaky_{0}, broken_{0}, inflight_{0}, most_{0};
};

Certificates* TlsClientTest::certs_ = nullptr;

TEST_F(TlsClientTest, VerifiesTheServerAgainstTheConfiguredCaAndSendsTheToken) {
  RestConfig c = Config();
  c.bearer_token = "secret";
  auto client = HttpClient::Connect(c);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto r = (*client)->Request("GET", "/whoami");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "||Bearer secret");  // no client certificate: anonymous at the TLS layer
}

TEST_F(TlsClientTest, TokenFileAndBasicAuthBecomeTheAuthorizationHeader) {
  const std::string token_file = certs_->path("token");
  std::ofstream(token_file) << "from-file\n";
  RestConfig c = Config();
  c.bearer_token_file = token_file;
  c.username = "ignored";  // a token wins over basic auth
  auto client = HttpClient::Connect(c);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  EXPECT_EQ((*client)->Request("GET", "/whoami")->body, "||Bearer from-file");

  RestConfig basic = Config();
  basic.username = "admin";
  basic.password = "pw";
  auto with_password = HttpClient::Connect(basic);
  ASSERT_TRUE(with_password.ok());
  EXPECT_EQ((*with_password)->Request("GET", "/whoami")->body, "||Basic YWRtaW46cHc=");
}

TEST_F(TlsClientTest, RefusesAServerCertificateFromAnotherCa) {
  RestConfig c = Config();
  c.ca_pem = certs_->pem("other-ca.crt");
  auto client = HttpClient::Connect(c);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(client.status().message().find("tls: failed to verify certificate"), std::string::npos)
      << client.status().message();

  // insecure-skip-tls-verify trusts it anyway.
  c.ca_pem.clear();
  c.insecure_skip_tls_verify = true;
  EXPECT_TRUE(HttpClient::Connect(c).ok());
}

TEST_F(TlsClientTest, ChecksTheNameAgainstTheSansAndTlsServerNameOverridesIt) {
  RestConfig c = Config();
  c.tls_server_name = "elsewhere.test";
  auto wrong = HttpClient::Connect(c);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("hostname mismatch"), std::string::npos)
      << wrong.status().message();

  c.tls_server_name = "berth.test";  // the DNS SAN, though the address is an IP
  auto right = HttpClient::Connect(c);
  EXPECT_TRUE(right.ok()) << right.status().ToString();

  // "localhost" resolves to the server too, but the certificate names only
  // 127.0.0.1 and berth.test.
  RestConfig by_name = Config();
  by_name.server = "https://localhost:" + std::to_string(server_->port());
  auto refused = HttpClient::Connect(by_name);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("not valid for localhost"), std::string::npos)
      << refused.status().message();
}

TEST_F(TlsClientTest, ClientCertificateIsVerifiedAndMappedToUserAndGroups) {
  RestConfig c = Config();
  c.client_certificate_pem = certs_->pem("client.crt");
  c.client_key_pem = certs_->pem("client.key");
  auto client = HttpClient::Connect(c);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto r = (*client)->Request("GET", "/whoami");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->body, "alice|dev,ops|");

  // The API server's authenticator: CN the user, O the groups, plus
  // system:authenticated.
  apiserver::Request request;
  request.client_certificate_user = "alice";
  request.client_certificate_groups = {"dev", "ops"};
  auto user = apiserver::Authenticate(request, {}, /*client_certificates=*/true);
  ASSERT_TRUE(user.has_value());
  EXPECT_EQ(user->name, "alice");
  EXPECT_EQ(user->groups, (std::vector<std::string>{"dev", "ops", "system:authenticated"}));
  EXPECT_FALSE(apiserver::Authenticate(request, {}, /*client_certificates=*/false).has_value());
}

TEST_F(TlsClientTest, ClientCertificateFromAnotherCaIsNotTrusted) {
  RestConfig c = Config();
  c.client_certificate_pem = certs_->pem("mallory.crt");
  c.client_key_pem = certs_->pem("mallory.key");
  auto client = HttpClient::Connect(c);
  ASSERT_TRUE(client.ok()) << client.status().ToString();  // connected, but anonymous
  auto r = (*client)->Request("GET", "/whoami");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->body, "||");
}

TEST_F(TlsClientTest, MismatchedClientKeyIsABadRequest) {
  RestConfig c = Config();
  c.client_certificate_pem = certs_->pem("client.crt");
  c.client_key_pem = certs_->pem("mallory.key");
  auto client = HttpClient::Connect(c);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kBadRequest);
  EXPECT_NE(client.status().message().find("does not match"), std::string::npos)
      << client.status().message();
}

TEST_F(TlsClientTest, WatchesStreamOverTls) {
  auto client = HttpClient::Connect(Config());
  ASSERT_TRUE(client.ok());
  std::vector<std::string> lines;
  std::atomic<bool> stop{false};
  auto status = (*client)->Stream(
      "/watch", [&](std::string_view l) { lines.emplace_back(l); }, stop);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(*status, 200);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"n\":1}", "{\"n\":2}"}));
}

TEST_F(TlsClientTest, RetriesTooManyRequestsHonouringRetryAfterAndCountsThem) {
  metrics::Registry registry;
  RestConfig c = Config();
  c.metrics = &registry;
  auto client = HttpClient::Connect(c);
  ASSERT_TRUE(client.ok());
  auto r = (*client)->Request("GET", "/flaky");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(flaky_.load(), 3);
  std::string text = registry.Render();
  const std::string host = "127.0.0.1:" + std::to_string(server_->port());
  EXPECT_NE(
      text.find("rest_client_requests_total{code=\"429\",method=\"GET\",host=\"" + host + "\"} 2"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("rest_client_rate_limiter_duration_seconds_count{verb=\"GET\",host=\"" +
                      host + "\"}"),
            std::string::npos)
      << text;

  // A write answered 500 without Retry-After may have happened: not retried.
  auto w = (*client)->Request("POST", "/broken", "{}");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->status, 500);
  EXPECT_EQ(broken_.load(), 1);
}

TEST_F(TlsClientTest, RequestsInFlightAreBounded) {
  RestConfig c = Config();
  c.max_inflight = 2;
  auto client = HttpClient::Connect(c);
  ASSERT_TRUE(client.ok());
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3; ++i) {
        auto r = (*client)->Request("GET", "/slow");
        if (r.ok() && r->status == 200) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 24);
  EXPECT_LE(most_.load(), 2);
  EXPECT_GE(most_.load(), 1);
}

TEST(HttpClientRetry, DelaysAndRetryableAnswers) {
  EXPECT_EQ(HttpClient::RetryDelay(0, 3), std::chrono::seconds(3));
  EXPECT_EQ(HttpClient::RetryDelay(0, -1), std::chrono::milliseconds(100));
  EXPECT_EQ(HttpClient::RetryDelay(2, -1), std::chrono::milliseconds(400));
  EXPECT_EQ(HttpClient::RetryDelay(9, -1), std::chrono::milliseconds(2000));
  EXPECT_TRUE(HttpClient::Retryable("POST", 429, -1));
  EXPECT_FALSE(HttpClient::Retryable("GET", 503, -1));
  EXPECT_TRUE(HttpClient::Retryable("POST", 503, 1));
  EXPECT_TRUE(HttpClient::Retryable("GET", 500, 0));
  EXPECT_FALSE(HttpClient::Retryable("POST", 500, -1));
  EXPECT_FALSE(HttpClient::Retryable("GET", 409, 1));
}

TEST(HttpClientConnect, BadServerUrlsAreBadRequests) {
  for (const char* server :
       {"ftp://h:1", "127.0.0.1:8080", "https://h:port", "https://h:1/prefix", "https://[::1"}) {
    RestConfig c;
    c.server = server;
    auto client = HttpClient::Connect(c);
    ASSERT_FALSE(client.ok()) << server;
    EXPECT_EQ(client.status().code(), StatusCode::kBadRequest) << server;
  }
}

}  // namespace
}  // namespace berth::client
