// The admission webhook pieces: which writes a stored webhook is about
// (rules, scopes, subresources, selectors), the AdmissionReview sent, and
// how answers are read (denials, patches, malformed answers).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/kinds.h"
#include "apiserver/admission/webhook/webhook.h"

namespace berth::apiserver::webhook {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

// One webhook named "w.example.com" with `extra` members (JSON text) merged in.
Hook OneHook(const std::string& extra = "{}", bool mutating = false) {
  json::object hook = json::parse(R"({"name":"w.example.com","clientConfig":{"url":"https://h/x"},)"
                                  R"("admissionReviewVersions":["v1"],"sideEffects":"None",)"
                                  R"("rules":[{"apiGroups":[""],"apiVersions":["v1"],)"
                                  R"("operations":["CREATE","UPDATE"],"resources":["pods"],"scope":"*"}]})")
                          .as_object();
  json::value members = json::parse(extra);
  for (auto& [k, v] : members.as_object()) hook[k] = v;
  json::object config{{"metadata", json::object{{"name", "c"}}}, {"webhooks", json::array{hook}}};
  std::vector<Hook> hooks = ReadHooks(config, mutating);
  EXPECT_EQ(hooks.size(), 1u);
  return hooks.front();
}

struct Write {
  json::object object;
  AdmissionAttributes attributes;
  Write(api::Kind kind, AdmissionOperation op, std::string_view subresource = "",
        const std::string& labels = R"({"app":"web"})")
      : object(json::parse(R"({"metadata":{"name":"p","namespace":"default","labels":)" + labels + "}}").as_object()),
        attributes{op, api::Info(kind), subresource, "default", "p", &object} {}
};

TEST(WebhookMatching, RulesSelectOperationResourceAndSubresource) {
  Hook hook = OneHook();
  EXPECT_TRUE(MatchesRules(hook, Write(api::Kind::kPod, AdmissionOperation::kCreate).attributes));
  EXPECT_FALSE(MatchesRules(hook, Write(api::Kind::kPod, AdmissionOperation::kDelete).attributes));
  EXPECT_FALSE(MatchesRules(hook, Write(api::Kind::kConfigMap, AdmissionOperation::kCreate).attributes));
  // "pods" is not its subresources; "pods/*" and "*/status" are.
  EXPECT_FALSE(MatchesRules(hook, Write(api::Kind::kPod, AdmissionOperation::kUpdate, "status").attributes));
  Hook subs = OneHook(R"({"rules":[{"apiGroups":["*"],"apiVersions":["*"],"operations":["*"],"resources":["*/status"]}]})");
  EXPECT_TRUE(MatchesRules(subs, Write(api::Kind::kPod, AdmissionOperation::kUpdate, "status").attributes));
  EXPECT_FALSE(MatchesRules(subs, Write(api::Kind::kPod, AdmissionOperation::kUpdate).attributes));
  // Scope: a Namespaced rule is not about cluster-scoped kinds.
  Hook scoped = OneHook(R"({"rules":[{"apiGroups":["*"],"apiVersions":["*"],"operations":["*"],"resources":["*"],)"
                        R"("scope":"Namespaced"}]})");
  EXPECT_TRUE(MatchesRules(scoped, Write(api::Kind::kConfigMap, AdmissionOperation::kCreate).attributes));
  EXPECT_FALSE(MatchesRules(scoped, Write(api::Kind::kNode, AdmissionOperation::kCreate).attributes));
}

TEST(WebhookMatching, MatchPolicyEquivalentMatchesOtherVersionsOfTheGroup) {
  const std::string rule = R"("rules":[{"apiGroups":["apps"],"apiVersions":["v1beta1"],"operations":["CREATE"],)"
                           R"("resources":["deployments"]}])";
  Write deployment(api::Kind::kDeployment, AdmissionOperation::kCreate);
  EXPECT_TRUE(MatchesRules(OneHook("{" + rule + "}"), deployment.attributes));
  EXPECT_FALSE(MatchesRules(OneHook("{" + rule + R"(,"matchPolicy":"Exact"})"), deployment.attributes));
}

TEST(WebhookMatching, SelectorsOnTheObjectAndItsNamespace) {
  Hook hook = OneHook(R"({"objectSelector":{"matchLabels":{"app":"web"}},)"
                      R"("namespaceSelector":{"matchExpressions":[{"key":"env","operator":"In","values":["prod"]}]}})");
  Write web(api::Kind::kPod, AdmissionOperation::kCreate);
  Write other(api::Kind::kPod, AdmissionOperation::kCreate, "", R"({"app":"db"})");
  EXPECT_TRUE(MatchesObjectSelector(hook, web.attributes));
  EXPECT_FALSE(MatchesObjectSelector(hook, other.attributes));
  api::Labels prod, dev;
  prod.Set("env", "prod");
  dev.Set("env", "dev");
  EXPECT_TRUE(MatchesNamespaceSelector(hook, web.attributes, &prod));
  EXPECT_FALSE(MatchesNamespaceSelector(hook, web.attributes, &dev));
  EXPECT_FALSE(MatchesNamespaceSelector(hook, web.attributes, nullptr));
  // Cluster-scoped objects other than Namespaces are never skipped by it.
  Write node(api::Kind::kNode, AdmissionOperation::kCreate);
  EXPECT_TRUE(MatchesNamespaceSelector(hook, node.attributes, nullptr));
  // A Namespace is selected by its own labels.
  Write ns(api::Kind::kNamespace, AdmissionOperation::kCreate, "", R"({"env":"prod"})");
  EXPECT_TRUE(MatchesNamespaceSelector(hook, ns.attributes, nullptr));
}

TEST(WebhookReview, CarriesTheRequestAsKubeSendsIt) {
  Hook hook = OneHook(R"({"admissionReviewVersions":["v2","v1beta1","v1"]})");
  Write write(api::Kind::kPod, AdmissionOperation::kCreate);
  write.attributes.dry_run = true;
  auto review = MakeReview(hook, write.attributes, &write.object);
  ASSERT_TRUE(review.ok()) << review.status().message();
  EXPECT_EQ(review->version, "v1beta1");  // the first the server speaks
  json::object body = json::parse(review->body).as_object();
  EXPECT_EQ(body.at("apiVersion"), "admission.k8s.io/v1beta1");
  const json::object& request = body.at("request").as_object();
  EXPECT_EQ(request.at("uid"), json::value(review->uid));
  EXPECT_EQ(request.at("operation"), "CREATE");
  EXPECT_EQ(request.at("kind"), (json::object{{"group", ""}, {"version", "v1"}, {"kind", "Pod"}}));
  EXPECT_EQ(request.at("namespace"), "default");
  EXPECT_EQ(request.at("dryRun"), true);
  EXPECT_EQ(request.at("object").at("metadata").at("name"), "p");
  EXPECT_TRUE(request.at("oldObject").is_null());
  EXPECT_EQ(request.at("options").at("kind"), "CreateOptions");
  // The server's own writes are the loopback identity.
  EXPECT_EQ(request.at("userInfo").at("username"), "system:apiserver");

  auto unknown = MakeReview(OneHook(R"({"admissionReviewVersions":["v2"]})"), write.attributes, &write.object);
  EXPECT_THAT(unknown.status().message(), HasSubstr("webhook does not accept known AdmissionReview versions: [v2]"));
}

std::string Answer(const Review& review, const std::string& response_members) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":")" + review.uid +
         "\"" + (response_members.empty() ? "" : "," + response_members) + "}}";
}

