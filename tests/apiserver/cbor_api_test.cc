// application/cbor through ApiServer::Handle (no sockets): CBOR request
// bodies, CBOR answers when Accept prefers them, and JSON-RPC bindings sent as
// base64-encoded CBOR.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/codec/cbor.h"
#include "api_fixture.h"
#include "apiserver/api_server.h"
#include "apiserver/cbor_response.h"
#include "store/memory/memory_store.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

constexpr char kCbor[] = "application/cbor";
constexpr char kPods[] = "/api/v1/namespaces/default/pods";

class CborApiTest : public testing::ApiFixture {
 protected:
  static json::object Cbor(const Response& r) {
    EXPECT_TRUE(r.body.starts_with(api::kSelfDescribedCbor));
    auto decoded = api::DecodeCbor(r.body);
    EXPECT_TRUE(decoded.ok()) << decoded.status().message();
    return decoded.ok() && decoded.value().is_object() ? decoded.value().get_object()
                                                       : json::object{};
  }

  static json::value Pod(const std::string& name) {
    return json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                       R"("},"spec":{"containers":[{"name":"c","image":"nginx:1.25"}]}})");
  }

  json::object Rpc(const json::value& request) {
    Response r = Call("POST", "/rpc", json::serialize(request));
    EXPECT_EQ(r.content_type, "application/json");
    return json::parse(r.body).as_object();
  }

  static json::object BindCall(const json::value& id, const std::string& method,
                               std::string_view cbor) {
    return json::object{
        {"jsonrpc", "2.0"},
        {"method", method},
        {"id", id},
        {"params", {{"encoding", "cbor-base64"}, {"binding", api::Base64Encode(cbor)}}}};
  }

  static std::string Binding(const std::string& pod, const std::string& node) {
    return api::EncodeCbor(json::parse(
        R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + pod +
        R"(","namespace":"default"},"target":{"kind":"Node","name":")" + node + R"("}})"));
  }
};

TEST_F(CborApiTest, CreatesAPodFromACborBodyAndReadsItBackInCbor) {
  Response created = Call("POST", kPods, api::EncodeCbor(Pod("a")), kCbor, kCbor);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.content_type, "application/cbor");
  EXPECT_EQ(Cbor(created)["metadata"].as_object()["name"], "a");

  Response got = Call("GET", std::string(kPods) + "/a", "", kCbor, kCbor);
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.content_type, "application/cbor");
  json::object pod = Cbor(got);
  EXPECT_EQ(pod["kind"], "Pod");
  EXPECT_EQ(pod["spec"].as_object()["containers"].as_array()[0].as_object()["image"], "nginx:1.25");
  // The same object as JSON readers see it.
  EXPECT_EQ(json::value(pod), json::parse(Call("GET", std::string(kPods) + "/a").body));
}

TEST_F(CborApiTest, ListsInCbor) {
  ASSERT_EQ(Call("POST", kPods, api::EncodeCbor(Pod("a")), kCbor).status, 201);
  ASSERT_EQ(Call("POST", kPods, api::EncodeCbor(Pod("b")), kCbor).status, 201);
  json::object list = Cbor(Call("GET", kPods, "", "", kCbor));
  EXPECT_EQ(list["kind"], "PodList");
  EXPECT_EQ(list["items"].as_array().size(), 2u);
}

TEST_F(CborApiTest, ErrorsAreCborStatusObjects) {
  Response missing = Call("GET", std::string(kPods) + "/nope", "", "", kCbor);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.content_type, "application/cbor");
  json::object status = Cbor(missing);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["reason"], "NotFound");
  EXPECT_EQ(status["code"], 404);
}

TEST_F(CborApiTest, RefusesMalformedCborBodiesAsBadRequest) {
  std::string duplicate = "\xd9\xd9\xf7\xa2\x44kind\x43Pod\x44kind\x43Pod";
  Response r = Call("POST", kPods, duplicate, kCbor, kCbor);
  EXPECT_EQ(r.status, 400);
  json::object status = Cbor(r);
  EXPECT_EQ(status["reason"], "BadRequest");
  EXPECT_NE(std::string(status["message"].as_string()).find("duplicate map key"),
            std::string::npos);

  std::string pod = api::EncodeCbor(Pod("a"));
  Response truncated = Call("POST", kPods, pod.substr(0, pod.size() - 3), kCbor);
  EXPECT_EQ(truncated.status, 400);
  EXPECT_EQ(truncated.content_type, "application/json");
}

TEST_F(CborApiTest, DiscoveryStaysJson) {
  Response r = Call("GET", "/api/v1", "", "", kCbor);
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.content_type, "application/cbor");
  EXPECT_TRUE(json::parse(r.body).is_object());
}

