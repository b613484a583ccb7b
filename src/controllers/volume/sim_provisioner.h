#pragma once
// berth's simulated CSI provisioner: the external-provisioner sidecar and a
// CSI driver in one, for every StorageClass whose provisioner is not
// kubernetes.io/no-provisioner (whatever driver it names). No storage exists;
// the API objects are what a real driver would leave behind.
//
// - It provisions a claim the PV controller handed to it (annotation
//   volume.kubernetes.io/storage-provisioner naming the class's provisioner),
//   Pending, unbound, and, for a WaitForFirstConsumer class, once the
//   scheduler has set volume.kubernetes.io/selected-node.
// - The PV is kube's external-provisioner's: named pvc-<claim uid>, pre-bound
//   to the claim (claimRef with uid), pv.kubernetes.io/provisioned-by, the
//   claim's request as capacity, its access modes and volumeMode, the class's
//   reclaimPolicy and mountOptions, a csi source of the driver, and node
//   affinity on the topology segment it was made in: topology.kubernetes.io/zone
//   = the zone, or, for a class with parameter sim.berth.dev/local: "true",
//   kubernetes.io/hostname = the node.
// - The segment: the selected node's zone (or the node, local classes); an
//   Immediate claim gets the segment, among the nodes' zones (or nodes)
//   allowed by the class's allowedTopologies, with the most free capacity
//   (unlimited: with the fewest bytes provisioned), ties by name. A segment
//   outside allowedTopologies, or without room, fails: the claim stays
//   Pending with a ProvisioningFailed event and is retried.
// - Capacity (SimStorageCapacity, from --sim-config) is per class and zone,
//   or per class and node for local classes; it is published as
//   CSIStorageCapacity objects in kube-system (capacity = configured minus
//   what is provisioned there), with a CSIDriver of the provisioner's name
//   (storageCapacity: true) so that the scheduler checks them; a provisioner
//   name that is not a DNS subdomain (kube's CSI driver names are) gets no
//   CSIDriver, so the scheduler does not check its capacity, while the
//   provisioner still refuses what does not fit. Classes without configured
//   capacity are unlimited and publish nothing.
//
// Events on the claim, with kube's reasons: Provisioning,
// ProvisioningSucceeded, ProvisioningFailed (source: the driver's name).
// Deleting released volumes is the PV controller's part (see
// persistent_volume_controller.h).

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "controllers/controller.h"
#include "controllers/simnode/sim_nodes.h"

namespace berth::controllers {

inline constexpr char kSimLocalParameter[] = "sim.berth.dev/local";
inline constexpr char kZoneLabel[] = "topology.kubernetes.io/zone";
inline constexpr char kHostnameLabel[] = "kubernetes.io/hostname";

// Configured capacity in bytes, by class: per zone (the sum of the group's
// nodes in it) and per node.
struct SimStorageCapacity {
  std::map<std::string, std::map<std::string, int64_t>> per_zone;  // class → zone → bytes
  std::map<std::string, std::map<std::string, int64_t>> per_node;  // class → node → bytes
  bool Limited(const std::string& storage_class) const { return per_zone.count(storage_class) > 0; }
};

// From the simulated node groups' storageClasses and storageCapacity (each
// node of the group has that much for each class).
SimStorageCapacity StorageCapacityFromGroups(const std::vector<SimNodeGroup>& groups);

class SimCsiProvisioner final : public Controller {
 public:
  SimCsiProvisioner(const ControllerContext& context, SimStorageCapacity capacity);
  ~SimCsiProvisioner() override;

  // The one key under which the CSIStorageCapacity objects are written.
  static constexpr char kCapacityKey[] = "csistoragecapacity";
  // Where they are.
  static constexpr char kCapacityNamespace[] = "kube-system";

  void Start();  // the workers; publishes the capacity once

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  struct Usage {
    std::string storage_class, segment;
    int64_t bytes = 0;
  };
  Status Provision(const api::ObjectPtr& claim);
  // The segment (zone, or node for a local class) a volume of the class is
  // made in: the selected node's, else the allowed one with the most room.
  // An error's message says why there is none. REQUIRES: mu_.
  Result<std::string> ChooseSegment(const std::string& selected_node,
                                    const api::Object& storage_class,
                                    const std::string& class_name) const;
  Status PublishCapacity();
  // Bytes still free for `storage_class` in `segment`; INT64_MAX when unlimited.
  int64_t Free(const std::string& storage_class, const std::string& segment,
               bool local) const;  // REQUIRES: mu_
  void Track(const api::Object& volume);

  SimStorageCapacity capacity_;
  client::SharedInformer& claims_;
  client::SharedInformer& volumes_;
  client::SharedInformer& classes_;
  client::SharedInformer& nodes_;
  client::SharedInformer& capacities_;
  client::EventBroadcaster* events_;
  mutable std::mutex mu_;                     // one provisioning decision at a time
  std::map<std::string, Usage> provisioned_;  // by PV name; guarded by mu_
};

}  // namespace berth::controllers
