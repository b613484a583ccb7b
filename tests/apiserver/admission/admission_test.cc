// The admission chain (names, order, flags) and each plugin berth has, through
// the API server's REST handlers.

#include <algorithm>

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/admission/admission.h"
#include "apiserver/admission/plugins.h"
#include "store/memory/memory_store.h"
#include "api_fixture.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

json::object Body(const Response& r) { return json::parse(r.body).as_object(); }

std::string Message(const Response& r) { return std::string(Body(r).at("message").as_string()); }

const json::value* At(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = nullptr;
  const json::object* at = &o;
  for (auto key : path) {
    if (!at) return nullptr;
    v = at->if_contains(key);
    if (!v) return nullptr;
    at = v->if_object();
  }
  return v;
}

TEST(AdmissionChainTest, RunsKubesDefaultPluginsBerthHasInKubesOrder) {
  auto store = std::move(store::MemoryStore::Open({})).value();
  auto chain = AdmissionChain::Make({}, *store);
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(chain.value()->Enabled(),
            (std::vector<std::string>{"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "Priority",
                                      "DefaultTolerationSeconds",
                                      "DefaultStorageClass", "StorageObjectInUseProtection", "RuntimeClass",
                                      "DefaultIngressClass", "MutatingAdmissionWebhook",
                                      "ValidatingAdmissionWebhook", "ResourceQuota"}));
}

// Writes may wait on a webhook only once a configuration names one (the
// server then keeps such writes off its io threads).
TEST(AdmissionChainTest, MayCallOutOnceAWebhookIsConfigured) {
  auto store = std::move(store::MemoryStore::Open({})).value();
  auto chain = std::move(AdmissionChain::Make({}, *store)).value();
  EXPECT_FALSE(chain->MayCallOut());
  auto config = api::Object::FromJson(json::parse(
      R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",)"
      R"("metadata":{"name":"v"},"webhooks":[{"name":"v.example.com","clientConfig":{"url":"https://h/x"},)"
      R"("sideEffects":"None","admissionReviewVersions":["v1"]}]})"));
  ASSERT_TRUE(config.ok()) << config.status().message();
  ASSERT_TRUE(store->Create(config.value()).ok());
  EXPECT_TRUE(chain->MayCallOut());
  ASSERT_TRUE(store->Delete(api::StorageKey(api::Kind::kValidatingWebhookConfiguration, "", "v")).ok());
  EXPECT_FALSE(chain->MayCallOut());
}

TEST(AdmissionChainTest, EnableAndDisableFollowKubesFlags) {
  auto store = std::move(store::MemoryStore::Open({})).value();
  AdmissionOptions options;
  options.enable = {"AlwaysPullImages"};
  options.disable = {"Priority", "LimitRanger"};
  auto chain = AdmissionChain::Make(options, *store);
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  EXPECT_EQ(chain.value()->Enabled(),
            (std::vector<std::string>{"NamespaceLifecycle", "ServiceAccount", "AlwaysPullImages",
                                      "DefaultTolerationSeconds",
                                      "DefaultStorageClass", "StorageObjectInUseProtection", "RuntimeClass",
                                      "DefaultIngressClass", "MutatingAdmissionWebhook",
                                      "ValidatingAdmissionWebhook", "ResourceQuota"}));
}

TEST(AdmissionChainTest, EveryRegisteredPluginHasItsPlaceInKubesOrder) {
  // A plugin registered under a name kube's order does not list would never run.
  for (const auto& entry : InTreeAdmissionPlugins().entries()) {
    const auto& order = KubeAdmissionOrder();
    EXPECT_TRUE(std::any_of(order.begin(), order.end(), [&](const auto& n) { return n.name == entry.name; }))
        << entry.name;
    EXPECT_FALSE(entry.help.empty()) << entry.name;
  }
  EXPECT_EQ(InTreeAdmissionPlugins().entries().size(), 15u);
  EXPECT_NE(AdmissionPluginsHelp().find("NamespaceLifecycle, LimitRanger"), std::string::npos)
      << AdmissionPluginsHelp();
}