TEST(WebhookReview, DenialsPatchesAndMalformedAnswers) {
  Hook validating = OneHook();
  Hook mutating = OneHook("{}", true);
  Write write(api::Kind::kPod, AdmissionOperation::kCreate);
  Review review = MakeReview(validating, write.attributes, &write.object).value();

  auto denied = ReadVerdict(validating, review, Answer(review, R"("allowed":false,"status":{"code":403,"message":"no"})"));
  ASSERT_TRUE(denied.ok());
  EXPECT_FALSE(denied->allowed);
  EXPECT_EQ(denied->denial.code(), StatusCode::kForbidden);
  EXPECT_EQ(denied->denial.message(), "admission webhook \"w.example.com\" denied the request: no");
  auto bare = ReadVerdict(validating, review, Answer(review, R"("allowed":false)"));
  EXPECT_EQ(bare->denial.message(), "admission webhook \"w.example.com\" denied the request without explanation");
  EXPECT_EQ(bare->denial.code(), StatusCode::kBadRequest);

  const std::string patch = R"([{"op":"add","path":"/metadata/labels/x","value":"y"}])";
  const std::string patched = R"("allowed":true,"patchType":"JSONPatch","patch":")" + api::Base64Encode(patch) +
                              R"(","warnings":["careful"])";
  auto verdict = ReadVerdict(mutating, review, Answer(review, patched));
  ASSERT_TRUE(verdict.ok()) << verdict.status().message();
  EXPECT_EQ(verdict->patch, patch);
  EXPECT_EQ(verdict->warnings, std::vector<std::string>{"careful"});
  EXPECT_THAT(ReadVerdict(validating, review, Answer(review, patched)).status().message(),
              HasSubstr("validating webhook may not return response.patch"));

  EXPECT_THAT(ReadVerdict(validating, review, "not json").status().message(), HasSubstr("unreadable"));
  std::string wrong_uid = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
                          R"("response":{"uid":"other","allowed":true}})";
  EXPECT_THAT(ReadVerdict(validating, review, wrong_uid).status().message(),
              HasSubstr("expected response.uid=\"" + review.uid + "\", got \"other\""));
  std::string wrong_kind = R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{}})";
  EXPECT_THAT(ReadVerdict(validating, review, wrong_kind).status().message(),
              HasSubstr("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview"));
}

}  // namespace
}  // namespace berth::apiserver::webhook
