// The volume plugins (VolumeBinding, VolumeZone, VolumeRestrictions,
// NodeVolumeLimits, VolumeZoneAffinity): each outcome with kube's code and
// message, over storage objects fed to a VolumeLister as informers would.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "scheduler/framework/framework.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/volume_lister.h"
#include "scheduler/plugins/volume_binding/volume_binding.h"
#include "scheduler/plugins/volume_limits/node_volume_limits.h"
#include "scheduler/plugins/volume_restrictions/volume_restrictions.h"
#include "scheduler/plugins/volume_zone/volume_zone.h"
#include "scheduler/plugins/volume_zone_affinity/volume_zone_affinity.h"
#include "fake_cluster.h"
#include "scheduler_test_util.h"

namespace berth::scheduler {
namespace {

namespace json = boost::json;
using testing::Node;
using testing::Pod;

api::ObjectPtr Decode(const std::string& text) {
  auto o = api::Object::Decode(text);
  EXPECT_TRUE(o.ok()) << o.status().message() << "\n" << text;
  return o.value();
}

// A claim in "default". `extra_meta`: members added to metadata; `status`: its phase.
api::ObjectPtr ClaimObject(const std::string& name, const std::string& spec, const std::string& extra_meta = "",
                           const std::string& phase = "Pending") {
  return Decode(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":")" + name +
                R"(","namespace":"default","uid":"uid-)" + name + "\",\"resourceVersion\":\"7\"" + extra_meta +
                R"(},"spec":)" + spec + R"(,"status":{"phase":")" + phase + "\"}}");
}

api::ObjectPtr VolumeObject(const std::string& name, const std::string& spec, const std::string& phase = "Available",
                            const std::string& extra_meta = "") {
  return Decode(R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":")" + name + "\"" + extra_meta +
                R"(},"spec":)" + spec + R"(,"status":{"phase":")" + phase + "\"}}");
}

api::ObjectPtr ClassObject(const std::string& name, const std::string& provisioner, bool wait_for_first_consumer,
                           const std::string& extra = "") {
  return Decode(R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":")" + name +
                R"("},"provisioner":")" + provisioner + R"(","volumeBindingMode":")" +
                (wait_for_first_consumer ? "WaitForFirstConsumer" : "Immediate") + "\"" + extra + "}");
}

std::string HostAffinity(const std::string& node) {
  return R"("nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":[")" +
         node + R"("]}]}]}})";
}

PodInfoPtr PodWithClaims(const std::string& name, const std::vector<std::string>& claims) {
  std::string volumes;
  for (const auto& c : claims) {
    volumes += std::string(volumes.empty() ? "" : ",") + R"({"name":")" + c + R"(","persistentVolumeClaim":{"claimName":")" +
               c + "\"}}";
  }
  return Pod(name, R"({"containers":[{"name":"c","image":"i"}],"volumes":[)" + volumes + "]}");
}

std::shared_ptr<NodeInfo> NodeIn(const std::string& name, const std::string& zone = "") {
  std::string labels = R"({"kubernetes.io/hostname":")" + name + "\"";
  if (!zone.empty()) labels += R"(,"topology.kubernetes.io/zone":")" + zone + "\"";
  return Node(name, "4", "8Gi", labels + "}");
}

// A Handle with storage: the lister, and the API writes PreBind makes.
class VolumeHandle : public testing::FakeHandle {
 public:
  mutable VolumeLister volumes;
  mutable std::vector<json::object> pv_updates, pvc_updates;
  VolumeLister* Volumes() const override { return &volumes; }
  Status UpdatePersistentVolume(const json::object& pv) const override {
    pv_updates.push_back(pv);
    return Status::Ok();
  }
  Status UpdatePersistentVolumeClaim(const json::object& pvc) const override {
    pvc_updates.push_back(pvc);
    return Status::Ok();
  }
};

constexpr char kRwo1Gi[] = R"({"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}})";

