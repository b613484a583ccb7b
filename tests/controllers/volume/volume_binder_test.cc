// The PersistentVolume controller, the protection controllers and the
// simulated CSI provisioner against a real API server in process, with a
// fake clock: matching (smallest fit; class, access mode, selector and
// volumeMode mismatches), phases, reclaim, protection finalizers,
// WaitForFirstConsumer, provisioning topology, capacity and volume health.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "api/json_fields.h"
#include "api/time/clock.h"
#include "api/time/rfc3339.h"
#include "client/event_recorder.h"
#include "controllers/volume/persistent_volume_controller.h"
#include "controllers/volume/protection_controllers.h"
#include "controllers/volume/sim_provisioner.h"
#include "controllers/volume/volume_matching.h"
#include "in_process_api.h"

namespace berth::controllers {

namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

const std::chrono::system_clock::time_point kWallStart =
    std::chrono::system_clock::from_time_t(1700000000);

api::ObjectPtr Decode(const std::string& text) {
  auto o = api::Object::Decode(text);
  EXPECT_TRUE(o.ok()) << o.status().message() << " in " << text;
  return o.ok() ? o.value() : nullptr;
}

// A PV as JSON text: name, size, class, extra spec fields and metadata fields.
std::string PvJson(const std::string& name, const std::string& size, const std::string& cls,
                   const std::string& extra_spec = "", const std::string& extra_meta = "",
                   const std::string& phase = "Available") {
  return R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":")" + name + "\"" +
         extra_meta + R"(},"spec":{"capacity":{"storage":")" + size +
         R"("},"accessModes":["ReadWriteOnce"],"storageClassName":")" + cls +
         R"(","hostPath":{"path":"/tmp/)" + name + "\"}" + extra_spec + R"(},"status":{"phase":")" +
         phase + "\"}}";
}

std::string PvcJson(const std::string& name, const std::string& size, const std::string& cls_field,
                    const std::string& extra_spec = "", const std::string& extra_meta = "") {
  return R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":")" + name +
         R"(","namespace":"default","uid":"uid-)" + name + "\"" + extra_meta +
         R"(},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":")" +
         size + "\"}}" + cls_field + extra_spec + R"(},"status":{"phase":"Pending"}})";
}

std::string Chosen(const std::vector<api::ObjectPtr>& volumes, const std::string& claim,
                   bool delay = false) {
  auto c = Decode(claim);
  auto match = FindBestVolume(volumes, *c, delay);
  return match.volume ? match.volume->name() : "";
}

TEST(VolumeMatchingTest, ChoosesTheSmallestAvailableVolumeThatFits) {
  std::vector<api::ObjectPtr> volumes = {
      Decode(PvJson("big", "10Gi", "")), Decode(PvJson("small", "1Gi", "")),
      Decode(PvJson("mid", "2Gi", "")), Decode(PvJson("mid2", "2Gi", ""))};
  EXPECT_EQ(Chosen(volumes, PvcJson("c", "1500Mi", "")), "mid");  // smallest fit; ties by name
  EXPECT_EQ(Chosen(volumes, PvcJson("c", "1Gi", "")), "small");
  EXPECT_EQ(Chosen(volumes, PvcJson("c", "11Gi", "")), "");
}

TEST(VolumeMatchingTest, SkipsVolumesOfAnotherClassModeSelectorOrVolumeMode) {
  const std::string claim = PvcJson("c", "1Gi", R"(,"storageClassName":"fast")",
                                    R"(,"selector":{"matchLabels":{"tier":"gold"}})");
  const std::string gold = R"(,"labels":{"tier":"gold"})";
  struct Case {
    const char* name;
    std::string volume;
    bool chosen;
  } cases[] = {
      {"fits", PvJson("v", "1Gi", "fast", "", gold), true},
      {"other class", PvJson("v", "1Gi", "slow", "", gold), false},
      {"no class", PvJson("v", "1Gi", "", "", gold), false},
      {"selector", PvJson("v", "1Gi", "fast", "", R"(,"labels":{"tier":"bronze"})"), false},
      {"access mode", PvJson("v", "1Gi", "fast", R"(,"accessModes":["ReadOnlyMany"])", gold),
       false},
      {"volume mode", PvJson("v", "1Gi", "fast", R"(,"volumeMode":"Block")", gold), false},
      {"not available", PvJson("v", "1Gi", "fast", "", gold, "Released"), false},
      {"claimed by another",
       PvJson("v", "1Gi", "fast", R"(,"claimRef":{"namespace":"default","name":"x"})", gold),
       false},
      {"unhealthy",
       PvJson("v", "1Gi", "fast", "",
              gold + R"(,"annotations":{"sim.berth.dev/volume-healthy":"false"})"),
       false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Chosen({Decode(c.volume)}, claim), c.chosen ? "v" : "") << c.name;
  }
}

