// Typed views: what the scheduler and controllers read from objects, with
// Kubernetes' rules (effective requests, selector and toleration matching).

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/node_view.h"
#include "api/object.h"
#include "api/pod_view.h"
#include "api/storage_views.h"

namespace berth::api {
namespace {

ObjectPtr Decode(const std::string& json) {
  auto object = Object::Decode(json);
  EXPECT_TRUE(object.ok()) << object.status().message();
  return object.ok() ? object.value() : nullptr;
}

ObjectPtr PodWithSpec(const std::string& spec) {
  return Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":)" +
                spec + "}");
}

std::string Container(const std::string& requests, const std::string& limits = "{}",
                      const std::string& extra = "") {
  return R"({"name":"c","image":"img","resources":{"requests":)" + requests + R"(,"limits":)" + limits + "}" +
         extra + "}";
}

struct RequestsCase {
  std::string name;
  std::string spec;
  int64_t milli_cpu, memory;
  int64_t non_zero_milli_cpu, non_zero_memory;
};

TEST(PodView, EffectiveRequestsFollowKubesRule) {
  const int64_t Mi = 1024 * 1024;
  std::vector<RequestsCase> cases = {
      {"containers are summed",
       R"({"containers":[)" + Container(R"({"cpu":"100m","memory":"1Mi"})") + "," +
           Container(R"({"cpu":"250m","memory":"2Mi"})") + "]}",
       350, 3 * Mi, 350, 3 * Mi},
      {"an init container larger than the sum wins per resource",
       R"({"initContainers":[)" + Container(R"({"cpu":"2","memory":"1Mi"})") + R"(],"containers":[)" +
           Container(R"({"cpu":"500m","memory":"5Mi"})") + "]}",
       2000, 5 * Mi, 2000, 5 * Mi},
      {"sidecars run beside the containers and later init containers",
       R"({"initContainers":[)" +
           Container(R"({"cpu":"100m","memory":"1Mi"})", "{}", R"(,"restartPolicy":"Always")") + "," +
           Container(R"({"cpu":"1","memory":"1Mi"})") + R"(],"containers":[)" +
           Container(R"({"cpu":"200m","memory":"1Mi"})") + "]}",
       1100, 2 * Mi, 1100, 2 * Mi},
      {"overhead is added",
       R"({"overhead":{"cpu":"50m","memory":"10Mi"},"containers":[)" + Container(R"({"cpu":"100m","memory":"1Mi"})") +
           "]}",
       150, 11 * Mi, 150, 11 * Mi},
      {"limits stand in for missing requests",
       R"({"containers":[)" + Container("{}", R"({"cpu":"300m","memory":"64Mi"})") + "]}", 300, 64 * Mi, 300,
       64 * Mi},
      {"no requests: zero, but scoring counts 100m and 200Mi",
       R"({"containers":[{"name":"c","image":"img"},{"name":"d","image":"img"}]})", 0, 0, 200, 400 * Mi},
      {"an explicit zero stays zero for scoring", R"({"containers":[)" + Container(R"({"cpu":"0"})") + "]}", 0,
       0, 0, 200 * Mi},
      {"millicores round up", R"({"containers":[)" + Container(R"({"cpu":"0.0001"})") + "]}", 1, 0, 1, 200 * Mi},
  };
  for (const auto& c : cases) {
    ObjectPtr pod = PodWithSpec(c.spec);
    ASSERT_NE(pod, nullptr) << c.name;
    const PodView* view = pod->As<PodView>();
    EXPECT_EQ(view->requests.milli_cpu, c.milli_cpu) << c.name;
    EXPECT_EQ(view->requests.memory, c.memory) << c.name;
    EXPECT_EQ(view->non_zero_requests.milli_cpu, c.non_zero_milli_cpu) << c.name;
    EXPECT_EQ(view->non_zero_requests.memory, c.non_zero_memory) << c.name;
  }
}

TEST(PodView, ExtendedResourcesAndPodsAreCounted) {
  ObjectPtr pod = PodWithSpec(R"({"containers":[)" +
                              Container(R"({"nvidia.com/gpu":"2","ephemeral-storage":"1Gi"})") + "," +
                              Container(R"({"nvidia.com/gpu":"1","hugepages-2Mi":"4Mi"})") + "]}");
  const PodView* view = pod->As<PodView>();
  EXPECT_EQ(view->requests.Get("nvidia.com/gpu"), 3);
  EXPECT_EQ(view->requests.Get("hugepages-2Mi"), 4 * 1024 * 1024);
  EXPECT_EQ(view->requests.ephemeral_storage, 1024LL * 1024 * 1024);
  EXPECT_EQ(view->requests.Get("example.com/absent"), 0);
}

TEST(PodView, ReadsSchedulingFields) {
  ObjectPtr pod = PodWithSpec(R"({
    "schedulerName":"berth","priority":1000,"priorityClassName":"high","nodeName":"n1",
    "nodeSelector":{"disk":"ssd"},
    "tolerations":[{"key":"k","operator":"Equal","value":"v","effect":"NoSchedule","tolerationSeconds":30}],
    "schedulingGates":[{"name":"wait"}],
    "volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"claim1"}},
               {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{}}}},{"name":"cfg","configMap":{"name":"x"}}],
    "containers":[{"name":"c","image":"nginx:1","ports":[{"containerPort":80,"hostPort":8080},{"containerPort":81}]}],
    "affinity":{
      "nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[
          {"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution":[{"weight":5,"preference":{"matchFields":[
          {"key":"metadata.name","operator":"In","values":["n2"]}]}}]},
      "podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
          {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}},
    "topologySpreadConstraints":[{"maxSkew":2,"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway",
      "labelSelector":{"matchLabels":{"app":"web"}},"minDomains":3,"nodeTaintsPolicy":"Honor"}]})");
  const PodView* v = pod->As<PodView>();
  EXPECT_EQ(v->scheduler_name, "berth");
  EXPECT_EQ(v->priority, 1000);
  EXPECT_TRUE(v->has_priority);
  EXPECT_EQ(v->priority_class_name, "high");
  EXPECT_EQ(v->node_name, "n1");
  EXPECT_EQ(v->node_selector.Get("disk"), "ssd");
  ASSERT_EQ(v->tolerations.size(), 1u);
  EXPECT_EQ(v->tolerations[0].toleration_seconds, 30);
  EXPECT_EQ(v->scheduling_gates, std::vector<std::string>{"wait"});
  ASSERT_EQ(v->volumes.size(), 3u);
  EXPECT_EQ(v->volumes[0].claim_name, "claim1");
  EXPECT_EQ(v->volumes[1].claim_name, "p-scratch");
  EXPECT_TRUE(v->volumes[1].ephemeral);
  EXPECT_EQ(v->volumes[2].claim_name, "");
  ASSERT_EQ(v->host_ports.size(), 1u);
  EXPECT_EQ(v->host_ports[0], (HostPort{"TCP", "0.0.0.0", 8080}));
  EXPECT_EQ(v->images, std::vector<std::string>{"nginx:1"});
  ASSERT_TRUE(v->required_node_affinity.has_value());
  EXPECT_TRUE(v->required_node_affinity->Matches(Labels{{"zone", "b"}}, "any"));
  EXPECT_FALSE(v->required_node_affinity->Matches(Labels{{"zone", "c"}}, "any"));
  ASSERT_EQ(v->preferred_node_affinity.size(), 1u);
  EXPECT_EQ(v->preferred_node_affinity[0].weight, 5);
  EXPECT_TRUE(v->preferred_node_affinity[0].preference.Matches({}, "n2"));
  ASSERT_EQ(v->pod_anti_affinity.required.size(), 1u);
  EXPECT_TRUE(v->pod_anti_affinity.required[0].label_selector.Matches(Labels{{"app", "web"}}));
  EXPECT_EQ(v->pod_anti_affinity.required[0].topology_key, "kubernetes.io/hostname");
  EXPECT_TRUE(v->pod_affinity.empty());
  ASSERT_EQ(v->topology_spread_constraints.size(), 1u);
  const auto& tsc = v->topology_spread_constraints[0];
  EXPECT_EQ(tsc.max_skew, 2);
  EXPECT_FALSE(tsc.do_not_schedule);
  EXPECT_EQ(tsc.min_domains, 3);
  EXPECT_TRUE(tsc.node_affinity_honor);
  EXPECT_TRUE(tsc.node_taints_honor);
}

