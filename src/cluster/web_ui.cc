#include "cluster/web_ui.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/json.hpp>
#include <cctype>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "api/codec/json_parse.h"
#include "apiserver/api_server.h"
#include "client/http_client.h"
#include "client/rest_client.h"

namespace berth::cluster {
namespace {

namespace json = boost::json;

constexpr std::string_view kPrefix = "/ui";

apiserver::Response StatusResponse(StatusCode code, std::string message) {
  return apiserver::ErrorResponse(Status(code, std::move(message)));
}

const WebAsset* FindAsset(std::string_view path) {
  auto assets = WebUiAssets();
  auto it = std::lower_bound(assets.begin(), assets.end(), path,
                             [](const WebAsset& a, std::string_view p) { return a.path < p; });
  return it != assets.end() && it->path == path ? &*it : nullptr;
}

apiserver::Response ServeAsset(const apiserver::Request& request) {
  std::string_view path = request.path;
  if (path != kPrefix && !path.starts_with("/ui/")) {
    return StatusResponse(StatusCode::kNotFound,
                          "the server could not find the requested resource");
  }
  if (request.method != "GET") {
    return StatusResponse(StatusCode::kMethodNotAllowed,
                          "the dashboard's files can only be read (GET)");
  }
  if (path == kPrefix) {
    // The page's links are relative to /ui/.
    apiserver::Response r;
    r.status = 301;
    r.content_type = "text/plain; charset=utf-8";
    r.headers.emplace_back("Location", "/ui/");
    return r;
  }
  std::string_view file = path.substr(kPrefix.size() + 1);
  if (file.empty()) file = "index.html";
  const WebAsset* asset = FindAsset(file);
  if (!asset)
    return StatusResponse(StatusCode::kNotFound, "the dashboard has no file " + std::string(file));
  apiserver::Response r;
  r.content_type = std::string(WebAssetContentType(asset->path));
  r.body = std::string(asset->body);
  // The files change with the binary: the browser revalidates instead of
  // keeping an old page after an upgrade.
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  // Everything comes from this origin: no CDN, no inline script.
  r.headers.emplace_back(
      "Content-Security-Policy",
      "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'");
  return r;
}

// What the dashboard reads: /api/v1/{nodes,pods,events}[/NAME] and
// /api/v1/namespaces/NS/{pods,events}[/NAME], and the discovery documents.
bool ReadableByDashboard(std::string_view path) {
  if (path.ends_with('/')) path.remove_suffix(1);
  if (path == "/api" || path == "/apis" || path == "/api/v1") return true;
  if (!path.starts_with("/api/v1/")) return false;
  std::vector<std::string_view> parts;
  for (std::string_view rest = path.substr(8); !rest.empty();) {
    size_t slash = rest.find('/');
    parts.push_back(rest.substr(0, slash));
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  }
  if (std::any_of(parts.begin(), parts.end(), [](std::string_view p) { return p.empty(); }))
    return false;
  if (parts.size() >= 2 && parts[0] == "namespaces") {
    if (parts.size() < 3 || parts.size() > 4) return false;
    return parts[2] == "pods" || parts[2] == "events";
  }
  if (parts.empty() || parts.size() > 2) return false;
  return parts[0] == "nodes" || parts[0] == "pods" || parts[0] == "events";
}

std::string UpstreamTarget(const apiserver::Request& request) {
  std::string target;
  for (char c : request.path) {
    // The path arrives decoded; names and namespaces are DNS labels, so only
    // characters that cannot appear in them need escaping again.
    if (c == '%' || c == '?' || c == '#' || c == ' ') {
      target += client::QueryEscape(std::string_view(&c, 1));
    } else {
      target += c;
    }
  }
  char separator = '?';
  for (const auto& [key, value] : request.query) {
    target += separator;
    target += client::QueryEscape(key);
    target += '=';
    target += client::QueryEscape(value);
    separator = '&';
  }
  return target;
}

StatusCode CodeOfHttpStatus(int status) {
  switch (status) {
    case 400:
      return StatusCode::kBadRequest;
    case 401:
      return StatusCode::kUnauthorized;
    case 403:
      return StatusCode::kForbidden;
    case 404:
      return StatusCode::kNotFound;
    case 410:
      return StatusCode::kExpired;
    case 429:
      return StatusCode::kTooManyRequests;
    case 504:
      return StatusCode::kTimeout;
    default:
      return status >= 500 ? StatusCode::kUnavailable : StatusCode::kBadRequest;
  }
}

// A line that is a Status object (a refused request's body) rather than a
// watch event ({"type": ..., "object": ...}).
bool IsStatusObject(std::string_view line) {
  boost::system::error_code ec;
  json::value v = api::ParseJson(line, ec);
  if (ec || !v.is_object()) return false;
  const json::object& o = v.get_object();
  const json::value* kind = o.if_contains("kind");
  return !o.contains("type") && kind && kind->is_string() && kind->get_string() == "Status";
}

// ": MESSAGE" of a Status line, or nothing. (A body without a final newline
// never reaches the line reader: the code alone then tells what happened.)
std::string StatusMessage(std::string_view line) {
  boost::system::error_code ec;
  json::value v = api::ParseJson(line, ec);
  if (ec || !v.is_object()) return "";
  const json::value* message = v.get_object().if_contains("message");
  return message && message->is_string() ? ": " + std::string(message->get_string()) : "";
}

// A watch read from the server on a connection of its own, on a thread of its
// own, handed to the page line by line. The answer to the page is already 200
// when the server's arrives, so a refused watch (410 Expired ...) reaches the
// page as kube reports errors inside a watch: an ERROR event with the Status.
class ReadThroughWatch : public apiserver::ResponseStream {
 public:
  ReadThroughWatch(std::unique_ptr<client::HttpClient> http, std::string target)
      : http_(std::move(http)), target_(std::move(target)) {}
  ~ReadThroughWatch() override {
    Cancel();
    if (thread_.joinable()) thread_.join();
  }

