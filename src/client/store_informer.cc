#include "client/store_informer.h"

#include <pthread.h>

namespace berth::client {

StoreInformer::StoreInformer(store::Store& store, api::Kind kind, Handlers handlers)
    : store_(store), kind_(kind), cache_(std::move(handlers)) {}

StoreInformer::~StoreInformer() { Stop(); }

Status StoreInformer::Relist() {
  store::ListOptions options;
  options.prefix = api::StoragePrefix(kind_, "");
  auto list = store_.List(options);
  if (!list.ok()) return list.status();
  cache_.Replace(list.value().items);
  revision_ = list.value().revision;
  store::WatchOptions watch;
  watch.prefix = options.prefix;
  watch.resource_version = revision_;
  auto w = store_.WatchFrom(watch);
  if (!w.ok()) return w.status();
  // Set before the watch is published: Stop (another thread) may use it from then on.
  w.value()->SetNotify([this] {
    {
      std::lock_guard lock(wake_mu_);
      wake_ = true;
    }
    wake_cv_.notify_one();
  });
  std::lock_guard lock(watch_mu_);
  if (stop_) w.value()->Stop();
  watch_ = std::shared_ptr<store::Watch>(std::move(w).value());
  return Status::Ok();
}

Status StoreInformer::Start() {
  Status s = Relist();
  if (!s.ok()) return s;
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "informer");
    Run();
  });
  return Status::Ok();
}

void StoreInformer::Stop() {
  stop_ = true;
  {
    std::lock_guard lock(watch_mu_);
    if (watch_) watch_->Stop();
  }
  {
    std::lock_guard lock(wake_mu_);
    wake_ = true;
  }
  wake_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StoreInformer::Run() {
  // Woken by the store's notification (set up in Relist), which is
  // coalesced: one call per batch of writes until the next Poll, so a busy
  // informer costs the writers no wake-ups, and writes of other kinds never
  // wake it.
  while (!stop_) {
    std::shared_ptr<store::Watch> watch;
    {
      std::lock_guard lock(watch_mu_);
      watch = watch_;
    }
    auto events = watch->Poll();
    if (events.empty() && !watch->Done()) {
      std::unique_lock lock(wake_mu_);
      // The timeout lets bookmarks through (Poll emits them when due).
      wake_cv_.wait_for(lock, std::chrono::milliseconds(200), [&] { return wake_ || stop_.load(); });
      wake_ = false;
      continue;
    }
    for (auto& e : events) {
      switch (e.type) {
        case store::EventType::kAdded:
        case store::EventType::kModified:
          cache_.Modified(e.object);
          break;
        case store::EventType::kDeleted:
          cache_.Deleted(e.object);
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
