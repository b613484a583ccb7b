#pragma once
// An API object: the full JSON a client sent (unknown fields included), plus
// identity and typed views parsed once. Objects are immutable and shared by
// pointer; a store write makes a new Object (WithResourceVersion shares all
// parsed data). Thread-safe: every method may be called from any thread.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "api/labels.h"
#include "api/status.h"
#include "api/views.h"

namespace berth::api {

class Object;
using ObjectPtr = std::shared_ptr<const Object>;

class Object {
 public:
  // Decodes JSON text. BadRequest for malformed JSON, a non-object, a missing or
  // unknown apiVersion/kind, or a field a typed view cannot read.
  static Result<ObjectPtr> Decode(std::string_view json);
  // As Decode, from an already parsed value (taken over).
  static Result<ObjectPtr> FromJson(boost::json::value value);

  Kind kind() const { return data_->kind; }
  const KindInfo& info() const { return Info(data_->kind); }
  // The object as decoded. Its metadata.resourceVersion may be stale: resource_version()
  // and Encoded() are authoritative.
  const boost::json::object& json() const { return data_->json.get_object(); }
  const std::string& name() const { return data_->name; }
  const std::string& namespace_name() const { return data_->ns; }
  const std::string& uid() const { return data_->uid; }
  const Labels& labels() const { return data_->labels; }
  // The store revision of this version's last write; 0 when never stored (or
  // when metadata.resourceVersion was absent or not a number).
  int64_t resource_version() const { return resource_version_; }
  const std::string& StorageKey() const { return data_->key; }

  // The typed view for this kind (nullptr when the kind has none). Callers
  // cast to the kind's view type: static_cast<const PodView*>(obj.view()).
  const TypedView* view() const { return data_->view.get(); }
  template <typename View>
  const View* As() const {
    return static_cast<const View*>(data_->view.get());
  }

  // The same object at another resourceVersion; shares all parsed data.
  ObjectPtr WithResourceVersion(int64_t resource_version) const;

  // Serialised JSON, with metadata.resourceVersion set when resource_version() > 0.
  // Computed once per version and cached.
  const std::string& Encoded() const;

  // The value at a dotted path ("spec.nodeName", "metadata.name") as a string:
  // strings as they are, numbers and booleans printed, "" when absent. This is
  // what field selectors compare against.
  std::string FieldValue(std::string_view path) const;

  // Builds a new object from a deep copy of this one's JSON changed by `edit`,
  // re-parsed (identity and views) and with resource_version() 0.
  Result<ObjectPtr> Edit(const std::function<void(boost::json::object&)>& edit) const;
  // As Edit, but the new object takes `view` instead of parsing one: for hot
  // paths (binding) whose edit changes only fields the caller updated in a copy
  // of the old view. REQUIRES: `view` is what ParseView would return for the result.
  Result<ObjectPtr> EditKeepingView(const std::function<void(boost::json::object&)>& edit,
                                    std::shared_ptr<const TypedView> view) const;

  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

 private:
  struct Data {
    boost::json::value json;
    Kind kind;
    std::string name, ns, uid, key;
    Labels labels;
    std::shared_ptr<const TypedView> view;
  };
  struct PrivateTag {};
  static Result<ObjectPtr> Build(boost::json::value value, std::shared_ptr<const TypedView> given_view);

 public:
  Object(PrivateTag, std::shared_ptr<const Data> data, int64_t rv)
      : data_(std::move(data)), resource_version_(rv) {}

 private:
  std::shared_ptr<const Data> data_;
  int64_t resource_version_;
  mutable std::once_flag encode_once_;
  mutable std::string encoded_;
};

// Parses a resourceVersion string ("123"); nullopt when not a non-negative integer.
std::optional<int64_t> ParseResourceVersion(std::string_view text);

// Reads a string member of a JSON object, "" when absent or not a string.
std::string_view StringAt(const boost::json::object& object, std::string_view key);

}  // namespace berth::api