std::string ClaimSpec(const std::string& class_name, const std::string& size = "1Gi", const std::string& extra = "") {
  return R"({"accessModes":["ReadWriteOnce"],"storageClassName":")" + class_name +
         R"(","resources":{"requests":{"storage":")" + size + "\"}}" + extra + "}";
}

std::string VolumeSpec(const std::string& class_name, const std::string& size, const std::string& extra = "") {
  return R"({"accessModes":["ReadWriteOnce"],"storageClassName":")" + class_name + R"(","capacity":{"storage":")" +
         size + "\"}" + extra + "}";
}

// A claim bound the way the PV controller leaves it.
void AddBoundPair(VolumeLister& volumes, const std::string& claim, const std::string& pv,
                  const std::string& pv_extra = "", const std::string& pv_meta = "") {
  volumes.OnClaim(ClaimObject(claim, ClaimSpec("", "1Gi", R"(,"volumeName":")" + pv + "\""),
                              R"(,"annotations":{"pv.kubernetes.io/bind-completed":"yes"})", "Bound"));
  volumes.OnVolume(VolumeObject(
      pv, VolumeSpec("", "1Gi", R"(,"claimRef":{"namespace":"default","name":")" + claim + "\"}" + pv_extra), "Bound",
      pv_meta));
}

struct Cycle {
  Snapshot snapshot;
  CycleState state;
  explicit Cycle(const std::vector<NodeInfoPtr>& nodes) : snapshot(Snapshot::FromNodes(nodes)), state(&snapshot) {}
};

TEST(VolumeBinding, PreFilterRejectsMissingAndUnboundImmediateClaims) {
  VolumeHandle handle;
  VolumeBinding plugin(handle, std::chrono::seconds(600));
  auto node = NodeIn("a");
  Cycle cycle({node});
  EXPECT_TRUE(plugin.PreFilter(cycle.state, *Pod("no-volumes")).IsSkip());

  PluginStatus missing = plugin.PreFilter(cycle.state, *PodWithClaims("p", {"data"}));
  EXPECT_EQ(missing.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(missing.reasons(), std::vector<std::string>{"persistentvolumeclaim \"data\" not found"});

  handle.volumes.OnStorageClass(ClassObject("fast", "csi.example.com", false));
  handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("fast")));
  PluginStatus immediate = plugin.PreFilter(cycle.state, *PodWithClaims("p", {"data"}));
  EXPECT_EQ(immediate.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(immediate.reasons(), std::vector<std::string>{"pod has unbound immediate PersistentVolumeClaims"});

  handle.volumes.OnClaim(ClaimObject("gone", ClaimSpec("fast"), R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")"));
  PluginStatus deleting = plugin.PreFilter(cycle.state, *PodWithClaims("p", {"gone"}));
  EXPECT_EQ(deleting.reasons(), std::vector<std::string>{"persistentvolumeclaim \"gone\" is being deleted"});
}

TEST(VolumeBinding, BoundLocalVolumePinsThePodToItsNode) {
  VolumeHandle handle;
  VolumeBinding plugin(handle, std::chrono::seconds(600));
  AddBoundPair(handle.volumes, "data", "local-pv", "," + HostAffinity("a"));
  auto a = NodeIn("a"), b = NodeIn("b");
  Cycle cycle({a, b});
  auto pod = PodWithClaims("p", {"data"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *a).ok());
  PluginStatus s = plugin.Filter(cycle.state, *pod, *b);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"node(s) had volume node affinity conflict"});
  // Nothing to bind: PreBind writes nothing.
  ASSERT_TRUE(plugin.Reserve(cycle.state, *pod, "a").ok());
  EXPECT_TRUE(plugin.PreBind(cycle.state, *pod, "a").ok());
  EXPECT_TRUE(handle.pv_updates.empty());
}