TEST(VolumeMatchingTest, DelayedBindingTakesOnlyAVolumePointedAtTheClaim) {
  const std::string claim = PvcJson("c", "1Gi", R"(,"storageClassName":"local")");
  auto free_volume = Decode(PvJson("free", "1Gi", "local"));
  auto pointed = Decode(PvJson("pointed", "5Gi", "local",
                               R"(,"claimRef":{"namespace":"default","name":"c","uid":"uid-c"})",
                               "", "Available"));
  EXPECT_EQ(Chosen({free_volume}, claim, /*delay=*/true), "");
  EXPECT_EQ(Chosen({free_volume}, claim, /*delay=*/false), "free");
  EXPECT_EQ(Chosen({free_volume, pointed}, claim, /*delay=*/true), "pointed");
  // A claimRef for an older claim of that name (another uid) is not this claim's.
  auto stale = Decode(PvJson("stale", "1Gi", "local",
                             R"(,"claimRef":{"namespace":"default","name":"c","uid":"old"})"));
  EXPECT_EQ(Chosen({stale}, claim, /*delay=*/false), "");
}

TEST(SimStorageConfigTest, GroupsGiveCapacityPerClassZoneAndNode) {
  const std::string path = ::testing::TempDir() + "/volume_binder_sim.yaml";
  auto write = [&](const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  write(
      "groups:\n- count: 3\n  namePrefix: s-\n  zones: [zone-a, zone-b]\n"
      "  storageClasses: [fast, local]\n  storageCapacity: 10Gi\n- count: 2\n");
  auto groups = LoadSimNodeGroups(path);
  ASSERT_TRUE(groups.ok()) << groups.status().message();
  SimStorageCapacity capacity = StorageCapacityFromGroups(groups.value());
  const int64_t gi = int64_t{1} << 30;
  EXPECT_EQ(capacity.per_zone["fast"]["zone-a"], 20 * gi);  // s-0 and s-2
  EXPECT_EQ(capacity.per_zone["fast"]["zone-b"], 10 * gi);
  EXPECT_EQ(capacity.per_node["local"]["s-1"], 10 * gi);
  EXPECT_TRUE(capacity.Limited("fast"));
  EXPECT_FALSE(capacity.Limited("other"));

  write("groups:\n- count: 1\n  storageClasses: [fast]\n");
  groups = LoadSimNodeGroups(path);
  ASSERT_FALSE(groups.ok());
  EXPECT_EQ(groups.status().message(),
            path + ":2: groups[0]: storageClasses needs a storageCapacity");
  write("groups:\n- count: 1\n  storageClasses: [fast]\n  storageCapacity: lots\n");
  groups = LoadSimNodeGroups(path);
  ASSERT_FALSE(groups.ok());
  EXPECT_EQ(groups.status().message(),
            path + ":4: groups[0].storageCapacity: not a quantity of 0 or more: lots");
}

class VolumeBinderTest : public InProcessApiTest {
 protected:
  void SetUp() override {
    InProcessApiTest::SetUp();
    if (HasFatalFailure()) return;
    events_ = std::make_unique<client::EventBroadcaster>(*client_);
  }
  void TearDown() override { informers_->Stop(); }

  ControllerContext Context() { return {*client_, *informers_, nullptr, events_.get(), &clock_}; }

  void Start(SimStorageCapacity capacity = {}) {
    binder_ = std::make_unique<PersistentVolumeController>(Context());
    provisioner_ = std::make_unique<SimCsiProvisioner>(Context(), std::move(capacity));
    pvc_protection_ = std::make_unique<PvcProtectionController>(Context());
    pv_protection_ = std::make_unique<PvProtectionController>(Context());
    ASSERT_TRUE(informers_->Start().ok());
  }

  void Create(api::Kind kind, const std::string& text, const std::string& ns = "") {
    auto created = client_->Create(kind, ns, json::parse(text).as_object());
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  void CreatePv(const std::string& name, const std::string& size, const std::string& cls,
                const std::string& extra_spec = "", const std::string& extra_meta = "") {
    Create(api::Kind::kPersistentVolume, PvJson(name, size, cls, extra_spec, extra_meta));
  }
  void CreatePvc(const std::string& name, const std::string& size, const std::string& cls_field,
                 const std::string& extra_spec = "", const std::string& extra_meta = "") {
    json::object o =
        json::parse(PvcJson(name, size, cls_field, extra_spec, extra_meta)).as_object();
    o["metadata"].as_object().erase("uid");
    auto created = client_->Create(api::Kind::kPersistentVolumeClaim, "default", std::move(o));
    ASSERT_TRUE(created.ok()) << created.status().message();
  }
  void CreateClass(const std::string& name, const std::string& provisioner,
                   const std::string& extra = "") {
    Create(api::Kind::kStorageClass,
           R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":")" +
               name + R"("},"provisioner":")" + provisioner + "\"" + extra + "}");
  }
  void CreateNode(const std::string& name, const std::string& zone) {
    Create(api::Kind::kNode, R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                                 R"(","labels":{"kubernetes.io/hostname":")" + name +
                                 R"(","topology.kubernetes.io/zone":")" + zone + R"("}}})");
  }

  api::ObjectPtr Get(api::Kind kind, const std::string& name, const std::string& ns = "") {
    auto got = client_->Get(kind, ns, name);
    return got.ok() ? got.value() : nullptr;
  }
  api::ObjectPtr Pv(const std::string& name) { return Get(api::Kind::kPersistentVolume, name); }
  api::ObjectPtr Pvc(const std::string& name) {
    return Get(api::Kind::kPersistentVolumeClaim, name, "default");
  }
  static std::string Phase(const api::ObjectPtr& o) {
    return o ? std::string(api::StringAt(api::StatusOf(*o), "phase")) : "<gone>";
  }
  static std::string VolumeName(const api::ObjectPtr& o) {
    return o ? std::string(api::StringAt(api::Spec(*o), "volumeName")) : "";
  }

  // Edits an object through the API (guarded by its version).
  void Edit(api::Kind kind, const std::string& name, const std::string& ns,
            const std::function<void(json::object&)>& edit, std::string_view subresource = {}) {
    auto o = Get(kind, name, ns);
    ASSERT_TRUE(o);
    json::object next = o->json();
    api::MutableObject(next, "metadata")["resourceVersion"] = std::to_string(o->resource_version());
    edit(next);
    auto written = client_->Update(kind, next, subresource);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }

  // Every object of `kind` in every namespace.
  std::vector<api::ObjectPtr> List(api::Kind kind) {
    auto listed = client_->List(kind, "");
    EXPECT_TRUE(listed.ok()) << listed.status().message();
    return listed.ok() ? std::move(listed).value() : std::vector<api::ObjectPtr>{};
  }

  // Waits until the informers hold what the API server has.
  void Settle() {
    const api::Kind kinds[] = {api::Kind::kPersistentVolume,
                               api::Kind::kPersistentVolumeClaim,
                               api::Kind::kStorageClass,
                               api::Kind::kNode,
                               api::Kind::kPod,
                               api::Kind::kCSIStorageCapacity};
    for (int i = 0; i < 5000; ++i) {
      if (std::all_of(std::begin(kinds), std::end(kinds), [&](api::Kind k) { return Matches(k); }))
        return;
      std::this_thread::sleep_for(1ms);
    }
    FAIL() << "informers did not catch up";
  }
  bool Matches(api::Kind kind) {
    auto listed = client_->List(kind, "");
    if (!listed.ok()) return false;
    auto& informer = informers_->For(kind);
    if (informer.Size() != listed.value().size()) return false;
    for (const auto& o : listed.value()) {
      auto cached = informer.Get(client::ObjectKey(*o));
      if (!cached || cached->resource_version() != o->resource_version()) return false;
    }
    return true;
  }

  // Runs every controller over every object until nothing changes (a few rounds).
  void Sync() {
    for (int round = 0; round < 6; ++round) {
      Settle();
      for (const auto& pv : List(api::Kind::kPersistentVolume)) {
        Reconcile(*binder_, PersistentVolumeController::VolumeKey(pv->name()));
        Reconcile(*pv_protection_, pv->name());
      }
      for (const auto& pvc : List(api::Kind::kPersistentVolumeClaim)) {
        Reconcile(*binder_,
                  PersistentVolumeController::ClaimKey(pvc->namespace_name(), pvc->name()));
        Reconcile(*provisioner_, client::ObjectKey(*pvc));
        Reconcile(*pvc_protection_, client::ObjectKey(*pvc));
      }
      Reconcile(*provisioner_, SimCsiProvisioner::kCapacityKey);
    }
    Settle();
  }
  void Reconcile(Controller& c, const std::string& key) {
    Status s = c.ReconcileForTest(key);
    // A conflict is a stale cache: the next round retries, as the queue would.
    EXPECT_TRUE(s.ok() || s.code() == StatusCode::kConflict) << key << ": " << s.message();
  }

  // "reason: message" of the events about `name`.
  std::vector<std::string> Events(const std::string& name) {
    events_->Flush();
    std::vector<std::string> out;
    for (const auto& e : List(api::Kind::kEvent)) {
      if (api::StringAt(api::ObjectAt(e->json(), "involvedObject"), "name") != name) continue;
      out.push_back(std::string(api::StringAt(e->json(), "reason")) + ": " +
                    std::string(api::StringAt(e->json(), "message")));
    }
    return out;
  }
  bool HasEvent(const std::string& name, const std::string& text) {
    auto events = Events(name);
    return std::find(events.begin(), events.end(), text) != events.end();
  }

  api::FakeClock clock_{api::Clock::time_point{}, kWallStart};
  std::unique_ptr<client::EventBroadcaster> events_;
  std::unique_ptr<PersistentVolumeController> binder_;
  std::unique_ptr<SimCsiProvisioner> provisioner_;
  std::unique_ptr<PvcProtectionController> pvc_protection_;
  std::unique_ptr<PvProtectionController> pv_protection_;
};

