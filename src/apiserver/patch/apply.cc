#include "apiserver/patch/apply.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "api/codec/json_parse.h"
#include "api/codec/yaml_json.h"
#include "api/json_fields.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kApply = "Apply";
constexpr std::string_view kUpdate = "Update";

std::string Str(const json::object& o, std::string_view key) {
  return std::string(api::StringAt(o, key));
}

bool IsItem(const FieldPath& path) { return !path.empty() && !path.back().starts_with("f:"); }

// Whether a leaf at `path` holds different values in `a` and `b` (an absent
// value differs from any present one).
template <typename Root>
bool ValueDiffers(const Root& a, const Root& b, const FieldPath& path) {
  const json::value* x = ValueAt(a, path);
  const json::value* y = ValueAt(b, path);
  if (!x || !y) return x != y;
  return *x != *y;
}

// kube's printManager: an applier by name, an updater with its version.
std::string ManagerDescription(const ManagedFieldsEntry& entry) {
  std::string out = json::serialize(json::value(entry.manager));
  if (!entry.subresource.empty())
    out += " with subresource " + json::serialize(json::value(entry.subresource));
  if (entry.operation == kUpdate) out += " using " + entry.api_version;
  return out;
}

Status ConflictStatus(
    const std::vector<std::pair<const ManagedFieldsEntry*, FieldPath>>& conflicts) {
  std::vector<StatusCause> causes;
  for (const auto& [entry, path] : conflicts) {
    causes.push_back(
        {"FieldManagerConflict", "conflict with " + ManagerDescription(*entry), PathString(path)});
  }
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " +
              ManagerDescription(*conflicts[0].first) + ": " + PathString(conflicts[0].second);
  } else {
    std::map<std::string, std::vector<std::string>> by_manager;  // sorted, as kube prints them
    for (const auto& [entry, path] : conflicts)
      by_manager[ManagerDescription(*entry)].push_back(PathString(path));
    std::string lines;
    for (const auto& [manager, paths] : by_manager) {
      if (!lines.empty()) lines += '\n';
      lines += "conflicts with " + manager + ":";
      for (const auto& p : paths) lines += "\n- " + p;
    }
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
  }
  return Status(StatusCode::kConflict, std::move(message), std::move(causes));
}

// Merges an apply configuration's value into the live one: objects field by
// field, keyed lists item by item, sets by union, everything else replaced.
json::value MergeApplied(const FieldOwnership& ownership, const json::value& live,
                         const json::value& applied, const std::string& schema_path) {
  if (applied.is_object()) {
    if (!live.is_object()) return applied;
    json::value out = live;
    json::object& o = out.get_object();
    for (const auto& [field, value] : applied.get_object()) {
      if (value.is_null()) {
        o.erase(field);
        continue;
      }
      std::string child =
          schema_path.empty() ? std::string(field) : schema_path + "." + std::string(field);
      const json::value* current = o.if_contains(field);
      o[field] = MergeApplied(ownership, current ? *current : json::value(nullptr), value, child);
    }
    return out;
  }
  if (!applied.is_array() || !live.is_array()) return applied;
  ListKeys keys = ownership.ListKeysAt(schema_path);
  if (keys.type == ListKeys::kAtomic) return applied;
  json::array out = live.get_array();
  if (keys.type == ListKeys::kSet) {
    for (const auto& item : applied.get_array()) {
      if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
    return out;
  }
  // Keyed: an item whose key cannot be read makes the list one value.
  for (const auto& item : applied.get_array()) {
    if (!item.is_object()) return applied;
    for (const auto& k : keys.keys) {
      if (!item.get_object().contains(k) && k != "protocol") return applied;
    }
    bool merged = false;
    for (auto& existing : out) {
      if (!existing.is_object()) continue;
      bool same = true;
      for (const auto& k : keys.keys) {
        static const json::value kTcp("TCP");
        const json::value* a = existing.get_object().if_contains(k);
        const json::value* b = item.get_object().if_contains(k);
        if (!a && k == "protocol") a = &kTcp;
        if (!b && k == "protocol") b = &kTcp;
        if (!a || !b || *a != *b) {
          same = false;
          break;
        }
      }
      if (same) {
        existing = MergeApplied(ownership, existing, item, schema_path);
        merged = true;
        break;
      }
    }
    if (!merged) out.push_back(item);
  }
  return out;
}

// The apply configuration's fields merged into `live` at the top level:
// fields the server owns are left alone.
void MergeConfiguration(const FieldOwnership& ownership, json::object& object,
                        const json::object& config) {
  for (const auto& [field, value] : config) {
    if (field == "apiVersion" || field == "kind") continue;
    if (field == "status" && ownership.status_is_subresource) continue;
    if (field == "metadata" && value.is_object()) {
      json::object& meta = api::MutableObject(object, "metadata");
      for (const auto& [meta_field, meta_value] : value.get_object()) {
        if (meta_field == "managedFields" || meta_field == "resourceVersion" ||
            meta_field == "uid" || meta_field == "generation" ||
            meta_field == "creationTimestamp" || meta_field == "selfLink" ||
            meta_field == "deletionTimestamp" || meta_field == "deletionGracePeriodSeconds") {
          continue;
        }
        if (meta_value.is_null()) {
          meta.erase(meta_field);
          continue;
        }
        const json::value* current = meta.if_contains(meta_field);
        meta[meta_field] = MergeApplied(ownership, current ? *current : json::value(nullptr),
                                        meta_value, "metadata." + std::string(meta_field));
      }
      continue;
    }
    if (value.is_null()) {
      object.erase(field);
      continue;
    }
    const json::value* current = object.if_contains(field);
    object[field] = MergeApplied(ownership, current ? *current : json::value(nullptr), value,
                                 std::string(field));
  }
}

json::value WithoutManagedFields(const json::object& object) {
  json::value copy = object;
  if (auto* meta = copy.get_object().if_contains("metadata"); meta && meta->is_object()) {
    meta->get_object().erase("managedFields");
  }
  return copy;
}

bool SameOwnership(const std::vector<ManagedFieldsEntry>& a,
                   const std::vector<ManagedFieldsEntry>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].manager != b[i].manager || a[i].operation != b[i].operation ||
        a[i].api_version != b[i].api_version || a[i].subresource != b[i].subresource ||
        a[i].fields != b[i].fields) {
      return false;
    }
  }
  return true;
}