TEST(VolumeBinding, ClaimBoundToMissingVolumeFitsNoNode) {
  VolumeHandle handle;
  VolumeBinding plugin(handle, std::chrono::seconds(600));
  AddBoundPair(handle.volumes, "data", "pv");
  handle.volumes.OnVolumeDelete("pv");
  auto a = NodeIn("a");
  Cycle cycle({a});
  auto pod = PodWithClaims("p", {"data"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  PluginStatus s = plugin.Filter(cycle.state, *pod, *a);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.reasons(),
            std::vector<std::string>{"node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"});
}

TEST(VolumeBinding, DelayedClaimTakesTheSmallestFittingVolumeOnTheNode) {
  VolumeHandle handle;
  VolumeBinding plugin(handle, std::chrono::seconds(600));
  handle.volumes.OnStorageClass(ClassObject("local", "kubernetes.io/no-provisioner", true));
  handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("local", "5Gi")));
  handle.volumes.OnVolume(VolumeObject("big-a", VolumeSpec("local", "100Gi", "," + HostAffinity("a"))));
  handle.volumes.OnVolume(VolumeObject("small-a", VolumeSpec("local", "10Gi", "," + HostAffinity("a"))));
  handle.volumes.OnVolume(VolumeObject("tiny-a", VolumeSpec("local", "1Gi", "," + HostAffinity("a"))));
  handle.volumes.OnVolume(VolumeObject("released-b", VolumeSpec("local", "10Gi", "," + HostAffinity("b")), "Released"));
  auto a = NodeIn("a"), b = NodeIn("b");
  Cycle cycle({a, b});
  auto pod = PodWithClaims("p", {"data"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *a).ok());
  PluginStatus on_b = plugin.Filter(cycle.state, *pod, *b);
  EXPECT_EQ(on_b.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(on_b.reasons(), std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"});

  ASSERT_TRUE(plugin.Reserve(cycle.state, *pod, "a").ok());
  EXPECT_EQ(handle.volumes.AssumedClaim("small-a"), "default/data");

  // Another pod's claim, in a concurrent cycle, cannot take the assumed volume.
  handle.volumes.OnClaim(ClaimObject("other", ClaimSpec("local", "5Gi")));
  Cycle second({a});
  auto other = PodWithClaims("q", {"other"});
  ASSERT_TRUE(plugin.PreFilter(second.state, *other).ok());
  ASSERT_TRUE(plugin.Filter(second.state, *other, *a).ok());
  ASSERT_TRUE(plugin.Reserve(second.state, *other, "a").ok());
  EXPECT_EQ(handle.volumes.AssumedClaim("big-a"), "default/other");

  // Unreserve gives the volumes back.
  plugin.Unreserve(cycle.state, *pod, "a");
  plugin.Unreserve(second.state, *other, "a");
  EXPECT_EQ(handle.volumes.AssumedClaim("small-a"), "");
  EXPECT_EQ(handle.volumes.AssumedClaim("big-a"), "");
}

TEST(VolumeBinding, UnhealthyVolumeIsSkippedWithAReasonSayingSo) {
  VolumeHandle handle;
  VolumeBinding plugin(handle, std::chrono::seconds(600));
  handle.volumes.OnStorageClass(ClassObject("local", "kubernetes.io/no-provisioner", true));
  handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("local")));
  handle.volumes.OnVolume(VolumeObject("sick", VolumeSpec("local", "1Gi"), "Available",
                                       R"(,"annotations":{"sim.berth.dev/volume-healthy":"false"})"));
  auto a = NodeIn("a");
  Cycle cycle({a});
  auto pod = PodWithClaims("p", {"data"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  PluginStatus s = plugin.Filter(cycle.state, *pod, *a);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"node(s) had unhealthy persistent volumes"});
  // Healthy again: taken.
  handle.volumes.OnVolume(VolumeObject("sick", VolumeSpec("local", "1Gi")));
  Cycle again({a});
  ASSERT_TRUE(plugin.PreFilter(again.state, *pod).ok());
  EXPECT_TRUE(plugin.Filter(again.state, *pod, *a).ok());
}

