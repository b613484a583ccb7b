#include "cluster/profiling.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdint>
#include <cstring>

#include "apiserver/http.h"

namespace berth::cluster {
namespace {

apiserver::Response Get(const std::string& path, std::vector<std::pair<std::string, std::string>> query = {}) {
  std::vector<apiserver::Route> routes = ProfilingRoutes();
  apiserver::Request r;
  r.method = "GET";
  r.path = path;
  r.query = std::move(query);
  const apiserver::Handler* h = apiserver::FindRoute(routes, path);
  if (!h) {
    apiserver::Response none;
    none.status = -1;
    return none;
  }
  return (*h)(r);
}

std::string Reason(const apiserver::Response& r) {
  return std::string(boost::json::parse(r.body).at("reason").as_string());
}

TEST(ProfilingTest, IndexListsTheProfiles) {
  for (const char* path : {"/debug/pprof", "/debug/pprof/"}) {
    apiserver::Response r = Get(path);
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_NE(r.body.find("href=\"profile\""), std::string::npos);
    EXPECT_NE(r.body.find("href=\"heap\""), std::string::npos);
  }
}

TEST(ProfilingTest, UnknownProfilesAreNotFound) {
  apiserver::Response r = Get("/debug/pprof/goroutine");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(Reason(r), "NotFound");
}

TEST(ProfilingTest, OnlyReads) {
  std::vector<apiserver::Route> routes = ProfilingRoutes();
  apiserver::Request r;
  r.method = "POST";
  r.path = "/debug/pprof/heap";
  apiserver::Response got = (*apiserver::FindRoute(routes, r.path))(r);
  EXPECT_EQ(got.status, 405);
}

TEST(ProfilingTest, ProfilesOrUnavailableInThisBuild) {
  if (!ProfilingAvailable()) {
    // Sanitizer builds: no gperftools.
    for (const char* path : {"/debug/pprof/profile", "/debug/pprof/heap"}) {
      apiserver::Response r = Get(path);
      EXPECT_EQ(r.status, 503) << path;
      EXPECT_NE(r.body.find("profiling not available in this build"), std::string::npos);
    }
    return;
  }
  EnableHeapSampling();
  apiserver::Response heap = Get("/debug/pprof/heap");
  EXPECT_EQ(heap.status, 200);
  EXPECT_EQ(heap.body.rfind("heap profile:", 0), 0u) << heap.body.substr(0, 200);
  for (const char* bad : {"0", "-1", "601", "1.5", "ten", ""}) {
    apiserver::Response r = Get("/debug/pprof/profile", {{"seconds", bad}});
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(Reason(r), "BadRequest") << bad;
  }
  apiserver::Response cpu = Get("/debug/pprof/profile", {{"seconds", "1"}});
  EXPECT_EQ(cpu.status, 200);
  // gperftools' CPU profile: the legacy binary header (five words, the first 0, then 3).
  ASSERT_GE(cpu.body.size(), 5 * sizeof(uintptr_t));
  uintptr_t words[2];
  std::memcpy(words, cpu.body.data(), sizeof words);
  EXPECT_EQ(words[0], 0u);
  EXPECT_EQ(words[1], 3u);
}

}  // namespace
}  // namespace berth::cluster