TEST(AdmissionChainTest, RefusesUnknownAndUnimplementedPluginNames) {
  AdmissionOptions unknown;
  unknown.enable = {"NoSuchPlugin"};
  Status s = CheckAdmissionOptions(unknown);
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_EQ(s.message(), "--enable-admission-plugins: plugin \"NoSuchPlugin\" is unknown");

  AdmissionOptions policy;
  policy.enable = {"ValidatingAdmissionPolicy"};
  s = CheckAdmissionOptions(policy);
  EXPECT_EQ(s.code(), StatusCode::kBadRequest);
  EXPECT_NE(s.message().find("does not implement"), std::string::npos) << s.message();

  AdmissionOptions both;
  both.enable = {"AlwaysAdmit"};
  both.disable = {"AlwaysAdmit"};
  EXPECT_FALSE(CheckAdmissionOptions(both).ok());

  // Disabling one of kube's defaults berth lacks is accepted (kube accepts it too).
  AdmissionOptions off;
  off.disable = {"PodSecurity"};
  EXPECT_TRUE(CheckAdmissionOptions(off).ok());
}

using AdmissionApiTest = testing::ApiFixture;

constexpr char kPod[] = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":%s})";

std::string Pod(const std::string& name, const std::string& spec) {
  char buf[4096];
  std::snprintf(buf, sizeof buf, kPod, name.c_str(), spec.c_str());
  return buf;
}

TEST_F(AdmissionApiTest, NamespaceLifecycleRefusesCreatesInMissingNamespacesAndDeletingSystemOnes) {
  Response r = Call("POST", "/api/v1/namespaces/nope/configmaps", R"({"metadata":{"name":"c"}})");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(Message(r), "namespaces \"nope\" not found");

  for (const char* ns : {"default", "kube-system", "kube-public"}) {
    r = Call("DELETE", std::string("/api/v1/namespaces/") + ns);
    EXPECT_EQ(r.status, 403) << ns;
    EXPECT_EQ(Message(r), std::string("namespaces \"") + ns + "\" is forbidden: this namespace may not be deleted");
  }
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default").status, 200);
  // Other namespaces go.
  ASSERT_EQ(Call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"scratch"}})").status, 201);
  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/scratch").status, 200);
}