TEST(PodView, DefaultsWhenFieldsAreAbsent) {
  ObjectPtr pod = PodWithSpec(R"({"containers":[{"name":"c","image":"img"}]})");
  const PodView* v = pod->As<PodView>();
  EXPECT_EQ(v->scheduler_name, "default-scheduler");
  EXPECT_FALSE(v->has_priority);
  EXPECT_EQ(v->preemption_policy, "PreemptLowerPriority");
  EXPECT_FALSE(v->required_node_affinity.has_value());
}

TEST(PodView, WrongJsonTypesAreErrorsNamingTheField) {
  struct Case {
    std::string spec, message;
  } cases[] = {
      {R"({"containers":"x"})", "spec.containers: expected an array"},
      {R"({"containers":[{"name":"c","image":7}]})", "spec.containers[0].image: expected a string"},
      {R"({"containers":[],"priority":"high"})", "spec.priority: expected an integer"},
      {R"({"containers":[],"priority":1.5})", "spec.priority: expected an integer"},
      // Beyond int64's range: a clear error, not an undefined conversion.
      {R"({"containers":[],"priority":6.66667e+92})", "spec.priority: expected an integer"},
      {R"({"containers":[],"priority":-9.3e18})", "spec.priority: expected an integer"},
      {R"({"containers":[],"tolerations":[{"key":1}]})", "spec.tolerations[0].key: expected a string"},
      {R"({"containers":[],"nodeSelector":{"a":1}})", "spec.nodeSelector.a: expected a string"},
      {R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1x"}}}]})",
       "spec.containers[0].resources.requests[cpu]: unable to parse quantity's suffix"},
      {R"({"containers":[],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","values":"b"}]}]}}}})",
       "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
       "matchExpressions[0].values: expected an array"},
  };
  for (const auto& c : cases) {
    auto object =
        Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":)" + c.spec + "}");
    ASSERT_FALSE(object.ok()) << c.spec;
    EXPECT_EQ(object.status().code(), StatusCode::kBadRequest);
    EXPECT_EQ(object.status().message(), c.message);
  }
}

