#pragma once
// The namespace controller (kube's namespace deleter): a namespace marked for
// deletion (Terminating) has everything in it deleted; while objects remain
// (pods terminating gracefully on their kubelets, finalizers) it checks again
// shortly; once none is left it removes the "kubernetes" finalizer through
// the namespace's /finalize subresource and deletes the namespace, which the
// API server then purges. The API server already drains a namespace in the
// DELETE itself and purges it at once when nothing was held back, so this
// controller only sees the namespaces that had to wait.

#include <chrono>
#include <string>

#include "controllers/controller.h"

namespace berth::controllers {

class NamespaceController final : public Controller {
 public:
  explicit NamespaceController(const ControllerContext& context, int workers = 2,
                               std::chrono::milliseconds recheck = std::chrono::milliseconds(500));

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // Deletes what is left in `ns`; returns how many objects remain.
  Result<size_t> DeleteContent(const std::string& ns);

  std::chrono::milliseconds recheck_;
};

}  // namespace berth::controllers