TEST_F(VolumeBinderTest, BindsTheSmallestFittingVolumeWithKubesAnnotationsAndBoundAt) {
  Start();
  CreatePv("pv-5g", "5Gi", "");
  CreatePv("pv-2g", "2Gi", "");
  CreatePv("pv-1g", "1Gi", "");
  clock_.Step(3s);
  CreatePvc("data", "1500Mi", R"(,"storageClassName":"")");
  Sync();
  auto claim = Pvc("data");
  auto volume = Pv("pv-2g");
  EXPECT_EQ(VolumeName(claim), "pv-2g");
  EXPECT_EQ(Phase(claim), "Bound");
  EXPECT_EQ(Phase(volume), "Bound");
  EXPECT_EQ(Phase(Pv("pv-5g")), "Available");
  EXPECT_EQ(Phase(Pv("pv-1g")), "Available");
  EXPECT_EQ(api::Annotation(*claim, kAnnBindCompleted), "yes");
  EXPECT_EQ(api::Annotation(*claim, kAnnBoundByController), "yes");
  EXPECT_EQ(api::Annotation(*volume, kAnnBoundByController), "yes");
  const std::string bound_at = api::FormatRfc3339(kWallStart + 3s);
  EXPECT_EQ(api::Annotation(*claim, kAnnBoundAt), bound_at);
  EXPECT_EQ(api::Annotation(*volume, kAnnBoundAt), bound_at);
  EXPECT_EQ(api::StringAt(api::ObjectAt(api::StatusOf(*claim), "capacity"), "storage"), "2Gi");
  const auto* ref = api::ObjectAt(api::Spec(*volume), "claimRef");
  EXPECT_EQ(api::StringAt(ref, "name"), "data");
  EXPECT_EQ(api::StringAt(ref, "uid"), claim->uid());
  // The protection finalizers were added (by admission) and stay while bound.
  auto finalizers = json::serialize(*api::ArrayAt(api::Metadata(*volume), "finalizers"));
  EXPECT_EQ(finalizers, R"(["kubernetes.io/pv-protection"])");
}