TEST(NodeSelectorRequirement, OperatorsMatchLikeKube) {
  using Op = NodeSelectorRequirement::Op;
  Labels labels{{"zone", "a"}, {"cores", "8"}, {"name", "x"}};
  struct Case {
    NodeSelectorRequirement req;
    bool matches;
  } cases[] = {
      {{"zone", Op::kIn, "In", {"a", "b"}}, true},
      {{"zone", Op::kIn, "In", {"b"}}, false},
      {{"absent", Op::kIn, "In", {"a"}}, false},
      {{"zone", Op::kNotIn, "NotIn", {"b"}}, true},
      {{"zone", Op::kNotIn, "NotIn", {"a"}}, false},
      {{"absent", Op::kNotIn, "NotIn", {"a"}}, true},
      {{"zone", Op::kExists, "Exists", {}}, true},
      {{"absent", Op::kExists, "Exists", {}}, false},
      {{"absent", Op::kDoesNotExist, "DoesNotExist", {}}, true},
      {{"zone", Op::kDoesNotExist, "DoesNotExist", {}}, false},
      {{"cores", Op::kGt, "Gt", {"4"}}, true},
      {{"cores", Op::kGt, "Gt", {"8"}}, false},
      {{"cores", Op::kLt, "Lt", {"16"}}, true},
      {{"cores", Op::kLt, "Lt", {"8"}}, false},
      {{"name", Op::kGt, "Gt", {"1"}}, false},     // not an integer label
      {{"cores", Op::kGt, "Gt", {"x"}}, false},    // not an integer value
      {{"cores", Op::kGt, "Gt", {"1", "2"}}, false},  // Gt takes one value
      {{"absent", Op::kLt, "Lt", {"1"}}, false},
      {{"zone", Op::kUnknown, "Near", {"a"}}, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(c.req.Matches(labels), c.matches) << c.req.key << " " << c.req.operator_text;
  }
}

TEST(NodeSelector, TermsAreOredRequirementsAnded) {
  using Op = NodeSelectorRequirement::Op;
  NodeSelector selector;
  selector.terms.push_back({{{"zone", Op::kIn, "In", {"a"}}, {"disk", Op::kExists, "Exists", {}}}, {}});
  selector.terms.push_back({{}, {{"metadata.name", Op::kIn, "In", {"special"}}}});
  EXPECT_TRUE(selector.Matches(Labels{{"zone", "a"}, {"disk", "ssd"}}, "n1"));
  EXPECT_FALSE(selector.Matches(Labels{{"zone", "a"}}, "n1"));
  EXPECT_TRUE(selector.Matches(Labels{}, "special"));
  EXPECT_FALSE(NodeSelector{}.Matches(Labels{}, "n1"));
  EXPECT_FALSE(NodeSelectorTerm{}.Matches(Labels{}, "n1"));  // an empty term matches nothing
  NodeSelectorRequirement not_in{"metadata.name", Op::kNotIn, "NotIn", {"n1"}};
  EXPECT_FALSE(not_in.MatchesField("n1"));
  EXPECT_TRUE(not_in.MatchesField("n2"));
  NodeSelectorRequirement other_field{"metadata.uid", Op::kIn, "In", {"n1"}};
  EXPECT_FALSE(other_field.MatchesField("n1"));
}

TEST(Toleration, ToleratesTaintLikeKube) {
  Taint taint{"dedicated", "gpu", TaintEffect::kNoSchedule, "NoSchedule"};
  struct Case {
    std::string name;
    Toleration toleration;
    bool tolerates;
  } cases[] = {
      {"equal key, value and effect", {"dedicated", false, "gpu", TaintEffect::kNoSchedule, {}}, true},
      {"other value", {"dedicated", false, "cpu", TaintEffect::kNoSchedule, {}}, false},
      {"exists ignores the value", {"dedicated", true, "", TaintEffect::kNoSchedule, {}}, true},
      {"empty effect matches every effect", {"dedicated", false, "gpu", std::nullopt, {}}, true},
      {"other effect", {"dedicated", false, "gpu", TaintEffect::kNoExecute, {}}, false},
      {"empty key with exists tolerates everything", {"", true, "", std::nullopt, {}}, true},
      {"empty key with equal tolerates nothing", {"", false, "gpu", std::nullopt, {}}, false},
      {"other key", {"team", true, "", std::nullopt, {}}, false},
  };
  for (const auto& c : cases) EXPECT_EQ(c.toleration.Tolerates(taint), c.tolerates) << c.name;
}

TEST(NodeView, ReadsResourcesTaintsAndConditions) {
  ObjectPtr node = Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"zone":"a"}},
    "spec":{"unschedulable":true,"taints":[{"key":"k","value":"v","effect":"NoExecute"}]},
    "status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"allocatable":{"cpu":"3500m","memory":"7Gi","pods":"110","example.com/fpga":"2"},
      "conditions":[{"type":"Ready","status":"True"},{"type":"DiskPressure","status":"False"}],
      "images":[{"names":["nginx:1"],"sizeBytes":1000}]}})");
  const NodeView* v = node->As<NodeView>();
  EXPECT_EQ(v->capacity.milli_cpu, 4000);
  EXPECT_EQ(v->allocatable.milli_cpu, 3500);
  EXPECT_EQ(v->allocatable.memory, 7LL << 30);
  EXPECT_EQ(v->allocatable.pods, 110);
  EXPECT_EQ(v->allocatable.Get("example.com/fpga"), 2);
  EXPECT_TRUE(v->unschedulable);
  ASSERT_EQ(v->taints.size(), 1u);
  EXPECT_EQ(v->taints[0].effect, TaintEffect::kNoExecute);
  EXPECT_TRUE(v->Ready());
  EXPECT_EQ(v->Condition("DiskPressure")->status, "False");
  ASSERT_EQ(v->images.size(), 1u);
  EXPECT_EQ(v->images[0].size_bytes, 1000);
}

