// kube's max-in-flight filter: which requests count against which limit, and
// the limits themselves.

#include "apiserver/authz/max_inflight.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::apiserver {
namespace {

Request Make(const std::string& method, const std::string& target) {
  Request r;
  r.method = method;
  auto q = target.find('?');
  r.path = target.substr(0, q);
  if (q != std::string::npos) r.query = ParseQuery(target.substr(q + 1));
  return r;
}

TEST(ClassifyRequest, FollowsKubesVerbsAndLongRunningCheck) {
  struct Case {
    std::string method, target;
    RequestKind want;
  } cases[] = {
      {"GET", "/api/v1/namespaces/default/pods", RequestKind::kReadOnly},
      {"GET", "/api/v1/namespaces/default/pods/p", RequestKind::kReadOnly},
      {"GET", "/apis/apps/v1/deployments", RequestKind::kReadOnly},
      {"GET", "/api/v1/namespaces/default/pods?watch=true", RequestKind::kLongRunning},
      {"GET", "/api/v1/watch/namespaces/default/pods", RequestKind::kLongRunning},
      {"GET", "/api/v1/namespaces/default/pods/p/log", RequestKind::kLongRunning},
      {"GET", "/api/v1/namespaces/default/pods/p/log?follow=true", RequestKind::kLongRunning},
      {"POST", "/api/v1/namespaces/default/pods/p/exec", RequestKind::kLongRunning},
      {"POST", "/api/v1/namespaces/default/pods/p/attach", RequestKind::kLongRunning},
      {"POST", "/api/v1/namespaces/default/pods/p/portforward", RequestKind::kLongRunning},
      {"GET", "/api/v1/namespaces/default/services/s/proxy", RequestKind::kLongRunning},
      {"GET", "/debug/pprof/profile", RequestKind::kLongRunning},
      {"POST", "/api/v1/namespaces/default/pods", RequestKind::kMutating},
      {"PUT", "/api/v1/namespaces/default/pods/p", RequestKind::kMutating},
      {"PATCH", "/api/v1/namespaces/default/pods/p/status", RequestKind::kMutating},
      {"DELETE", "/api/v1/namespaces/default/pods/p", RequestKind::kMutating},
      {"DELETE", "/api/v1/namespaces/default/pods", RequestKind::kMutating},
      {"POST", "/api/v1/namespaces/default/pods/p/binding", RequestKind::kMutating},
      // Non-resource paths: the verb is the method in lower case.
      {"GET", "/healthz", RequestKind::kReadOnly},
      {"GET", "/openapi/v2", RequestKind::kReadOnly},
      {"POST", "/rpc", RequestKind::kMutating},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ClassifyRequest(Make(c.method, c.target)), c.want) << c.method << " " << c.target;
  }
}

TEST(MaxInflight, RefusesBeyondEachKindsOwnLimit) {
  MaxInflight limiter({.read_only = 3, .mutating = 2});
  EXPECT_TRUE(limiter.TryAcquire(RequestKind::kMutating));
  EXPECT_TRUE(limiter.TryAcquire(RequestKind::kMutating));
  EXPECT_FALSE(limiter.TryAcquire(RequestKind::kMutating));
  // Writers at their limit leave the readers' slots alone.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.TryAcquire(RequestKind::kReadOnly));
  EXPECT_FALSE(limiter.TryAcquire(RequestKind::kReadOnly));
  // Long-running requests are never counted.
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.TryAcquire(RequestKind::kLongRunning));
  EXPECT_EQ(limiter.InUse(RequestKind::kMutating), 2);
  EXPECT_EQ(limiter.InUse(RequestKind::kReadOnly), 3);
  // What the server drops it counts (it serves system:masters beyond the limits).
  EXPECT_EQ(limiter.Dropped(RequestKind::kMutating), 0);
  limiter.CountDropped(RequestKind::kMutating);
  limiter.CountDropped(RequestKind::kLongRunning);  // never dropped: not counted
  EXPECT_EQ(limiter.Dropped(RequestKind::kMutating), 1);
  EXPECT_EQ(limiter.Dropped(RequestKind::kReadOnly), 0);
  // A released slot is free again.
  limiter.Release(RequestKind::kMutating);
  EXPECT_TRUE(limiter.TryAcquire(RequestKind::kMutating));
  EXPECT_EQ(limiter.Watermark(RequestKind::kMutating), 2);
  EXPECT_EQ(limiter.Watermark(RequestKind::kReadOnly), 3);
}

TEST(MaxInflight, ZeroMeansNoLimit) {
  MaxInflight limiter({.read_only = 0, .mutating = 1});
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.TryAcquire(RequestKind::kReadOnly));
  EXPECT_TRUE(limiter.TryAcquire(RequestKind::kMutating));
  EXPECT_FALSE(limiter.TryAcquire(RequestKind::kMutating));
  EXPECT_EQ(limiter.Dropped(RequestKind::kReadOnly), 0);
}

TEST(MaxInflight, WatermarkKeepsThePeakAfterReleases) {
  MaxInflight limiter({});
  for (int i = 0; i < 5; ++i) limiter.TryAcquire(RequestKind::kReadOnly);
  for (int i = 0; i < 5; ++i) limiter.Release(RequestKind::kReadOnly);
  EXPECT_EQ(limiter.InUse(RequestKind::kReadOnly), 0);
  EXPECT_EQ(limiter.Watermark(RequestKind::kReadOnly), 5);
}

TEST(MaxInflight, TooManyRequestsIsKubesAnswer) {
  Response r = TooManyRequests();
  EXPECT_EQ(r.status, 429);
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0], (std::pair<std::string, std::string>{"Retry-After", "1"}));
  auto status = boost::json::parse(r.body).as_object();
  EXPECT_EQ(status["reason"], "TooManyRequests");
  EXPECT_EQ(status["message"], "Too many requests, please try again later.");
  EXPECT_EQ(status["code"], 429);
}

}  // namespace
}  // namespace berth::apiserver