TEST_F(VolumeBinderTest, AClaimWithNoFitStaysPendingUntilAVolumeAppears) {
  Start();
  CreatePv("slow", "10Gi", "slow");
  CreatePvc("data", "1Gi", R"(,"storageClassName":"")");
  Sync();
  EXPECT_EQ(Phase(Pvc("data")), "Pending");
  EXPECT_TRUE(HasEvent(
      "data",
      "FailedBinding: no persistent volumes available for this claim and no storage class is set"));
  CreatePv("plain", "1Gi", "");
  Sync();
  EXPECT_EQ(VolumeName(Pvc("data")), "plain");
  EXPECT_EQ(Phase(Pvc("data")), "Bound");
}

TEST_F(VolumeBinderTest, PreBoundPairsBindAndAVolumeOfAnotherClaimIsRefused) {
  Start();
  // The claim names the volume.
  CreatePv("named", "1Gi", "");
  CreatePvc("by-name", "1Gi", R"(,"storageClassName":"")", R"(,"volumeName":"named")");
  // The volume names the claim (no uid: pre-bound by a user).
  CreatePv("pointing", "1Gi", "", R"(,"claimRef":{"namespace":"default","name":"by-ref"})");
  CreatePvc("by-ref", "1Gi", R"(,"storageClassName":"")");
  // The claim names a volume bound to another claim.
  CreatePvc("late", "1Gi", R"(,"storageClassName":"")", R"(,"volumeName":"pointing")");
  // The claim names a volume too small for it.
  CreatePv("tiny", "1Mi", "");
  CreatePvc("too-big", "1Gi", R"(,"storageClassName":"")", R"(,"volumeName":"tiny")");
  Sync();
  EXPECT_EQ(Phase(Pvc("by-name")), "Bound");
  EXPECT_EQ(Phase(Pv("named")), "Bound");
  EXPECT_EQ(api::Annotation(*Pvc("by-name"), kAnnBoundByController), "");  // the user chose
  EXPECT_EQ(VolumeName(Pvc("by-ref")), "pointing");
  EXPECT_EQ(Phase(Pv("pointing")), "Bound");
  EXPECT_EQ(api::Annotation(*Pv("pointing"), kAnnBoundByController), "");
  EXPECT_EQ(Phase(Pvc("late")), "Pending");
  EXPECT_TRUE(
      HasEvent("late", "FailedBinding: volume \"pointing\" already bound to a different claim."));
  EXPECT_EQ(Phase(Pvc("too-big")), "Pending");
  EXPECT_TRUE(HasEvent(
      "too-big",
      "VolumeMismatch: Cannot bind to requested volume \"tiny\": requested PV is too small"));
}