TEST_F(AdmissionApiTest, PriorityKeepsAPodsPriorityAcrossAnUpdate) {
  ASSERT_EQ(Call("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                 R"({"metadata":{"name":"high"},"value":1000})")
                .status,
            201);
  Response r = Call("POST", "/api/v1/namespaces/default/pods",
                    Pod("p", R"({"priorityClassName":"high","containers":[{"name":"c","image":"i"}]})"));
  ASSERT_EQ(r.status, 201) << r.body;
  json::object pod = Body(r);
  EXPECT_EQ(At(pod, {"spec", "priority"})->as_int64(), 1000);
  // A PUT without spec.priority keeps it (kube's Priority plugin on update).
  pod["spec"].as_object().erase("priority");
  pod["metadata"].as_object()["labels"] = json::object{{"a", "b"}};
  r = Call("PUT", "/api/v1/namespaces/default/pods/p", json::serialize(pod));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(At(Body(r), {"spec", "priority"})->as_int64(), 1000);
}

TEST_F(AdmissionApiTest, StorageObjectInUseProtectionAddsTheProtectionFinalizersOnCreate) {
  Response r = Call("POST", "/api/v1/persistentvolumes",
                    R"({"metadata":{"name":"pv1","finalizers":["example.com/keep"]},
                        "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
                                "hostPath":{"path":"/tmp/pv1"}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  json::object pv = Body(r);
  EXPECT_EQ(json::serialize(*At(pv, {"metadata", "finalizers"})),
            R"(["example.com/keep","kubernetes.io/pv-protection"])");
  r = Call("POST", "/api/v1/namespaces/default/persistentvolumeclaims",
           R"({"metadata":{"name":"c1","finalizers":["kubernetes.io/pvc-protection"]},
               "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(json::serialize(*At(Body(r), {"metadata", "finalizers"})), R"(["kubernetes.io/pvc-protection"])");
  // Create only: an update may remove the finalizer (the protection controllers do).
  pv["metadata"].as_object()["finalizers"] = json::array{"example.com/keep"};
  r = Call("PUT", "/api/v1/persistentvolumes/pv1", json::serialize(pv));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::serialize(*At(Body(r), {"metadata", "finalizers"})), R"(["example.com/keep"])");
}

TEST_F(AdmissionApiTest, RuntimeClassSetsOverheadAndSchedulingOrRefuses) {
  ASSERT_EQ(Call("POST", "/apis/node.k8s.io/v1/runtimeclasses",
                 R"({"metadata":{"name":"kata"},"handler":"kata","overhead":{"podFixed":{"cpu":"250m","memory":"120Mi"}},
                     "scheduling":{"nodeSelector":{"runtime":"kata"},
                                   "tolerations":[{"key":"kata","operator":"Exists","effect":"NoSchedule"}]}})")
                .status,
            201);
  Response r = Call("POST", "/api/v1/namespaces/default/pods",
                    Pod("k", R"({"runtimeClassName":"kata","containers":[{"name":"c","image":"i"}]})"));
  ASSERT_EQ(r.status, 201) << r.body;
  json::object pod = Body(r);
  EXPECT_EQ(At(pod, {"spec", "overhead", "cpu"})->as_string(), "250m");
  EXPECT_EQ(At(pod, {"spec", "overhead", "memory"})->as_string(), "120Mi");
  EXPECT_EQ(At(pod, {"spec", "nodeSelector", "runtime"})->as_string(), "kata");
  bool tolerated = false;
  for (const auto& t : At(pod, {"spec", "tolerations"})->as_array()) {
    tolerated = tolerated || t.as_object().at("key") == "kata";
  }
  EXPECT_TRUE(tolerated);

  r = Call("POST", "/api/v1/namespaces/default/pods",
           Pod("missing", R"({"runtimeClassName":"gvisor","containers":[{"name":"c","image":"i"}]})"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"missing\" is forbidden: pod rejected: RuntimeClass \"gvisor\" not found");

  r = Call("POST", "/api/v1/namespaces/default/pods",
           Pod("clash", R"({"runtimeClassName":"kata","nodeSelector":{"runtime":"runc"},
                           "containers":[{"name":"c","image":"i"}]})"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"clash\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[runtime] = kata; "
                        "pod.spec.nodeSelector[runtime] = runc");

  r = Call("POST", "/api/v1/namespaces/default/pods",
           Pod("other", R"({"runtimeClassName":"kata","overhead":{"cpu":"1"},"containers":[{"name":"c","image":"i"}]})"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r),
            "pods \"other\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
}

TEST_F(AdmissionApiTest, DefaultStorageClassAndIngressClassNameTheNewestDefault) {
  ASSERT_EQ(Call("POST", "/apis/storage.k8s.io/v1/storageclasses",
                 R"({"metadata":{"name":"fast","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
                     "provisioner":"x"})")
                .status,
            201);
  ASSERT_EQ(Call("POST", "/apis/storage.k8s.io/v1/storageclasses",
                 R"({"metadata":{"name":"slow"},"provisioner":"x"})")
                .status,
            201);
  constexpr char kClaim[] =
      R"({"metadata":{"name":"%s"},"spec":{%s"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})";
  char claim[512];
  std::snprintf(claim, sizeof claim, kClaim, "a", "");
  Response r = Call("POST", "/api/v1/namespaces/default/persistentvolumeclaims", claim);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(At(Body(r), {"spec", "storageClassName"})->as_string(), "fast");
  // "" asks for no class: left alone.
  std::snprintf(claim, sizeof claim, kClaim, "b", R"("storageClassName":"",)");
  r = Call("POST", "/api/v1/namespaces/default/persistentvolumeclaims", claim);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(At(Body(r), {"spec", "storageClassName"})->as_string(), "");

  ASSERT_EQ(Call("POST", "/apis/networking.k8s.io/v1/ingressclasses",
                 R"({"metadata":{"name":"nginx","annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}},
                     "spec":{"controller":"k8s.io/ingress-nginx"}})")
                .status,
            201);
  r = Call("POST", "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
           R"({"metadata":{"name":"web"},"spec":{"defaultBackend":{"service":{"name":"web","port":{"number":80}}}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(At(Body(r), {"spec", "ingressClassName"})->as_string(), "nginx");
}

