#pragma once
// Sets of field paths, as server-side apply records who owns what
// (kube's structured-merge-diff fieldpath.Set and its FieldsV1 encoding).
//
// A path is a list of encoded elements, exactly as FieldsV1 spells them:
//   "f:<field>"   a field of an object               f:spec, f:replicas
//   "k:<json>"    an item of a list merged by keys    k:{"name":"c"}
//   "v:<json>"    an item of a set of primitives      v:"example.com/x"
// A set holds leaves (scalars, atomic lists, empty objects) and list items
// themselves; objects with fields are only the way to their leaves. In
// FieldsV1 a member that also has members below it is written as ".".

#include <boost/json/value.hpp>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/kinds.h"

namespace berth::apiserver {

using FieldPath = std::vector<std::string>;

class FieldSet {
 public:
  FieldSet() = default;

  // From a managedFields entry's fieldsV1; malformed parts are skipped.
  static FieldSet FromFieldsV1(const boost::json::value& fields);
  boost::json::value ToFieldsV1() const;

  void Insert(FieldPath path) { paths_.insert(std::move(path)); }
  void Erase(const FieldPath& path) { paths_.erase(path); }
  bool Contains(const FieldPath& path) const { return paths_.contains(path); }
  // `path` or any path below it.
  bool ContainsPrefix(const FieldPath& path) const;
  bool empty() const { return paths_.empty(); }
  size_t size() const { return paths_.size(); }
  const std::set<FieldPath>& paths() const { return paths_; }

  FieldSet Difference(const FieldSet& other) const;
  FieldSet Intersection(const FieldSet& other) const;
  FieldSet Union(const FieldSet& other) const;

  bool operator==(const FieldSet&) const = default;

 private:
  std::set<FieldPath> paths_;
};

// How a list is keyed for server-side apply.
struct ListKeys {
  enum Type { kAtomic, kSet, kMap } type = kAtomic;
  std::vector<std::string> keys;  // kMap only
};

// What decides which fields of a kind's objects are owned, and how its lists
// merge.
struct FieldOwnership {
  api::Kind kind;
  // Status is then nobody's through the main resource.
  bool status_is_subresource = false;
  // A custom resource's x-kubernetes-list-type and list-map-keys by path
  // (ResourceStrategy::ListTypeAt); unset or empty type: built-in knowledge.
  std::function<std::pair<std::string, std::vector<std::string>>(std::string_view)>
      schema_list_type;

  // patch.h's strategies, with kube's multi-field keys where they differ
  // (container ports by containerPort and protocol, service ports by port and
  // protocol), unless the schema says otherwise. `schema_path` joins field
  // names with '.', list positions left out.
  ListKeys ListKeysAt(std::string_view schema_path) const;
};

// What of an object is owned: the fields of `object` (a whole object or an
// apply configuration) minus what the server owns (apiVersion, kind,
// metadata's name, namespace, uid, resourceVersion, generation,
// creationTimestamp, managedFields ...) and minus status when it is a
// subresource.
FieldSet FieldsOf(const FieldOwnership& ownership, const boost::json::object& object);

// The value at `path` in `root`, or nullptr.
const boost::json::value* ValueAt(const boost::json::value& root, const FieldPath& path);
// As above, for a whole object (no copy into a value needed); nullptr for the empty path.
const boost::json::value* ValueAt(const boost::json::object& root, const FieldPath& path);
// Removes what `path` names from `root` (a field or a list item); no-op when absent.
void RemoveAt(boost::json::value& root, const FieldPath& path);

// kube's printed form: .spec.template.spec.containers[name="c"].image,
// .metadata.finalizers[="x"].
std::string PathString(const FieldPath& path);

}  // namespace berth::apiserver
