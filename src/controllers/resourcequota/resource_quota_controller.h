#pragma once
// kube's resource quota controller: keeps each ResourceQuota's status.hard
// (its spec.hard) and status.used (what the namespace's objects that its
// scopes cover use now) true. The ResourceQuota admission plugin charges
// creates at once; this controller recounts: when a quota changes, when a
// pod changes or goes (a deleted or finished pod gives its share back), and
// every resync period for the kinds it does not follow.

#include <chrono>

#include "controllers/controller.h"

namespace berth::controllers {

struct ResourceQuotaOptions {
  // kube-controller-manager's --resource-quota-sync-period is 5m; berth
  // recounts more often, its lists being local.
  std::chrono::milliseconds resync{std::chrono::seconds(30)};
};

class ResourceQuotaController final : public Controller {
 public:
  explicit ResourceQuotaController(const ControllerContext& context, ResourceQuotaOptions options = {},
                                   int workers = 1);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  void EnqueueNamespace(std::string_view ns);

  ResourceQuotaOptions options_;
  client::SharedInformer& quotas_;
  client::SharedInformer& pods_;
};

}  // namespace berth::controllers
