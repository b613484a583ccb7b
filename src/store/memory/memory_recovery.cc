// MemoryStore's recovery from its data directory (the log and snapshots in
// wal/), and the check of the objects it recovered.

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

#include "store/memory/memory_store.h"

namespace berth::store {
namespace {

// Hands items from the thread that makes them to one consumer thread, in
// order, in batches: recovery reads, checks and frames log records on one core
// while the index is built on another.
template <typename T>
class Pipeline {
 public:
  explicit Pipeline(std::function<void(std::vector<T>&)> consume) : consume_(std::move(consume)) {
    batch_.reserve(kBatch);
    thread_ = std::thread([this] { Run(); });
  }
  ~Pipeline() { Finish(); }

  void Push(T item) {
    batch_.push_back(std::move(item));
    if (batch_.size() == kBatch) Hand();
  }
  // Hands over what is left and returns once everything has been consumed.
  void Finish() {
    if (!thread_.joinable()) return;
    Hand();
    {
      std::lock_guard lk(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  static constexpr size_t kBatch = 4096;
  static constexpr size_t kMaxQueued = 4;

  void Hand() {
    if (batch_.empty()) return;
    {
      std::unique_lock lk(mu_);
      cv_.wait(lk, [&] { return queue_.size() < kMaxQueued; });
      queue_.push_back(std::move(batch_));
    }
    cv_.notify_all();
    batch_ = {};
    batch_.reserve(kBatch);
  }

  void Run() {
    for (;;) {
      std::vector<T> batch;
      {
        std::unique_lock lk(mu_);
        cv_.wait(lk, [&] { return !queue_.empty() || done_; });
        if (queue_.empty()) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
      }
      cv_.notify_all();
      consume_(batch);
    }
  }

  const std::function<void(std::vector<T>&)> consume_;
  std::vector<T> batch_;  // the producer's
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<T>> queue_;  // guarded by mu_
  bool done_ = false;                 // guarded by mu_
  std::thread thread_;
};

// A value encrypted at rest, made plain (owned by *owner from then on).
// False (and `failure` set) when it cannot be; false at once when `failure`
// already is.
bool Unseal(const Encryption* encryption, std::string_view key, std::string_view* value,
            std::shared_ptr<const void>* owner, Status& failure) {
  if (!failure.ok()) return false;
  if (!encryption) {
    if (!value->starts_with("k8s:enc:")) return true;
    failure = Status::Internal(std::string(key) +
                               " is encrypted at rest: serve needs its --encryption-provider-config");
    return false;
  }
  if (!encryption->MayTransform(key, *value)) return true;
  auto plain = encryption->FromStorage(key, *value);
  if (!plain.ok()) {
    failure = plain.status();
    return false;
  }
  auto text = std::make_shared<const std::string>(std::move(plain).value());
  *value = *text;
  *owner = std::move(text);
  return true;
}

// The object a log record writes (nullptr for a delete), from its plain
// `value` (owned by `owner`).
Result<ObjectPtr> RecordObject(const wal::MappedRecord& record, std::string_view value,
                               std::shared_ptr<const void> owner) {
  if (record.type == wal::Record::Type::kPutAtRevision) {
    return api::Object::FromStored(std::string(record.key), value, std::move(owner),
                                   record.revision);
  }
  if (record.type == wal::Record::Type::kPut) {
    // Written before records carried their revision's text: decoded now.
    auto decoded = api::Object::Decode(value);
    if (!decoded.ok()) {
      return Status::Internal("log record at revision " + std::to_string(record.revision) + ": " +
                              decoded.status().message());
    }
    return decoded.value()->WithResourceVersion(record.revision);
  }
  return ObjectPtr();
}

}  // namespace

Status MemoryStore::Recover() {
  if (Status prepared = PrepareDataDir(); !prepared.ok()) return prepared;
  std::unique_lock lk(mu_);
  if (Status replayed = ReplayLocked(); !replayed.ok()) return replayed;
  if (options_.recover_to_revision > 0 && revision_ != options_.recover_to_revision) {
    return Status::BadRequest("revision " + std::to_string(options_.recover_to_revision) +
                              " is not in the data directory (it holds up to revision " +
                              std::to_string(revision_) + ")");
  }
  if (options_.read_only) return Status::Ok();
  return OpenLogLocked();
}

Status MemoryStore::PrepareDataDir() {
  const std::string& dir = options_.data_dir;
  std::error_code ec;
  if (options_.read_only) {
    if (!std::filesystem::is_directory(dir, ec)) {
      return Status::NotFound("data directory " + dir + " does not exist");
    }
    return Status::Ok();
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Internal("cannot create data directory " + dir + ": " + ec.message());
  auto locked = wal::DirLock::Acquire(dir);
  if (!locked.ok()) return locked.status();
  dir_lock_ = std::move(locked).value();
  return Status::Ok();
}

Status MemoryStore::ReplayLocked() {
  Status failure;
  bool first_record = true;
  // Log records are turned into objects here and applied to the index by the
  // pipeline's thread, which works under this thread's hold of mu_ (nothing
  // else can reach the store before Open returns).
  struct Applied {
    std::string key;
    ObjectPtr object;  // nullptr: a delete
    int64_t revision;
  };
  Pipeline<Applied> apply([this](std::vector<Applied>& batch) {
    for (Applied& a : batch) {
      ApplyLocked(index_.FindOrInsert(a.key), std::move(a.object), a.revision);
      revision_ = a.revision;
    }
  });
  const Encryption* encryption = options_.encryption.get();
  wal::RecoverOptions recover_options;
  recover_options.repair = !options_.read_only;
  if (options_.recover_to_revision > 0) recover_options.max_revision = options_.recover_to_revision;
  // Snapshot values and kPutAtRevision records are the objects' Encoded()
  // text at their revision: served from the mapped files as they are, and
  // parsed on first use.
  auto report = wal::RecoverMapped(
      options_.data_dir, recover_options,
      [&](wal::SnapshotEntry entry) {
        std::string key(entry.key);
        std::string_view value = entry.value;
        std::shared_ptr<const void> owner = std::move(entry.file);
        if (!Unseal(encryption, key, &value, &owner, failure)) return;
        CountLocked(key, 1);
        ObjectPtr object = api::Object::FromStored(key, value, std::move(owner), entry.revision);
        index_.Load(key)->value = Versions{{entry.revision, std::move(object)}};
      },
      [&](const wal::MappedRecord& record) {
        if (!failure.ok()) return;
        if (first_record) {
          index_.FinishLoad();  // the snapshot's keys, before any record can look one up
          first_record = false;
          revision_ = compacted_ = record.revision - 1;
        }
        std::string_view value = record.value;
        std::shared_ptr<const void> owner = record.file;
        if (record.type != wal::Record::Type::kDelete &&
            !Unseal(encryption, record.key, &value, &owner, failure))
          return;
        auto object = RecordObject(record, value, std::move(owner));
        if (!object.ok()) {
          failure = object.status();
          return;
        }
        apply.Push({std::string(record.key), std::move(object).value(), record.revision});
      });
  apply.Finish();
  index_.FinishLoad();  // a snapshot with no record after it
  if (!report.ok()) return report.status();
  if (!failure.ok()) return failure;
  recovery_ = report.value();
  if (first_record) revision_ = compacted_ = recovery_.snapshot_revision;
  revision_ = std::max(revision_, recovery_.last_revision);
  committed_.store(revision_);
  return Status::Ok();
}

Status MemoryStore::OpenLogLocked() {
  const std::string& dir = options_.data_dir;
  auto files = wal::ListFiles(dir);
  if (!files.ok()) return files.status();
  for (const auto& f : files.value()) {
    if (f.snapshot) last_snapshot_revision_ = std::max(last_snapshot_revision_, f.revision);
  }

  wal::LogWriter::Options log_options;
  log_options.dir = dir;
  log_options.sync = options_.sync;
  log_options.on_fsync = options_.on_fsync;
  log_options.on_durable = [this](uint64_t position) { OnDurable(position); };
  log_options.on_failure = [this](const Status& status) { OnLogFailure(status); };
  log_options.inject_fault = options_.inject_fault;
  auto log = wal::LogWriter::Open(std::move(log_options), revision_ + 1);
  if (!log.ok()) return log.status();
  log_ = std::move(log).value();
  return Status::Ok();
}

std::vector<std::string> MemoryStore::CheckObjects() {
  std::vector<ObjectPtr> objects;
  {
    std::shared_lock lk(mu_);
    index_.ForEach([&](const Entry& entry) {
      for (const Version& v : entry.value) {
        if (v.object) objects.push_back(v.object);
      }
    });
  }
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  std::vector<std::vector<std::string>> problems(threads);
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (size_t i = t; i < objects.size(); i += threads) {
        Status s = objects[i]->CheckDecodes();
        if (!s.ok()) {
          problems[t].push_back(objects[i]->StorageKey() + " at revision " +
                                std::to_string(objects[i]->resource_version()) + ": " +
                                s.message());
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  std::vector<std::string> out;
  for (auto& p : problems) out.insert(out.end(), p.begin(), p.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace berth::store
