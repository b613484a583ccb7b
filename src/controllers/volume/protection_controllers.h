#pragma once
// kube's PVC and PV protection controllers (pkg/controller/volume/
// pvcprotection and pvprotection). The StorageObjectInUseProtection
// admission plugin puts the finalizers on at create; these controllers add
// them to objects that lack them and remove them when deletion is safe:
//
// - kubernetes.io/pvc-protection: a claim being deleted keeps it while a pod
//   scheduled to a node and not terminated (phase neither Succeeded nor
//   Failed) uses the claim (spec.volumes[].persistentVolumeClaim, or the
//   claim an ephemeral volume makes, "<pod>-<volume>");
// - kubernetes.io/pv-protection: a volume being deleted keeps it while it is
//   Bound.

#include <string>

#include "controllers/controller.h"

namespace berth::controllers {

inline constexpr char kPvcProtectionFinalizer[] = "kubernetes.io/pvc-protection";
inline constexpr char kPvProtectionFinalizer[] = "kubernetes.io/pv-protection";

class PvcProtectionController final : public Controller {
 public:
  explicit PvcProtectionController(const ControllerContext& context, int workers = 2);

 protected:
  Status Reconcile(const std::string& key) override;  // "namespace/name" of a claim

 private:
  bool InUse(const api::Object& claim) const;
  client::SharedInformer& claims_;
  client::SharedInformer& pods_;
};

class PvProtectionController final : public Controller {
 public:
  explicit PvProtectionController(const ControllerContext& context, int workers = 2);

 protected:
  Status Reconcile(const std::string& key) override;  // a volume's name

 private:
  client::SharedInformer& volumes_;
};

// Adds (add true) or removes `finalizer` on `object` through `client`, with
// the object's version as a precondition. NotFound is success.
Status SetFinalizer(client::RestClient& client, const api::Object& object,
                    std::string_view finalizer, bool add);

}  // namespace berth::controllers
