#pragma once
// An API object: the full JSON a client sent (unknown fields included), plus
// identity and typed views parsed once. Objects are immutable and shared by
// pointer; a store write makes a new Object (WithResourceVersion shares all
// parsed data). Thread-safe: every method may be called from any thread.
//
// An object read back from the store's files (FromStored) is kept as its
// encoded text and parsed on first use, so that opening a store of a million
// objects only reads bytes; every accessor but StorageKey, resource_version
// and Encoded parses it then (once, whichever thread comes first).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "api/kinds.h"
#include "api/labels.h"
#include "api/once.h"
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

  // An object as the store wrote it: `text` is exactly what Encoded() gave at
  // `resource_version` (metadata.resourceVersion already set to it) and `key`
  // its storage key; `text` lives in memory that `owner` keeps alive (a
  // mapped store file), and Encoded() returns it as it is. Parsed on first
  // use. The text decodes, since berth wrote it from a decoded object; should
  // it not, CheckDecodes reports why and any other first use aborts the
  // process naming the key and revision.
  static ObjectPtr FromStored(std::string key, std::string_view text,
                              std::shared_ptr<const void> owner, int64_t resource_version);
  // As above, owning the text.
  static ObjectPtr FromStored(std::string key, std::string encoded, int64_t resource_version);
  // Parses a stored object now; the error if it does not decode. Ok for any
  // object that did not come from FromStored.
  Status CheckDecodes() const;

  Kind kind() const { return data().kind; }
  const KindInfo& info() const { return Info(data().kind); }
  // The object as decoded. Its metadata.resourceVersion may be stale: resource_version()
  // and Encoded() are authoritative.
  const boost::json::object& json() const { return data().Json().get_object(); }
  const std::string& name() const { return data().name; }
  const std::string& namespace_name() const { return data().ns; }
  const std::string& uid() const { return data().uid; }
  const Labels& labels() const { return data().labels; }
  // The store revision of this version's last write; 0 when never stored (or
  // when metadata.resourceVersion was absent or not a number).
  int64_t resource_version() const { return resource_version_; }
  const std::string& StorageKey() const { return stored_ ? stored_->key : data().key; }

  // The typed view for this kind (nullptr when the kind has none). Callers
  // cast to the kind's view type: static_cast<const PodView*>(obj.view()).
  const TypedView* view() const { return data().view.get(); }
  template <typename View>
  const View* As() const {
    return static_cast<const View*>(data().view.get());
  }

  // The same object at another resourceVersion; shares all parsed data.
  ObjectPtr WithResourceVersion(int64_t resource_version) const;
  // As above, with `encoded` as its Encoded() text. REQUIRES: `encoded` is
  // what Encoded() would give at `resource_version` (EncodedTemplate::At).
  ObjectPtr WithResourceVersion(int64_t resource_version, std::string encoded) const;

  // Serialised JSON, with metadata.resourceVersion set when resource_version() > 0.
  // Computed once per version and cached; valid as long as the object.
  std::string_view Encoded() const;

  // The serialised JSON for a resourceVersion not known yet (a store encodes
  // before it takes its lock, and assigns the revision under it): Encoded() at
  // revision R is At(R), the text with R's digits put in at `revision_offset`.
  struct EncodedTemplate {
    std::string text;  // resourceVersion "" at revision_offset
    size_t revision_offset = 0;
    std::string At(int64_t resource_version) const;
  };
  EncodedTemplate EncodeForRevision() const;

  // The value at a dotted path ("spec.nodeName", "metadata.name") as a string:
  // strings as they are, numbers and booleans printed, "" when absent. This is
  // what field selectors compare against.
  std::string FieldValue(std::string_view path) const;

  // Builds a new object from a deep copy of this one's JSON changed by `edit`,
  // re-parsed (identity and views) and with resource_version() 0.
  Result<ObjectPtr> Edit(const std::function<void(boost::json::object&)>& edit) const;
  // As Edit of `base`, but the new object takes `view` instead of parsing one, keeps
  // base's identity (kind, name, namespace, uid, labels), and its JSON
  // is made only when first read (json(), Encoded(), FieldValue(), a later
  // Edit): by whichever thread reads it first, or never. Until then the new
  // object keeps `base` alive. For the scheduler's binding: a store that
  // keeps objects in memory and a scheduler that reads only views need no
  // copy of the pod's JSON; a durable store encodes the bound pod at once.
  // REQUIRES: `edit` owns what it captures and gives the same result whenever
  // it runs; it changes no identity field; `view` is what ParseView would
  // return for the result.
  static ObjectPtr EditLazily(const ObjectPtr& base, std::function<void(boost::json::object&)> edit,
                              std::shared_ptr<const TypedView> view);

  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

 private:
  struct Data {
    // The JSON; for an EditLazily object, made from `base` and `edit` on first use.
    const boost::json::value& Json() const {
      if (lazy) json_once.Call([this] { MakeJson(); });
      return json;
    }
    void MakeJson() const;

    mutable boost::json::value json;
    Kind kind;
    std::string name, ns, uid, key;
    Labels labels;
    std::shared_ptr<const TypedView> view;
    // EditLazily: set at construction; `base` and `edit` are dropped once
    // `json` is made (inside json_once).
    bool lazy = false;
    mutable Once json_once;
    mutable ObjectPtr base;
    mutable std::function<void(boost::json::object&)> edit;
  };
  // What a FromStored object keeps until (and after) it is parsed.
  struct Stored {
    std::string key;
    std::string_view text;              // what Encoded() gives
    std::shared_ptr<const void> owner;  // keeps `text` valid
    Once parse_once;
    Status error;  // why the text did not decode; set inside parse_once
  };
  struct PrivateTag {};
  static Result<std::shared_ptr<const Data>> BuildData(boost::json::value value,
                                                       std::shared_ptr<const TypedView> given_view,
                                                       int64_t* resource_version);
  static Result<ObjectPtr> Build(boost::json::value value, std::shared_ptr<const TypedView> given_view);

  const Data& data() const {
    if (!parsed_.load(std::memory_order_acquire)) ParseStored();
    return *data_;
  }
  // Parses a FromStored object's text into data_ (aborts when it does not decode).
  void ParseStored() const;
  // Runs the parse once; false (with stored_->error set) when it failed.
  bool TryParseStored() const;

 public:
  Object(PrivateTag, std::shared_ptr<const Data> data, int64_t rv)
      : data_(std::move(data)), parsed_(true), resource_version_(rv) {}
  Object(PrivateTag, std::shared_ptr<const Data> data, int64_t rv, std::string encoded)
      : data_(std::move(data)),
        parsed_(true),
        resource_version_(rv),
        encoded_given_(true),
        encoded_(std::move(encoded)) {}
  Object(PrivateTag, std::unique_ptr<Stored> stored, int64_t rv)
      : stored_(std::move(stored)), parsed_(false), resource_version_(rv) {}

 private:
  // Set once: at construction, or (FromStored) by the first parse, before
  // parsed_ turns true.
  mutable std::shared_ptr<const Data> data_;
  std::unique_ptr<Stored> stored_;  // FromStored objects only
  mutable std::atomic<bool> parsed_;
  int64_t resource_version_;
  const bool encoded_given_ = false;  // encoded_ set at construction (FromStored: stored_->text)
  mutable Once encode_once_;
  mutable std::string encoded_;
};

// Parses a resourceVersion string ("123"); nullopt when not a non-negative integer.
std::optional<int64_t> ParseResourceVersion(std::string_view text);

// The object as a client of `kind` reads it: Encoded() when it was written
// as that kind; converted (api/conversion.h) when `kind` is stored as the
// object's kind; else the same with apiVersion set to that kind's (another
// served version of the same custom resource: kube's conversion "None").
std::string EncodedAs(const Object& object, Kind kind);

}  // namespace berth::api
