// GET, LIST and WATCH.

#include <boost/json.hpp>

#include "api/selector.h"
#include "apiserver/api_server.h"
#include "apiserver/printers/table.h"
#include "apiserver/watch_stream.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// resourceVersion query values: "" (absent), "0", or a revision.
Result<int64_t> QueryRevision(const Request& request) {
  auto rv = request.Query("resourceVersion");
  if (!rv || rv->empty()) return int64_t{0};
  auto parsed = api::ParseResourceVersion(*rv);
  if (!parsed) {
    return Status::BadRequest("invalid resource version \"" + std::string(*rv) + "\"");
  }
  return *parsed;
}

TableOptions TableOptionsFor(const Request& request) {
  TableOptions options;
  options.now = std::chrono::system_clock::now();
  if (auto include = request.Query("includeObject")) {
    if (*include == "None") options.include_object = IncludeObject::kNone;
    if (*include == "Object") options.include_object = IncludeObject::kObject;
  }
  return options;
}

}  // namespace

Result<store::Predicate> ApiServer::SelectorPredicate(const Request& request, api::Kind kind) {
  std::optional<api::LabelSelector> labels;
  std::optional<api::FieldSelector> fields;
  if (auto s = request.Query("labelSelector"); s && !s->empty()) {
    auto parsed = api::LabelSelector::Parse(*s);
    if (!parsed.ok()) return parsed.status();
    labels = std::move(parsed).value();
  }
  if (auto s = request.Query("fieldSelector"); s && !s->empty()) {
    auto parsed = api::FieldSelector::Parse(*s);
    if (!parsed.ok()) return parsed.status();
    Status supported = parsed->CheckSupported(api::StorageKindOf(kind));
    if (!supported.ok()) return supported;
    fields = std::move(parsed).value();
  }
  if (!labels && !fields) return store::Predicate();
  return store::Predicate([labels = std::move(labels), fields = std::move(fields)](const api::Object& o) {
    if (labels && !labels->Matches(o.labels())) return false;
    if (fields && !fields->Matches(o)) return false;
    return true;
  });
}

Response ApiServer::Get(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  auto stored = store_.Get(api::StorageKey(*info.kind, info.ns, info.name));
  if (!stored.ok()) return ErrorResponse(NotFoundFor(kind, info.name), DetailsFor(kind, info.name));
  const ResourceStrategy& strategy = registry_.For(*info.kind);
  auto read = strategy.ForRead(stored.value(), *info.kind);
  if (!read.ok()) return ErrorResponse(read.status());
  const api::ObjectPtr object = std::move(read).value();
  if (WantsTable(request.accept) && info.subresource.empty()) {
    api::ObjectPtr one[] = {object};
    TableOptions options = TableOptionsFor(request);
    options.custom_printer = strategy.Printer();
    return JsonResponse(200, json::serialize(MakeTable(
                                 *info.kind, one, std::to_string(object->resource_version()), "", options)));
  }
  return JsonResponse(200, api::EncodedAs(*object, *info.kind));
}

