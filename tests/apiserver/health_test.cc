#include "apiserver/health.h"

#include <gtest/gtest.h>

namespace berth::apiserver {
namespace {

Request Get(std::string path, std::vector<std::pair<std::string, std::string>> query = {}) {
  Request r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

class HealthTest : public ::testing::Test {
 protected:
  std::vector<HealthCheck> Checks() {
    return {{"ping", [] { return Status::Ok(); }},
            {"store", [this] { return store_ok_ ? Status::Ok() : Status::Internal("fdatasync failed"); }}};
  }
  Response Serve(const Request& request) {
    std::optional<Response> r = ServeHealth("readyz", Checks(), request);
    EXPECT_TRUE(r.has_value()) << request.path;
    return r.value_or(Response{});
  }
  bool store_ok_ = true;
};

TEST_F(HealthTest, PassingChecksAnswerOkOrTheListWhenVerbose) {
  Response plain = Serve(Get("/readyz"));
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.body, "ok");
  EXPECT_EQ(plain.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(Serve(Get("/readyz/")).body, "ok");
  Response verbose = Serve(Get("/readyz", {{"verbose", ""}}));
  EXPECT_EQ(verbose.status, 200);
  EXPECT_EQ(verbose.body, "[+]ping ok\n[+]store ok\nreadyz check passed\n");
}

TEST_F(HealthTest, AFailedCheckFailsTheRootWithEveryLine) {
  store_ok_ = false;
  Response r = Serve(Get("/readyz"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[+]ping ok\n[-]store failed: fdatasync failed\nreadyz check failed\n");
  Response one = Serve(Get("/readyz/store"));
  EXPECT_EQ(one.status, 500);
  EXPECT_EQ(one.body, "internal server error: fdatasync failed\n");
  EXPECT_EQ(Serve(Get("/readyz/ping")).body, "ok");
}

TEST_F(HealthTest, ExcludedChecksAreNotRunAndUnknownOnesAreNamed) {
  store_ok_ = false;
  Response r = Serve(Get("/readyz", {{"exclude", "store"}, {"exclude", "etcd"}, {"verbose", "1"}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[+]store excluded: ok\n"
            "warn: some health checks cannot be excluded: no matches for \"etcd\"\nreadyz check passed\n");
}

TEST_F(HealthTest, OtherPathsAreNotHealthChecks) {
  for (const char* path : {"/readyzz", "/readyz/unknown", "/livez", "/readyz/ping/x", "/"}) {
    EXPECT_FALSE(ServeHealth("readyz", Checks(), Get(path)).has_value()) << path;
  }
}

}  // namespace
}  // namespace berth::apiserver