TEST_F(AdmissionApiTest, LimitRangerDefaultsContainersAndAnnotatesThePod) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/limitranges",
                 R"({"metadata":{"name":"defaults"},"spec":{"limits":[{"type":"Container",
                     "default":{"cpu":"500m","memory":"256Mi"},"defaultRequest":{"cpu":"100m"}}]}})")
                .status,
            201);
  Response r = Call("POST", "/api/v1/namespaces/default/pods",
                    Pod("d", R"({"containers":[{"name":"app","image":"i","resources":{"limits":{"memory":"1Gi"}}}]})"));
  ASSERT_EQ(r.status, 201) << r.body;
  json::object pod = Body(r);
  const json::object& resources = At(pod, {"spec", "containers"})->as_array()[0].as_object().at("resources").as_object();
  EXPECT_EQ(resources.at("limits").as_object().at("cpu").as_string(), "500m");
  EXPECT_EQ(resources.at("limits").as_object().at("memory").as_string(), "1Gi");
  EXPECT_EQ(resources.at("requests").as_object().at("cpu").as_string(), "100m");
  // The memory request came from the memory limit (pod defaulting, before admission).
  EXPECT_EQ(resources.at("requests").as_object().at("memory").as_string(), "1Gi");
  EXPECT_EQ(At(pod, {"metadata", "annotations", "kubernetes.io/limit-ranger"})->as_string(),
            "LimitRanger plugin set: cpu request for container app; cpu limit for container app");
  // The QoS class is of the resources after the defaults.
  EXPECT_EQ(At(pod, {"status", "qosClass"})->as_string(), "Burstable");
}

TEST_F(AdmissionApiTest, LimitRangerRefusesWhatIsOutsideMinMaxAndRatio) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/limitranges",
                 R"({"metadata":{"name":"bounds"},"spec":{"limits":[
                     {"type":"Container","min":{"cpu":"100m"},"max":{"cpu":"1"},"maxLimitRequestRatio":{"cpu":"4"}},
                     {"type":"PersistentVolumeClaim","max":{"storage":"10Gi"}}]}})")
                .status,
            201);
  // The LimitRange's own defaults (kube's): default limit from max, request from it.
  Response r = Call("GET", "/api/v1/namespaces/default/limitranges/bounds");
  const json::object range = Body(r);
  const json::object& item = At(range, {"spec", "limits"})->as_array()[0].as_object();
  EXPECT_EQ(item.at("default").as_object().at("cpu").as_string(), "1");
  EXPECT_EQ(item.at("defaultRequest").as_object().at("cpu").as_string(), "1");

  r = Call("POST", "/api/v1/namespaces/default/pods",
           Pod("big", R"({"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":"2"}}}]})"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"big\" is forbidden: maximum cpu usage per Container is 1, but limit is 2");

  r = Call("POST", "/api/v1/namespaces/default/pods",
           Pod("tiny", R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"50m"},
                                                                          "limits":{"cpu":"1"}}}]})"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"tiny\" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, "
                        "cpu max limit to request ratio per Container is 4, but provided ratio is 20.000000]");

  r = Call("POST", "/api/v1/namespaces/default/pods",
           Pod("fits", R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"500m"}}}]})"));
  EXPECT_EQ(r.status, 201) << r.body;

  r = Call("POST", "/api/v1/namespaces/default/persistentvolumeclaims",
           R"({"metadata":{"name":"huge"},"spec":{"accessModes":["ReadWriteOnce"],
               "resources":{"requests":{"storage":"20Gi"}}}})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "persistentvolumeclaims \"huge\" is forbidden: maximum storage usage per "
                        "PersistentVolumeClaim is 10Gi, but request is 20Gi");
  // Nothing was stored by the refused writes.
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/big").status, 404);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/persistentvolumeclaims/huge").status, 404);
}

class AlwaysPullAndDenyTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override {
    options.admission.enable = {"AlwaysPullImages", "AlwaysDeny"};
  }
};

TEST_F(AlwaysPullAndDenyTest, AlwaysDenyRefusesEveryWrite) {
  Response r = Call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c"}})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "configmaps \"c\" is forbidden: admission control is denying all modifications");
}

