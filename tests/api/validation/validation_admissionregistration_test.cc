// Validation of admissionregistration.k8s.io webhook configurations (names,
// rules, client configs, policies, review versions) and of
// apiregistration.k8s.io APIServices, with kube's messages.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "validation_cases.h"

namespace berth::api {
namespace {

using ::testing::HasSubstr;
using testing::Obj;
using testing::Problems;

constexpr char kGroup[] = "admissionregistration.k8s.io/v1";
constexpr char kRule[] =
    R"({"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]})";

// A ValidatingWebhookConfiguration "hooks" with one webhook of `members`
// (JSON members, no braces) after a valid name, client config and side effects.
std::string Validating(const std::string& members = "", const std::string& kind = "ValidatingWebhookConfiguration") {
  std::string hook = R"({"name":"check.example.com","clientConfig":{"url":"https://hook.example.com/check"},)"
                     R"("sideEffects":"None","admissionReviewVersions":["v1"],"rules":[)" +
                     std::string(kRule) + "]";
  if (!members.empty()) hook += "," + members;
  hook += "}";
  return Obj(kGroup, kind, "hooks", R"("webhooks":[)" + hook + "]", false);
}

std::string Hook(const std::string& whole) {
  return Obj(kGroup, "ValidatingWebhookConfiguration", "hooks", R"("webhooks":[)" + whole + "]", false);
}

const std::string kPrefix = "ValidatingWebhookConfiguration.admissionregistration.k8s.io \"hooks\" is invalid: ";

TEST(AdmissionregistrationValidation, AValidConfigurationPasses) {
  EXPECT_EQ(Problems(Validating()), "");
  EXPECT_EQ(Problems(Validating(R"("failurePolicy":"Ignore","matchPolicy":"Exact","timeoutSeconds":30)")), "");
  EXPECT_EQ(Problems(Validating(R"("reinvocationPolicy":"IfNeeded")", "MutatingWebhookConfiguration")), "");
}

TEST(AdmissionregistrationValidation, WebhookNamesAreFullyQualifiedAndUnique) {
  EXPECT_EQ(Problems(Hook(R"({"name":"check","clientConfig":{"url":"https://h/x"},"sideEffects":"None",)"
                          R"("admissionReviewVersions":["v1"]})")),
            kPrefix + "webhooks[0].name: Invalid value: \"check\": should be a domain with at least three segments "
                      "separated by dots");
  const std::string one = R"({"name":"a.b.c","clientConfig":{"url":"https://h/x"},"sideEffects":"None",)"
                          R"("admissionReviewVersions":["v1"]})";
  EXPECT_EQ(Problems(Hook(one + "," + one)), kPrefix + "webhooks[1].name: Duplicate value: \"a.b.c\"");
}

TEST(AdmissionregistrationValidation, ClientConfigIsOneHttpsUrlOrAService) {
  EXPECT_EQ(Problems(Hook(R"({"name":"a.b.c","clientConfig":{},"sideEffects":"None","admissionReviewVersions":["v1"]})")),
            kPrefix + "webhooks[0].clientConfig: Required value: exactly one of url or service is required");
  EXPECT_EQ(Problems(Hook(R"({"name":"a.b.c","clientConfig":{"url":"http://h/x?q=1"},"sideEffects":"None",)"
                          R"("admissionReviewVersions":["v1"]})")),
            kPrefix +
                "[webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; "
                "desired format: https://host[/path], webhooks[0].clientConfig.url: Invalid value: \"q=1\": query "
                "parameters are not permitted in the URL]");
  EXPECT_EQ(Problems(Hook(R"({"name":"a.b.c","clientConfig":{"service":{"name":"s","namespace":"n","path":"x",)"
                          R"("port":70000}},"sideEffects":"None","admissionReviewVersions":["v1"]})")),
            kPrefix +
                "[webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 "
                "and 65535, inclusive, webhooks[0].clientConfig.service.path: Invalid value: \"x\": must start with "
                "a '/']");
}

