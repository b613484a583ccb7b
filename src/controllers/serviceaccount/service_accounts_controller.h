#pragma once
// The ServiceAccounts controller (kube's pkg/controller/serviceaccount,
// kube-controller-manager's serviceaccount-controller): every Active
// namespace has a ServiceAccount named "default", the one pods run as when
// they name none. It is created when a namespace is added or updated and
// created again when it is deleted; a namespace that is not Active
// (Terminating) gets nothing, and a create refused because the namespace
// began terminating meanwhile is dropped, not retried. An existing "default"
// is left as it is: only its absence is repaired.
//
// Reads the namespace and ServiceAccount informers' caches; writes through
// the controllers' RestClient. One worker, as kube runs it. Records no
// Events (kube records none).

#include <string>

#include "controllers/controller.h"

namespace berth::controllers {

class ServiceAccountsController final : public Controller {
 public:
  // The ServiceAccount every Active namespace holds.
  static constexpr char kDefaultServiceAccount[] = "default";

  explicit ServiceAccountsController(const ControllerContext& context, int workers = 1);

 protected:
  // `key` is a namespace's name.
  Status Reconcile(const std::string& key) override;

 private:
  client::SharedInformer& namespaces_;
  client::SharedInformer& service_accounts_;
};

}  // namespace berth::controllers