TEST_F(VolumeBinderTest, ReleasedVolumesAreRetainedOrDeletedPerReclaimPolicy) {
  Start();
  CreatePv("kept", "1Gi", "a", R"(,"persistentVolumeReclaimPolicy":"Retain")");
  CreatePv("dropped", "1Gi", "b", R"(,"persistentVolumeReclaimPolicy":"Delete")");
  CreatePv("odd", "1Gi", "c", R"(,"persistentVolumeReclaimPolicy":"Recycle")");
  CreatePvc("ca", "1Gi", R"(,"storageClassName":"a")");
  CreatePvc("cb", "1Gi", R"(,"storageClassName":"b")");
  CreatePvc("cc", "1Gi", R"(,"storageClassName":"c")");
  Sync();
  ASSERT_EQ(Phase(Pv("kept")), "Bound");
  ASSERT_EQ(Phase(Pv("dropped")), "Bound");
  for (const char* c : {"ca", "cb", "cc"})
    ASSERT_TRUE(client_->Delete(api::Kind::kPersistentVolumeClaim, "default", c).ok());
  Sync();
  EXPECT_EQ(Pvc("ca"), nullptr);  // no pod used it: the protection finalizer went at once
  EXPECT_EQ(Phase(Pv("kept")), "Released");
  EXPECT_EQ(Pv("dropped"), nullptr);  // deleted; pv-protection let it go once no longer Bound
  EXPECT_EQ(Phase(Pv("odd")), "Failed");
  EXPECT_TRUE(HasEvent("odd", "VolumeFailedRecycle: No recycler plugin found for the volume!"));
  // A Released volume is not bound again by a new claim.
  CreatePvc("again", "1Gi", R"(,"storageClassName":"a")");
  Sync();
  EXPECT_EQ(Phase(Pvc("again")), "Pending");
}

