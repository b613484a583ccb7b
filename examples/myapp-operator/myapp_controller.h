#pragma once
// The MyApp controller: for each MyApp (example.com/v1, crd.yaml) one
// Deployment of the same name, controlled by it, running spec.image with
// spec.replicas replicas; the Deployment's status.availableReplicas is
// copied to the MyApp's status subresource.
//
// Level-triggered: a MyApp's key is queued whenever it or its Deployment
// changes, and Reconcile compares what the informers' caches hold with what
// the MyApp asks for, writing only the difference (nothing when nothing
// differs). A write refused by optimistic concurrency (Conflict) or a create
// the cache has not seen yet (AlreadyExists) fails the reconcile, and the
// controller runtime retries the key with per-key exponential backoff.
//
// Deletion is not handled here: the Deployment's ownerReference names the
// MyApp, so berth's garbage collector deletes the Deployment when the MyApp
// goes.
//
// Threads: handlers run on the informers' threads and only queue keys;
// Reconcile runs on the runtime's workers, one key on one worker at a time.

#include <boost/json/object.hpp>
#include <string>

#include "api/kinds.h"
#include "controllers/controller.h"

namespace myapp_operator {

// The MyApp kind as crd.yaml defines it, for api::RegisterKind: a process
// decodes MyApps (and builds their REST paths) only once it is registered.
berth::api::KindSpec MyAppKindSpec();

class MyAppController final : public berth::controllers::Controller {
 public:
  // REQUIRES: `myapp` is registered (MyAppKindSpec), and the context's
  // informers are not started yet.
  MyAppController(const berth::controllers::ControllerContext& context, berth::api::Kind myapp,
                  int workers = 2);

  // The Deployment `app` asks for (exposed for tests).
  static boost::json::object DesiredDeployment(const berth::api::Object& app);

 protected:
  berth::Status Reconcile(const std::string& key) override;

 private:
  berth::Status SyncDeployment(const berth::api::Object& app, const berth::api::Object& deployment);
  berth::Status SyncStatus(const berth::api::Object& app, const berth::api::Object& deployment);

  berth::api::Kind myapp_;
  berth::client::SharedInformer& myapps_;
  berth::client::SharedInformer& deployments_;
};

}  // namespace myapp_operator