TEST(VolumeBinding, ProvisioningChecksTopologyAndPublishedCapacity) {
  VolumeHandle handle;
  VolumeBinding plugin(handle, std::chrono::seconds(600));
  handle.volumes.OnStorageClass(ClassObject(
      "zonal", "csi.example.com", true,
      R"(,"allowedTopologies":[{"matchLabelExpressions":[{"key":"topology.kubernetes.io/zone","values":["z1","z2"]}]}])"));
  handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("zonal", "10Gi")));
  auto z1 = NodeIn("n1", "z1"), z2 = NodeIn("n2", "z2"), z3 = NodeIn("n3", "z3");
  auto pod = PodWithClaims("p", {"data"});
  {
    // No CSIDriver object: capacity is not checked.
    Cycle cycle({z1, z2, z3});
    ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
    EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *z1).ok());
    EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *z2).ok());
    EXPECT_EQ(plugin.Filter(cycle.state, *pod, *z3).reasons(),
              std::vector<std::string>{"node(s) didn't find available persistent volumes to bind"});
  }
  handle.volumes.OnCSIDriver(Decode(
      R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIDriver","metadata":{"name":"csi.example.com"},"spec":{"storageCapacity":true}})"));
  handle.volumes.OnStorageCapacity(Decode(
      R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"c1","namespace":"kube-system"},"storageClassName":"zonal","capacity":"100Gi","nodeTopology":{"matchLabels":{"topology.kubernetes.io/zone":"z1"}}})"));
  handle.volumes.OnStorageCapacity(Decode(
      R"({"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"c2","namespace":"kube-system"},"storageClassName":"zonal","capacity":"5Gi","nodeTopology":{"matchLabels":{"topology.kubernetes.io/zone":"z2"}}})"));
  Cycle cycle({z1, z2});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *z1).ok());
  PluginStatus full = plugin.Filter(cycle.state, *pod, *z2);
  EXPECT_EQ(full.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(full.reasons(), std::vector<std::string>{"node(s) did not have enough free storage"});

  // Provisioning assumes no volume.
  ASSERT_TRUE(plugin.Reserve(cycle.state, *pod, "n1").ok());
  EXPECT_TRUE(handle.volumes.VolumesOfClass("zonal").empty());
}

// The PV controller's part, as kube's contract has it: the claim bound to a PV
// whose claimRef names it.
void BindAsController(VolumeLister& volumes, const std::string& claim, const std::string& pv) {
  volumes.OnVolume(VolumeObject(
      pv, VolumeSpec("local", "1Gi", R"(,"claimRef":{"namespace":"default","name":")" + claim + "\"}"), "Bound"));
  volumes.OnClaim(ClaimObject(claim, ClaimSpec("local", "1Gi", R"(,"volumeName":")" + pv + "\""),
                              R"(,"annotations":{"pv.kubernetes.io/bind-completed":"yes"})", "Bound"));
}

