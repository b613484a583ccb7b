#pragma once
// A watch as an HTTP response stream: newline-delimited WatchEvent JSON
// ({"type":"ADDED","object":{…}}), optionally preceded by synthetic ADDED
// events for the current objects, ending at the watch's timeout or when the
// store ends it (ERROR event, e.g. 410 Expired).

#include <chrono>
#include <memory>
#include <vector>

#include "api/object.h"
#include "apiserver/http.h"
#include "store/store.h"

namespace berth::apiserver {

class ResourceStrategy;  // registry/registry.h

class WatchStream final : public ResponseStream {
 public:
  struct Options {
    api::Kind kind;
    bool table = false;            // objects as one-row Tables (kubectl get -w)
    bool bookmarks = false;        // allowWatchBookmarks
    std::chrono::steady_clock::time_point deadline;
    std::vector<api::ObjectPtr> initial;  // sent first as ADDED
    // The kind's strategy: each object is sent as its ForRead gives it (a
    // custom resource in the version watched, with its schema's defaults);
    // a conversion that fails ends the watch with an ERROR event. The
    // registry keeps it alive.
    const ResourceStrategy* strategy = nullptr;
  };
  WatchStream(std::unique_ptr<store::Watch> watch, Options options);

  void Start(std::function<void()> wake) override;
  Chunk Pump() override;
  std::chrono::milliseconds PollInterval() const override { return std::chrono::milliseconds(500); }
  void Cancel() override;

  // One event line (with trailing newline).
  static void AppendEvent(std::string& out, std::string_view type, std::string_view object_json);

 private:
  Result<std::string> ObjectJson(const api::ObjectPtr& object);
  // Appends the event for `object`; false when it could not be made (the
  // ERROR event appended instead: the watch ends).
  bool AppendObjectEvent(std::string& out, std::string_view type, const api::ObjectPtr& object);

  std::unique_ptr<store::Watch> watch_;
  Options options_;
  size_t initial_sent_ = 0;
  bool columns_sent_ = false;
};

}  // namespace berth::apiserver
