#include "apiserver/crd/conversion.h"

#include <algorithm>
#include <cctype>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "api/object.h"
#include "api/validation/field_errors.h"
#include "api/validation/groups.h"
#include "api/validation/name_validation.h"
#include "apiserver/registry/system_fields.h"

namespace berth::apiserver::crd {

namespace json = boost::json;

namespace {

// kube's webhook clients wait this long for an answer (its conversion
// webhooks have no timeoutSeconds of their own).
constexpr std::chrono::seconds kConversionTimeout{30};

// "group/version" and kind as Go's GroupVersionKind prints them.
std::string GvkString(std::string_view api_version, std::string_view kind) {
  return std::string(api_version) + ", Kind=" + std::string(kind);
}

std::string_view MetadataString(const json::object& o, std::string_view key) {
  return api::StringAt(api::ObjectAt(o, "metadata"), key);
}

// kube's validateConvertedObject: what identifies the object stays.
Status CheckSameObject(const json::object& in, const json::object& out) {
  auto differs = [](std::string_view what, std::string_view a, std::string_view b) {
    return Status::Internal("must have the same " + std::string(what) + ": " + std::string(a) +
                            " != " + std::string(b));
  };
  if (api::StringAt(in, "kind") != api::StringAt(out, "kind")) {
    return differs("kind", api::StringAt(in, "kind"), api::StringAt(out, "kind"));
  }
  for (auto [key, what] : {std::pair{"name", "name"}, {"namespace", "namespace"}, {"uid", "UID"}}) {
    if (MetadataString(in, key) != MetadataString(out, key)) {
      return differs(what, MetadataString(in, key), MetadataString(out, key));
    }
  }
  return Status::Ok();
}

// The Go aggregate of field errors: "a" alone, "[a, b]" for several.
std::string Aggregate(const api::FieldErrors& errors) {
  std::vector<std::string> parts;
  for (const StatusCause& c : errors.causes()) parts.push_back(c.field + ": " + c.message);
  if (parts.size() == 1) return parts.front();
  std::string out = "[";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "]";
}

// kube's restoreObjectMeta: the original's metadata, but the converted
// object's labels and annotations (validated when they changed).
Status RestoreMetadata(const json::object& original, json::object& converted) {
  const json::value* meta = converted.if_contains("metadata");
  if (meta == nullptr) return Status::Internal("missing metadata in converted object");
  if (!meta->is_object()) return Status::Internal("invalid metadata in converted object");
  const json::object answered = meta->get_object();
  json::object restored;
  if (const json::object* m = api::ObjectAt(original, "metadata")) restored = *m;
  for (std::string_view field : {"labels", "annotations"}) {
    const json::value* given = answered.if_contains(field);
    if (given == nullptr || given->is_null()) {
      restored.erase(field);
      continue;
    }
    if (!given->is_object()) {
      return Status::Internal("invalid metadata." + std::string(field) + " in converted object");
    }
    api::FieldErrors errors;
    for (const auto& [key, value] : given->get_object()) {
      if (!value.is_string()) {
        return Status::Internal("metadata." + std::string(field) + "[" + std::string(key) +
                                "] must be a string in converted object");
      }
    }
    const json::value* before = restored.if_contains(field);
    if (before == nullptr || *before != *given) {
      if (field == "labels") {
        api::validation::ValidateLabelMap(&given->get_object(), "metadata.labels", errors);
      } else {
        for (const auto& [key, value] : given->get_object()) {
          std::string lowered(key);
          std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
          // kube's path here is "metadata.annotation".
          for (const auto& p : api::IsQualifiedName(lowered)) errors.Invalid("metadata.annotation", key, p);
        }
      }
      if (!errors.empty()) return Status::Internal(Aggregate(errors));
    }
    restored[field] = *given;
  }
  converted["metadata"] = std::move(restored);
  return Status::Ok();
}

}  // namespace

Result<ConversionReview> MakeConversionReview(std::span<const std::string> review_versions,
                                              std::span<const json::object> objects, std::string_view api_version) {
  auto spoken = std::find_if(review_versions.begin(), review_versions.end(),
                             [](const std::string& v) { return v == "v1" || v == "v1beta1"; });
  if (spoken == review_versions.end()) return Status::Internal("no supported conversion review versions");
  ConversionReview review;
  review.uid = RandomUuidV4();
  review.version = *spoken;
  json::array sent;
  for (const json::object& o : objects) sent.emplace_back(o);
  json::object request{{"uid", review.uid}, {"desiredAPIVersion", api_version}, {"objects", std::move(sent)}};
  json::object body{{"kind", "ConversionReview"},
                    {"apiVersion", "apiextensions.k8s.io/" + review.version},
                    {"request", std::move(request)}};
  review.body = json::serialize(body);
  return review;
}

Result<std::vector<json::object>> ReadConvertedObjects(const ConversionReview& review, std::string_view answer,
                                                       std::span<const json::object> originals,
                                                       std::string_view api_version, bool list) {
  json::error_code ec;
  json::value parsed = json::parse(answer, ec);
  if (ec) return Status::Internal("failed: " + ec.message());
  if (!parsed.is_object()) return Status::Internal("failed: the answer is not a ConversionReview");
  const json::object& root = parsed.get_object();
  const std::string expected_gvk = "apiextensions.k8s.io/" + review.version + ", Kind=ConversionReview";
  // v1beta1 answers were never checked for their kind and uid; kube keeps that.
  if (review.version == "v1") {
    const std::string got = std::string(api::StringAt(root, "apiVersion")) + ", Kind=" +
                            std::string(api::StringAt(root, "kind"));
    if (got != expected_gvk) return Status::Internal("failed: expected webhook response of " + expected_gvk + ", got " + got);
  }
  const json::object* response = api::ObjectAt(root, "response");
  if (response == nullptr) return Status::Internal("failed: no response provided");
  if (review.version == "v1" && api::StringAt(response, "uid") != review.uid) {
    return Status::Internal("failed: expected response.uid=\"" + review.uid + "\", got \"" +
                            std::string(api::StringAt(response, "uid")) + "\"");
  }
  const json::object* result = api::ObjectAt(response, "result");
  std::string_view status = api::StringAt(result, "status");
  if (status != "Success") {
    std::string_view message = api::StringAt(result, "message");
    if (!message.empty()) return Status::Internal("failed: " + std::string(message));
    return Status::Internal("failed: response.result.status was '" + std::string(status) + "', not 'Success'");
  }
  static const json::array kNone;
  const json::array* converted = api::ArrayAt(response, "convertedObjects");
  if (converted == nullptr) converted = &kNone;
  if (converted->size() != originals.size()) {
    return Status::Internal("returned " + std::to_string(converted->size()) + " objects, expected " +
                            std::to_string(originals.size()));
  }
  std::vector<json::object> out;
  out.reserve(originals.size());
  for (size_t i = 0; i < originals.size(); ++i) {
    // kube's words: a list's checks after the first count from 1 (its index
    // has moved on by then), a single object's say no index but the first two.
    const std::string index = std::to_string(i);
    const std::string next = std::to_string(i + 1);
    const json::object* object = (*converted)[i].if_object();
    if (object == nullptr) {
      return Status::Internal((list ? "returned invalid converted object at index " + index : "failed") +
                              ": not an object");
    }
    const std::string at = list ? "returned invalid converted object at index " + next + ": "
                                : "returned invalid object at index 0: ";
    if (api::StringAt(object, "apiVersion") != api_version) {
      return Status::Internal(at + "invalid groupVersion (expected " + std::string(api_version) + ", received " +
                              std::string(api::StringAt(object, "apiVersion")) + ")");
    }
    if (api::StringAt(object, "kind") != api::StringAt(originals[i], "kind")) {
      return Status::Internal(at + "invalid kind (expected " + std::string(api::StringAt(originals[i], "kind")) +
                              ", received " + std::string(api::StringAt(object, "kind")) + ")");
    }
    if (Status same = CheckSameObject(originals[i], *object); !same.ok()) {
      return Status::Internal((list ? at : "returned invalid object: ") + same.message());
    }
    json::object restored = *object;
    if (Status meta = RestoreMetadata(originals[i], restored); !meta.ok()) {
      return Status::Internal((list ? "returned invalid metadata in object at index " + next + ": "
                                    : "returned invalid metadata: ") +
                              meta.message());
    }
    out.push_back(std::move(restored));
  }
  return out;
}

WebhookConverter::WebhookConverter(std::shared_ptr<webhook::Caller> caller, const api::Object& crd)
    : caller_(std::move(caller)) {
  const json::object* spec = api::ObjectAt(crd.json(), "spec");
  const json::object* conversion_webhook = api::ObjectAt(api::ObjectAt(spec, "conversion"), "webhook");
  hook_.name = "conversion_webhook_for_" + crd.name();
  hook_.timeout = kConversionTimeout;
  hook_.timeout_in_url = false;
  webhook::ReadClientConfig(api::ObjectAt(conversion_webhook, "clientConfig"), hook_);
  if (const json::array* versions = api::ArrayAt(conversion_webhook, "conversionReviewVersions")) {
    for (const auto& v : *versions) {
      if (v.is_string()) review_versions_.emplace_back(v.get_string());
    }
  }
  std::string_view group = api::StringAt(spec, "group");
  if (const json::array* versions = api::ArrayAt(spec, "versions")) {
    for (const auto& v : *versions) {
      if (api::BoolAt(v.if_object(), "storage")) {
        storage_version_ = std::string(group) + "/" + std::string(api::StringAt(v.if_object(), "name"));
      }
    }
  }
  kind_ = std::string(api::StringAt(api::ObjectAt(spec, "names"), "kind"));
}

Result<std::vector<api::ObjectPtr>> WebhookConverter::Convert(std::vector<api::ObjectPtr> objects,
                                                              std::string_view api_version, bool list) const {
  // Only the objects in another version are sent (kube's getObjectsToConvert).
  std::vector<size_t> sent_at;
  std::vector<json::object> sent;
  for (size_t i = 0; i < objects.size(); ++i) {
    if (objects[i]->info().ApiVersion() == api_version) continue;
    json::value v = api::ParseJson(objects[i]->Encoded());
    sent.push_back(std::move(v.get_object()));
    sent_at.push_back(i);
  }
  if (sent.empty()) return objects;
  // kube names what it converts: the object as stored, or the list as read
  // from storage (in the storage version).
  const std::string gvk = list ? GvkString(storage_version_, kind_ + "List")
                               : GvkString(objects.front()->info().ApiVersion(), kind_);
  auto failed = [&gvk](std::string_view why) {
    return Status::Internal("conversion webhook for " + gvk + " " + std::string(why));
  };
  if (hook_.broken) return failed("failed: could not get REST client: " + *hook_.broken);
  auto review = MakeConversionReview(review_versions_, sent, api_version);
  if (!review.ok()) return review.status();
  webhook::Review call{review->uid, review->version, review->body};
  auto answer = caller_->Call(hook_, call);
  if (!answer.ok()) return failed("failed: " + answer.status().message());
  auto converted = ReadConvertedObjects(review.value(), answer.value(), sent, api_version, list);
  if (!converted.ok()) return failed(converted.status().message());
  for (size_t j = 0; j < sent_at.size(); ++j) {
    const api::ObjectPtr& original = objects[sent_at[j]];
    auto built = api::Object::FromJson(json::value(std::move((*converted)[j])));
    if (!built.ok()) {
      return failed((list ? "returned invalid converted object at index " + std::to_string(j) : "failed") + ": " +
                    built.status().message());
    }
    objects[sent_at[j]] = built.value()->WithResourceVersion(original->resource_version());
  }
  return objects;
}

std::shared_ptr<const VersionConverter> ConverterFor(const std::shared_ptr<webhook::Caller>& caller,
                                                     const api::Object& crd) {
  const json::object* conversion = api::ObjectAt(api::ObjectAt(crd.json(), "spec"), "conversion");
  if (api::StringAt(conversion, "strategy") != "Webhook") return nullptr;
  return std::make_shared<WebhookConverter>(caller, crd);
}

}  // namespace berth::apiserver::crd
