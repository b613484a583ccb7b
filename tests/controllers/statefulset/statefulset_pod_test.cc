// The StatefulSet's pod and claim rules as pure functions: names and
// ordinals, identity and storage, claims from templates, and the claims'
// owner references for each retention policy.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "controllers/history.h"
#include "controllers/statefulset/stateful_pod.h"

namespace berth::controllers {
namespace {

namespace json = boost::json;

api::ObjectPtr Make(std::string_view text) {
  auto o = api::Object::FromJson(json::parse(text).as_object());
  EXPECT_TRUE(o.ok()) << o.status().message();
  return o.value();
}

std::string SetJson(const std::string& spec_extra = "") {
  return R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"web","namespace":"ns","uid":"set-uid"},
    "spec":{"replicas":2,"serviceName":"svc",)" +
         spec_extra + R"("selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"},"annotations":{"a":"b"}},
                "spec":{"containers":[{"name":"c","image":"v1"}],
                        "volumes":[{"name":"scratch","emptyDir":{}},{"name":"www","emptyDir":{}}]}},
    "volumeClaimTemplates":[{"metadata":{"name":"www","labels":{"tier":"data"}},
                             "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}})";
}

TEST(StatefulPodName, ParsesParentAndOrdinal) {
  struct Case {
    std::string name, parent;
    int64_t ordinal;
  } cases[] = {
      {"web-0", "web", 0}, {"my-web-12", "my-web", 12}, {"web", "", -1},
      {"web-", "", -1},    {"web-x1", "", -1},          {"web-99999999999", "", -1},
  };
  for (const auto& c : cases) {
    auto id = ParseStatefulPodName(c.name);
    EXPECT_EQ(id.parent, c.parent) << c.name;
    EXPECT_EQ(id.ordinal, c.ordinal) << c.name;
  }
  EXPECT_EQ(StatefulPodName("web", 3), "web-3");
  EXPECT_EQ(StatefulClaimName("www", "web", 3), "www-web-3");
}

TEST(StatefulPod, NewPodHasStableIdentityAndClaimVolumes) {
  auto set = Make(SetJson());
  const json::object& tmpl = api::Spec(*set)->at("template").as_object();
  json::object pod = NewStatefulPod(*set, tmpl, 1, "web-abc");
  const json::object& meta = pod["metadata"].as_object();
  EXPECT_EQ(api::StringAt(meta, "name"), "web-1");
  EXPECT_EQ(api::StringAt(meta, "namespace"), "ns");
  const json::object& labels = meta.at("labels").as_object();
  EXPECT_EQ(api::StringAt(labels, "app"), "web");
  EXPECT_EQ(api::StringAt(labels, kStatefulSetPodNameLabel), "web-1");
  EXPECT_EQ(api::StringAt(labels, kPodIndexLabel), "1");
  EXPECT_EQ(api::StringAt(labels, kControllerRevisionHashLabel), "web-abc");
  EXPECT_EQ(api::StringAt(meta.at("annotations").as_object(), "a"), "b");
  const json::object& ref = meta.at("ownerReferences").as_array()[0].as_object();
  EXPECT_EQ(api::StringAt(ref, "kind"), "StatefulSet");
  EXPECT_EQ(api::StringAt(ref, "uid"), "set-uid");
  EXPECT_TRUE(api::BoolAt(&ref, "controller"));
  const json::object& spec = pod["spec"].as_object();
  EXPECT_EQ(api::StringAt(spec, "hostname"), "web-1");
  EXPECT_EQ(api::StringAt(spec, "subdomain"), "svc");
  // The template's own "www" volume gives way to the claim; others stay.
  const json::array& volumes = spec.at("volumes").as_array();
  ASSERT_EQ(volumes.size(), 2u);
  EXPECT_EQ(api::StringAt(volumes[0].as_object(), "name"), "www");
  EXPECT_EQ(
      api::StringAt(api::ObjectAt(volumes[0].as_object(), "persistentVolumeClaim"), "claimName"),
      "www-web-1");
  EXPECT_EQ(api::StringAt(volumes[1].as_object(), "name"), "scratch");

  pod["metadata"].as_object()["uid"] = "pod-uid";
  auto made = api::Object::FromJson(pod).value();
  EXPECT_TRUE(IdentityMatches(*set, *made));
  EXPECT_TRUE(StorageMatches(*set, *made));
}

TEST(StatefulPod, MismatchedIdentityAndStorageAreRepaired) {
  auto set = Make(SetJson());
  auto pod = Make(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-4","namespace":"ns","labels":{"app":"web"}},
      "spec":{"containers":[{"name":"c","image":"v1"}],"volumes":[{"name":"www","emptyDir":{}}]}})");
  EXPECT_FALSE(IdentityMatches(*set, *pod));
  EXPECT_FALSE(StorageMatches(*set, *pod));
  json::object edited = pod->json();
  UpdateIdentity(*set, edited);
  UpdateStorage(*set, edited);
  auto fixed = api::Object::FromJson(edited).value();
  EXPECT_TRUE(IdentityMatches(*set, *fixed));
  EXPECT_TRUE(StorageMatches(*set, *fixed));
  // Another set's pod never matches this one's identity.
  auto other = Make(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"db-0","namespace":"ns"},"spec":{}})");
  EXPECT_FALSE(IdentityMatches(*set, *other));
}

