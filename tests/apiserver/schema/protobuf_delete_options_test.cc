// DeleteOptions in a protobuf DELETE body (client-go's typed clients, kubectl
// drain) and in the query, through ApiServer::Handle: each option is decoded
// and honoured, and validated with kube's messages.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "api_fixture.h"
#include "protobuf_wire.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;
using testing::Envelope;
using testing::Pb;

constexpr const char* kProtobuf = "application/vnd.kubernetes.protobuf";

// meta/v1 DeleteOptions {1 gracePeriodSeconds, 2 preconditions {1 uid, 2
// resourceVersion}, 3 orphanDependents, 4 propagationPolicy, 5 dryRun}.
std::string Options(const Pb& fields) { return Envelope("v1", "DeleteOptions", fields); }

class ProtobufDeleteOptionsTest : public testing::ApiFixture {
 protected:
  json::object Create(const std::string& collection, const std::string& body) {
    Response r = Call("POST", collection, body);
    EXPECT_EQ(r.status, 201) << r.body;
    return json::parse(r.body).as_object();
  }
  json::object ConfigMap(const std::string& name) {
    return Create("/api/v1/namespaces/default/configmaps",
                  R"({"metadata":{"name":")" + name + R"("}})");
  }
  // A pod bound to node-a, whose kubelet (its node lease) terminates pods gracefully.
  void BoundPod(const std::string& name) {
    Create("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
           R"({"metadata":{"name":"node-a"},"spec":{"holderIdentity":"node-a"}})");
    Create("/api/v1/namespaces/default/pods",
           R"({"metadata":{"name":")" + name +
               R"("},"spec":{"nodeName":"node-a","containers":[{"name":"c","image":"nginx"}]}})");
  }
  Response Get(const std::string& path) { return Call("GET", path); }
  static json::object Meta(const Response& r) {
    return json::parse(r.body).at("metadata").as_object();
  }
};

TEST_F(ProtobufDeleteOptionsTest, GracePeriodSecondsMarksABoundPodForThatLong) {
  BoundPod("web");
  Response r =
      Call("DELETE", "/api/v1/namespaces/default/pods/web", Options(Pb().Int(1, 45)), kProtobuf);
  ASSERT_EQ(r.status, 200) << r.body;
  Response got = Get("/api/v1/namespaces/default/pods/web");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(Meta(got).at("deletionGracePeriodSeconds"), 45);
  EXPECT_TRUE(Meta(got).contains("deletionTimestamp"));
}

TEST_F(ProtobufDeleteOptionsTest, ANegativeGracePeriodIsOneSecondAsInKube) {
  BoundPod("web");
  Response r =
      Call("DELETE", "/api/v1/namespaces/default/pods/web", Options(Pb().Int(1, -5)), kProtobuf);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Meta(Get("/api/v1/namespaces/default/pods/web")).at("deletionGracePeriodSeconds"), 1);
}

TEST_F(ProtobufDeleteOptionsTest, AZeroGracePeriodDeletesAtOnce) {
  BoundPod("web");
  Response r =
      Call("DELETE", "/api/v1/namespaces/default/pods/web", Options(Pb().Int(1, 0)), kProtobuf);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Get("/api/v1/namespaces/default/pods/web").status, 404);
}

TEST_F(ProtobufDeleteOptionsTest, PreconditionsOnUidAndResourceVersionAreChecked) {
  json::object cm = ConfigMap("cfg");
  std::string uid(cm.at("metadata").at("uid").as_string());
  std::string rv(cm.at("metadata").at("resourceVersion").as_string());
  const std::string path = "/api/v1/namespaces/default/configmaps/cfg";

  Response wrong_uid =
      Call("DELETE", path, Options(Pb().Msg(2, Pb().Str(1, "not-" + uid))), kProtobuf);
  EXPECT_EQ(wrong_uid.status, 409) << wrong_uid.body;
  EXPECT_EQ(
      json::parse(wrong_uid.body).at("message").as_string(),
      "Operation cannot be fulfilled on ConfigMap \"cfg\": the UID in the precondition (not-" +
          uid + ") does not match the UID in record (" + uid +
          "). The object might have been deleted and then recreated");
  Response wrong_rv = Call("DELETE", path, Options(Pb().Msg(2, Pb().Str(2, rv + "0"))), kProtobuf);
  EXPECT_EQ(wrong_rv.status, 409) << wrong_rv.body;
  EXPECT_EQ(json::parse(wrong_rv.body).at("message").as_string(),
            "Operation cannot be fulfilled on ConfigMap \"cfg\": the ResourceVersion in the "
            "precondition (" +
                rv + "0) does not match the ResourceVersion in record (" + rv +
                "). The object might have been modified");
  EXPECT_EQ(Get(path).status, 200);

  Response right =
      Call("DELETE", path, Options(Pb().Msg(2, Pb().Str(1, uid).Str(2, rv))), kProtobuf);
  EXPECT_EQ(right.status, 200) << right.body;
  EXPECT_EQ(Get(path).status, 404);
}

