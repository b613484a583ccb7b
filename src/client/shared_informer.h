#pragma once
// A shared informer (client-go's SharedIndexInformer): one list+watch of a
// kind for every controller of the process, a thread-safe local cache with
// secondary indexes that controllers read instead of the API, and any number
// of event handlers. The cache is updated before handlers run, so a handler
// that looks something up sees at least the event's object. Handlers run on
// the informer's thread: they should only enqueue work.
//
// A lost watch is resumed by the source (InformerSource) listing again and
// delivering the difference. With a resync period, every cached object is
// delivered again as an update that often (kube's resync), so a controller
// that dropped work converges anyway.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/object.h"
#include "client/informer_cache.h"

namespace berth::client {

// Index name → the index values of an object (e.g. "nodeName" → {"node-1"}).
using IndexFunc = std::function<std::vector<std::string>(const api::Object&)>;

// "namespace/name", or "name" for cluster-scoped objects: the work-queue key.
std::string ObjectKey(const api::Object& object);
std::string ObjectKey(std::string_view ns, std::string_view name);

// Built-in index names.
inline constexpr char kNamespaceIndex[] = "namespace";
inline constexpr char kOwnerUidIndex[] = "ownerUid";  // every ownerReferences[].uid
inline constexpr char kNodeNameIndex[] = "nodeName";  // pods: spec.nodeName

class SharedInformer {
 public:
  // `make_source` builds the list+watch (over the store or over HTTP) that
  // will deliver to the handlers it is given.
  using SourceFactory = std::function<std::unique_ptr<InformerSource>(InformerHandlers)>;

  explicit SharedInformer(SourceFactory make_source, std::chrono::milliseconds resync_period = {});
  ~SharedInformer();

  // Before Start only.
  void AddIndex(const std::string& name, IndexFunc index);
  void AddHandlers(InformerHandlers handlers);

  // Lists (handlers see the initial objects as adds, on this thread), then watches.
  Status Start();
  void Stop();

  // Reads of the local cache. Thread-safe.
  api::ObjectPtr Get(const std::string& key) const;  // by ObjectKey; nullptr when absent
  std::vector<api::ObjectPtr> List() const;
  std::vector<api::ObjectPtr> ByIndex(const std::string& index, const std::string& value) const;
  size_t Size() const;

 private:
  void OnAdd(const api::ObjectPtr& object);
  void OnUpdate(const api::ObjectPtr& object);
  void OnDelete(const api::ObjectPtr& object);
  void Store(const api::ObjectPtr& object);
  void Unindex(const std::string& key, const api::Object& object);
  void Resync();

  SourceFactory make_source_;
  std::chrono::milliseconds resync_period_;
  std::vector<InformerHandlers> handlers_;
  std::map<std::string, IndexFunc> index_funcs_;

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, api::ObjectPtr> items_;  // guarded by mu_
  // index name → value → keys; guarded by mu_
  std::unordered_map<std::string, std::unordered_map<std::string, std::unordered_set<std::string>>> indexes_;

  std::unique_ptr<InformerSource> source_;
  std::mutex resync_mu_;
  std::condition_variable resync_cv_;
  bool stopping_ = false;  // guarded by resync_mu_
  std::thread resync_thread_;
};

}  // namespace berth::client