TEST_F(VolumeBinderTest, AClaimInUseByARunningPodIsKeptUntilThePodFinishes) {
  Start();
  CreatePv("pv", "1Gi", "");
  CreatePvc("data", "1Gi", R"(,"storageClassName":"")");
  Create(api::Kind::kPod,
         R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"user"},"spec":{"nodeName":"n1",
             "containers":[{"name":"c","image":"i"}],
             "volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}}]}})",
         "default");
  Sync();
  ASSERT_EQ(Phase(Pvc("data")), "Bound");
  ASSERT_TRUE(client_->Delete(api::Kind::kPersistentVolumeClaim, "default", "data").ok());
  // Deleting the bound volume waits too (pv-protection) while it is Bound.
  ASSERT_TRUE(client_->Delete(api::Kind::kPersistentVolume, "", "pv").ok());
  Sync();
  auto claim = Pvc("data");
  ASSERT_TRUE(claim);
  EXPECT_TRUE(api::BeingDeleted(*claim));
  ASSERT_TRUE(Pv("pv"));
  EXPECT_TRUE(api::BeingDeleted(*Pv("pv")));
  Edit(
      api::Kind::kPod, "user", "default",
      [](json::object& o) { api::MutableObject(o, "status")["phase"] = "Succeeded"; }, "status");
  Sync();
  EXPECT_EQ(Pvc("data"), nullptr);
  EXPECT_EQ(Pv("pv"), nullptr);  // Released after the claim went, then its finalizer too
}

TEST_F(VolumeBinderTest, WaitForFirstConsumerWaitsForTheSchedulersChoice) {
  Start();
  CreateClass("local", kNoProvisioner, R"(,"volumeBindingMode":"WaitForFirstConsumer")");
  CreatePv("local-1", "1Gi", "local");
  CreatePvc("data", "1Gi", R"(,"storageClassName":"local")");
  Sync();
  EXPECT_EQ(Phase(Pvc("data")), "Pending");
  EXPECT_EQ(Phase(Pv("local-1")), "Available");
  EXPECT_TRUE(HasEvent(
      "data", "WaitForFirstConsumer: waiting for first consumer to be created before binding"));
  // The scheduler's PreBind for a static volume: claimRef and bound-by-controller on the PV.
  const std::string uid = Pvc("data")->uid();
  Edit(api::Kind::kPersistentVolume, "local-1", "", [&](json::object& o) {
    api::MutableObject(o, "spec")["claimRef"] = json::object{{"kind", "PersistentVolumeClaim"},
                                                             {"namespace", "default"},
                                                             {"name", "data"},
                                                             {"uid", uid}};
    api::MutableObject(api::MutableObject(o, "metadata"), "annotations")[kAnnBoundByController] =
        "yes";
  });
  Sync();
  EXPECT_EQ(VolumeName(Pvc("data")), "local-1");
  EXPECT_EQ(Phase(Pvc("data")), "Bound");
  EXPECT_EQ(Phase(Pv("local-1")), "Bound");
}

