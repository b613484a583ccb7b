#include "client/event_recorder.h"

#include <algorithm>
#include <cstdio>

#include <boost/json.hpp>

#include "api/time/rfc3339.h"

namespace berth::client {

namespace json = boost::json;

EventBroadcaster::EventBroadcaster(RestClient& client, Options options)
    : client_(client),
      options_(options),
      clock_(options.clock ? *options.clock : api::RealClock::Instance()),
      token_alarm_(clock_.NewAlarm([this] {
        {
          std::lock_guard lk(mu_);
          token_due_ = true;
        }
        wake_.notify_one();
      })),
      writer_([this] { Run(); }) {}

EventBroadcaster::~EventBroadcaster() {
  Stop();
  token_alarm_.reset();  // its function takes mu_: gone before the members it uses
}

void EventBroadcaster::Record(const std::shared_ptr<const EventSource>& source,
                              const api::Object& object, std::string_view type,
                              std::string_view reason, std::string message) {
  Pending p{source,
            object.kind(),
            object.namespace_name(),
            object.name(),
            object.uid(),
            object.resource_version(),
            std::string(type),
            std::string(reason),
            std::move(message),
            clock_.WallNow()};
  bool was_empty;
  {
    std::lock_guard lk(mu_);
    if (stopping_ || queue_.size() >= options_.max_queued) {
      ++dropped_;
      return;
    }
    p.seq = next_seq_++;
    was_empty = queue_.empty();
    queue_.push_back(std::move(p));
  }
  // The writer waits for an event only when the queue is empty (while it
  // waits for a token, only Stop wakes it): no wake-up per event on the
  // callers' hot paths.
  if (was_empty) wake_.notify_one();
}

void EventBroadcaster::Flush() {
  std::unique_lock lk(mu_);
  const uint64_t target = next_seq_ - 1;
  // The writer drains the queue before it stops, so this always ends.
  done_.wait(lk, [&] { return written_seq_ >= target; });
}

void EventBroadcaster::Stop() {
  {
    std::lock_guard lk(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (writer_.joinable()) writer_.join();
}

uint64_t EventBroadcaster::dropped() const {
  std::lock_guard lk(mu_);
  return dropped_;
}

uint64_t EventBroadcaster::failed() const {
  std::lock_guard lk(mu_);
  return failed_;
}

void EventBroadcaster::Run() {
  double tokens = options_.burst;
  api::Clock::time_point refilled = clock_.Now();
  std::unique_lock lk(mu_);
  for (;;) {
    wake_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) break;  // stopping, and everything queued is written
    // Writes take tokens from a bucket of `burst` refilled at `qps`, as kube's
    // clients limit their requests; events wait their turn in the queue. Once
    // stopping, what is queued is written without waiting.
    if (!stopping_ && options_.qps > 0) {
      api::Clock::time_point now = clock_.Now();
      tokens = std::min<double>(
          options_.burst,
          tokens + std::chrono::duration<double>(now - refilled).count() * options_.qps);
      refilled = now;
      if (tokens < 1) {
        token_due_ = false;
        token_alarm_->Set(now + std::chrono::ceil<api::Clock::time_point::duration>(
                                    std::chrono::duration<double>((1 - tokens) / options_.qps)));
        wake_.wait(lk, [&] { return stopping_ || token_due_; });
        continue;
      }
      tokens -= 1;
    }
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    lk.unlock();
    Write(p);
    lk.lock();
    written_seq_ = p.seq;
    done_.notify_all();
  }
}

std::string EventBroadcaster::EventName(const Pending& p) {
  // kube: "%v.%x" of the object's name and the time in nanoseconds. One
  // writer makes the names, so strictly increasing times keep them apart.
  int64_t nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(p.time.time_since_epoch()).count();
  if (nanos <= last_name_nanos_) nanos = last_name_nanos_ + 1;
  last_name_nanos_ = nanos;
  char hex[20];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(nanos));
  return p.name + "." + hex;
}

void EventBroadcaster::Write(const Pending& p) {
  const api::KindInfo& info = api::Info(p.kind);
  const std::string event_ns = p.ns.empty() ? "default" : p.ns;
  const std::string time = api::FormatRfc3339(p.time);
  std::string key;
  for (std::string_view part :
       {std::string_view(info.name), std::string_view(p.ns), std::string_view(p.name),
        std::string_view(p.uid), std::string_view(p.type), std::string_view(p.reason),
        std::string_view(p.message), std::string_view(p.source->component),
        std::string_view(p.source->host)}) {
    key.append(part);
    key.push_back('\0');
  }

  bool ok = false;
  if (auto seen = written_.find(key); seen != written_.end()) {
    // A repeat: one more on the existing Event's count.
    Written w = seen->second;
    lru_.erase(w.lru);
    written_.erase(seen);
    json::object patch{{"count", w.count + 1}, {"lastTimestamp", time}};
    auto patched = client_.Patch(api::Kind::kEvent, w.ns, w.name, json::serialize(patch));
    if (patched.ok()) {
      ++w.count;
      Remember(std::move(key), std::move(w));
      return;
    }
    // Gone (deleted, expired): a new Event below.
    if (patched.status().code() != StatusCode::kNotFound) {
      std::lock_guard lk(mu_);
      ++failed_;
      return;
    }
  }

  json::object involved{{"apiVersion", info.ApiVersion()}, {"kind", info.name}, {"name", p.name}};
  if (!p.ns.empty()) involved["namespace"] = p.ns;
  if (!p.uid.empty()) involved["uid"] = p.uid;
  if (p.resource_version > 0) involved["resourceVersion"] = std::to_string(p.resource_version);
  json::object source{{"component", p.source->component}};
  if (!p.source->host.empty()) source["host"] = p.source->host;
  json::object event{{"metadata", json::object{{"namespace", event_ns}}},
                     {"involvedObject", std::move(involved)},
                     {"reason", p.reason},
                     {"message", p.message},
                     {"source", std::move(source)},
                     {"firstTimestamp", time},
                     {"lastTimestamp", time},
                     {"count", 1},
                     {"type", p.type},
                     {"reportingComponent", p.source->component},
                     {"reportingInstance", p.source->host}};
  // A name taken (another recorder's event about the same object in the same
  // nanosecond) is tried once more with the next one.
  for (int attempt = 0; attempt < 2 && !ok; ++attempt) {
    std::string name = EventName(p);
    event["metadata"].as_object()["name"] = name;
    auto created = client_.Create(api::Kind::kEvent, event_ns, event);
    if (created.ok()) {
      Remember(std::move(key), Written{event_ns, std::move(name), 1, {}});
      ok = true;
    } else if (created.status().code() != StatusCode::kAlreadyExists) {
      break;
    }
  }
  if (!ok) {
    std::lock_guard lk(mu_);
    ++failed_;
  }
}

void EventBroadcaster::Remember(std::string key, Written w) {
  lru_.push_front(key);
  w.lru = lru_.begin();
  written_.emplace(std::move(key), std::move(w));
  while (written_.size() > options_.max_remembered) {
    written_.erase(lru_.back());
    lru_.pop_back();
  }
}

}  // namespace berth::client
