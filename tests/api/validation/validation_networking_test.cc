// Validation of networking.k8s.io (Ingress, IngressClass, NetworkPolicy)
// and discovery.k8s.io (EndpointSlice) kinds.

#include <gtest/gtest.h>

#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;
using testing::UpdateProblems;

std::string Ingress(const std::string& spec, const std::string& extra_meta = "") {
  return Obj("networking.k8s.io/v1", "Ingress", "ing", R"("spec":)" + spec, true, extra_meta);
}
std::string Rule(
    const std::string& host, const std::string& path_type, const std::string& path,
    const std::string& backend = R"({"service":{"name":"web","port":{"number":80}}})") {
  std::string rule = "{";
  if (!host.empty()) rule += R"("host":")" + host + "\",";
  rule += R"("http":{"paths":[{)";
  if (!path_type.empty()) rule += R"("pathType":")" + path_type + "\",";
  return rule + R"("path":")" + path + R"(","backend":)" + backend + "}]}}";
}
std::string Policy(const std::string& spec) {
  return Obj("networking.k8s.io/v1", "NetworkPolicy", "np", R"("spec":)" + spec);
}

TEST(NetworkingValidation, IngressRulesPathsAndBackends) {
  const std::string p = "Ingress.networking.k8s.io \"ing\" is invalid: ";
  EXPECT_EQ(Problems(Ingress(R"({"rules":[)" + Rule("*.example.com", "Prefix", "/") + "]}")), "");
  EXPECT_EQ(
      Problems(Ingress(R"({"defaultBackend":{"service":{"name":"web","port":{"name":"http"}}}})")),
      "");
  EXPECT_EQ(Problems(Ingress("{}")), p + "spec: Invalid value: []networking.IngressRule(nil): "
                                         "either `defaultBackend` or `rules` must be "
                                         "specified");
  EXPECT_EQ(Problems(Ingress(R"({"rules":[)" + Rule("foo.*.com", "Prefix", "/") + "]}")),
            p + "spec.rules[0].host: Invalid value: \"foo.*.com\": a wildcard DNS-1123 subdomain "
                "must start with '*.', "
                "followed by a valid DNS subdomain, which must consist of lower case alphanumeric "
                "characters, '-' or "
                "'.' and end with an alphanumeric character (e.g. '*.example.com', regex used for "
                "validation is "
                "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_EQ(
      Problems(Ingress(R"({"rules":[)" + Rule("10.0.0.1", "Prefix", "/") + "]}")),
      p + "spec.rules[0].host: Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address");
  EXPECT_EQ(Problems(Ingress(R"({"rules":[)" + Rule("", "", "/") + "]}")),
            p + "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified");
  EXPECT_EQ(Problems(Ingress(R"({"rules":[)" + Rule("", "Regex", "/") + "]}")),
            p + "spec.rules[0].http.paths[0].pathType: Unsupported value: \"Regex\": supported "
                "values: \"Exact\", "
                "\"ImplementationSpecific\", \"Prefix\"");
  EXPECT_EQ(
      Problems(Ingress(R"({"rules":[)" + Rule("", "Exact", "api") + "]}")),
      p + "spec.rules[0].http.paths[0].path: Invalid value: \"api\": must be an absolute path");
  EXPECT_EQ(
      Problems(Ingress(R"({"rules":[)" + Rule("", "Prefix", "/a//b") + "]}")),
      p + "spec.rules[0].http.paths[0].path: Invalid value: \"/a//b\": must not contain '//'");
  EXPECT_EQ(Problems(Ingress(R"({"rules":[)" + Rule("", "ImplementationSpecific", "") + "]}")), "");
  EXPECT_EQ(
      Problems(Ingress(R"({"rules":[)" + Rule("", "Prefix", "/", R"({"service":{"name":"web"}})") +
                       "]}")),
      p + "spec.rules[0].http.paths[0].backend: Required value: port name or number is required");
  EXPECT_EQ(
      Problems(Ingress(R"({"rules":[)" +
                       Rule("", "Prefix", "/",
                            R"({"service":{"name":"web","port":{"number":80,"name":"http"}}})") +
                       "]}")),
      p + "spec.rules[0].http.paths[0].backend: Invalid value: \"\": cannot set both port name & "
          "port number");
  EXPECT_EQ(Problems(Ingress(R"({"rules":[)" + Rule("", "Prefix", "/", R"({})") + "]}")),
            p + "spec.rules[0].http.paths[0].backend: Invalid value: \"\": resource or service "
                "backend is required");
  EXPECT_EQ(Problems(Ingress(R"({"rules":[{"host":"a.com","http":{"paths":[]}}]})")),
            p + "spec.rules[0].http.paths: Required value");
}

