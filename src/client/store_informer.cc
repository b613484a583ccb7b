#include "client/store_informer.h"

#include <unordered_set>

namespace berth::client {

StoreInformer::StoreInformer(store::Store& store, api::Kind kind, Handlers handlers)
    : store_(store), kind_(kind), handlers_(std::move(handlers)) {}

StoreInformer::~StoreInformer() { Stop(); }

Status StoreInformer::Relist() {
  store::ListOptions options;
  options.prefix = api::StoragePrefix(kind_, "");
  auto list = store_.List(options);
  if (!list.ok()) return list.status();
  std::unordered_set<std::string> seen;
  for (const auto& object : list.value().items) {
    const std::string& key = object->StorageKey();
    seen.insert(key);
    auto it = known_.find(key);
    if (it == known_.end()) {
      known_[key] = object;
      if (handlers_.on_add) handlers_.on_add(object);
    } else if (it->second->resource_version() != object->resource_version()) {
      it->second = object;
      if (handlers_.on_update) handlers_.on_update(object);
    }
  }
  for (auto it = known_.begin(); it != known_.end();) {
    if (seen.count(it->first)) {
      ++it;
      continue;
    }
    api::ObjectPtr gone = it->second;
    it = known_.erase(it);
    if (handlers_.on_delete) handlers_.on_delete(gone);
  }
  revision_ = list.value().revision;
  store::WatchOptions watch;
  watch.prefix = options.prefix;
  watch.resource_version = revision_;
  auto w = store_.WatchFrom(watch);
  if (!w.ok()) return w.status();
  std::lock_guard lock(watch_mu_);
  if (stop_) w.value()->Stop();
  watch_ = std::shared_ptr<store::Watch>(std::move(w).value());
  return Status::Ok();
}

Status StoreInformer::Start() {
  Status s = Relist();
  if (!s.ok()) return s;
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void StoreInformer::Stop() {
  stop_ = true;
  {
    std::lock_guard lock(watch_mu_);
    if (watch_) watch_->Stop();
  }
  if (thread_.joinable()) thread_.join();
}

void StoreInformer::Run() {
  while (!stop_) {
    std::shared_ptr<store::Watch> watch;
    {
      std::lock_guard lock(watch_mu_);
      watch = watch_;
    }
    auto events = watch->Next(std::chrono::steady_clock::now() + std::chrono::milliseconds(200));
    for (auto& e : events) {
      switch (e.type) {
        case store::EventType::kAdded:
        case store::EventType::kModified: {
          auto [it, inserted] = known_.insert_or_assign(e.object->StorageKey(), e.object);
          auto& handler = inserted ? handlers_.on_add : handlers_.on_update;
          if (handler) handler(e.object);
          break;
        }
        case store::EventType::kDeleted:
          known_.erase(e.object->StorageKey());
          if (handlers_.on_delete) handlers_.on_delete(e.object);
          break;
        case store::EventType::kBookmark:
        case store::EventType::kError:
          break;
      }
      revision_ = std::max(revision_, e.revision);
    }
    if (watch->Done() && !stop_) {
      // Expired or ended: list again and resume.
      while (!stop_ && !Relist().ok()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (stop_) return;
    }
  }
}

}  // namespace berth::client
