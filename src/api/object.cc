#include "api/object.h"

#include "api/conversion.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "log/log.h"

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

Result<ObjectPtr> Object::Decode(std::string_view text) {
  json::error_code ec;
  json::value value = api::ParseJson(text, ec);
  if (ec) return Status::BadRequest("invalid JSON: " + ec.message());
  return FromJson(std::move(value));
}

Result<ObjectPtr> Object::FromJson(json::value value) { return Build(std::move(value), nullptr); }

Result<ObjectPtr> Object::Build(json::value value, std::shared_ptr<const TypedView> given_view) {
  int64_t rv = 0;
  auto data = BuildData(std::move(value), std::move(given_view), &rv);
  if (!data.ok()) return data.status();
  return std::make_shared<const Object>(PrivateTag{}, std::move(data).value(), rv);
}

namespace {

// True when `v` holds a number that is not finite; `path` then names it
// ("spec.values[2]"). Boost.JSON reads a number beyond a double's range
// (1e999) as infinity and would write it back as "Infinity", which no JSON
// parser reads: such an object could be stored but never read again.
bool FindNonFinite(const json::value& v, std::string& path) {
  if (v.is_double()) return !std::isfinite(v.get_double());
  if (v.is_array()) {
    const json::array& a = v.get_array();
    for (size_t i = 0; i < a.size(); ++i) {
      if (FindNonFinite(a[i], path)) {
        if (!path.empty() && path[0] != '[') path.insert(0, ".");
        path.insert(0, "[" + std::to_string(i) + "]");
        return true;
      }
    }
  } else if (v.is_object()) {
    for (const auto& [key, member] : v.get_object()) {
      if (FindNonFinite(member, path)) {
        if (!path.empty() && path[0] != '[') path.insert(0, ".");
        path.insert(0, key);
        return true;
      }
    }
  }
  return false;
}

}  // namespace

Result<std::shared_ptr<const Object::Data>> Object::BuildData(
    json::value value, std::shared_ptr<const TypedView> given_view, int64_t* resource_version) {
  if (!value.is_object()) return Status::BadRequest("the object must be a JSON object");
  if (std::string path; FindNonFinite(value, path)) {
    return Status::BadRequest("invalid JSON: number out of range at " + path);
  }
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
  *resource_version = 0;
  if (auto it = root.find("metadata"); it != root.end()) {
    if (!it->value().is_object()) {
      return Status::BadRequest("metadata: expected an object");
    }
    const json::object& meta = it->value().get_object();
    data->name = StringAt(meta, "name");
    data->ns = StringAt(meta, "namespace");
    data->uid = StringAt(meta, "uid");
    if (auto v = ParseResourceVersion(StringAt(meta, "resourceVersion"))) *resource_version = *v;
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
  return std::shared_ptr<const Data>(std::move(data));
}

ObjectPtr Object::FromStored(std::string key, std::string_view text,
                             std::shared_ptr<const void> owner, int64_t resource_version) {
  auto stored = std::make_unique<Stored>();
  stored->key = std::move(key);
  stored->text = text;
  stored->owner = std::move(owner);
  return std::make_shared<const Object>(PrivateTag{}, std::move(stored), resource_version);
}

ObjectPtr Object::FromStored(std::string key, std::string encoded, int64_t resource_version) {
  auto owned = std::make_shared<const std::string>(std::move(encoded));
  std::string_view text = *owned;
  return FromStored(std::move(key), text, std::move(owned), resource_version);
}

bool Object::TryParseStored() const {
  stored_->parse_once.Call([this] {
    json::error_code ec;
    json::value value = api::ParseJson(stored_->text, ec);
    if (ec) {
      stored_->error = Status::Internal("invalid JSON: " + ec.message());
      return;
    }
    int64_t rv = 0;
    auto data = BuildData(std::move(value), nullptr, &rv);
    if (!data.ok()) {
      stored_->error = data.status();
      return;
    }
    if (data.value()->key != stored_->key) {
      stored_->error = Status::Internal("the object's storage key is " + data.value()->key);
      return;
    }
    data_ = std::move(data).value();
    parsed_.store(true, std::memory_order_release);
  });
  return parsed_.load(std::memory_order_acquire);
}

void Object::ParseStored() const {
  if (TryParseStored()) return;
  BERTH_LOG_ERROR(stored_->error.message(),
                  "Stored object does not decode (berth store check --data-dir DIR lists every such object)",
                  {"key", stored_->key}, {"revision", resource_version_});
  std::abort();
}

Status Object::CheckDecodes() const {
  if (!stored_ || TryParseStored()) return Status::Ok();
  return stored_->error;
}

ObjectPtr Object::WithResourceVersion(int64_t resource_version) const {
  (void)data();  // a stored object is parsed first: the copy shares what it parsed
  return std::make_shared<const Object>(PrivateTag{}, data_, resource_version);
}

ObjectPtr Object::WithResourceVersion(int64_t resource_version, std::string encoded) const {
  (void)data();
  return std::make_shared<const Object>(PrivateTag{}, data_, resource_version, std::move(encoded));
}

namespace {

// The object's JSON with metadata.resourceVersion set to `rv`, serialized
// member by member: the same text as setting it on a copy and serializing the
// copy (resourceVersion replaced in place, or added last in metadata;
// metadata added last when absent), without copying the whole document.
std::string SerializeWithResourceVersion(const json::object& root, std::string_view rv,
                                        size_t* rv_offset) {
  std::string out;
  out.reserve(1024);
  constexpr std::string_view kRvMember = "\"resourceVersion\":\"";
  auto rv_member = [&] {
    out += kRvMember;
    *rv_offset = out.size();
    out += rv;
    out += '"';
  };
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
          rv_member();
          placed = true;
        } else {
          key(m.key());
          out += json::serialize(m.value());
        }
      }
    }
    if (!placed) {
      if (!first_meta) out += ',';
      rv_member();
    }
    out += '}';
  }
  if (!has_meta) {
    if (!first) out += ',';
    out += "\"metadata\":{";
    rv_member();
    out += '}';
  }
  out += '}';
  return out;
}

}  // namespace