void DropEmpty(std::vector<ManagedFieldsEntry>& entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const auto& e) { return e.fields.empty(); }),
                entries.end());
}

}  // namespace

std::vector<ManagedFieldsEntry> ReadManagedFields(const json::object& object) {
  std::vector<ManagedFieldsEntry> entries;
  const json::object* meta = api::ObjectAt(object, "metadata");
  const json::value* list = meta ? meta->if_contains("managedFields") : nullptr;
  if (!list || !list->is_array()) return entries;
  for (const auto& item : list->get_array()) {
    if (!item.is_object()) continue;
    const json::object& o = item.get_object();
    ManagedFieldsEntry entry{Str(o, "manager"), Str(o, "operation"),   Str(o, "apiVersion"),
                             Str(o, "time"),    Str(o, "subresource"), {}};
    if (const json::value* fields = o.if_contains("fieldsV1"))
      entry.fields = FieldSet::FromFieldsV1(*fields);
    entries.push_back(std::move(entry));
  }
  return entries;
}

void WriteManagedFields(json::object& object, const std::vector<ManagedFieldsEntry>& entries) {
  json::object& meta = api::MutableObject(object, "metadata");
  if (entries.empty()) {
    meta.erase("managedFields");
    return;
  }
  json::array list;
  for (const auto& e : entries) {
    json::object o;
    o["manager"] = e.manager;
    o["operation"] = e.operation;
    o["apiVersion"] = e.api_version;
    if (!e.time.empty()) o["time"] = e.time;
    o["fieldsType"] = "FieldsV1";
    o["fieldsV1"] = e.fields.ToFieldsV1();
    if (!e.subresource.empty()) o["subresource"] = e.subresource;
    list.push_back(std::move(o));
  }
  meta["managedFields"] = std::move(list);
}

Result<json::value> DecodeApplyConfiguration(std::string_view body) {
  json::error_code ec;
  json::value value = api::ParseJson(body, ec);
  if (ec) {
    try {
      value = api::YamlToJson(YAML::Load(std::string(body)));
    } catch (const YAML::Exception& e) {
      return Status::BadRequest(std::string("error decoding YAML: ") + e.what());
    }
  }
  if (!value.is_object())
    return Status::BadRequest("error decoding YAML: the apply configuration is not an object");
  return value;
}