TEST(NodeView, AllocatableFallsBackToCapacity) {
  ObjectPtr node = Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},
    "status":{"capacity":{"cpu":"2","memory":"1Gi"}}})");
  EXPECT_EQ(node->As<NodeView>()->allocatable.milli_cpu, 2000);
  EXPECT_FALSE(node->As<NodeView>()->Ready());
}

TEST(StorageViews, ReadBindingFields) {
  ObjectPtr pv = Decode(R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv1"},
    "spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOnce"],"storageClassName":"local",
      "claimRef":{"namespace":"default","name":"c1","uid":"u1"},
      "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["n1"]}]}]}}},
    "status":{"phase":"Bound"}})");
  const auto* pvv = pv->As<PersistentVolumeView>();
  EXPECT_EQ(pvv->capacity_bytes, 10LL << 30);
  EXPECT_EQ(pvv->access_modes, std::vector<std::string>{"ReadWriteOnce"});
  EXPECT_EQ(pvv->storage_class_name, "local");
  EXPECT_EQ(pvv->volume_mode, "Filesystem");
  ASSERT_TRUE(pvv->claim_ref.has_value());
  EXPECT_EQ(pvv->claim_ref->name, "c1");
  ASSERT_TRUE(pvv->node_affinity.has_value());
  EXPECT_TRUE(pvv->node_affinity->Matches(Labels{{"kubernetes.io/hostname", "n1"}}, "n1"));
  EXPECT_EQ(pvv->phase, "Bound");

  ObjectPtr pvc = Decode(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
    "metadata":{"name":"c1","namespace":"default","annotations":{"volume.kubernetes.io/selected-node":"n1"}},
    "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"5Gi"}},"storageClassName":""}})");
  const auto* pvcv = pvc->As<PersistentVolumeClaimView>();
  EXPECT_EQ(pvcv->requested_bytes, 5LL << 30);
  ASSERT_TRUE(pvcv->storage_class_name.has_value());
  EXPECT_EQ(*pvcv->storage_class_name, "");
  EXPECT_EQ(pvcv->selected_node, "n1");
  EXPECT_FALSE(pvcv->selector.has_value());

  ObjectPtr unset = Decode(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c2"},"spec":{}})");
  EXPECT_FALSE(unset->As<PersistentVolumeClaimView>()->storage_class_name.has_value());
  EXPECT_EQ(ClaimClass(*unset), "");
  // kube's GetPersistentVolumeClaimClass: the beta annotation wins over the field.
  ObjectPtr fast = Decode(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c3"},
    "spec":{"storageClassName":"fast"}})");
  EXPECT_EQ(ClaimClass(*fast), "fast");
  ObjectPtr beta = Decode(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"c4",
    "annotations":{"volume.beta.kubernetes.io/storage-class":"old"}},"spec":{"storageClassName":"fast"}})");
  EXPECT_EQ(ClaimClass(*beta), "old");

  ObjectPtr sc = Decode(R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
    "metadata":{"name":"local","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
    "provisioner":"kubernetes.io/no-provisioner","volumeBindingMode":"WaitForFirstConsumer",
    "allowedTopologies":[{"matchLabelExpressions":[{"key":"zone","values":["a"]}]}]})");
  const auto* scv = sc->As<StorageClassView>();
  EXPECT_TRUE(scv->wait_for_first_consumer);
  EXPECT_TRUE(scv->is_default);
  EXPECT_EQ(scv->reclaim_policy, "Delete");
  ASSERT_EQ(scv->allowed_topologies.size(), 1u);
  EXPECT_TRUE(scv->allowed_topologies[0].Matches(Labels{{"zone", "a"}}, "n"));
  EXPECT_FALSE(scv->allowed_topologies[0].Matches(Labels{{"zone", "b"}}, "n"));

  ObjectPtr pc = Decode(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"high"},
    "value":100000,"preemptionPolicy":"Never"})");
  EXPECT_EQ(pc->As<PriorityClassView>()->value, 100000);
  EXPECT_EQ(pc->As<PriorityClassView>()->preemption_policy, "Never");
  EXPECT_FALSE(pc->As<PriorityClassView>()->global_default);
}

TEST(ResourceList, AddsSubtractsAndTakesMaxima) {
  ResourceList a, b;
  a.Set("cpu", 100);
  a.Set("example.com/x", 1);
  b.Set("cpu", 50);
  b.Set("memory", 10);
  b.Set("example.com/y", 3);
  ResourceList sum = a;
  sum.Add(b);
  EXPECT_EQ(sum.milli_cpu, 150);
  EXPECT_EQ(sum.memory, 10);
  EXPECT_EQ(sum.Get("example.com/x"), 1);
  EXPECT_EQ(sum.Get("example.com/y"), 3);
  sum.Subtract(b);
  EXPECT_EQ(sum.milli_cpu, 100);
  EXPECT_EQ(sum.Get("example.com/y"), 0);
  ResourceList max = a;
  max.SetMax(b);
  EXPECT_EQ(max.milli_cpu, 100);
  EXPECT_EQ(max.memory, 10);
  EXPECT_EQ(max.Get("example.com/y"), 3);
}

}  // namespace
}  // namespace berth::api
