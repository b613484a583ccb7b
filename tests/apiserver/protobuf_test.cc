#include "apiserver/protobuf.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::apiserver {
namespace {

namespace json = boost::json;

// Protobuf wire encoding by hand: a length-delimited field, a varint field.
std::string Raw(uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string Bytes(int field, const std::string& payload) {
  return Raw(static_cast<uint64_t>(field) << 3 | 2) + Raw(payload.size()) + payload;
}
std::string Varint(int field, uint64_t v) { return Raw(static_cast<uint64_t>(field) << 3) + Raw(v); }
std::string Envelope(const std::string& api_version, const std::string& kind, const std::string& raw) {
  return std::string("k8s\0", 4) + Bytes(1, Bytes(1, api_version) + Bytes(2, kind)) + Bytes(2, raw);
}

TEST(Protobuf, DecodesADeploymentAsKubectlSendsIt) {
  std::string meta = Bytes(1, "web") + Bytes(2, "") + Bytes(11, Bytes(1, "app") + Bytes(2, "web")) + Bytes(8, "");
  std::string container = Bytes(1, "nginx") + Bytes(2, "nginx:1.27") + Bytes(8, "") + Bytes(14, "") +
                          Varint(16, 0) + Bytes(6, Varint(3, 80) + Bytes(4, "TCP"));
  std::string resources = Bytes(2, Bytes(1, "cpu") + Bytes(2, Bytes(1, "250m")));
  container += Bytes(8, resources);
  std::string tmpl = Bytes(1, Bytes(11, Bytes(1, "app") + Bytes(2, "web"))) + Bytes(2, Bytes(2, container));
  std::string strategy = Bytes(1, "RollingUpdate") +
                         Bytes(2, Bytes(1, Varint(1, 1) + Bytes(3, "50%")) + Bytes(2, Varint(1, 0) + Varint(2, 2)));
  std::string spec = Varint(1, 3) + Bytes(2, Bytes(1, Bytes(1, "app") + Bytes(2, "web"))) + Bytes(3, tmpl) +
                     Bytes(4, strategy) + Varint(5, 0) + Varint(7, 0);
  std::string status = Varint(1, 0) + Varint(2, 0);  // zero values: ignored
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Bytes(1, meta) + Bytes(2, spec) + Bytes(3, status)),
                                api::Kind::kDeployment);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  json::value want = json::parse(R"({
    "metadata":{"name":"web","labels":{"app":"web"},"creationTimestamp":null},
    "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},
        "spec":{"containers":[{"name":"nginx","image":"nginx:1.27",
          "resources":{"requests":{"cpu":"250m"}},"ports":[{"containerPort":80,"protocol":"TCP"}]}]}},
      "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"50%","maxSurge":2}}},
    "status":{},
    "apiVersion":"apps/v1","kind":"Deployment"})");
  EXPECT_EQ(decoded.value(), want) << json::serialize(decoded.value());
}

TEST(Protobuf, ReplicasZeroIsKeptBecauseThePointerWasSet) {
  std::string spec = Varint(1, 0);
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Bytes(1, Bytes(1, "z")) + Bytes(2, spec)),
                                api::Kind::kDeployment);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded.value().at("spec").at("replicas"), 0);
}

TEST(Protobuf, UnknownFieldsAreAnErrorNotADrop) {
  std::string spec = Bytes(99, "x");
  auto decoded = DecodeProtobuf(Envelope("apps/v1", "Deployment", Bytes(2, spec)), api::Kind::kDeployment);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kUnsupportedMediaType);
  EXPECT_NE(decoded.status().message().find("DeploymentSpec field 99"), std::string::npos) << decoded.status().message();
  auto pod = DecodeProtobuf(Envelope("v1", "Pod", ""), api::Kind::kPod);
  ASSERT_FALSE(pod.ok());
  EXPECT_NE(pod.status().message().find("Pod objects"), std::string::npos);
}

TEST(Protobuf, MalformedInputIsABadRequest) {
  EXPECT_EQ(DecodeProtobuf("{}", api::Kind::kNamespace).status().code(), StatusCode::kBadRequest);
  std::string truncated = Envelope("v1", "Namespace", Bytes(1, Bytes(1, "shop")));
  truncated.pop_back();
  EXPECT_EQ(DecodeProtobuf(truncated, api::Kind::kNamespace).status().code(), StatusCode::kBadRequest);
}

// What kubectl drain --dry-run=server sends with its DELETE (the bytes
// observed, with the kind's length byte 13, "\r").
TEST(Protobuf, DecodesDeleteOptionsAsKubectlDrainSendsThem) {
  std::string body("k8s\0\n\x13\n\x02v1\x12\rDeleteOptions\x12\x05*\x03"
                   "All\x1a\x00\"\x00",
                   36);
  auto decoded = DecodeProtobufDeleteOptions(body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), json::parse(R"({"dryRun":["All"],"apiVersion":"v1","kind":"DeleteOptions"})"))
      << json::serialize(decoded.value());
}

TEST(Protobuf, DeleteOptionsKeepAZeroGracePeriodAndPreconditions) {
  std::string options = Varint(1, 0) + Bytes(2, Bytes(1, "uid-1") + Bytes(2, "42")) + Bytes(4, "Foreground");
  auto decoded = DecodeProtobufDeleteOptions(Envelope("v1", "DeleteOptions", options));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), json::parse(R"({"gracePeriodSeconds":0,
    "preconditions":{"uid":"uid-1","resourceVersion":"42"},"propagationPolicy":"Foreground",
    "apiVersion":"v1","kind":"DeleteOptions"})"))
      << json::serialize(decoded.value());
}

TEST(Protobuf, DecodesAnEvictionAsKubectlsTypedClientSendsIt) {
  std::string meta = Bytes(1, "web-1") + Bytes(2, "") + Bytes(3, "default") + Bytes(8, "");
  std::string options = Varint(1, 5) + Bytes(5, "All");
  auto decoded = DecodeProtobufEviction(Envelope("policy/v1", "Eviction", Bytes(1, meta) + Bytes(2, options)));
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  EXPECT_EQ(decoded.value(), json::parse(R"({
    "metadata":{"name":"web-1","namespace":"default","creationTimestamp":null},
    "deleteOptions":{"gracePeriodSeconds":5,"dryRun":["All"]},
    "apiVersion":"policy/v1","kind":"Eviction"})"))
      << json::serialize(decoded.value());
}

TEST(Protobuf, EvictionWithAnUnknownFieldIsUnsupportedMediaType) {
  auto decoded = DecodeProtobufEviction(Envelope("policy/v1", "Eviction", Varint(9, 1)));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kUnsupportedMediaType);
}

}  // namespace
}  // namespace berth::apiserver