  void Start(std::function<void()> wake) override {
    thread_ = std::thread([this, wake = std::move(wake)] {
      std::string first;  // a refused watch's body
      int lines = 0;
      auto result = http_->Stream(
          target_,
          [&](std::string_view line) {
            // A refused watch's body is a Status, not an event: held back.
            if (lines++ == 0 && IsStatusObject(line)) {
              first = line;
              return;
            }
            {
              std::lock_guard lock(mu_);
              pending_.append(line);
              pending_ += '\n';
            }
            wake();
          },
          stop_);
      std::unique_lock lock(mu_);
      if (!result.ok() || result.value() != 200) {
        Status status =
            result.ok() ? Status(CodeOfHttpStatus(result.value()),
                                 "the API server refused the watch (" +
                                     std::to_string(result.value()) + ")" + StatusMessage(first))
                        : Status(StatusCode::kUnavailable, result.status().message());
        if (!stop_.load()) {
          pending_ =
              "{\"type\":\"ERROR\",\"object\":" + apiserver::ErrorResponse(status).body + "}\n";
        }
      }
      done_ = true;
      lock.unlock();
      wake();
    });
  }

  Chunk Pump() override {
    std::lock_guard lock(mu_);
    Chunk chunk{std::move(pending_), done_};
    pending_.clear();
    return chunk;
  }

  void Cancel() override {
    stop_ = true;
    http_->CancelStreams();
  }

 private:
  std::unique_ptr<client::HttpClient> http_;
  const std::string target_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::string pending_;  // guarded by mu_
  bool done_ = false;    // guarded by mu_
};

}  // namespace

std::string_view WebAssetContentType(std::string_view path) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kTypes{{
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".json", "application/json"},
      {".ico", "image/x-icon"},
  }};
  for (const auto& [extension, type] : kTypes) {
    if (path.ends_with(extension)) return type;
  }
  return "application/octet-stream";
}

apiserver::Route WebUiRoute() {
  return {.prefix = std::string(kPrefix),
          .handler = [](apiserver::Request& request) { return ServeAsset(request); },
          .anonymous = true};
}

apiserver::Route ApiReadThroughRoute(std::string server) {
  client::RestConfig config;
  config.server = std::move(server);
  config.qps = 0;
  config.max_inflight = 0;
  return ApiReadThroughRoute(std::move(config));
}

apiserver::Route ApiReadThroughRoute(client::RestConfig config) {
  // The component registers its own client's metrics; these clients add none.
  config.metrics = nullptr;
  // Lists and single reads share keep-alive connections (one client, made
  // at the first request); each watch opens a client of its own, so that
  // ending it (CancelStreams) ends no other stream.
  struct Reads {
    std::mutex mu;
    std::shared_ptr<client::HttpClient> client;  // guarded by mu
  };
  auto reads = std::make_shared<Reads>();
  auto connect = [config]() -> Result<std::unique_ptr<client::HttpClient>> {
    auto connected = client::HttpClient::Connect(config);
    if (!connected.ok()) {
      return Status(StatusCode::kUnavailable,
                    "no API server to read from: --server " + config.server + ": " + connected.status().message());
    }
    return connected;
  };
  const std::string server = config.server;
  return {
      .prefix = "/api",
      .handler = [server, reads, connect](apiserver::Request& request) {
        if (request.method != "GET") {
          return StatusResponse(StatusCode::kMethodNotAllowed,
                                "the scheduler's endpoint only reads from the API server (GET)");
        }
        if (!ReadableByDashboard(request.path)) {
          return StatusResponse(
              StatusCode::kForbidden,
              "the scheduler's endpoint reads nodes, pods and events only; ask the API "
              "server " +
                  server + " for " + request.path);
        }
        std::string target = UpstreamTarget(request);
        if (request.QueryBool("watch")) {
          auto http = connect();
          if (!http.ok()) return apiserver::ErrorResponse(http.status());
          apiserver::Response r;
          r.stream = std::make_shared<ReadThroughWatch>(std::move(http).value(), std::move(target));
          return r;
        }
        std::shared_ptr<client::HttpClient> client;
        {
          std::lock_guard lock(reads->mu);
          if (!reads->client) {
            auto http = connect();
            if (!http.ok()) return apiserver::ErrorResponse(http.status());
            reads->client = std::move(http).value();
          }
          client = reads->client;
        }
        auto answer = client->Request("GET", target);
        if (!answer.ok()) {
          return StatusResponse(StatusCode::kUnavailable,
                                "API server " + server + ": " + answer.status().message());
        }
        return apiserver::BodyResponse(answer->status, std::move(answer->body), "application/json");
      }};
}

}  // namespace berth::cluster