TEST(VolumeBinding, PreBindWritesTheClaimRefAndWaitsForTheController) {
  VolumeHandle handle;
  VolumeBinding plugin(handle, std::chrono::seconds(600));
  handle.volumes.OnStorageClass(ClassObject("local", "kubernetes.io/no-provisioner", true));
  handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("local")));
  handle.volumes.OnVolume(VolumeObject("pv1", VolumeSpec("local", "1Gi", "," + HostAffinity("a"))));
  auto a = NodeIn("a");
  Cycle cycle({a});
  auto pod = PodWithClaims("p", {"data"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  ASSERT_TRUE(plugin.Filter(cycle.state, *pod, *a).ok());
  ASSERT_TRUE(plugin.Reserve(cycle.state, *pod, "a").ok());
  std::thread controller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BindAsController(handle.volumes, "data", "pv1");
  });
  PluginStatus s = plugin.PreBind(cycle.state, *pod, "a");
  controller.join();
  EXPECT_TRUE(s.ok()) << s.Message();
  ASSERT_EQ(handle.pv_updates.size(), 1u);
  const json::object& written = handle.pv_updates[0];
  const json::object& ref = written.at("spec").at("claimRef").as_object();
  EXPECT_EQ(ref.at("name").as_string(), "data");
  EXPECT_EQ(ref.at("namespace").as_string(), "default");
  EXPECT_EQ(ref.at("uid").as_string(), "uid-data");
  EXPECT_EQ(written.at("metadata").at("annotations").at("pv.kubernetes.io/bound-by-controller").as_string(), "yes");
  EXPECT_EQ(handle.volumes.AssumedClaim("pv1"), "");
}

TEST(VolumeBinding, PreBindFailsOnTimeoutAndOnALostSelectedNode) {
  VolumeHandle handle;
  auto made = NewVolumeBinding(json::object{{"bindTimeoutSeconds", 1}}, handle);
  ASSERT_TRUE(made.ok());
  const auto& plugin = dynamic_cast<const VolumeBinding&>(*made.value());
  EXPECT_EQ(plugin.bind_timeout(), std::chrono::seconds(1));
  handle.volumes.OnStorageClass(ClassObject("dyn", "csi.example.com", true));
  handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("dyn")));
  auto a = NodeIn("a");
  auto pod = PodWithClaims("p", {"data"});
  {
    Cycle cycle({a});
    ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
    ASSERT_TRUE(plugin.Filter(cycle.state, *pod, *a).ok());
    ASSERT_TRUE(plugin.Reserve(cycle.state, *pod, "a").ok());
    // The claim as written carries the selected node; nobody binds it.
    handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("dyn"),
                                       R"(,"annotations":{"volume.kubernetes.io/selected-node":"a"})"));
    PluginStatus s = plugin.PreBind(cycle.state, *pod, "a");
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_EQ(s.Message(), "binding volumes: context deadline exceeded");
    ASSERT_EQ(handle.pvc_updates.size(), 1u);
    const json::object& annotations = handle.pvc_updates[0].at("metadata").at("annotations").as_object();
    EXPECT_EQ(annotations.at("volume.kubernetes.io/selected-node").as_string(), "a");
    EXPECT_EQ(annotations.at("volume.kubernetes.io/storage-provisioner").as_string(), "csi.example.com");
    // Written over the version PreFilter saw, so a claim changed since is a conflict.
    EXPECT_EQ(handle.pvc_updates[0].at("metadata").at("resourceVersion").as_string(), "7");
  }
  {
    // The provisioner gave the node up: the annotation is gone.
    handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("dyn")));
    Cycle cycle({a});
    ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
    ASSERT_TRUE(plugin.Filter(cycle.state, *pod, *a).ok());
    ASSERT_TRUE(plugin.Reserve(cycle.state, *pod, "a").ok());
    PluginStatus s = plugin.PreBind(cycle.state, *pod, "a");
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_EQ(s.Message(), "binding volumes: selectedNode annotation reset for PVC \"data\"");
  }
}

TEST(VolumeBinding, ArgsAreCheckedLikeKube) {
  VolumeHandle handle;
  auto negative = NewVolumeBinding(json::object{{"bindTimeoutSeconds", -1}}, handle);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("bindTimeoutSeconds: Invalid value: -1"), std::string::npos);
  auto unknown = NewVolumeBinding(json::object{{"shape", json::array{}}}, handle);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "shape: unknown field");
  auto defaults = NewVolumeBinding(json::object{}, handle);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(dynamic_cast<const VolumeBinding&>(*defaults.value()).bind_timeout(), std::chrono::seconds(600));
}

