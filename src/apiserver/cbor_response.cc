#include "apiserver/cbor_response.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "api/codec/cbor.h"
#include "api/codec/json_parse.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool IsJson(std::string_view content_type) { return content_type.starts_with("application/json"); }

// Wraps a JSON watch stream, handing on its events as a CBOR sequence.
class CborWatchStream final : public ResponseStream {
 public:
  explicit CborWatchStream(std::shared_ptr<ResponseStream> inner) : inner_(std::move(inner)) {}
  void Start(std::function<void()> wake) override { inner_->Start(std::move(wake)); }
  Chunk Pump() override {
    Chunk chunk = inner_->Pump();
    pending_ += chunk.data;
    if (chunk.end) pending_ += '\n';  // a last event without its newline still goes out
    chunk.data = WatchEventsToCbor(pending_);
    return chunk;
  }
  std::chrono::milliseconds PollInterval() const override { return inner_->PollInterval(); }
  void Cancel() override { inner_->Cancel(); }

 private:
  std::shared_ptr<ResponseStream> inner_;
  std::string pending_;  // a partial JSON line; on the connection's strand only
};

}  // namespace

bool PrefersCbor(std::string_view accept) {
  double cbor_q = 0;
  double json_q = 0;
  size_t cbor_at = SIZE_MAX;
  size_t json_at = SIZE_MAX;
  size_t index = 0;
  while (!accept.empty()) {
    auto comma = accept.find(',');
    std::string_view entry = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    auto semi = entry.find(';');
    std::string media = Lower(Trim(entry.substr(0, semi)));
    double q = 1;
    bool table = false;
    for (std::string_view params = semi == std::string_view::npos ? "" : entry.substr(semi + 1);
         !params.empty();) {
      auto next = params.find(';');
      std::string_view param = Trim(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view() : params.substr(next + 1);
      if (param.starts_with("q=")) q = std::strtod(std::string(param.substr(2)).c_str(), nullptr);
      if (param.starts_with("as=")) table = true;
    }
    if (table) return false;
    if (media == "application/cbor" && q > cbor_q) {
      cbor_q = q;
      cbor_at = index;
    } else if ((media == "application/json" || media == "application/*" || media == "*/*") &&
               q > json_q) {
      json_q = q;
      json_at = index;
    }
    ++index;
  }
  return cbor_q > 0 && (cbor_q > json_q || (cbor_q == json_q && cbor_at < json_at));
}

std::string WatchEventsToCbor(std::string& lines) {
  std::string out;
  size_t start = 0;
  for (size_t nl; (nl = lines.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::string_view line(lines.data() + start, nl - start);
    if (Trim(line).empty()) continue;
    json::error_code ec;
    json::value event = api::ParseJson(line, ec);
    if (ec || !event.is_object()) continue;  // never produced by WatchStream
    const json::object& e = event.get_object();
    const json::value* type = e.if_contains("type");
    const json::value* object = e.if_contains("object");
    out += api::kSelfDescribedCbor;
    out += static_cast<char>(0xa2);  // map of two, keys in kube's order ("type" is shorter)
    api::AppendCborString(out, "type");
    api::AppendCborItem(out, type ? *type : json::value(""));
    api::AppendCborString(out, "object");
    out += api::EncodeCbor(object ? *object : json::value(nullptr));
  }
  lines.erase(0, start);
  return out;
}

Response ToCbor(Response response, bool watch) {
  if (response.when_ready && !response.stream) {
    // Held: converted as finalize leaves it.
    response.finalize = [inner = std::move(response.finalize), watch](Response& held) {
      if (inner) inner(held);
      held.when_ready = nullptr;
      held = ToCbor(std::move(held), watch);
    };
    return response;
  }
  if (!IsJson(response.content_type)) return response;
  if (response.stream) {
    response.stream = std::make_shared<CborWatchStream>(std::move(response.stream));
    response.content_type = std::string(kCborWatchContentType);
    return response;
  }
  if (watch) {
    std::string lines = std::move(response.body);
    lines += '\n';
    response.body = WatchEventsToCbor(lines);
    response.content_type = std::string(kCborWatchContentType);
    return response;
  }
  json::error_code ec;
  json::value body = api::ParseJson(response.body, ec);
  if (ec) return response;
  response.body = api::EncodeCbor(body);
  response.content_type = std::string(api::kCborContentType);
  return response;
}

}  // namespace berth::apiserver
