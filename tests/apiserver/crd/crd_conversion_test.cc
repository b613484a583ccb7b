// The ConversionReview of a CRD conversion webhook: the request as kube sends
// it (v1, or v1beta1 when only that is listed) and how answers are checked:
// the uid and kind of a v1 answer, Success, one object per object sent, the
// desired apiVersion, the same kind, name, namespace and uid, and the
// original's metadata restored but for labels and annotations.
// (The webhook called over HTTPS is tested end to end: tests/e2e/crd_conversion_test.py.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/crd/conversion.h"

namespace berth::apiserver::crd {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

constexpr std::string_view kV2 = "stable.example.com/v2";

json::object Stored(std::string_view name) {
  return json::parse(R"({"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":")" +
                     std::string(name) +
                     R"(","namespace":"default","uid":"u-)" + std::string(name) +
                     R"(","resourceVersion":"7","labels":{"a":"1"}},"spec":{"hostPort":"h:1"}})")
      .as_object();
}

// An answer to `review` converting `objects` with `edit` applied to each.
std::string Answer(const ConversionReview& review, std::span<const json::object> objects,
                   const std::function<void(json::object&)>& edit = {}, std::string_view status = "Success") {
  json::array converted;
  for (json::object o : objects) {
    o["apiVersion"] = kV2;
    json::object& spec = o["spec"].as_object();
    spec.erase("hostPort");
    spec["host"] = "h";
    spec["port"] = "1";
    if (edit) edit(o);
    converted.emplace_back(std::move(o));
  }
  json::object answer{{"apiVersion", "apiextensions.k8s.io/" + review.version},
                      {"kind", "ConversionReview"},
                      {"response", json::object{{"uid", review.uid},
                                                {"result", json::object{{"status", status}}},
                                                {"convertedObjects", std::move(converted)}}}};
  return json::serialize(answer);
}

TEST(ConversionReview, AsksForTheObjectsInTheDesiredVersion) {
  std::vector<json::object> objects{Stored("a"), Stored("b")};
  std::vector<std::string> versions{"v2alpha1", "v1", "v1beta1"};
  auto review = MakeConversionReview(versions, objects, kV2);
  ASSERT_TRUE(review.ok()) << review.status().message();
  EXPECT_EQ(review->version, "v1");  // the first listed that berth speaks
  json::value body = json::parse(review->body);
  EXPECT_EQ(body.at("apiVersion"), "apiextensions.k8s.io/v1");
  EXPECT_EQ(body.at("kind"), "ConversionReview");
  const json::object& request = body.at("request").as_object();
  EXPECT_EQ(request.at("uid").as_string(), review->uid);
  EXPECT_EQ(request.at("desiredAPIVersion").as_string(), kV2);
  ASSERT_EQ(request.at("objects").as_array().size(), 2u);
  EXPECT_EQ(request.at("objects").as_array()[1], json::value(objects[1]));

  std::vector<std::string> beta{"v1beta1"};
  EXPECT_EQ(MakeConversionReview(beta, objects, kV2)->version, "v1beta1");
  std::vector<std::string> none{"v3"};
  EXPECT_FALSE(MakeConversionReview(none, objects, kV2).ok());
}

TEST(ConversionReview, ConvertedObjectsKeepTheirMetadataButLabelsAndAnnotations) {
  std::vector<json::object> objects{Stored("a")};
  std::vector<std::string> versions{"v1"};
  auto review = MakeConversionReview(versions, objects, kV2).value();
  auto converted = ReadConvertedObjects(review, Answer(review, objects, [](json::object& o) {
                                          json::object& meta = o["metadata"].as_object();
                                          meta["labels"] = json::object{{"converted", "yes"}};
                                          meta["annotations"] = json::object{{"note", "by webhook"}};
                                          meta["resourceVersion"] = "999";  // not the webhook's to change
                                          meta["finalizers"] = json::array{"example.com/x"};
                                        }),
                                        objects, kV2, /*list=*/false);
  ASSERT_TRUE(converted.ok()) << converted.status().message();
  const json::object& meta = converted->front().at("metadata").as_object();
  EXPECT_EQ(meta.at("labels"), (json::object{{"converted", "yes"}}));
  EXPECT_EQ(meta.at("annotations"), (json::object{{"note", "by webhook"}}));
  EXPECT_EQ(meta.at("resourceVersion"), "7");
  EXPECT_FALSE(meta.contains("finalizers"));
  EXPECT_EQ(converted->front().at("spec").at("host"), "h");

  // Labels the webhook removes are gone.
  converted = ReadConvertedObjects(
      review, Answer(review, objects, [](json::object& o) { o["metadata"].as_object().erase("labels"); }), objects,
      kV2, false);
  ASSERT_TRUE(converted.ok());
  EXPECT_FALSE(converted->front().at("metadata").as_object().contains("labels"));
}