TEST(VolumeZone, BoundVolumeZoneMustMatchTheNodes) {
  VolumeHandle handle;
  VolumeZone plugin(handle);
  AddBoundPair(handle.volumes, "data", "pv", "", R"(,"labels":{"topology.kubernetes.io/zone":"z1__z2"})");
  auto z1 = NodeIn("n1", "z1"), z2 = NodeIn("n2", "z2"), z3 = NodeIn("n3", "z3"), bare = Node("bare");
  Cycle cycle({z1, z2, z3, bare});
  auto pod = PodWithClaims("p", {"data"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *z1).ok());
  EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *z2).ok());
  EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *bare).ok()) << "a node without zone labels is not constrained";
  PluginStatus s = plugin.Filter(cycle.state, *pod, *z3);
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"node(s) had no available volume zone"});
  // A volume without zone labels constrains nothing.
  AddBoundPair(handle.volumes, "plain", "pv2");
  EXPECT_TRUE(plugin.PreFilter(cycle.state, *PodWithClaims("q", {"plain"})).IsSkip());
  EXPECT_EQ(plugin.PreFilter(cycle.state, *PodWithClaims("q", {"nope"})).reasons(),
            std::vector<std::string>{"persistentvolumeclaim \"nope\" not found"});
}

TEST(VolumeRestrictions, ReadWriteOncePodClaimIsUsedByOnePodOnly) {
  VolumeHandle handle;
  VolumeRestrictions plugin(handle);
  handle.volumes.OnClaim(ClaimObject("solo", R"({"accessModes":["ReadWriteOncePod"],"resources":{"requests":{"storage":"1Gi"}}})"));
  handle.volumes.OnClaim(ClaimObject("shared", kRwo1Gi));
  auto node = NodeIn("a");
  auto user = PodWithClaims("user", {"solo"});
  node->AddPod(user);
  Cycle cycle({node});
  auto pod = PodWithClaims("p", {"solo"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  PluginStatus s = plugin.Filter(cycle.state, *pod, *node);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{
                             "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"});
  // Preemption's dry run without the user: the pod fits.
  auto copy = cycle.state.Clone();
  ASSERT_TRUE(plugin.RemovePod(*copy, *pod, *user, *node).ok());
  EXPECT_TRUE(plugin.Filter(*copy, *pod, *node).ok());
  EXPECT_FALSE(plugin.Filter(cycle.state, *pod, *node).ok()) << "the cycle's own state is unchanged";
  EXPECT_TRUE(plugin.PreFilter(cycle.state, *PodWithClaims("q", {"shared"})).IsSkip());
}

TEST(NodeVolumeLimits, CSINodeCountLimitsAttachedVolumes) {
  VolumeHandle handle;
  NodeVolumeLimits plugin(handle);
  const std::string csi = R"(,"csi":{"driver":"ebs.csi.aws.com","volumeHandle":")";
  auto bind = [&](const std::string& claim, const std::string& pv) {
    AddBoundPair(handle.volumes, claim, pv, csi + pv + "\"}");
  };
  bind("c1", "v1");
  bind("c2", "v2");
  handle.volumes.OnCSINode(Decode(
      R"({"apiVersion":"storage.k8s.io/v1","kind":"CSINode","metadata":{"name":"a"},"spec":{"drivers":[{"name":"ebs.csi.aws.com","nodeID":"a","allocatable":{"count":1}}]}})"));
  auto a = NodeIn("a"), b = NodeIn("b");
  a->AddPod(PodWithClaims("existing", {"c1"}));
  b->AddPod(PodWithClaims("existing", {"c1"}));
  Cycle cycle({a, b});
  auto pod = PodWithClaims("p", {"c2"});
  ASSERT_TRUE(plugin.PreFilter(cycle.state, *pod).ok());
  PluginStatus s = plugin.Filter(cycle.state, *pod, *a);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"node(s) exceed max volume count"});
  EXPECT_TRUE(plugin.Filter(cycle.state, *pod, *b).ok()) << "no CSINode: no limit";
  // The same volume again needs no new attachment.
  auto again = PodWithClaims("q", {"c1"});
  Cycle second({a});
  ASSERT_TRUE(plugin.PreFilter(second.state, *again).ok());
  EXPECT_TRUE(plugin.Filter(second.state, *again, *a).ok());
  // In-tree EBS counts under the CSI driver it migrates to.
  AddBoundPair(handle.volumes, "c3", "v3", R"(,"awsElasticBlockStore":{"volumeID":"v3"})");
  Cycle third({a});
  auto in_tree = PodWithClaims("r", {"c3"});
  ASSERT_TRUE(plugin.PreFilter(third.state, *in_tree).ok());
  EXPECT_FALSE(plugin.Filter(third.state, *in_tree, *a).ok());
  // The CSINode gone: no limit left anywhere.
  EXPECT_EQ(handle.volumes.SmallestCSINodeLimit(), 1);
  handle.volumes.OnCSINodeDelete("a");
  EXPECT_EQ(handle.volumes.SmallestCSINodeLimit(), std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(plugin.Filter(third.state, *in_tree, *a).ok());
}

