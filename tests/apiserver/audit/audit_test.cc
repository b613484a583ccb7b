// The audit log: kube's Event fields at the Metadata level for each request
// through ApiServer::Handle, the Audit-ID header, watches' two stages, and
// rotation by size keeping the newest files.

#include "apiserver/audit/audit.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "api_fixture.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/berth-audit-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> Lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<json::object> Events(const fs::path& file) {
  std::vector<json::object> events;
  for (const auto& line : Lines(file)) events.push_back(json::parse(line).as_object());
  return events;
}

std::string HeaderValue(const Response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

class AuditTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override {
    path_ = fs::path(dir_.path()) / "logs" / "audit.log";  // the directory is created
    auto log = AuditLog::Open({.path = path_.string()});
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    options.audit = std::move(log).value();
    options.tokens = {{"t0ken", UserInfo{.name = "alice"}}};
  }

  Response Send(const std::string& method, const std::string& target, const std::string& body = "",
                const std::string& token = "t0ken", const std::string& audit_id = "") {
    Request r;
    r.method = method;
    r.request_uri = target;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = ParseQuery(target.substr(q + 1));
    r.body = body;
    r.content_type = "application/json";
    r.user_agent = "kubectl/v1.30.0";
    r.remote_address = "127.0.0.1";
    r.audit_id = audit_id;
    if (!token.empty()) r.authorization = "Bearer " + token;
    return api_->Handle(r);
  }

  TempDir dir_;
  fs::path path_;
};

TEST_F(AuditTest, ACreateIsLoggedWithKubesMetadataFields) {
  Response created = Send("POST", "/api/v1/namespaces/default/configmaps",
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto events = Events(path_);
  ASSERT_EQ(events.size(), 1u);
  json::object& e = events[0];
  EXPECT_EQ(e["kind"], "Event");
  EXPECT_EQ(e["apiVersion"], "audit.k8s.io/v1");
  EXPECT_EQ(e["level"], "Metadata");
  EXPECT_EQ(e["stage"], "ResponseComplete");
  EXPECT_EQ(e["auditID"].as_string(), HeaderValue(created, "Audit-ID"));
  EXPECT_EQ(e["auditID"].as_string().size(), 36u);  // a UUID
  EXPECT_EQ(e["requestURI"], "/api/v1/namespaces/default/configmaps");
  EXPECT_EQ(e["verb"], "create");
  EXPECT_EQ(json::serialize(e["user"]), R"({"username":"alice","groups":["system:authenticated"]})");
  EXPECT_EQ(json::serialize(e["sourceIPs"]), R"(["127.0.0.1"])");
  EXPECT_EQ(e["userAgent"], "kubectl/v1.30.0");
  EXPECT_EQ(json::serialize(e["objectRef"]),
            R"({"resource":"configmaps","namespace":"default","name":"cm1","apiVersion":"v1"})");
  EXPECT_EQ(json::serialize(e["responseStatus"]), R"({"metadata":{},"code":201})");
  EXPECT_EQ(e["requestReceivedTimestamp"].as_string().size(), 27u);  // 2026-11-22T06:38:56.123456Z
  EXPECT_LE(e["requestReceivedTimestamp"].as_string(), e["stageTimestamp"].as_string());
}

// Over HTTP a create is answered once written (Response::when_ready, then
// finalize): its event is written then, with the answer the write decided.
TEST_F(AuditTest, AHeldCreateIsLoggedWithTheAnswerItGetsOnceWritten) {
  const std::string kBody = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"}})";
  ASSERT_EQ(Send("POST", "/api/v1/namespaces/default/configmaps", kBody).status, 201);
  Request r;
  r.method = "POST";
  r.request_uri = r.path = "/api/v1/namespaces/default/configmaps";
  r.body = kBody;
  r.content_type = "application/json";
  r.authorization = "Bearer t0ken";
  r.may_defer = true;
  Response held = api_->Handle(r);
  ASSERT_TRUE(held.when_ready);
  EXPECT_EQ(Events(path_).size(), 1u) << "nothing logged before the answer is known";
  bool ready = false;
  held.when_ready([&] { ready = true; });
  ASSERT_TRUE(ready);  // in memory: at once
  ASSERT_TRUE(held.finalize);
  held.finalize(held);
  EXPECT_EQ(held.status, 409) << held.body;
  EXPECT_NE(held.body.find(R"(configmaps \"cm1\" already exists)"), std::string::npos) << held.body;
  EXPECT_FALSE(HeaderValue(held, "Audit-ID").empty()) << "the header set before the answer stays";
  auto events = Events(path_);
  ASSERT_EQ(events.size(), 2u);
  json::object& status = events[1]["responseStatus"].as_object();
  EXPECT_EQ(status["code"], 409);
  EXPECT_EQ(status["reason"], "AlreadyExists");
  EXPECT_EQ(events[1]["auditID"].as_string(), HeaderValue(held, "Audit-ID"));
}

TEST_F(AuditTest, FailuresCarryTheirStatusAndAnonymousRequestsTheirUser) {
  Send("GET", "/apis/apps/v1/namespaces/default/deployments/missing");
  Send("GET", "/api/v1/namespaces", "", /*token=*/"");
  auto events = Events(path_);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["verb"], "get");
  EXPECT_EQ(json::serialize(events[0]["objectRef"]),
            R"({"resource":"deployments","namespace":"default","name":"missing","apiGroup":"apps","apiVersion":"v1"})");
  json::object& status = events[0]["responseStatus"].as_object();
  EXPECT_EQ(status["code"], 404);
  EXPECT_EQ(status["reason"], "NotFound");
  EXPECT_EQ(status["status"], "Failure");
  EXPECT_EQ(status["message"], "deployments.apps \"missing\" not found");
  EXPECT_EQ(events[1]["verb"], "list");
  EXPECT_EQ(json::serialize(events[1]["user"]), R"({"username":"system:anonymous","groups":["system:unauthenticated"]})");
  EXPECT_EQ(events[1]["responseStatus"].as_object()["code"], 401);
}

