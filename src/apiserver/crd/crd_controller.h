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
// - CrdController serves every definition as kube's controllers do: names
//   another definition of the group holds are refused (NamesAccepted,
//   crd_names.h) and a definition is served only once its names are accepted
//   (or it was established before); each served version becomes a kind
//   (api::RegisterKind) with its strategy, under the accepted names. A
//   definition being deleted is marked Terminating, takes no new objects, has
//   its objects deleted (finalizers on them honoured), then its finalizer
//   removed, then stops being served.
//
// Versions: every served version is its own kind over the same storage keys.
// With conversion strategy None objects are stored as written (their
// apiVersion rewritten on read, which is all kube's None conversion does);
// with strategy Webhook they are converted into the storage version before
// they are stored and into the version asked for when read (conversion.h).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/object.h"
#include "apiserver/admission/webhook/webhook.h"
#include "apiserver/crd/crd_names.h"
#include "apiserver/openapi/openapi.h"
#include "apiserver/registry/registry.h"
#include "store/store.h"

namespace berth::apiserver::crd {

inline constexpr std::string_view kCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

// The CustomResourceDefinition kind's strategy.
// `on_created` runs after a definition is stored (the server serves it then).
std::shared_ptr<const ResourceStrategy> CrdStrategy(std::function<void(const api::ObjectPtr&)> on_created = {});

// The kind of one served version of a definition (its accepted names, or
// its spec's before any are accepted; scope and subresources), as
// RegisterKind takes it.
api::KindSpec KindSpecOf(const api::Object& crd, const boost::json::object& version);
// Registers the kinds of every definition in `store` that the API server
// serves (names accepted, or established), under their accepted names,
// without serving them:
// what a process that reads stored objects (berth store check) needs before
// objects of custom kinds decode.
Status RegisterStoredKinds(store::Store& store);

class CrdController {
 public:
  // `openapi` (may be null) gets each served version's schema. A deletion
  // whose objects are not gone after `deletion_timeout` (kube: a minute)
  // says InstanceDeletionCheck, then waits as long again.
  CrdController(store::Store& store, ResourceRegistry& registry, OpenApi* openapi,
                std::chrono::steady_clock::duration deletion_timeout = std::chrono::seconds(60));
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
  // Whether a definition of `group` served now converts through a webhook
  // (its requests may then wait on it). Lock-free when none does.
  bool ConvertsThroughWebhook(std::string_view group) const;

 private:
  // What a definition is served as, to serve it again only when that changes.
  struct Served {
    std::vector<api::Kind> kinds;
    boost::json::value from;  // spec, accepted names, terminating
    std::string converting_group;  // its group when it converts through a webhook
  };
  // A deletion waiting for its objects to go (finalizers hold them), or
  // retrying after a failure: kube's finalizer polls, then gives up for a
  // while with InstanceDeletionCheck.
  struct Waiting {
    std::chrono::steady_clock::time_point deadline, next_check;
    int failures = 0;
  };
  enum class Deletion { kDone, kWaiting, kFailed };

  void Run();
  // Lists the definitions, serves them, drops the ones gone, and watches
  // from the list's revision (again after a watch ends, e.g. expired).
  Status ListAndWatch();
  // One definition: its names, kinds and status, and when it is being
  // deleted its objects. True when its accepted names changed (the group's
  // other definitions are synced again then). REQUIRES: mu_ held.
  bool SyncOne(api::ObjectPtr crd);
  // Syncs the definitions of `group` but `except`, and again the others
  // whenever one of them takes or frees a name. REQUIRES: mu_ held.
  void SyncGroup(const std::string& group, const std::string& except);
  // The names the group's definitions have accepted, as stored.
  GroupNames NamesOfGroup(const std::string& group);
  // A definition deleted from the store: no longer served, its names free.
  void Forget(const api::Object& crd);
  // Syncs the deletions whose next check is due.
  void RecheckWaiting();
  void Serve(const api::Object& crd);
  void Remove(const std::string& crd_name);
  // kube's finalizer: Terminating, its objects deleted, then its finalizer.
  void Terminate(api::ObjectPtr crd);
  Deletion DeleteInstances(const api::Object& crd, std::string& message);
  // Writes `status` when it differs from the stored one; the definition as
  // stored then, or the write's error.
  Result<api::ObjectPtr> WriteStatus(const api::ObjectPtr& crd, boost::json::object status);

  store::Store& store_;
  ResourceRegistry& registry_;
  OpenApi* const openapi_;
  const std::chrono::steady_clock::duration deletion_timeout_;
  // Calls the definitions' conversion webhooks (conversion.h).
  const std::shared_ptr<webhook::Caller> caller_;
  std::mutex mu_;                                      // one Sync at a time
  std::unordered_map<std::string, Served> served_;     // definition name → how it is served; guarded by mu_
  std::unordered_map<std::string, Waiting> waiting_;   // definitions being deleted; guarded by mu_
  // The groups of the served definitions with a conversion webhook (a
  // multiset: one entry per definition), read by every request's thread.
  mutable std::mutex converting_mu_;
  std::vector<std::string> converting_groups_;  // guarded by converting_mu_
  std::atomic<bool> any_converting_{false};
  // Sets what `served` records of its definition's conversion. REQUIRES: mu_ held.
  void SetConverting(Served& served, std::string group);
  std::atomic<bool> stopping_{false};
  std::mutex watch_mu_;                  // guards watch_ (replaced by Run, stopped by the destructor)
  std::shared_ptr<store::Watch> watch_;  // guarded by watch_mu_
  std::thread thread_;
};

}  // namespace berth::apiserver::crd