TEST_F(ProtobufDeleteOptionsTest, PropagationPolicyAndOrphanDependentsSetTheirFinalizers) {
  ConfigMap("fg");
  ConfigMap("orphan");
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/configmaps/fg",
                 Options(Pb().Str(4, "Foreground")), kProtobuf)
                .status,
            200);
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/configmaps/orphan",
                 Options(Pb().Bool(3, true)), kProtobuf)
                .status,
            200);
  json::object fg = Meta(Get("/api/v1/namespaces/default/configmaps/fg"));
  EXPECT_EQ(fg.at("finalizers"), json::array{"foregroundDeletion"});
  EXPECT_TRUE(fg.contains("deletionTimestamp"));
  EXPECT_EQ(Meta(Get("/api/v1/namespaces/default/configmaps/orphan")).at("finalizers"),
            json::array{"orphan"});
}

TEST_F(ProtobufDeleteOptionsTest, OrphanDependentsFalseCollectsDependentsInTheBackground) {
  ConfigMap("cfg");
  Response r = Call("DELETE", "/api/v1/namespaces/default/configmaps/cfg",
                    Options(Pb().Bool(3, false)), kProtobuf);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Get("/api/v1/namespaces/default/configmaps/cfg").status, 404);
}

TEST_F(ProtobufDeleteOptionsTest, DryRunAllKeepsTheObject) {
  ConfigMap("cfg");
  Response r = Call("DELETE", "/api/v1/namespaces/default/configmaps/cfg",
                    Options(Pb().Int(1, 0).Str(5, "All")), kProtobuf);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Get("/api/v1/namespaces/default/configmaps/cfg").status, 200);
}

struct InvalidCase {
  const char* name;
  std::string body;  // protobuf DeleteOptions fields
  std::string message;
  std::string field;
};

TEST_F(ProtobufDeleteOptionsTest, InvalidOptionsAreRejectedWithKubesMessages) {
  const InvalidCase cases[] = {
      {"BothOrphanDependentsAndPolicy", Pb().Bool(3, true).Str(4, "Background").bytes(),
       R"(DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": )"
       R"(orphanDependents and deletionPropagation cannot be both set)",
       "propagationPolicy"},
      {"UnsupportedPolicy", Pb().Str(4, "Sideways").bytes(),
       R"(DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": )"
       R"(supported values: "Foreground", "Background", "Orphan", "nil")",
       "propagationPolicy"},
      {"UnsupportedDryRun", Pb().Str(5, "All").Str(5, "Some").bytes(),
       R"(DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"All", "Some"}: )"
       R"(supported values: "All")",
       "dryRun"},
  };
  ConfigMap("cfg");
  for (const auto& c : cases) {
    std::string body =
        std::string("k8s\0", 4) +
        Pb().Msg(1, Pb().Str(1, "v1").Str(2, "DeleteOptions")).Str(2, c.body).bytes();
    Response r = Call("DELETE", "/api/v1/namespaces/default/configmaps/cfg", body, kProtobuf);
    EXPECT_EQ(r.status, 422) << c.name << ": " << r.body;
    json::object status = json::parse(r.body).as_object();
    EXPECT_EQ(status.at("message").as_string(), c.message) << c.name;
    EXPECT_EQ(status.at("reason"), "Invalid") << c.name;
    EXPECT_EQ(status.at("details").at("causes").at(0).at("field").as_string(), c.field) << c.name;
  }
  EXPECT_EQ(Get("/api/v1/namespaces/default/configmaps/cfg").status, 200);
}

// kube reads DeleteOptions from the body when there is one, else from the query.
TEST_F(ProtobufDeleteOptionsTest, ABodyTakesPrecedenceOverTheQuery) {
  ConfigMap("body");
  Response r = Call("DELETE", "/api/v1/namespaces/default/configmaps/body?dryRun=All",
                    Options(Pb().Int(1, 0)), kProtobuf);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Get("/api/v1/namespaces/default/configmaps/body").status, 404);

  ConfigMap("query");
  ASSERT_EQ(Call("DELETE", "/api/v1/namespaces/default/configmaps/query?dryRun=All").status, 200);
  EXPECT_EQ(Get("/api/v1/namespaces/default/configmaps/query").status, 200);
  ASSERT_EQ(
      Call("DELETE", "/api/v1/namespaces/default/configmaps/query?orphanDependents=true").status,
      200);
  EXPECT_EQ(Meta(Get("/api/v1/namespaces/default/configmaps/query")).at("finalizers"),
            json::array{"orphan"});
}

TEST_F(ProtobufDeleteOptionsTest, MalformedQueryOptionsAreBadRequests) {
  ConfigMap("cfg");
  EXPECT_EQ(
      Call("DELETE", "/api/v1/namespaces/default/configmaps/cfg?gracePeriodSeconds=soon").status,
      400);
  EXPECT_EQ(
      Call("DELETE", "/api/v1/namespaces/default/configmaps/cfg?orphanDependents=maybe").status,
      400);
  Response dry = Call("DELETE", "/api/v1/namespaces/default/configmaps/cfg?dryRun=Some");
  EXPECT_EQ(dry.status, 422) << dry.body;
  EXPECT_EQ(Get("/api/v1/namespaces/default/configmaps/cfg").status, 200);
}

}  // namespace
}  // namespace berth::apiserver