Response ApiServer::List(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  store::ListOptions options;
  options.prefix = api::StoragePrefix(*info.kind, info.ns);
  auto predicate = SelectorPredicate(request, *info.kind);
  if (!predicate.ok()) return ErrorResponse(predicate.status());
  options.predicate = std::move(predicate).value();
  auto rv = QueryRevision(request);
  if (!rv.ok()) return ErrorResponse(rv.status());
  options.resource_version = rv.value();
  if (auto match = request.Query("resourceVersionMatch"); match && !match->empty()) {
    if (!request.Query("resourceVersion")) {
      return ErrorResponse(Status::Invalid(
          "resourceVersionMatch is forbidden unless resourceVersion is provided",
          {{"FieldValueForbidden", "resourceVersionMatch is forbidden unless resourceVersion is provided", "resourceVersionMatch"}}));
    }
    if (*match == "Exact") {
      options.match = store::ResourceVersionMatch::kExact;
    } else if (*match != "NotOlderThan") {
      return ErrorResponse(Status::Invalid(
          "resourceVersionMatch: Unsupported value: \"" + std::string(*match) + "\"",
          {{"FieldValueNotSupported", "Unsupported value: \"" + std::string(*match) + "\": supported values: \"Exact\", \"NotOlderThan\"", "resourceVersionMatch"}}));
    }
  } else if (options.resource_version > 0 && request.Query("limit")) {
    // kube: a resourceVersion with a limit and no match lists exactly at that revision.
    options.match = store::ResourceVersionMatch::kExact;
  }
  if (auto limit = request.Query("limit"); limit && !limit->empty()) {
    auto n = api::ParseResourceVersion(*limit);
    if (!n) return ErrorResponse(Status::BadRequest("invalid limit \"" + std::string(*limit) + "\""));
    options.limit = *n;
  }
  if (auto token = request.Query("continue")) options.continue_token = std::string(*token);

  auto result = store_.List(options);
  if (!result.ok()) return ErrorResponse(result.status());
  store::ListResult& list = result.value();
  const ResourceStrategy& strategy = registry_.For(*info.kind);
  auto read = strategy.ForRead(std::move(list.items), *info.kind);
  if (!read.ok()) return ErrorResponse(read.status());
  list.items = std::move(read).value();
  std::string rv_text = std::to_string(list.revision);

  if (WantsTable(request.accept)) {
    TableOptions options = TableOptionsFor(request);
    options.custom_printer = strategy.Printer();
    return JsonResponse(200,
                        json::serialize(MakeTable(*info.kind, list.items, rv_text, list.continue_token, options)));
  }
  std::string body;
  size_t estimate = 128;
  for (const auto& o : list.items) estimate += o->Encoded().size() + 1;
  body.reserve(estimate);
  body += R"({"kind":")";
  body += kind.name;
  body += R"(List","apiVersion":")";
  body += kind.ApiVersion();
  body += R"(","metadata":{"resourceVersion":")";
  body += rv_text;
  body += '"';
  if (!list.continue_token.empty()) {
    body += R"(,"continue":")";
    body += list.continue_token;
    body += '"';
    if (list.remaining > 0) {
      body += R"(,"remainingItemCount":)";
      body += std::to_string(list.remaining);
    }
  }
  body += R"(},"items":[)";
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (i) body += ',';
    if (list.items[i]->kind() == *info.kind) {
      body += list.items[i]->Encoded();
    } else {
      body += api::EncodedAs(*list.items[i], *info.kind);
    }
  }
  body += "]}";
  return JsonResponse(200, std::move(body));
}

Response ApiServer::Watch(Request& request, const RequestInfo& info) {
  store::WatchOptions options;
  options.prefix = api::StoragePrefix(*info.kind, info.ns);
  auto predicate = SelectorPredicate(request, *info.kind);
  if (!predicate.ok()) return ErrorResponse(predicate.status());
  store::Predicate select = std::move(predicate).value();
  if (!info.name.empty()) {
    // GET …/pods/{name}?watch=true watches one object.
    std::string key = api::StorageKey(*info.kind, info.ns, info.name);
    select = [key, inner = std::move(select)](const api::Object& o) {
      return o.StorageKey() == key && (!inner || inner(o));
    };
  }
  options.predicate = select;
  auto rv = QueryRevision(request);
  if (!rv.ok()) return ErrorResponse(rv.status());

  WatchStream::Options stream;
  stream.kind = *info.kind;
  stream.table = WantsTable(request.accept);
  stream.bookmarks = request.QueryBool("allowWatchBookmarks");
  if (stream.bookmarks) options.bookmark_interval = options_.bookmark_interval;
  auto timeout = std::chrono::seconds(options_.default_watch_timeout);
  if (auto t = request.Query("timeoutSeconds"); t && !t->empty()) {
    auto seconds = api::ParseResourceVersion(*t);
    if (!seconds) return ErrorResponse(Status::BadRequest("invalid timeoutSeconds \"" + std::string(*t) + "\""));
    timeout = std::chrono::seconds(*seconds);
  }
  stream.deadline = std::chrono::steady_clock::now() + timeout;
  stream.strategy = &registry_.For(*info.kind);

  if (rv.value() == 0) {
    // No revision (or "0"): the current objects as ADDED events, then changes.
    store::ListOptions list{.prefix = options.prefix, .predicate = select};
    auto current = store_.List(list);
    if (!current.ok()) return ErrorResponse(current.status());
    stream.initial = std::move(current->items);
    options.resource_version = current->revision;
  } else {
    options.resource_version = rv.value();
  }

  auto watch = store_.WatchFrom(options);
  Response response;
  if (!watch.ok()) {
    if (watch.status().code() != StatusCode::kExpired) return ErrorResponse(watch.status());
    // kube: 200 and a single ERROR event, then the stream ends.
    response.body.clear();
    WatchStream::AppendEvent(response.body, "ERROR",
                             json::serialize(StatusToJson(watch.status())));
    return response;
  }
  response.stream = std::make_shared<WatchStream>(std::move(watch).value(), std::move(stream));
  return response;
}

}  // namespace berth::apiserver