TEST_F(AlwaysPullAndDenyTest, TheBindingSubresourceMeetsAdmission) {
  // Written to the store directly: AlwaysDeny refuses the pod's create too.
  auto pod = api::Object::FromJson(json::parse(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"default","uid":"u1"},)"
      R"("spec":{"containers":[{"name":"c","image":"i"}]}})"));
  ASSERT_TRUE(pod.ok());
  ASSERT_TRUE(store_->Create(pod.value()).ok());
  Response r = Call("POST", "/api/v1/namespaces/default/pods/a/binding",
                    R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"a"},"target":{"kind":"Node","name":"n1"}})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"a\" is forbidden: admission control is denying all modifications");
  auto stored = store_->Get(api::StorageKey(api::Kind::kPod, "default", "a"));
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored.value()->FieldValue("spec.nodeName"), "");
}

class AlwaysPullTest : public testing::ApiFixture {
 protected:
  void Configure(ApiServer::Options& options) override { options.admission.enable = {"AlwaysPullImages"}; }
};

TEST_F(AlwaysPullTest, EveryContainerPullsAlways) {
  Response r = Call("POST", "/api/v1/namespaces/default/pods",
                    Pod("p", R"({"containers":[{"name":"c","image":"nginx:1.25","imagePullPolicy":"Never"}]})"));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(At(Body(r), {"spec", "containers"})->as_array()[0].as_object().at("imagePullPolicy"), "Always");
}

}  // namespace
}  // namespace berth::apiserver

namespace berth::apiserver {
namespace {

class QuotaApiTest : public testing::ApiFixture {
 protected:
  // The quota as the quota controller leaves it: status.hard and status.used.
  void SetQuotaStatus(const std::string& name, const std::string& status) {
    Response r = Call("GET", "/api/v1/namespaces/default/resourcequotas/" + name);
    json::object quota = json::parse(r.body).as_object();
    quota["status"] = json::parse(status);
    r = Call("PUT", "/api/v1/namespaces/default/resourcequotas/" + name + "/status", json::serialize(quota));
    ASSERT_EQ(r.status, 200) << r.body;
  }
};

TEST_F(QuotaApiTest, ResourceQuotaRefusesWhatWouldExceedItAndChargesWhatItAdmits) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/resourcequotas",
                 R"({"metadata":{"name":"compute"},"spec":{"hard":{"pods":"2","requests.cpu":"1","limits.cpu":"2"}}})")
                .status,
            201);
  const std::string pod_spec =
      R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"600m"},"limits":{"cpu":"1"}}}]})";
  // Not yet counted by the quota controller: kube refuses until it is.
  Response r = Call("POST", "/api/v1/namespaces/default/pods", Pod("a", pod_spec));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"a\" is forbidden: status unknown for quota: compute, resources: "
                        "limits.cpu,pods,requests.cpu");
  SetQuotaStatus("compute", R"({"hard":{"pods":"2","requests.cpu":"1","limits.cpu":"2"},
                                       "used":{"pods":"0","requests.cpu":"0","limits.cpu":"0"}})");
  r = Call("POST", "/api/v1/namespaces/default/pods", Pod("a", pod_spec));
  ASSERT_EQ(r.status, 201) << r.body;
  // Charged at once.
  r = Call("GET", "/api/v1/namespaces/default/resourcequotas/compute");
  json::object quota = Body(r);
  EXPECT_EQ(At(quota, {"status", "used", "pods"})->as_string(), "1");
  EXPECT_EQ(At(quota, {"status", "used", "requests.cpu"})->as_string(), "600m");
  EXPECT_EQ(At(quota, {"status", "used", "limits.cpu"})->as_string(), "1");

  r = Call("POST", "/api/v1/namespaces/default/pods", Pod("b", pod_spec));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"b\" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, "
                        "used: requests.cpu=600m, limited: requests.cpu=1");
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods/b").status, 404);

  // A container without the constrained resources is refused by name.
  r = Call("POST", "/api/v1/namespaces/default/pods", Pod("bare", R"({"containers":[{"name":"app","image":"i"}]})"));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "pods \"bare\" is forbidden: failed quota: compute: must specify limits.cpu for: app; "
                        "requests.cpu for: app");
  // Other kinds are not limited by this quota.
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c"}})").status, 201);
}

