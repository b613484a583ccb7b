// Validation: Kubernetes' field paths and messages.

#include "api/validation/validation.h"

#include <gtest/gtest.h>

namespace berth::api {
namespace {

Status Validate(const std::string& json) {
  auto object = Object::Decode(json);
  EXPECT_TRUE(object.ok()) << object.status().message();
  return ValidateObject(*object.value());
}

std::string PodWith(const std::string& containers, const std::string& name = "web") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"default"},"spec":{"containers":)" + containers + "}}";
}

// An unparseable quantity in a pod fails decoding already (as Kubernetes'
// decoder does: 400, not 422), naming the field.
TEST(Validation, PodDecodeRejectsUnparseableQuantityNamingTheField) {
  auto object = Object::Decode(PodWith(R"([{"name":"c","image":"x","resources":{"requests":{"memory":"lots"}}}])"));
  ASSERT_FALSE(object.ok());
  EXPECT_EQ(object.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(object.status().message(),
            "spec.containers[0].resources.requests[memory]: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

TEST(Validation, NamesFollowRfc1123) {
  EXPECT_TRUE(IsDns1123Label("my-name").empty());
  EXPECT_FALSE(IsDns1123Label("My-Name").empty());
  EXPECT_FALSE(IsDns1123Label("-a").empty());
  EXPECT_FALSE(IsDns1123Label(std::string(64, 'a')).empty());
  EXPECT_TRUE(IsDns1123Subdomain("example.com").empty());
  EXPECT_FALSE(IsDns1123Subdomain("a..b").empty());
  EXPECT_TRUE(IsQualifiedName("example.com/my-key_1").empty());
  EXPECT_FALSE(IsQualifiedName("/x").empty());
  EXPECT_TRUE(IsValidLabelValue("").empty());
  EXPECT_FALSE(IsValidLabelValue("a b").empty());
}

std::string ConfigMapAnnotated(const std::string& annotations) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","annotations":)" +
         annotations + "}}";
}

TEST(Validation, AnnotationsAreQualifiedNamesOfAnyCaseWithinTheirTotalSize) {
  EXPECT_TRUE(Validate(ConfigMapAnnotated(R"({"Example.COM/Owner":"x"})")).ok());
  EXPECT_FALSE(Validate(ConfigMapAnnotated(R"({"/x":"y"})")).ok());
  // Keys and values together: 256 KiB at most.
  const std::string half(128 * 1024, 'v');
  EXPECT_TRUE(Validate(ConfigMapAnnotated(R"({"a":")" + half + R"(","b":")" + half.substr(2) + "\"}")).ok());
  Status s = Validate(ConfigMapAnnotated(R"({"a":")" + half + R"(","b":")" + half + "\"}"));
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.message(),
            "ConfigMap \"c\" is invalid: metadata.annotations: Too long: must have at most 262144 bytes");
}

TEST(Validation, ValidPodPasses) {
  EXPECT_TRUE(Validate(PodWith(R"([{"name":"c","image":"nginx","resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"1"}}}])")).ok());
}

TEST(Validation, ReportsFieldPathsAndMessages) {
  struct Case {
    std::string json;
    std::string field;
    std::string message;
  };
  const Case cases[] = {
      {PodWith("[]"), "spec.containers", "Required value"},
      {PodWith(R"([{"name":"c"}])"), "spec.containers[0].image", "Required value"},
      {PodWith(R"([{"image":"x"}])"), "spec.containers[0].name", "Required value"},
      {PodWith(R"([{"name":"c","image":"x"},{"name":"c","image":"y"}])"), "spec.containers[1].name",
       "Duplicate value: \"c\""},
      {PodWith(R"([{"name":"c","image":"x","resources":{"requests":{"cpu":"-1"}}}])"),
       "spec.containers[0].resources.requests[cpu]",
       "Invalid value: \"-1\": must be greater than or equal to 0"},
      {PodWith(
           R"([{"name":"c","image":"x","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}}}])"),
       "spec.containers[0].resources.requests",
       "Invalid value: \"2\": must be less than or equal to cpu limit of 1"},
      {PodWith(R"([{"name":"c","image":"x","ports":[{"containerPort":70000}]}])"),
       "spec.containers[0].ports[0].containerPort",
       "Invalid value: 70000: must be between 1 and 65535, inclusive"},
      {PodWith(R"([{"name":"c","image":"x"}])", "Bad_Name"), "metadata.name",
       "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"},
      // Go's %q: quotes and control characters escaped.
      {PodWith(R"([{"name":"c","image":"x"}])", R"(a\"b\n)"), "metadata.name",
       R"(Invalid value: "a\"b\n": a lowercase RFC 1123 subdomain)"},
      // Go's %#v of a map: keys sorted, ", " between entries.
      {R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"tier":"x","app":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})",
       "spec.template.metadata.labels",
       R"(Invalid value: map[string]string{"app":"b", "tier":"x"}: )"},
      {R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})",
       "spec.template.metadata.labels",
       "Invalid value: map[string]string{\"app\":\"b\"}: `selector` does not match template "
       "`labels`"},
      {R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c","namespace":"default"},"spec":{"accessModes":["ReadWriteOnce"]}})",
       "spec.resources[storage]", "Required value"},
  };
  for (const auto& c : cases) {
    Status s = Validate(c.json);
    ASSERT_EQ(s.code(), StatusCode::kInvalid) << c.json;
    bool found = false;
    for (const auto& cause : s.causes()) {
      if (cause.field == c.field && cause.message.find(c.message) != std::string::npos) found = true;
    }
    EXPECT_TRUE(found) << "expected " << c.field << ": " << c.message << "\ngot: " << s.message();
  }
}

TEST(Validation, StatusMessageHasKubesShape) {
  Status one = Validate(PodWith("[]"));
  EXPECT_EQ(one.message(), "Pod \"web\" is invalid: spec.containers: Required value");
  Status two = Validate(PodWith(R"([{}])"));
  EXPECT_EQ(two.message(),
            "Pod \"web\" is invalid: [spec.containers[0].name: Required value, spec.containers[0].image: Required value]");
  EXPECT_EQ(two.causes()[0].type, "FieldValueRequired");
}

}  // namespace
}  // namespace berth::api
