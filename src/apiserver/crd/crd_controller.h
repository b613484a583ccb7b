#pragma once
// CustomResourceDefinitions (apiextensions.k8s.io/v1), as kube's
// apiextensions-apiserver serves them inside the API server:
//
// - CrdStrategy validates a definition with kube's rules and messages
//   (group, names, scope, versions with exactly one storage version, each
//   version's structural schema) and gives a new one the finalizer
//   customresourcecleanup.apiextensions.k8s.io.
// - CustomResourceStrategy is a custom resource's strategy: its schema's
//   pruning and defaults, schema validation, the status and scale
//   subresources, metadata.generation as kube keeps it.
// - CrdController serves every definition: each served version becomes a
//   kind (api::RegisterKind) with its strategy, the definition's status gets
//   NamesAccepted and Established; a definition being deleted has its
//   objects deleted, then its finalizer removed, then stops being served.
//
// Versions: every served version is its own kind over the same storage keys;
// objects are stored as written (conversion strategy None, without the
// apiVersion rewrite on read that kube does between versions).

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/object.h"
#include "apiserver/openapi.h"
#include "apiserver/registry.h"
#include "store/store.h"

namespace berth::apiserver::crd {

inline constexpr std::string_view kCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

// The CustomResourceDefinition kind's strategy.
// `on_created` runs after a definition is stored (the server serves it then).
std::shared_ptr<const ResourceStrategy> CrdStrategy(std::function<void(const api::ObjectPtr&)> on_created = {});

// The kind of one served version of a definition (its names, scope and
// subresources), as RegisterKind takes it.
api::KindSpec KindSpecOf(const api::Object& crd, const boost::json::object& version);
// Registers the kinds of every definition in `store` without serving them:
// what a process that reads stored objects (berth store check) needs before
// objects of custom kinds decode.
Status RegisterStoredKinds(store::Store& store);

class CrdController {
 public:
  // `openapi` (may be null) gets each served version's schema.
  CrdController(store::Store& store, ResourceRegistry& registry, OpenApi* openapi);
  ~CrdController();
  CrdController(const CrdController&) = delete;
  CrdController& operator=(const CrdController&) = delete;

  // Serves every definition in the store now, then follows their changes on
  // a thread of its own until destroyed.
  Status Start();
  // Serves `crd` (as stored) now: its kinds and strategies, its status, or
  // its deletion. The REST handlers call it after a write so that a created
  // definition is served when the answer leaves; the watch sees it again.
  void Sync(const api::ObjectPtr& crd);

 private:
  void Run();
  // Lists the definitions, serves them, drops the ones gone, and watches
  // from the list's revision (again after a watch ends, e.g. expired).
  Status ListAndWatch();
  void Serve(const api::Object& crd);
  void Remove(const std::string& crd_name);
  // Deletes the definition's objects, then its finalizer.
  void Terminate(const api::Object& crd);
  void WriteStatus(const api::ObjectPtr& crd);

  store::Store& store_;
  ResourceRegistry& registry_;
  OpenApi* const openapi_;
  std::mutex mu_;  // one Sync at a time
  std::unordered_map<std::string, std::vector<api::Kind>> served_;  // definition name → its kinds; guarded by mu_
  std::atomic<bool> stopping_{false};
  std::mutex watch_mu_;                  // guards watch_ (replaced by Run, stopped by the destructor)
  std::shared_ptr<store::Watch> watch_;  // guarded by watch_mu_
  std::thread thread_;
};

}  // namespace berth::apiserver::crd
