// Kubernetes' own round-trip test data: every field of each kind populated.
// Decoding then encoding must give back the same JSON value, unknown fields
// included.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/node_view.h"
#include "api/object.h"
#include "api/pod_view.h"
#include "api/storage_views.h"

namespace berth::api {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Fixtures, EveryKindRoundTripsUnchanged) {
  fs::path dir = fs::path(BERTH_FIXTURES_DIR) / "k8s-api-testdata";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    if (entry.path().filename() == "core.v1.Status.json") continue;  // a response, not a stored kind
    std::string text = ReadFile(entry.path());
    auto object = Object::Decode(text);
    ASSERT_TRUE(object.ok()) << entry.path().filename() << ": " << object.status().message();
    EXPECT_EQ(boost::json::parse(object.value()->Encoded()), boost::json::parse(text))
        << entry.path().filename();
    // A stored version changes only metadata.resourceVersion.
    boost::json::value stored = boost::json::parse(object.value()->WithResourceVersion(42)->Encoded());
    boost::json::value expected = boost::json::parse(text);
    expected.as_object()["metadata"].as_object()["resourceVersion"] = "42";
    EXPECT_EQ(stored, expected) << entry.path().filename();
  }
  EXPECT_GE(files, 13);
}

// The stored encoding (resourceVersion set) is text for text what setting it
// on a copy of the JSON and serializing the copy gives: in place when
// metadata has one, last in metadata otherwise.
TEST(Fixtures, StoredEncodingIsTheSameTextAsAnEditedCopy) {
  auto reference = [](const Object& o, int64_t rv) {
    boost::json::value copy = o.json();
    boost::json::value& meta = copy.as_object()["metadata"];
    if (!meta.is_object()) meta = boost::json::object();
    meta.as_object()["resourceVersion"] = std::to_string(rv);
    return boost::json::serialize(copy);
  };
  fs::path dir = fs::path(BERTH_FIXTURES_DIR) / "k8s-api-testdata";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "core.v1.Status.json") continue;
    auto object = Object::Decode(ReadFile(entry.path()));
    ASSERT_TRUE(object.ok()) << entry.path().filename();
    EXPECT_EQ(object.value()->WithResourceVersion(7)->Encoded(), reference(*object.value(), 7))
        << entry.path().filename();
  }
  auto plain = Object::Decode(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"d","labels":{"a":"\"q\""}},"spec":{}})");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain.value()->WithResourceVersion(12)->Encoded(), reference(*plain.value(), 12));
  EXPECT_NE(plain.value()->WithResourceVersion(12)->Encoded().find(R"("resourceVersion":"12"})"), std::string::npos);
}

// What a store writes (the template filled in under its lock) is Encoded() at
// that revision, and an object read back from that text (FromStored) is the
// same object: same text without parsing, same identity and views once parsed.
TEST(Fixtures, StoredTextReadsBackAsTheSameObject) {
  fs::path dir = fs::path(BERTH_FIXTURES_DIR) / "k8s-api-testdata";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "core.v1.Status.json") continue;
    auto object = Object::Decode(ReadFile(entry.path()));
    ASSERT_TRUE(object.ok()) << entry.path().filename();
    const Object& o = *object.value();
    for (int64_t rv : {int64_t{1}, int64_t{9}, int64_t{10}, int64_t{123456789012}}) {
      const std::string text = o.EncodeForRevision().At(rv);
      EXPECT_EQ(text, o.WithResourceVersion(rv)->Encoded()) << entry.path().filename() << " " << rv;
      EXPECT_EQ(o.WithResourceVersion(rv, text)->Encoded(), text);
    }
    const std::string text(o.WithResourceVersion(77)->Encoded());
    ObjectPtr stored = Object::FromStored(o.StorageKey(), text, 77);
    EXPECT_EQ(stored->StorageKey(), o.StorageKey());
    EXPECT_EQ(stored->resource_version(), 77);
    EXPECT_EQ(stored->Encoded().data(), stored->Encoded().data());
    EXPECT_EQ(stored->Encoded(), text);
    EXPECT_TRUE(stored->CheckDecodes().ok()) << entry.path().filename();
    EXPECT_EQ(stored->kind(), o.kind());
    EXPECT_EQ(stored->name(), o.name());
    EXPECT_EQ(stored->namespace_name(), o.namespace_name());
    EXPECT_EQ(stored->uid(), o.uid());
    EXPECT_EQ(stored->labels(), o.labels()) << entry.path().filename();
    EXPECT_EQ(stored->view() == nullptr, o.view() == nullptr);
    EXPECT_EQ(boost::json::value(stored->json()), boost::json::parse(text));
    // A later version of a stored object shares what was parsed.
    EXPECT_EQ(stored->WithResourceVersion(78)->Encoded(), o.WithResourceVersion(78)->Encoded());
  }
}