TEST(AdmissionregistrationValidation, RulesPoliciesAndVersions) {
  EXPECT_EQ(Problems(Validating(R"("timeoutSeconds":31)")),
            kPrefix + "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds");
  EXPECT_EQ(Problems(Validating(R"("failurePolicy":"Sometimes")")),
            kPrefix + "webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", "
                      "\"Ignore\"");
  std::string bad_rule = Obj(kGroup, "ValidatingWebhookConfiguration", "hooks",
                             R"("webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://h/x"},"sideEffects":"None",)"
                             R"("admissionReviewVersions":["v1"],"rules":[{"apiGroups":["*","apps"],)"
                             R"("apiVersions":["v1"],"operations":["CREATE","PATCH"],"resources":["*","pods"]}]}])",
                             false);
  std::string problems = Problems(bad_rule);
  EXPECT_THAT(problems, HasSubstr("webhooks[0].rules[0].operations[1]: Unsupported value: \"PATCH\""));
  EXPECT_THAT(problems, HasSubstr("webhooks[0].rules[0].apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' "
                                  "is present, must not specify other API groups"));
  EXPECT_THAT(problems, HasSubstr("webhooks[0].rules[0].resources: Invalid value: []string{\"*\", \"pods\"}: if '*' "
                                  "is present, must not specify other resources without subresources"));
  EXPECT_EQ(Problems(Hook(R"({"name":"a.b.c","clientConfig":{"url":"https://h/x"},"sideEffects":"Some",)"
                          R"("admissionReviewVersions":["v2"]})")),
            kPrefix +
                "[webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\", "
                "webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include at least one of "
                "v1, v1beta1]");
  // Only mutating webhooks have a reinvocation policy to check.
  EXPECT_THAT(Problems(Validating(R"("reinvocationPolicy":"Always")", "MutatingWebhookConfiguration")),
              HasSubstr("webhooks[0].reinvocationPolicy: Unsupported value: \"Always\""));
}

TEST(AdmissionregistrationValidation, MatchConditionsAreRefusedNotIgnored) {
  EXPECT_EQ(Problems(Validating(R"("matchConditions":[{"name":"x","expression":"true"}])")),
            kPrefix + "webhooks[0].matchConditions: Forbidden: CEL match conditions are not supported by this server "
                      "yet");
}

std::string ApiService(const std::string& name, const std::string& spec) {
  return Obj("apiregistration.k8s.io/v1", "APIService", name, R"("spec":)" + spec, false);
}

TEST(ApiregistrationValidation, LocalApiServicesAreNamedVersionDotGroup) {
  EXPECT_EQ(Problems(ApiService("v1.apps", R"({"group":"apps","version":"v1","groupPriorityMinimum":17800,)"
                                           R"("versionPriority":15})")),
            "");
  EXPECT_EQ(Problems(ApiService("v1.", R"({"version":"v1","groupPriorityMinimum":18000,"versionPriority":1})")), "");
  EXPECT_EQ(Problems(ApiService("apps", R"({"group":"apps","version":"v1","groupPriorityMinimum":0,)"
                                        R"("versionPriority":15})")),
            "APIService.apiregistration.k8s.io \"apps\" is invalid: [metadata.name: Invalid value: \"apps\": must be "
            "`spec.version+\".\"+spec.group`: \"v1.apps\", spec.groupPriorityMinimum: Invalid value: \"0\": must be "
            "positive and less than 20000]");
}

TEST(ApiregistrationValidation, AnApiServiceServedByAServiceIsCheckedAsKubeChecksIt) {
  // Accepted (stored, never available: berth does not proxy to it).
  EXPECT_EQ(Problems(ApiService("v1beta1.metrics.k8s.io",
                                R"({"group":"metrics.k8s.io","version":"v1beta1","groupPriorityMinimum":100,)"
                                R"("versionPriority":100,"service":{"name":"metrics","namespace":"kube-system"}})")),
            "");
  EXPECT_EQ(Problems(ApiService("v1beta1.metrics.k8s.io",
                                R"({"group":"metrics.k8s.io","version":"v1beta1","groupPriorityMinimum":100,)"
                                R"("versionPriority":100,"insecureSkipTLSVerify":true,"caBundle":"Zm9v",)"
                                R"("service":{"name":"metrics"}})")),
            "APIService.apiregistration.k8s.io \"v1beta1.metrics.k8s.io\" is invalid: [spec.service.namespace: "
            "Required value, spec.insecureSkipTLSVerify: Invalid value: \"true\": may not be true if caBundle is "
            "present]");
}

}  // namespace
}  // namespace berth::api