TEST_F(VolumeBinderTest, ProvisionsInTheAllowedOrSelectedZoneOrOnTheSelectedNode) {
  Start();
  CreateNode("n-a", "zone-a");
  CreateNode("n-b", "zone-b");
  CreateNode("n-c", "zone-c");
  CreateClass(
      "zonal", "ebs.csi.aws.com",
      R"(,"allowedTopologies":[{"matchLabelExpressions":[{"key":"topology.kubernetes.io/zone","values":["zone-b"]}]}])");
  CreateClass("wffc", "pd.csi.storage.gke.io",
              R"(,"volumeBindingMode":"WaitForFirstConsumer","reclaimPolicy":"Retain")");
  CreateClass(
      "local", "rancher.io/local-path",
      R"(,"volumeBindingMode":"WaitForFirstConsumer","parameters":{"sim.berth.dev/local":"true"})");
  CreatePvc("imm", "3Gi", R"(,"storageClassName":"zonal")");
  CreatePvc("late", "2Gi", R"(,"storageClassName":"wffc")");
  CreatePvc("loc", "1Gi", R"(,"storageClassName":"local")");
  Sync();
  auto imm = Pvc("imm");
  ASSERT_EQ(Phase(imm), "Bound");
  EXPECT_EQ(api::Annotation(*imm, kAnnStorageProvisioner), "ebs.csi.aws.com");
  EXPECT_EQ(api::Annotation(*imm, kAnnBetaStorageProvisioner), "ebs.csi.aws.com");
  auto volume = Pv("pvc-" + imm->uid());
  ASSERT_TRUE(volume);
  EXPECT_EQ(VolumeName(imm), volume->name());
  EXPECT_EQ(api::Annotation(*volume, kAnnProvisionedBy), "ebs.csi.aws.com");
  EXPECT_EQ(
      json::serialize(*api::ObjectAt(api::Spec(*volume), "nodeAffinity")),
      R"({"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-b"]}]}]}})");
  EXPECT_EQ(api::StringAt(api::ObjectAt(api::Spec(*volume), "capacity"), "storage"), "3Gi");
  EXPECT_EQ(api::StringAt(api::Spec(*volume), "persistentVolumeReclaimPolicy"), "Delete");
  EXPECT_TRUE(
      HasEvent("imm",
               "ExternalProvisioning: waiting for a volume to be created, either by external "
               "provisioner \"ebs.csi.aws.com\" or manually created by system administrator"));
  EXPECT_TRUE(
      HasEvent("imm", "ProvisioningSucceeded: Successfully provisioned volume " + volume->name()));

  // WaitForFirstConsumer: nothing until the scheduler selects a node.
  EXPECT_EQ(Phase(Pvc("late")), "Pending");
  EXPECT_EQ(Pv("pvc-" + Pvc("late")->uid()), nullptr);
  for (const auto& [claim, node] : {std::pair{"late", "n-c"}, {"loc", "n-a"}}) {
    Edit(api::Kind::kPersistentVolumeClaim, claim, "default", [node = node](json::object& o) {
      api::MutableObject(api::MutableObject(o, "metadata"), "annotations")[kAnnSelectedNode] = node;
    });
  }
  Sync();
  auto late = Pvc("late");
  ASSERT_EQ(Phase(late), "Bound");
  auto late_volume = Pv(VolumeName(late));
  ASSERT_TRUE(late_volume);
  EXPECT_NE(json::serialize(*api::ObjectAt(api::Spec(*late_volume), "nodeAffinity"))
                .find(R"("values":["zone-c"])"),
            std::string::npos);
  EXPECT_EQ(api::StringAt(api::Spec(*late_volume), "persistentVolumeReclaimPolicy"), "Retain");
  auto loc_volume = Pv(VolumeName(Pvc("loc")));
  ASSERT_TRUE(loc_volume);
  EXPECT_EQ(
      json::serialize(*api::ObjectAt(api::Spec(*loc_volume), "nodeAffinity")),
      R"({"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["n-a"]}]}]}})");

  // A selected node outside allowedTopologies fails.
  CreatePvc("wrong", "1Gi", R"(,"storageClassName":"zonal")", "",
            R"(,"annotations":{"volume.kubernetes.io/selected-node":"n-a"})");
  Sync();
  EXPECT_EQ(Phase(Pvc("wrong")), "Pending");
  EXPECT_TRUE(HasEvent(
      "wrong",
      "ProvisioningFailed: failed to provision volume with StorageClass \"zonal\": rpc error: "
      "code = InvalidArgument desc = node \"n-a\" is not in the class's allowedTopologies"));
}