TEST_F(AuditTest, HealthChecksAreNotLoggedButEveryAnswerHasAnAuditId) {
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    Response r = Send("GET", path);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(HeaderValue(r, "Audit-ID").size(), 36u) << path;
  }
  Response version = Send("GET", "/version");
  auto events = Events(path_);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["requestURI"], "/version");
  EXPECT_EQ(events[0]["verb"], "get");
  EXPECT_FALSE(events[0].contains("objectRef"));
  EXPECT_EQ(events[0]["auditID"].as_string(), HeaderValue(version, "Audit-ID"));
}

TEST_F(AuditTest, TheClientsAuditIdIsKept) {
  Response r = Send("DELETE", "/api/v1/namespaces/default/configmaps/none", "", "t0ken", "trace-42");
  EXPECT_EQ(HeaderValue(r, "Audit-ID"), "trace-42");
  auto events = Events(path_);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["auditID"], "trace-42");
  EXPECT_EQ(events[0]["verb"], "delete");
}

TEST_F(AuditTest, AWatchLogsResponseStartedThenResponseComplete) {
  Response watch = Send("GET", "/api/v1/namespaces/default/pods?watch=true");
  ASSERT_TRUE(watch.stream);
  EXPECT_TRUE(Events(path_).empty());  // nothing before the stream starts
  watch.stream->Start([] {});
  watch.stream->Cancel();
  watch.stream.reset();
  auto events = Events(path_);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["stage"], "ResponseStarted");
  EXPECT_EQ(events[1]["stage"], "ResponseComplete");
  EXPECT_EQ(events[0]["verb"], "watch");
  EXPECT_EQ(events[0]["auditID"], events[1]["auditID"]);
  EXPECT_EQ(events[1]["responseStatus"].as_object()["code"], 200);
}

TEST(AuditLogRotation, KeepsTheNewestFilesWithinTheSize) {
  TempDir dir;
  const fs::path path = fs::path(dir.path()) / "audit.log";
  auto log = AuditLog::Open({.path = path.string(), .max_size_bytes = 1000, .max_backups = 2});
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 60; ++i) {
    char line[128];
    std::snprintf(line, sizeof line, "{\"line\":%3d,\"padding\":\"%040d\"}", i, 0);  // 66 bytes with the newline: 15 to a file
    (*log)->Write(line);
  }
  std::vector<fs::path> backups;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    if (entry.path() != path) backups.push_back(entry.path());
  }
  std::sort(backups.begin(), backups.end());  // the time in the name sorts them
  ASSERT_EQ(backups.size(), 2u);
  std::vector<int> kept;
  for (const auto& file : {backups[0], backups[1], path}) {
    EXPECT_LE(fs::file_size(file), 1000u) << file;
    const std::string name = file.filename().string();
    if (file != path) {
      EXPECT_TRUE(name.starts_with("audit-") && name.ends_with(".log") && name.size() == 33) << name;
    }
    for (const auto& line : Lines(file)) kept.push_back(json::parse(line).as_object()["line"].to_number<int>());
  }
  // The newest lines, in order, ending with the last one written.
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.back(), 59);
  for (size_t i = 1; i < kept.size(); ++i) EXPECT_EQ(kept[i], kept[i - 1] + 1);
  EXPECT_LT(kept.size(), 60u);  // the oldest file went
  EXPECT_GT(kept.size(), 30u);  // three files of 15 lines
}

TEST(AuditLogRotation, AnUnwritablePathIsAClearError) {
  auto log = AuditLog::Open({.path = "/proc/berth-audit/audit.log"});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("audit log /proc/berth-audit/audit.log"), std::string::npos)
      << log.status().message();
}

}  // namespace
}  // namespace berth::apiserver