TEST(VolumeZoneAffinity, PrefersZonesHoldingVolumesOfTheClaimsClass) {
  VolumeHandle handle;
  VolumeZoneAffinity plugin(handle);
  handle.volumes.OnStorageClass(ClassObject("zonal", "csi.example.com", true));
  handle.volumes.OnClaim(ClaimObject("data", ClaimSpec("zonal")));
  auto zone_volume = [&](const std::string& name, const std::string& zone, const std::string& class_name) {
    handle.volumes.OnVolume(VolumeObject(
        name,
        VolumeSpec(class_name, "1Gi", R"(,"claimRef":{"namespace":"default","name":"other-)" + name + "\"}"),
        "Bound", R"(,"labels":{"topology.kubernetes.io/zone":")" + zone + "\"}"));
  };
  zone_volume("v1", "z1", "zonal");
  zone_volume("v2", "z1", "zonal");
  zone_volume("v3", "z2", "zonal");
  zone_volume("v4", "z3", "other-class");
  auto z1 = NodeIn("n1", "z1"), z2 = NodeIn("n2", "z2"), z3 = NodeIn("n3", "z3");
  Cycle cycle({z1, z2, z3});
  auto pod = PodWithClaims("p", {"data"});
  std::vector<const NodeInfo*> feasible = {z1.get(), z2.get(), z3.get()};
  ASSERT_TRUE(plugin.PreScore(cycle.state, *pod, feasible).ok());
  std::vector<NodeScore> scores;
  for (const NodeInfo* n : feasible) {
    int64_t score = -1;
    ASSERT_TRUE(plugin.Score(cycle.state, *pod, *n, &score).ok());
    scores.push_back({n, score});
  }
  ASSERT_TRUE(plugin.NormalizeScore(cycle.state, *pod, scores).ok());
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 50);
  EXPECT_EQ(scores[2].score, 0);
  EXPECT_TRUE(plugin.PreScore(cycle.state, *Pod("no-claims"), feasible).IsSkip());
}

}  // namespace
}  // namespace berth::scheduler