TEST(Fixtures, StoredTextThatDoesNotDecodeIsReportedNotGuessed) {
  const std::string key = StorageKey(Kind::kPod, "ns", "p");
  EXPECT_EQ(Object::FromStored(key, "{not json", 3)->CheckDecodes().code(), StatusCode::kInternal);
  auto no_kind = Object::FromStored(key, R"({"metadata":{"name":"p","namespace":"ns"}})", 3);
  EXPECT_NE(no_kind->CheckDecodes().message().find("Kind"), std::string::npos);
  auto elsewhere = Object::FromStored(
      key, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"q","namespace":"ns","resourceVersion":"3"}})", 3);
  EXPECT_NE(elsewhere->CheckDecodes().message().find("storage key"), std::string::npos);
  // Nothing but the text and the key is needed until then.
  EXPECT_EQ(elsewhere->StorageKey(), key);
  EXPECT_EQ(elsewhere->resource_version(), 3);
  // Objects that did not come from a store have nothing to check.
  EXPECT_TRUE(Object::Decode(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}})")
                  .value()
                  ->CheckDecodes()
                  .ok());
}

ObjectPtr DecodeFixture(const std::string& file) {
  auto object = Object::Decode(ReadFile(fs::path(BERTH_FIXTURES_DIR) / "k8s-api-testdata" / file));
  EXPECT_TRUE(object.ok()) << file << ": " << object.status().message();
  return object.ok() ? object.value() : nullptr;
}