TEST_F(CborApiTest, WatchIsASequenceOfCborWatchEvents) {
  ASSERT_EQ(Call("POST", kPods, api::EncodeCbor(Pod("a")), kCbor).status, 201);
  Response r = Call("GET", std::string(kPods) + "?watch=true&timeoutSeconds=5", "", "", kCbor);
  ASSERT_TRUE(r.stream);
  EXPECT_EQ(r.content_type, "application/cbor;stream=watch");
  r.stream->Start([] {});
  std::string chunk = r.stream->Pump().data;
  r.stream->Cancel();
  // d9d9f7, a map of 2: "type" first (the shorter key), then "object", itself
  // a self-described item.
  ASSERT_TRUE(chunk.starts_with(std::string(api::kSelfDescribedCbor) +
                                "\xa2\x44type\x45"
                                "ADDED\x46object" +
                                std::string(api::kSelfDescribedCbor)));
  auto event = api::DecodeCbor(chunk);
  ASSERT_TRUE(event.ok()) << event.status().message();
  EXPECT_EQ(event.value().at("object").at("metadata").at("name"), "a");
}

TEST_F(CborApiTest, AcceptNegotiation) {
  struct Case {
    const char* accept;
    bool cbor;
  } cases[] = {
      {"application/cbor", true},
      {"application/json", false},
      {"", false},
      {"*/*", false},
      {"application/json, application/cbor", false},
      {"application/cbor, application/json", true},
      {"application/json;q=0.5, application/cbor", true},
      {"application/cbor;q=0.5, application/json;q=0.9", false},
      {"application/vnd.kubernetes.protobuf, application/cbor, application/json", true},
      {"application/json;as=Table;v=v1;g=meta.k8s.io, application/cbor", false},
      {"application/cbor;q=0", false},
  };
  for (const auto& c : cases) EXPECT_EQ(PrefersCbor(c.accept), c.cbor) << c.accept;
}

TEST_F(CborApiTest, JsonRpcBindsAndUnbindsWithACborBinding) {
  ASSERT_EQ(Call("POST", kPods, json::serialize(Pod("a"))).status, 201);
  json::object bound = Rpc(BindCall(11, "bind.pod", Binding("a", "n1")));
  EXPECT_EQ(bound["id"], 11);
  ASSERT_TRUE(bound.contains("result")) << json::serialize(bound);
  EXPECT_EQ(bound["result"].at("spec").at("nodeName"), "n1");
  EXPECT_EQ(json::parse(Call("GET", std::string(kPods) + "/a").body).at("spec").at("nodeName"),
            "n1");

  json::object conflict = Rpc(BindCall("x-12", "bind.pod", Binding("a", "n2")));
  EXPECT_EQ(conflict["id"], "x-12");
  EXPECT_EQ(conflict["error"].at("code"), 409);

  json::object unbound = Rpc(BindCall(13, "unbind.pod", Binding("a", "")));
  EXPECT_EQ(unbound["id"], 13);
  EXPECT_FALSE(unbound["result"].at("spec").as_object().contains("nodeName"));

  // The JSON form keeps working.
  json::object plain = Rpc(json::parse(
      R"({"jsonrpc":"2.0","method":"bind.pod","params":{"name":"a","node":"n3"},"id":14})"));
  EXPECT_EQ(plain["result"].at("spec").at("nodeName"), "n3");
}

TEST_F(CborApiTest, JsonRpcRefusesBadBindingsWithInvalidParams) {
  ASSERT_EQ(Call("POST", kPods, json::serialize(Pod("a"))).status, 201);
  // A Binding whose decoded CBOR is over 64 KiB (a large annotation).
  json::value big = json::parse(
      R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"a"},"target":{"kind":"Node","name":"n1"}})");
  big.at("metadata").as_object()["annotations"] =
      json::object{{"pad", std::string(70 * 1024, 'x')}};
  std::string wrong_kind =
      api::EncodeCbor(json::parse(R"({"kind":"Pod","metadata":{"name":"a"}})"));

  struct Case {
    const char* name;
    json::object request;
    const char* message;
  } cases[] = {
      {"over 64 KiB", BindCall(1, "bind.pod", api::EncodeCbor(big)),
       "exceeds the limit of 65536 bytes"},
      {"malformed base64", {}, "not valid base64"},
      {"malformed CBOR", BindCall(3, "bind.pod", "\xd9\xd9\xf7\xa1\x41"), "not valid CBOR"},
      {"not a Binding", BindCall(4, "bind.pod", wrong_kind), "expected Binding"},
      {"no encoding", {}, "cbor-base64"},
  };
  cases[1].request = BindCall(2, "bind.pod", Binding("a", "n1"));
  cases[1].request["params"].as_object()["binding"] = "not*base64";
  cases[4].request = BindCall(5, "bind.pod", Binding("a", "n1"));
  cases[4].request["params"].as_object().erase("encoding");
  int id = 1;
  for (const auto& c : cases) {
    json::object answer = Rpc(c.request);
    EXPECT_EQ(answer["id"], id++) << c.name;
    ASSERT_TRUE(answer.contains("error")) << c.name;
    EXPECT_EQ(answer["error"].at("code"), -32602) << c.name;
    std::string message(answer["error"].at("message").as_string());
    EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": " << message;
  }
  EXPECT_FALSE(json::parse(Call("GET", std::string(kPods) + "/a").body)
                   .at("spec")
                   .as_object()
                   .contains("nodeName"));
}

}  // namespace
}  // namespace berth::apiserver