namespace berth::scheduler {
namespace {

std::vector<std::string> Names(const Framework& fw, std::string_view point) { return fw.PluginNames(point); }
bool Has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(VolumePlugins, DefaultProfileRunsKubesVolumePluginsAndNotTheZoneScore) {
  testing::FakeHandle handle;
  auto fw = Framework::Build(ProfileConfig{}, InTreeRegistry(), handle);
  ASSERT_TRUE(fw.ok()) << fw.status().message();
  const auto filters = Names(*fw.value(), "filter");
  for (std::string_view name : {"VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"}) {
    EXPECT_TRUE(Has(filters, name)) << name;
  }
  // kube's order: after NodeResourcesFit, before PodTopologySpread.
  auto at = [&](std::string_view name) { return std::find(filters.begin(), filters.end(), name) - filters.begin(); };
  EXPECT_LT(at("NodeResourcesFit"), at("VolumeRestrictions"));
  EXPECT_LT(at("VolumeRestrictions"), at("NodeVolumeLimits"));
  EXPECT_LT(at("NodeVolumeLimits"), at("VolumeBinding"));
  EXPECT_LT(at("VolumeBinding"), at("VolumeZone"));
  EXPECT_LT(at("VolumeZone"), at("PodTopologySpread"));
  EXPECT_TRUE(Has(Names(*fw.value(), "reserve"), "VolumeBinding"));
  EXPECT_TRUE(Has(Names(*fw.value(), "preBind"), "VolumeBinding"));
  EXPECT_FALSE(Has(Names(*fw.value(), "score"), "VolumeZoneAffinity"));
}

TEST(VolumePlugins, ExampleProfileEnablesTheZoneScore) {
  std::ifstream in(std::string(BERTH_SOURCE_DIR) + "/examples/scheduler-config/volume-zone-affinity.yaml");
  ASSERT_TRUE(in) << "the example profile is missing";
  std::stringstream text;
  text << in.rdbuf();
  auto config = ParseSchedulerConfig(text.str());
  ASSERT_TRUE(config.ok()) << config.status().message();
  ASSERT_EQ(config->profiles.size(), 1u);
  testing::FakeHandle handle;
  auto fw = Framework::Build(config->profiles[0], InTreeRegistry(), handle);
  ASSERT_TRUE(fw.ok()) << fw.status().message();
  EXPECT_TRUE(Has(Names(*fw.value(), "score"), "VolumeZoneAffinity"));
  EXPECT_EQ(fw.value()->ScoreWeight("VolumeZoneAffinity"), 2);
  EXPECT_TRUE(Has(Names(*fw.value(), "filter"), "VolumeBinding")) << "the defaults stay";
}

}  // namespace
}  // namespace berth::scheduler

namespace berth::scheduler {
namespace {

// Through the scheduler: a pod turned away for a missing claim is tried
// again when the storage objects arrive (kube's cluster events for
// VolumeBinding), and its local volume decides its node.
TEST(VolumeScheduling, StorageEventsBringAnUnschedulablePodBack) {
  testing::FakeCluster c;
  c.scheduler->OnNodeAdd(testing::NodeObject("n1", "4", "8Gi", R"({"kubernetes.io/hostname":"n1"})"));
  c.scheduler->OnNodeAdd(testing::NodeObject("n2", "4", "8Gi", R"({"kubernetes.io/hostname":"n2"})"));
  c.scheduler->Start();
  c.scheduler->OnPodAdd(PodWithClaims("p", {"data"})->object);
  ASSERT_TRUE(c.WaitIdle());
  EXPECT_TRUE(c.Placements().empty());
  EXPECT_NE(c.FailureOf("default/p").find("persistentvolumeclaim \"data\" not found"), std::string::npos)
      << c.FailureOf("default/p");

  c.scheduler->OnStorageObject(
      api::Kind::kPersistentVolume,
      VolumeObject("local-n2",
                   VolumeSpec("", "1Gi", R"(,"claimRef":{"namespace":"default","name":"data"},)" + HostAffinity("n2")),
                   "Bound"));
  c.scheduler->OnStorageObject(api::Kind::kPersistentVolumeClaim,
                               ClaimObject("data", ClaimSpec("", "1Gi", R"(,"volumeName":"local-n2")"),
                                           R"(,"annotations":{"pv.kubernetes.io/bind-completed":"yes"})", "Bound"));
  // After its backoff (1 s) the pod is tried again.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (c.Placements().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(c.Placements()["default/p"], "n2");
}

}  // namespace
}  // namespace berth::scheduler
