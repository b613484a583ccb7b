#include "api/codec/json_parse.h"
#include "client/http_informer.h"

#include <pthread.h>

#include <boost/json.hpp>

namespace berth::client {

namespace json = boost::json;

HttpInformer::HttpInformer(HttpClient& client, std::string collection, InformerHandlers handlers)
    : client_(client), collection_(std::move(collection)), cache_(std::move(handlers)) {}

HttpInformer::~HttpInformer() { Stop(); }

Status HttpInformer::List() {
  auto response = client_.Request("GET", collection_);
  if (!response.ok()) return response.status();
  if (response.value().status != 200) {
    return Status::Unavailable("GET " + collection_ + ": HTTP " + std::to_string(response.value().status));
  }
  boost::system::error_code ec;
  json::value list = api::ParseJson(response.value().body, ec);
  if (ec || !list.is_object()) return Status::Internal("GET " + collection_ + ": not a JSON list");
  const json::object& o = list.get_object();
  // Items of a list carry no apiVersion/kind: take them from the list's.
  std::string list_kind = o.contains("kind") && o.at("kind").is_string() ? std::string(o.at("kind").get_string()) : "";
  std::string kind = list_kind.size() > 4 ? list_kind.substr(0, list_kind.size() - 4) : list_kind;
  json::value api_version = o.contains("apiVersion") ? o.at("apiVersion") : json::value("v1");
  std::vector<api::ObjectPtr> items;
  if (auto it = o.find("items"); it != o.end() && it->value().is_array()) {
    for (const auto& item : it->value().get_array()) {
      if (!item.is_object()) continue;
      json::object copy = item.get_object();
      if (!copy.contains("kind")) copy["kind"] = kind;
      if (!copy.contains("apiVersion")) copy["apiVersion"] = api_version;
      auto object = api::Object::FromJson(json::value(std::move(copy)));
      if (object.ok()) items.push_back(object.value());
    }
  }
  cache_.Replace(items);
  resource_version_.clear();
  if (auto m = o.find("metadata"); m != o.end() && m->value().is_object()) {
    if (auto rv = m->value().get_object().find("resourceVersion");
        rv != m->value().get_object().end() && rv->value().is_string()) {
      resource_version_ = std::string(rv->value().get_string());
    }
  }
  return Status::Ok();
}

Status HttpInformer::Start() {
  Status s = List();
  if (!s.ok()) return s;
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "informer");
    Run();
  });
  return Status::Ok();
}

void HttpInformer::Stop() {
  stop_ = true;
  if (thread_.joinable()) {
    // A watch may sit in a blocking read: shut its socket until the thread is out.
    while (true) {
      client_.CancelStreams();
      std::unique_lock lock(done_mu_);
      if (done_cv_.wait_for(lock, std::chrono::milliseconds(50), [&] { return done_; })) break;
    }
    thread_.join();
  }
}

void HttpInformer::Run() {
  struct Done {
    HttpInformer* self;
    ~Done() {
      std::lock_guard lock(self->done_mu_);
      self->done_ = true;
      self->done_cv_.notify_all();
    }
  } done{this};
  bool relist = false;
  while (!stop_) {
    if (relist) {
      if (!List().ok()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      relist = false;
    }
    std::string target = collection_ + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + resource_version_;
    auto status = client_.Stream(
        target,
        [&](std::string_view line) {
          boost::system::error_code ec;
          json::value event = api::ParseJson(line, ec);
          if (ec || !event.is_object()) return;
          const json::object& e = event.get_object();
          std::string type = e.contains("type") && e.at("type").is_string() ? std::string(e.at("type").get_string()) : "";
          const json::value* object = e.if_contains("object");
          if (!object || !object->is_object()) return;
          if (type == "ERROR") {
            relist = true;  // e.g. 410 Gone: the history moved on
            return;
          }
          const json::value* meta = object->get_object().if_contains("metadata");
          if (meta && meta->is_object()) {
            const json::value* rv = meta->get_object().if_contains("resourceVersion");
            if (rv && rv->is_string()) resource_version_ = std::string(rv->get_string());
          }
          if (type == "BOOKMARK") return;
          auto decoded = api::Object::FromJson(*object);
          if (!decoded.ok()) return;
          if (type == "DELETED") {
            cache_.Deleted(decoded.value());
          } else {
            cache_.Modified(decoded.value());
          }
        },
        stop_);
    if (!status.ok()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      relist = true;
    } else if (status.value() == 410) {
      relist = true;
    } else if (status.value() != 200) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      relist = true;
    }
  }
}

}  // namespace berth::client
