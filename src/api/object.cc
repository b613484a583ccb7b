#include "api/object.h"

#include <charconv>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace berth::api {

namespace json = boost::json;

std::optional<int64_t> ParseResourceVersion(std::string_view text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < 0 || text.empty()) {
    return std::nullopt;
  }
  return v;
}

std::string_view StringAt(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->value().is_string()) return {};
  const json::string& s = it->value().get_string();
  return {s.data(), s.size()};
}

Result<ObjectPtr> Object::Decode(std::string_view text) {
  json::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec) return Status::BadRequest("invalid JSON: " + ec.message());
  return FromJson(std::move(value));
}

Result<ObjectPtr> Object::FromJson(json::value value) { return Build(std::move(value), nullptr); }

Result<ObjectPtr> Object::Build(json::value value, std::shared_ptr<const TypedView> given_view) {
  if (!value.is_object()) return Status::BadRequest("the object must be a JSON object");
  const json::object& root = value.get_object();
  std::string_view api_version = StringAt(root, "apiVersion");
  std::string_view kind_name = StringAt(root, "kind");
  if (kind_name.empty()) return Status::BadRequest("Object 'Kind' is missing in the object");
  if (api_version.empty()) {
    return Status::BadRequest("Object 'apiVersion' is missing in the object");
  }
  auto kind = KindFromApiVersion(api_version, kind_name);
  if (!kind) {
    return Status::BadRequest("no kind \"" + std::string(kind_name) +
                              "\" is registered for version \"" + std::string(api_version) + "\"");
  }

  auto data = std::make_shared<Data>();
  data->kind = *kind;
  int64_t rv = 0;
  if (auto it = root.find("metadata"); it != root.end()) {
    if (!it->value().is_object()) {
      return Status::BadRequest("metadata: expected an object");
    }
    const json::object& meta = it->value().get_object();
    data->name = StringAt(meta, "name");
    data->ns = StringAt(meta, "namespace");
    data->uid = StringAt(meta, "uid");
    if (auto v = ParseResourceVersion(StringAt(meta, "resourceVersion"))) rv = *v;
    if (auto labels = meta.find("labels"); labels != meta.end() && !labels->value().is_null()) {
      if (!labels->value().is_object()) {
        return Status::BadRequest("metadata.labels: expected an object");
      }
      for (const auto& kv : labels->value().get_object()) {
        if (!kv.value().is_string()) {
          return Status::BadRequest("metadata.labels." + std::string(kv.key()) +
                                    ": expected a string");
        }
        const json::string& s = kv.value().get_string();
        data->labels.Set(kv.key(), {s.data(), s.size()});
      }
    }
  }
  if (given_view) {
    data->view = std::move(given_view);
  } else {
    auto view = ParseView(*kind, root);
    if (!view.ok()) return view.status();
    data->view = std::move(view).value();
  }
  data->key = api::StorageKey(*kind, data->ns, data->name);
  data->json = std::move(value);
  return std::make_shared<const Object>(PrivateTag{}, std::move(data), rv);
}

ObjectPtr Object::WithResourceVersion(int64_t resource_version) const {
  return std::make_shared<const Object>(PrivateTag{}, data_, resource_version);
}

namespace {

// The object's JSON with metadata.resourceVersion set to `rv`, serialized
// member by member: the same text as setting it on a copy and serializing the
// copy (resourceVersion replaced in place, or added last in metadata;
// metadata added last when absent), without copying the whole document.
std::string SerializeWithResourceVersion(const json::object& root, const std::string& rv) {
  std::string out;
  out.reserve(1024);
  const std::string rv_member = "\"resourceVersion\":" + json::serialize(json::string_view(rv));
  auto key = [&](json::string_view k) {
    out += json::serialize(k);
    out += ':';
  };
  out += '{';
  bool first = true, has_meta = false;
  for (const auto& member : root) {
    if (!first) out += ',';
    first = false;
    key(member.key());
    if (member.key() != "metadata") {
      out += json::serialize(member.value());
      continue;
    }
    has_meta = true;
    out += '{';
    bool placed = false, first_meta = true;
    if (member.value().is_object()) {
      for (const auto& m : member.value().get_object()) {
        if (!first_meta) out += ',';
        first_meta = false;
        if (m.key() == "resourceVersion") {
          out += rv_member;
          placed = true;
        } else {
          key(m.key());
          out += json::serialize(m.value());
        }
      }
    }
    if (!placed) {
      if (!first_meta) out += ',';
      out += rv_member;
    }
    out += '}';
  }
  if (!has_meta) {
    if (!first) out += ',';
    out += "\"metadata\":{" + rv_member + "}";
  }
  out += '}';
  return out;
}

}  // namespace

const std::string& Object::Encoded() const {
  std::call_once(encode_once_, [this] {
    if (resource_version_ <= 0) {
      encoded_ = json::serialize(data_->json);
      return;
    }
    encoded_ = SerializeWithResourceVersion(data_->json.get_object(), std::to_string(resource_version_));
  });
  return encoded_;
}

std::string Object::FieldValue(std::string_view path) const {
  const json::value* cur = &data_->json;
  while (!path.empty()) {
    auto dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (!cur->is_object()) return "";
    auto it = cur->get_object().find(part);
    if (it == cur->get_object().end()) return "";
    cur = &it->value();
  }
  if (cur->is_string()) return std::string(cur->get_string());
  if (cur->is_null() || cur->is_object() || cur->is_array()) return "";
  return json::serialize(*cur);
}

Result<ObjectPtr> Object::Edit(const std::function<void(json::object&)>& edit) const {
  json::value copy = data_->json;
  edit(copy.get_object());
  auto result = FromJson(std::move(copy));
  if (!result.ok()) return result;
  // FromJson read the (possibly stale) resourceVersion from the JSON; an edited
  // object is a new, unstored version.
  return result.value()->WithResourceVersion(0);
}

Result<ObjectPtr> Object::EditKeepingView(const std::function<void(json::object&)>& edit,
                                          std::shared_ptr<const TypedView> view) const {
  json::value copy = data_->json;
  edit(copy.get_object());
  auto result = Build(std::move(copy), std::move(view));
  if (!result.ok()) return result;
  return result.value()->WithResourceVersion(0);
}

}  // namespace berth::api