TEST_F(QuotaApiTest, ServiceUpdatesAreChargedByWhatTheyAdd) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/resourcequotas",
                 R"({"metadata":{"name":"ports"},"spec":{"hard":{"services":"5","services.nodeports":"1"}}})")
                .status,
            201);
  SetQuotaStatus("ports", R"({"hard":{"services":"5","services.nodeports":"1"},
                                     "used":{"services":"0","services.nodeports":"0"}})");
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/services",
                 R"({"metadata":{"name":"web"},"spec":{"ports":[{"name":"a","port":80},{"name":"b","port":81}]}})")
                .status,
            201);
  // ClusterIP → NodePort adds two node ports: over the quota, refused, nothing stored changes.
  Response r = Call("PATCH", "/api/v1/namespaces/default/services/web", R"({"spec":{"type":"NodePort"}})",
                    "application/merge-patch+json");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "services \"web\" is forbidden: exceeded quota: ports, requested: services.nodeports=2, "
                        "used: services.nodeports=0, limited: services.nodeports=1");
  json::object stored = Body(Call("GET", "/api/v1/namespaces/default/services/web"));
  EXPECT_EQ(At(stored, {"spec", "type"})->as_string(), "ClusterIP");
  // An update that adds nothing (a label) is not charged again: the
  // services count stays 1.
  ASSERT_EQ(Call("PATCH", "/api/v1/namespaces/default/services/web", R"({"metadata":{"labels":{"a":"b"}}})",
                 "application/merge-patch+json")
                .status,
            200);
  json::object quota = Body(Call("GET", "/api/v1/namespaces/default/resourcequotas/ports"));
  EXPECT_EQ(At(quota, {"status", "used", "services"})->as_string(), "1");
  // One port fits.
  ASSERT_EQ(Call("PATCH", "/api/v1/namespaces/default/services/web",
                 R"({"spec":{"type":"NodePort","ports":[{"name":"a","port":80}]}})", "application/merge-patch+json")
                .status,
            200);
  quota = Body(Call("GET", "/api/v1/namespaces/default/resourcequotas/ports"));
  EXPECT_EQ(At(quota, {"status", "used", "services.nodeports"})->as_string(), "1");
}

TEST_F(QuotaApiTest, ResourceQuotaCountsObjectsAndHonoursScopes) {
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/resourcequotas",
                 R"({"metadata":{"name":"objects"},"spec":{"hard":{"count/configmaps":"1","services.nodeports":"1"}}})")
                .status,
            201);
  ASSERT_EQ(Call("POST", "/api/v1/namespaces/default/resourcequotas",
                 R"({"metadata":{"name":"besteffort"},"spec":{"hard":{"pods":"0"},"scopes":["BestEffort"]}})")
                .status,
            201);
  SetQuotaStatus("objects", R"({"hard":{"count/configmaps":"1","services.nodeports":"1"},
                                       "used":{"count/configmaps":"0","services.nodeports":"0"}})");
  SetQuotaStatus("besteffort", R"({"hard":{"pods":"0"},"used":{"pods":"0"}})");
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"one"}})").status, 201);
  Response r = Call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"two"}})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Message(r), "configmaps \"two\" is forbidden: exceeded quota: objects, requested: count/configmaps=1, "
                        "used: count/configmaps=1, limited: count/configmaps=1");
  r = Call("POST", "/api/v1/namespaces/default/services",
           R"({"metadata":{"name":"np"},"spec":{"type":"NodePort","ports":[{"name":"a","port":80},{"name":"b","port":81}]}})");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(Message(r).find("requested: services.nodeports=2"), std::string::npos) << Message(r);
  // The BestEffort quota allows no best-effort pod; a pod with requests is not in its scope.
  r = Call("POST", "/api/v1/namespaces/default/pods", Pod("be", R"({"containers":[{"name":"c","image":"i"}]})"));
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(Message(r).find("exceeded quota: besteffort"), std::string::npos) << Message(r);
  r = Call("POST", "/api/v1/namespaces/default/pods",
           Pod("burst", R"({"containers":[{"name":"c","image":"i","resources":{"requests":{"memory":"64Mi"}}}]})"));
  EXPECT_EQ(r.status, 201) << r.body;
}

}  // namespace
}  // namespace berth::apiserver