Result<json::value> ServerSideApply(const FieldOwnership& ownership, const json::object* live,
                                    const json::object& config, const ApplyOptions& options) {
  const FieldSet applied = FieldsOf(ownership, config);
  std::vector<ManagedFieldsEntry> entries =
      live ? ReadManagedFields(*live) : std::vector<ManagedFieldsEntry>{};
  const json::value live_value = live ? json::value(*live) : json::value(json::object());
  const json::value config_value(config);
  auto is_mine = [&](const ManagedFieldsEntry& e) {
    return e.manager == options.manager && e.operation == kApply;
  };

  // Conflicts: fields someone else owns that the applier sets differently.
  std::vector<std::pair<const ManagedFieldsEntry*, FieldPath>> conflicts;
  std::vector<std::pair<size_t, FieldPath>> taken;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (is_mine(entries[i])) continue;
    const FieldSet shared = entries[i].fields.Intersection(applied);
    for (const auto& path : shared.paths()) {
      if (IsItem(path) || !ValueAt(live_value, path)) continue;
      if (!ValueDiffers(live_value, config_value, path)) continue;  // same value: shared ownership
      conflicts.emplace_back(&entries[i], path);
      taken.emplace_back(i, path);
    }
  }
  if (!conflicts.empty() && !options.force) return ConflictStatus(conflicts);
  for (const auto& [index, path] : taken) entries[index].fields.Erase(path);

  // Fields the applier drops and nobody else owns leave the object.
  json::value result = live_value;
  FieldSet previous;
  FieldSet others;
  for (const auto& e : entries) {
    if (is_mine(e)) {
      previous = e.fields;
    } else {
      others = others.Union(e.fields);
    }
  }
  const FieldSet no_longer_applied = previous.Difference(applied);
  std::vector<FieldPath> dropped(no_longer_applied.paths().begin(),
                                 no_longer_applied.paths().end());
  std::stable_sort(dropped.begin(), dropped.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const auto& path : dropped) {
    if (!others.ContainsPrefix(path)) RemoveAt(result, path);
  }
  MergeConfiguration(ownership, result.get_object(), config);

  auto mine = std::find_if(entries.begin(), entries.end(), is_mine);
  if (mine == entries.end()) {
    entries.push_back({options.manager, std::string(kApply), "", "", "", {}});
    mine = entries.end() - 1;
  }
  mine->api_version = Str(config, "apiVersion");
  mine->time = options.now;
  mine->fields = applied;
  DropEmpty(entries);

  if (live && WithoutManagedFields(result.get_object()) == WithoutManagedFields(*live) &&
      SameOwnership(entries, ReadManagedFields(*live))) {
    return live_value;  // nothing changed: not even the time moves
  }
  WriteManagedFields(result.get_object(), entries);
  return result;
}

void RecordUpdate(const FieldOwnership& ownership, const json::object* before, json::object& after,
                  const std::string& manager, const std::string& now) {
  json::object& meta = api::MutableObject(after, "metadata");
  const json::value* carried = meta.if_contains("managedFields");
  const bool carries = carried && carried->is_array() && !carried->get_array().empty();
  if (!before && carries) return;
  // Ownership is tracked from an object's first server-side apply on: a
  // create, or a write to an object no apply has touched, records nothing
  // (computing field sets for every write cost the durable create path a
  // third of its CPU). Such fields belong to no manager, so applying over
  // them never conflicts.
  const json::object* before_meta_any = before ? api::ObjectAt(*before, "metadata") : nullptr;
  const json::value* before_managed = before_meta_any ? before_meta_any->if_contains("managedFields") : nullptr;
  const bool tracked = before_managed && before_managed->is_array() && !before_managed->get_array().empty();
  if (!tracked && !carries) return;
  if (before && !carries) {
    const json::object* before_meta = api::ObjectAt(*before, "metadata");
    const json::value* kept = before_meta ? before_meta->if_contains("managedFields") : nullptr;
    if (kept) {
      meta["managedFields"] = *kept;
    } else {
      meta.erase("managedFields");
    }
  }
  const FieldSet now_fields = FieldsOf(ownership, after);
  const FieldSet before_fields = before ? FieldsOf(ownership, *before) : FieldSet();
  FieldSet changed;
  for (const auto& path : now_fields.paths()) {
    if (!before_fields.Contains(path) || (!IsItem(path) && ValueDiffers(*before, after, path))) {
      changed.Insert(path);
    }
  }
  const FieldSet removed = before_fields.Difference(now_fields);
  if (changed.empty() && removed.empty()) return;

  std::vector<ManagedFieldsEntry> entries = ReadManagedFields(after);
  const std::string api_version = Str(after, "apiVersion");
  auto is_mine = [&](const ManagedFieldsEntry& e) {
    return e.manager == manager && e.operation == kUpdate && e.api_version == api_version &&
           e.subresource.empty();
  };
  for (auto& e : entries) {
    if (!is_mine(e)) e.fields = e.fields.Difference(changed);
  }
  auto mine = std::find_if(entries.begin(), entries.end(), is_mine);
  if (mine == entries.end()) {
    entries.push_back({manager, std::string(kUpdate), api_version, "", "", {}});
    mine = entries.end() - 1;
  }
  mine->fields = mine->fields.Union(changed).Difference(removed);
  mine->time = now;
  DropEmpty(entries);
  WriteManagedFields(after, entries);
}

FieldOwnership OwnershipOf(api::Kind kind, const ResourceStrategy& strategy) {
  FieldOwnership ownership{kind, strategy.HasStatus(), {}};
  if (!api::IsBuiltin(kind)) {
    ownership.schema_list_type = [&strategy](std::string_view path) {
      return strategy.ListTypeAt(path);
    };
  }
  return ownership;
}

std::string FieldManagerOf(const Request& request) {
  if (auto m = request.Query("fieldManager"); m && !m->empty()) return std::string(*m);
  std::string_view agent = request.user_agent;
  agent = agent.substr(0, agent.find('/'));
  if (!agent.empty()) return std::string(agent);
  return "unknown";
}

}  // namespace berth::apiserver