// The typed views read the fields they model from the fully populated objects.
TEST(Fixtures, ViewsReadTheFieldsTheyModel) {
  ObjectPtr pod = DecodeFixture("core.v1.Pod.json");
  ASSERT_NE(pod, nullptr);
  const PodView* p = pod->As<PodView>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->scheduler_name, "schedulerNameValue");
  EXPECT_EQ(p->node_name, "nodeNameValue");
  EXPECT_EQ(p->priority, 25);
  EXPECT_EQ(p->priority_class_name, "priorityClassNameValue");
  EXPECT_EQ(p->nominated_node_name, "nominatedNodeNameValue");
  EXPECT_EQ(p->phase, "phaseValue");
  EXPECT_EQ(p->node_selector.Get("nodeSelectorKey"), "nodeSelectorValue");
  EXPECT_TRUE(p->requests.HasScalar("requestsKey"));
  EXPECT_TRUE(p->requests.HasScalar("overheadKey"));
  ASSERT_TRUE(p->required_node_affinity.has_value());
  ASSERT_EQ(p->required_node_affinity->terms.size(), 1u);
  EXPECT_EQ(p->required_node_affinity->terms[0].match_expressions[0].key, "keyValue");
  EXPECT_EQ(p->required_node_affinity->terms[0].match_fields[0].values, std::vector<std::string>{"valuesValue"});
  EXPECT_EQ(p->preferred_node_affinity.size(), 1u);
  ASSERT_EQ(p->pod_affinity.required.size(), 1u);
  EXPECT_EQ(p->pod_affinity.required[0].topology_key, "topologyKeyValue");
  EXPECT_EQ(p->pod_affinity.required[0].namespaces, std::vector<std::string>{"namespacesValue"});
  EXPECT_TRUE(p->pod_affinity.required[0].namespace_selector.has_value());
  EXPECT_EQ(p->pod_affinity.required[0].match_label_keys, std::vector<std::string>{"matchLabelKeysValue"});
  EXPECT_EQ(p->pod_affinity.preferred.size(), 1u);
  EXPECT_EQ(p->pod_anti_affinity.required.size(), 1u);
  ASSERT_EQ(p->tolerations.size(), 1u);
  EXPECT_EQ(p->tolerations[0].key, "keyValue");
  EXPECT_EQ(p->tolerations[0].toleration_seconds, 5);
  ASSERT_EQ(p->topology_spread_constraints.size(), 1u);
  EXPECT_EQ(p->topology_spread_constraints[0].max_skew, 1);
  EXPECT_EQ(p->topology_spread_constraints[0].min_domains, 5);
  EXPECT_EQ(p->scheduling_gates, std::vector<std::string>{"nameValue"});
  EXPECT_FALSE(p->host_ports.empty());
  EXPECT_EQ(p->host_ports[0].port, 2);
  EXPECT_EQ(p->host_ports[0].host_ip, "hostIPValue");
  EXPECT_FALSE(p->images.empty());
  EXPECT_FALSE(p->volumes.empty());

  ObjectPtr node = DecodeFixture("core.v1.Node.json");
  ASSERT_NE(node, nullptr);
  const NodeView* n = node->As<NodeView>();
  EXPECT_TRUE(n->unschedulable);
  ASSERT_EQ(n->taints.size(), 1u);
  EXPECT_EQ(n->taints[0].key, "keyValue");
  EXPECT_TRUE(n->capacity.HasScalar("capacityKey"));
  EXPECT_TRUE(n->allocatable.HasScalar("allocatableKey"));
  ASSERT_EQ(n->conditions.size(), 1u);
  EXPECT_EQ(n->conditions[0].type, "typeValue");
  EXPECT_FALSE(n->images.empty());

  ObjectPtr pv = DecodeFixture("core.v1.PersistentVolume.json");
  ASSERT_NE(pv, nullptr);
  const auto* pvv = pv->As<PersistentVolumeView>();
  EXPECT_EQ(pvv->storage_class_name, "storageClassNameValue");
  EXPECT_TRUE(pvv->claim_ref.has_value());
  EXPECT_TRUE(pvv->node_affinity.has_value());
  EXPECT_FALSE(pvv->access_modes.empty());

  ObjectPtr pvc = DecodeFixture("core.v1.PersistentVolumeClaim.json");
  ASSERT_NE(pvc, nullptr);
  const auto* pvcv = pvc->As<PersistentVolumeClaimView>();
  EXPECT_EQ(pvcv->storage_class_name, "storageClassNameValue");
  EXPECT_EQ(pvcv->volume_name, "volumeNameValue");
  EXPECT_EQ(pvcv->volume_mode, "volumeModeValue");
  EXPECT_EQ(pvcv->phase, "phaseValue");
  EXPECT_TRUE(pvcv->selector.has_value());

  ObjectPtr sc = DecodeFixture("storage.k8s.io.v1.StorageClass.json");
  ASSERT_NE(sc, nullptr);
  const auto* scv = sc->As<StorageClassView>();
  EXPECT_EQ(scv->provisioner, "provisionerValue");
  EXPECT_EQ(scv->reclaim_policy, "reclaimPolicyValue");
  ASSERT_EQ(scv->allowed_topologies.size(), 1u);
  EXPECT_EQ(scv->allowed_topologies[0].match_expressions[0].key, "keyValue");

  ObjectPtr pc = DecodeFixture("scheduling.k8s.io.v1.PriorityClass.json");
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(pc->As<PriorityClassView>()->value, 2);
  EXPECT_TRUE(pc->As<PriorityClassView>()->global_default);
}

}  // namespace
}  // namespace berth::api