std::string_view Object::Encoded() const {
  if (stored_) return stored_->text;
  if (encoded_given_) return encoded_;
  encode_once_.Call([this] {
    if (resource_version_ <= 0) {
      encoded_ = json::serialize(data().Json());
      return;
    }
    size_t offset = 0;
    encoded_ = SerializeWithResourceVersion(data().Json().get_object(),
                                            std::to_string(resource_version_), &offset);
  });
  return encoded_;
}

Object::EncodedTemplate Object::EncodeForRevision() const {
  EncodedTemplate out;
  out.text = SerializeWithResourceVersion(json(), "", &out.revision_offset);
  return out;
}

std::string Object::EncodedTemplate::At(int64_t resource_version) const {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, resource_version);
  const auto n = static_cast<size_t>(end - digits);
  std::string out;
  out.reserve(text.size() + n);
  out.append(text, 0, revision_offset);
  out.append(digits, n);
  out.append(text, revision_offset, std::string::npos);
  return out;
}

std::string Object::FieldValue(std::string_view path) const {
  const json::value* cur = &data().Json();
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
  json::value copy = data().Json();
  edit(copy.get_object());
  auto result = FromJson(std::move(copy));
  if (!result.ok()) return result;
  // FromJson read the (possibly stale) resourceVersion from the JSON; an edited
  // object is a new, unstored version.
  return result.value()->WithResourceVersion(0);
}

ObjectPtr Object::EditLazily(const ObjectPtr& base, std::function<void(json::object&)> edit,
                             std::shared_ptr<const TypedView> view) {
  const Data& from = base->data();
  auto d = std::make_shared<Data>();
  d->kind = from.kind;
  d->name = from.name;
  d->ns = from.ns;
  d->uid = from.uid;
  d->key = from.key;
  d->labels = from.labels;
  d->view = std::move(view);
  d->lazy = true;
  d->base = base;
  d->edit = std::move(edit);
  return std::make_shared<const Object>(PrivateTag{}, std::move(d), 0);
}

void Object::Data::MakeJson() const {
  json::value copy = base->data().Json();
  edit(copy.get_object());
  json = std::move(copy);
  // What the JSON was made from is not needed any more: the base version may go.
  base.reset();
  edit = nullptr;
}

std::string EncodedAs(const Object& object, Kind kind) {
  if (object.kind() == kind) return std::string(object.Encoded());
  if (Info(kind).stored_as == object.kind()) {
    json::value v = api::ParseJson(object.Encoded());
    return json::serialize(ConvertFromStored(kind, v.get_object()));
  }
  json::value v = api::ParseJson(object.Encoded());
  v.get_object()["apiVersion"] = Info(kind).ApiVersion();
  return json::serialize(v);
}

}  // namespace berth::api