TEST(StatefulPod, ClaimsAreNamedPerOrdinalAndCarryTheSelectorLabels) {
  auto set = Make(SetJson());
  auto claims = StatefulClaims(*set, 7);
  ASSERT_EQ(claims.size(), 1u);
  const json::object& meta = claims[0]["metadata"].as_object();
  EXPECT_EQ(api::StringAt(meta, "name"), "www-web-7");
  EXPECT_EQ(api::StringAt(meta, "namespace"), "ns");
  EXPECT_EQ(api::StringAt(meta.at("labels").as_object(), "tier"), "data");
  EXPECT_EQ(api::StringAt(meta.at("labels").as_object(), "app"), "web");
  EXPECT_EQ(api::StringAt(claims[0], "kind"), "PersistentVolumeClaim");
  EXPECT_TRUE(claims[0]["spec"].as_object().contains("resources"));
}

TEST(StatefulPod, OrdinalsStartWhereTheSetSays) {
  auto set = Make(SetJson(R"("ordinals":{"start":5},)"));
  EXPECT_EQ(StartOrdinal(*set), 5);
  EXPECT_FALSE(OrdinalInRange(*set, 4));
  EXPECT_TRUE(OrdinalInRange(*set, 5));
  EXPECT_TRUE(OrdinalInRange(*set, 6));
  EXPECT_FALSE(OrdinalInRange(*set, 7));
}

// The owners each retention policy wants on a claim, for a pod in range
// (web-1) and one scaled down (web-2 with replicas 2).
TEST(StatefulPod, ClaimOwnersFollowTheRetentionPolicy) {
  struct Case {
    const char* when_deleted;
    const char* when_scaled;
    const char* pod;
    bool set_owns, pod_owns;
  } cases[] = {
      {"Retain", "Retain", "web-1", false, false}, {"Retain", "Retain", "web-2", false, false},
      {"Delete", "Retain", "web-1", true, false},  {"Delete", "Retain", "web-2", true, false},
      {"Retain", "Delete", "web-1", false, false}, {"Retain", "Delete", "web-2", false, true},
      {"Delete", "Delete", "web-1", true, false},  {"Delete", "Delete", "web-2", false, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.when_deleted) + "/" + c.when_scaled + " " + c.pod);
    auto set =
        Make(SetJson(std::string(R"("persistentVolumeClaimRetentionPolicy":{"whenDeleted":")") +
                     c.when_deleted + R"(","whenScaled":")" + c.when_scaled + R"("},)"));
    auto pod = Make(std::string(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")") + c.pod +
                    R"(","namespace":"ns","uid":"pod-uid"},"spec":{}})");
    // A claim with an unrelated (non-controller) owner, which must survive.
    auto claim = Make(
        R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"www-web-1","namespace":"ns",
        "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"keep","uid":"cm-uid"}]},"spec":{}})");
    bool want_change = c.set_owns || c.pod_owns;
    EXPECT_EQ(ClaimOwnerUpToDate(*claim, *set, *pod), !want_change);
    json::array refs = ClaimOwnerReferences(*claim, *set, *pod);
    bool set_owns = false, pod_owns = false, kept = false;
    for (const auto& r : refs) {
      std::string_view uid = api::StringAt(r.as_object(), "uid");
      set_owns = set_owns || uid == "set-uid";
      pod_owns = pod_owns || uid == "pod-uid";
      kept = kept || uid == "cm-uid";
      if (uid != "cm-uid") {
        EXPECT_TRUE(api::BoolAt(&r.as_object(), "controller"));
      }
    }
    EXPECT_EQ(set_owns, c.set_owns);
    EXPECT_EQ(pod_owns, c.pod_owns);
    EXPECT_TRUE(kept);
    // Written back, the claim is up to date.
    json::object next = claim->json();
    next["metadata"].as_object()["ownerReferences"] = refs;
    EXPECT_TRUE(ClaimOwnerUpToDate(*api::Object::FromJson(next).value(), *set, *pod));
  }
}

TEST(StatefulPod, ClaimsOfAnotherControllerOrAnEarlierSetAreLeftAlone) {
  auto set = Make(SetJson(
      R"("persistentVolumeClaimRetentionPolicy":{"whenDeleted":"Delete","whenScaled":"Retain"},)"));
  auto pod = Make(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-0","namespace":"ns","uid":"pod-uid"},"spec":{}})");
  auto foreign = Make(
      R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"www-web-0","namespace":"ns",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"x","uid":"rs","controller":true}]},"spec":{}})");
  EXPECT_TRUE(ClaimOwnerUpToDate(*foreign, *set, *pod));
  auto stale = Make(
      R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"www-web-0","namespace":"ns",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"old-set","controller":true}]},"spec":{}})");
  EXPECT_TRUE(ClaimOwnerUpToDate(*stale, *set, *pod));
}

}  // namespace
}  // namespace berth::controllers