TEST(ConversionReview, AnswersKubeRefusesAreErrorsWithItsWords) {
  std::vector<json::object> objects{Stored("a"), Stored("b")};
  std::vector<std::string> versions{"v1"};
  auto review = MakeConversionReview(versions, objects, kV2).value();
  auto error = [&](std::string answer, bool list = true) {
    auto read = ReadConvertedObjects(review, answer, objects, kV2, list);
    EXPECT_FALSE(read.ok());
    return read.ok() ? std::string() : read.status().message();
  };
  EXPECT_THAT(error("not json"), HasSubstr("failed: "));
  EXPECT_EQ(error("[]"), "failed: the answer is not a ConversionReview");
  EXPECT_EQ(error(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"})"),
            "failed: no response provided");
  EXPECT_EQ(error(R"({"apiVersion":"v1","kind":"Status","response":{}})"),
            "failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got v1, Kind=Status");
  EXPECT_EQ(error(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview",)"
                  R"("response":{"uid":"other","result":{"status":"Success"}}})"),
            "failed: expected response.uid=\"" + review.uid + "\", got \"other\"");
  json::value failure = json::parse(Answer(review, objects, {}, "Failure"));
  EXPECT_EQ(error(json::serialize(failure)), "failed: response.result.status was 'Failure', not 'Success'");
  failure.at("response").at("result").as_object()["message"] = "cannot convert";
  EXPECT_EQ(error(json::serialize(failure)), "failed: cannot convert");
  std::vector<json::object> one{objects[0]};
  EXPECT_EQ(error(Answer(review, one)), "returned 1 objects, expected 2");
  EXPECT_EQ(error(Answer(review, objects, [](json::object& o) { o["apiVersion"] = "stable.example.com/v1"; })),
            "returned invalid converted object at index 1: invalid groupVersion (expected stable.example.com/v2, "
            "received stable.example.com/v1)");
  EXPECT_EQ(error(Answer(review, objects, [](json::object& o) { o["kind"] = "Gadget"; }), false),
            "returned invalid object at index 0: invalid kind (expected Widget, received Gadget)");
  EXPECT_EQ(error(Answer(review, objects, [](json::object& o) { o["metadata"].as_object()["uid"] = "x"; }), false),
            "returned invalid object: must have the same UID: u-a != x");
  EXPECT_EQ(error(Answer(review, objects,
                         [](json::object& o) { o["metadata"].as_object()["namespace"] = "kube-system"; })),
            "returned invalid converted object at index 1: must have the same namespace: default != kube-system");
  EXPECT_THAT(error(Answer(review, objects,
                           [](json::object& o) {
                             o["metadata"].as_object()["labels"] = json::object{{"bad key!", "v"}};
                           })),
              HasSubstr("returned invalid metadata in object at index 1: metadata.labels: Invalid value: \"bad key!\""));
  EXPECT_EQ(error(Answer(review, objects, [](json::object& o) { o.erase("metadata"); })),
            "returned invalid converted object at index 1: must have the same name: a != ");
}

TEST(ConversionReview, V1beta1AnswersAreNotCheckedForKindAndUid) {
  std::vector<json::object> objects{Stored("a")};
  std::vector<std::string> versions{"v1beta1"};
  auto review = MakeConversionReview(versions, objects, kV2).value();
  json::value answer = json::parse(Answer(review, objects));
  answer.as_object()["kind"] = "Anything";
  answer.at("response").as_object()["uid"] = "another";
  EXPECT_TRUE(ReadConvertedObjects(review, json::serialize(answer), objects, kV2, false).ok());
}

}  // namespace
}  // namespace berth::apiserver::crd
