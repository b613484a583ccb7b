// What store.h declares beyond the Store interface: the deferred-acknowledgement
// scope, event type names and GuaranteedUpdate.

#include "store/store.h"

namespace berth::store {

namespace {
thread_local DeferAcknowledgement* current_scope = nullptr;
}  // namespace

DeferAcknowledgement::DeferAcknowledgement() : previous_(current_scope) { current_scope = this; }
DeferAcknowledgement::~DeferAcknowledgement() { current_scope = previous_; }
DeferAcknowledgement* DeferAcknowledgement::Current() { return current_scope; }

void Store::CreateAsync(ObjectPtr object, std::function<void(Result<ObjectPtr>)> done) {
  int64_t revision = 0;
  Result<ObjectPtr> created = Status::Internal("not written");
  {
    DeferAcknowledgement defer;
    created = Create(std::move(object));
    revision = defer.revision();
  }
  if (!created.ok() || revision == 0) {
    done(std::move(created));
    return;
  }
  WhenVisible(revision, [this, revision, object = std::move(created).value(), done = std::move(done)] {
    // The store failed before the write was durable: its error, not the object.
    Status durable = WriteStatus(revision);
    done(durable.ok() ? Result<ObjectPtr>(object) : Result<ObjectPtr>(durable));
  });
}

std::string_view EventTypeName(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
    case EventType::kBookmark:
      return "BOOKMARK";
    case EventType::kError:
      return "ERROR";
  }
  return "ERROR";
}

Result<ObjectPtr> GuaranteedUpdate(Store& store, const std::string& key,
                                   const std::function<Result<ObjectPtr>(const ObjectPtr&)>& update,
                                   int max_attempts) {
  Status last = Status::Conflict("no attempt made");
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    auto current = store.Get(key);
    if (!current.ok()) return current.status();
    auto next = update(current.value());
    if (!next.ok()) return next.status();
    auto written = store.Update(next.value(), current.value()->resource_version());
    if (written.ok() || written.status().code() != StatusCode::kConflict) return written;
    last = written.status();
  }
  return last;
}

}  // namespace berth::store