TEST(NetworkingValidation, IngressClasses) {
  auto ingress_class = [](const std::string& spec) {
    return Obj("networking.k8s.io/v1", "IngressClass", "nginx", R"("spec":)" + spec, false);
  };
  const std::string p = "IngressClass.networking.k8s.io \"nginx\" is invalid: ";
  EXPECT_EQ(Problems(ingress_class(R"({"controller":"k8s.io/ingress-nginx"})")), "");
  EXPECT_EQ(Problems(ingress_class("{}")), p + "spec.controller: Required value");
  EXPECT_EQ(Problems(ingress_class(R"({"controller":"nginx"})")),
            p + "spec.controller: Invalid value: \"nginx\": must be a domain-prefixed path (such "
                "as \"acme.io/foo\")");
  EXPECT_EQ(
      Problems(ingress_class(
          R"({"controller":"k8s.io/x","parameters":{"kind":"Params","name":"p","scope":"Namespace"}})")),
      p + "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'");
  EXPECT_EQ(UpdateProblems(ingress_class(R"({"controller":"k8s.io/other"})"),
                           ingress_class(R"({"controller":"k8s.io/ingress-nginx"})")),
            p + "spec.controller: Invalid value: \"k8s.io/other\": field is immutable");
}

TEST(NetworkingValidation, NetworkPolicies) {
  const std::string p = "NetworkPolicy.networking.k8s.io \"np\" is invalid: ";
  EXPECT_EQ(
      Problems(Policy(
          R"({"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/8","except":["10.1.0.0/16"]}}],"ports":[{"port":80,"endPort":90}]}],"policyTypes":["Ingress"]})")),
      "");
  EXPECT_EQ(Problems(Policy(R"({"podSelector":{},"policyTypes":["Ingress","Sideways"]})")),
            p + "spec.policyTypes[1]: Unsupported value: \"Sideways\": supported values: "
                "\"Ingress\", \"Egress\"");
  EXPECT_EQ(Problems(Policy(R"({"podSelector":{},"policyTypes":["Ingress","Egress","Ingress"]})")),
            p + "spec.policyTypes: Invalid value: []networking.PolicyType{\"Ingress\", \"Egress\", "
                "\"Ingress\"}: may not "
                "specify more than two policyTypes");
  EXPECT_EQ(Problems(Policy(
                R"({"podSelector":{},"ingress":[{"ports":[{"protocol":"ICMP","port":0}]}]})")),
            p + "[spec.ingress[0].ports[0].protocol: Unsupported value: \"ICMP\": supported "
                "values: \"TCP\", \"UDP\", "
                "\"SCTP\", spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and "
                "65535, inclusive]");
  EXPECT_EQ(
      Problems(Policy(R"({"podSelector":{},"egress":[{"ports":[{"port":"dns","endPort":53}]}]})")),
      p + "spec.egress[0].ports[0].endPort: Invalid value: 53: may not be specified when `port` is "
          "non-numeric");
  EXPECT_EQ(
      Problems(Policy(R"({"podSelector":{},"ingress":[{"ports":[{"port":90,"endPort":80}]}]})")),
      p + "spec.ingress[0].ports[0].endPort: Invalid value: 90: must be greater than or equal to "
          "`port`");
  EXPECT_EQ(Problems(Policy(R"({"podSelector":{},"ingress":[{"from":[{}]}]})")),
            p + "spec.ingress[0].from[0]: Required value: must specify a peer");
  EXPECT_EQ(
      Problems(Policy(
          R"({"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/8"},"podSelector":{}}]}]})")),
      p + "spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer");
  EXPECT_EQ(
      Problems(Policy(
          R"({"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/16","except":["10.0.0.0/8"]}}]}]})")),
      p + "spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: \"10.0.0.0/8\": must be a "
          "strict subset of "
          "`cidr`");
  EXPECT_EQ(
      Problems(
          Policy(R"({"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0"}}]}]})")),
      p + "spec.ingress[0].from[0].ipBlock.cidr: Invalid value: \"10.0.0.0\": not a valid CIDR");
}

TEST(DiscoveryValidation, EndpointSlices) {
  auto slice = [](const std::string& body) {
    return Obj("discovery.k8s.io/v1", "EndpointSlice", "web-1", body);
  };
  const std::string p = "EndpointSlice.discovery.k8s.io \"web-1\" is invalid: ";
  EXPECT_EQ(
      Problems(slice(
          R"("addressType":"IPv4","endpoints":[{"addresses":["10.1.2.3"]}],"ports":[{"port":80}])")),
      "");
  EXPECT_EQ(Problems(slice(R"("addressType":"IPX")")),
            p + "addressType: Unsupported value: \"IPX\": supported values: \"FQDN\", \"IPv4\", "
                "\"IPv6\"");
  EXPECT_EQ(Problems(slice("")), p + "addressType: Required value");
  EXPECT_EQ(Problems(slice(R"("addressType":"IPv4","endpoints":[{"addresses":[]}])")),
            p + "endpoints[0].addresses: Required value: must contain at least 1 address");
  EXPECT_EQ(
      Problems(slice(R"("addressType":"IPv4","endpoints":[{"addresses":["fd00::1"]}])")),
      p + "endpoints[0].addresses[0]: Invalid value: \"fd00::1\": must be a valid IPv4 address");
  EXPECT_EQ(UpdateProblems(slice(R"("addressType":"IPv6")"), slice(R"("addressType":"IPv4")")),
            p + "addressType: Invalid value: \"IPv6\": field is immutable");
}

}  // namespace
}  // namespace berth::api
