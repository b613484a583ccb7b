#pragma once
// What an informer has delivered: the last version of every object, so that
// a relist after a lost watch is delivered as the difference (adds, updates,
// deletes) and handlers always see one consistent stream. Shared by the
// store informer and the HTTP informer. Not thread-safe: one informer thread.

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/object.h"
#include "api/status.h"

namespace berth::client {

struct InformerHandlers {
  std::function<void(const api::ObjectPtr&)> on_add;
  std::function<void(const api::ObjectPtr&)> on_update;
  std::function<void(const api::ObjectPtr&)> on_delete;
};

// What both informers (over the store, over HTTP) offer: Start lists and
// delivers the initial objects on the caller's thread, then follows the watch
// on a thread of its own; Stop ends it.
class InformerSource {
 public:
  virtual ~InformerSource() = default;
  virtual Status Start() = 0;
  virtual void Stop() = 0;
};

class InformerCache {
 public:
  explicit InformerCache(InformerHandlers handlers) : handlers_(std::move(handlers)) {}

  // A complete list: delivers what changed since the last one.
  void Replace(const std::vector<api::ObjectPtr>& items) {
    std::unordered_set<std::string> seen;
    for (const auto& object : items) {
      seen.insert(object->StorageKey());
      auto it = known_.find(object->StorageKey());
      if (it == known_.end()) {
        Added(object);
      } else if (it->second->resource_version() != object->resource_version()) {
        Modified(object);
      }
    }
    std::vector<api::ObjectPtr> gone;
    for (const auto& [key, object] : known_) {
      if (!seen.count(key)) gone.push_back(object);
    }
    for (const auto& object : gone) Deleted(object);
  }
  // One watch event's object.
  void Added(const api::ObjectPtr& object) { Modified(object); }
  void Modified(const api::ObjectPtr& object) {
    auto [it, inserted] = known_.insert_or_assign(object->StorageKey(), object);
    auto& handler = inserted ? handlers_.on_add : handlers_.on_update;
    if (handler) handler(object);
  }
  void Deleted(const api::ObjectPtr& object) {
    known_.erase(object->StorageKey());
    if (handlers_.on_delete) handlers_.on_delete(object);
  }

 private:
  InformerHandlers handlers_;
  std::unordered_map<std::string, api::ObjectPtr> known_;
};

}  // namespace berth::client
