#include "apiserver/watch_stream.h"

#include <boost/json.hpp>

#include "apiserver/printers/table.h"
#include "apiserver/registry/registry.h"
#include "apiserver/status_json.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {
constexpr size_t kMaxEventsPerChunk = 256;
}

WatchStream::WatchStream(std::unique_ptr<store::Watch> watch, Options options)
    : watch_(std::move(watch)), options_(std::move(options)) {}

void WatchStream::Start(std::function<void()> wake) { watch_->SetNotify(std::move(wake)); }

void WatchStream::Cancel() { watch_->Stop(); }

void WatchStream::AppendEvent(std::string& out, std::string_view type, std::string_view object_json) {
  out += R"({"type":")";
  out += type;
  out += R"(","object":)";
  out += object_json;
  out += "}\n";
}

Result<std::string> WatchStream::ObjectJson(const api::ObjectPtr& stored) {
  api::ObjectPtr object = stored;
  if (options_.strategy) {
    auto read = options_.strategy->ForRead(stored, options_.kind);
    if (!read.ok()) return read.status();
    object = std::move(read).value();
  }
  if (!options_.table) return api::EncodedAs(*object, options_.kind);
  TableOptions table_options;
  table_options.include_column_definitions = !columns_sent_;
  table_options.now = std::chrono::system_clock::now();
  columns_sent_ = true;
  api::ObjectPtr one[] = {object};
  return json::serialize(MakeTable(options_.kind, one, std::to_string(object->resource_version()),
                                   "", table_options));
}

bool WatchStream::AppendObjectEvent(std::string& out, std::string_view type, const api::ObjectPtr& object) {
  auto encoded = ObjectJson(object);
  if (encoded.ok()) {
    AppendEvent(out, type, encoded.value());
    return true;
  }
  AppendEvent(out, "ERROR", json::serialize(StatusToJson(encoded.status())));
  return false;
}

ResponseStream::Chunk WatchStream::Pump() {
  Chunk chunk;
  size_t n = 0;
  while (initial_sent_ < options_.initial.size() && n < kMaxEventsPerChunk) {
    if (!AppendObjectEvent(chunk.data, "ADDED", options_.initial[initial_sent_++])) {
      chunk.end = true;
      return chunk;
    }
    ++n;
  }
  if (n > 0) return chunk;

  for (const store::WatchEvent& e : watch_->Poll(kMaxEventsPerChunk)) {
    switch (e.type) {
      case store::EventType::kError:
        AppendEvent(chunk.data, "ERROR", json::serialize(StatusToJson(e.error)));
        chunk.end = true;
        return chunk;
      case store::EventType::kBookmark: {
        if (!options_.bookmarks) break;
        const api::KindInfo& info = api::Info(options_.kind);
        std::string object = R"({"kind":")" + std::string(info.name) + R"(","apiVersion":")" +
                             info.ApiVersion() + R"(","metadata":{"resourceVersion":")" +
                             std::to_string(e.revision) + R"("}})";
        AppendEvent(chunk.data, "BOOKMARK", object);
        break;
      }
      default:
        if (!AppendObjectEvent(chunk.data, store::EventTypeName(e.type), e.object)) {
          chunk.end = true;
          return chunk;
        }
    }
  }
  if (watch_->Done() || std::chrono::steady_clock::now() >= options_.deadline) chunk.end = true;
  return chunk;
}

}  // namespace berth::apiserver