TEST_F(VolumeBinderTest, CapacityIsPublishedSubtractedAndRefusedWhenExhausted) {
  SimNodeGroup group;
  group.count = 2;
  group.name_prefix = "n-";
  group.zones = {"zone-a", "zone-b"};
  group.storage_classes = {"fast"};
  group.storage_capacity = "3Gi";
  SimStorageCapacity capacity = StorageCapacityFromGroups({group});
  EXPECT_EQ(capacity.per_zone["fast"]["zone-a"], int64_t{3} << 30);
  EXPECT_EQ(capacity.per_node["fast"]["n-1"], int64_t{3} << 30);
  Start(std::move(capacity));
  CreateNode("n-0", "zone-a");
  CreateNode("n-1", "zone-b");
  CreateClass("fast", "fast.csi.example.com", R"(,"volumeBindingMode":"WaitForFirstConsumer")");
  Sync();
  auto published = [&](const std::string& name) {
    auto o = Get(api::Kind::kCSIStorageCapacity, name, "kube-system");
    return o ? std::string(api::StringAt(o->json(), "capacity")) : "<none>";
  };
  EXPECT_EQ(published("sim-fast-zone-a"), "3Gi");
  EXPECT_EQ(published("sim-fast-zone-b"), "3Gi");
  auto zone_a = Get(api::Kind::kCSIStorageCapacity, "sim-fast-zone-a", "kube-system");
  ASSERT_TRUE(zone_a);
  EXPECT_EQ(json::serialize(*zone_a->json().if_contains("nodeTopology")),
            R"({"matchLabels":{"topology.kubernetes.io/zone":"zone-a"}})");
  auto driver = Get(api::Kind::kCSIDriver, "fast.csi.example.com");
  ASSERT_TRUE(driver);
  EXPECT_TRUE(api::BoolAt(api::Spec(*driver), "storageCapacity"));

  const std::string selected = R"(,"annotations":{"volume.kubernetes.io/selected-node":"n-0"})";
  CreatePvc("one", "2Gi", R"(,"storageClassName":"fast")", "", selected);
  Sync();
  ASSERT_EQ(Phase(Pvc("one")), "Bound");
  EXPECT_EQ(published("sim-fast-zone-a"), "1Gi");
  EXPECT_EQ(published("sim-fast-zone-b"), "3Gi");
  CreatePvc("two", "2Gi", R"(,"storageClassName":"fast")", "", selected);
  Sync();
  EXPECT_EQ(Phase(Pvc("two")), "Pending");
  EXPECT_TRUE(HasEvent(
      "two",
      "ProvisioningFailed: failed to provision volume with StorageClass \"fast\": rpc error: "
      "code = ResourceExhausted desc = insufficient capacity in "
      "topology.kubernetes.io/zone=zone-a: requested 2Gi, available 1Gi"));
  // The first claim goes (policy Delete): its room comes back and the second fits.
  ASSERT_TRUE(client_->Delete(api::Kind::kPersistentVolumeClaim, "default", "one").ok());
  Sync();
  EXPECT_EQ(Phase(Pvc("two")), "Bound");
  EXPECT_EQ(published("sim-fast-zone-a"), "1Gi");
}

TEST_F(VolumeBinderTest, UnhealthyVolumesAreNeverBound) {
  Start();
  const std::string unhealthy = R"(,"annotations":{"sim.berth.dev/volume-healthy":"false"})";
  CreatePv("sick", "1Gi", "", "", unhealthy);
  CreatePv("well", "2Gi", "");
  CreatePvc("first", "1Gi", R"(,"storageClassName":"")");
  Sync();
  EXPECT_EQ(VolumeName(Pvc("first")), "well");  // the smaller one is unhealthy
  CreatePvc("second", "1Gi", R"(,"storageClassName":"")");
  Sync();
  EXPECT_EQ(Phase(Pvc("second")), "Pending");
  EXPECT_TRUE(HasEvent("second",
                       "FailedBinding: volume \"sick\" is unhealthy (sim.berth.dev/volume-healthy: "
                       "\"false\"): not binding it"));
  // Healthy again: bound.
  Edit(api::Kind::kPersistentVolume, "sick", "", [](json::object& o) {
    api::MutableObject(api::MutableObject(o, "metadata"), "annotations")[kVolumeHealthyAnnotation] =
        "true";
  });
  Sync();
  EXPECT_EQ(VolumeName(Pvc("second")), "sick");
}

TEST_F(VolumeBinderTest, ABoundClaimWhoseVolumeIsGoneIsLost) {
  Start();
  CreatePv("pv", "1Gi", "", R"(,"persistentVolumeReclaimPolicy":"Retain")");
  CreatePvc("data", "1Gi", R"(,"storageClassName":"")");
  Sync();
  ASSERT_EQ(Phase(Pvc("data")), "Bound");
  // Remove the volume behind the controller's back (finalizer first).
  Edit(api::Kind::kPersistentVolume, "pv", "",
       [](json::object& o) { o["metadata"].as_object().erase("finalizers"); });
  ASSERT_TRUE(client_->Delete(api::Kind::kPersistentVolume, "", "pv").ok());
  Sync();
  EXPECT_EQ(Phase(Pvc("data")), "Lost");
  EXPECT_TRUE(HasEvent(
      "data", "ClaimLost: Bound claim has lost its PersistentVolume. Data on the volume is lost!"));
}

}  // namespace
}  // namespace berth::controllers
