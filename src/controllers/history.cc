#include "controllers/history.h"

#include <algorithm>
#include <vector>

#include <boost/json.hpp>

#include "api/json_fields.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

json::value WithoutNulls(const json::value& v) {
  if (const json::object* o = v.if_object()) {
    json::object out;
    for (const auto& [k, member] : *o) {
      if (!member.is_null()) out[k] = WithoutNulls(member);
    }
    return out;
  }
  if (const json::array* a = v.if_array()) {
    json::array out;
    for (const auto& e : *a) out.push_back(WithoutNulls(e));
    return out;
  }
  return v;
}

// What Go's encoding/json writes for a map[string]interface{}: members
// sorted by key, at every level.
json::value SortedKeys(const json::value& v) {
  if (const json::object* o = v.if_object()) {
    std::vector<const json::key_value_pair*> members;
    for (const auto& member : *o) members.push_back(&member);
    std::sort(members.begin(), members.end(),
              [](const auto* a, const auto* b) { return a->key() < b->key(); });
    json::object out;
    for (const auto* member : members) out[member->key()] = SortedKeys(member->value());
    return out;
  }
  if (const json::array* a = v.if_array()) {
    json::array out;
    for (const auto& e : *a) out.push_back(SortedKeys(e));
    return out;
  }
  return v;
}

const json::object* TemplateOf(const api::Object& owner) {
  const json::object* spec = api::Spec(owner);
  return spec ? api::ObjectAt(*spec, "template") : nullptr;
}

const json::object* StoredTemplate(const api::Object& revision) {
  const json::object* data = api::ObjectAt(revision.json(), "data");
  const json::object* spec = data ? api::ObjectAt(*data, "spec") : nullptr;
  return spec ? api::ObjectAt(*spec, "template") : nullptr;
}

}  // namespace

json::object HistoryData(const api::Object& owner) {
  const json::object* tmpl = TemplateOf(owner);
  json::value copy = WithoutNulls(tmpl ? json::value(*tmpl) : json::value(json::object()));
  json::object& out = copy.get_object();
  out["$patch"] = "replace";
  // kube's getPatch marshals the typed template, whose metadata always has
  // creationTimestamp (null), through a map: clients (the e2e suite's
  // daemon.Match) compare those bytes with the revision's data.
  api::MutableObject(out, "metadata")["creationTimestamp"] = nullptr;
  return json::object{{"spec", json::object{{"template", SortedKeys(copy)}}}};
}

bool HistoryMatches(const api::Object& owner, const api::Object& revision) {
  const json::object* stored = StoredTemplate(revision);
  if (!stored) return false;
  json::value want = WithoutNulls(*stored);
  want.get_object().erase("$patch");
  const json::object* tmpl = TemplateOf(owner);
  return WithoutNulls(tmpl ? json::value(*tmpl) : json::value(json::object())) == want;
}

json::object RevisionTemplate(const api::Object& revision) {
  const json::object* stored = StoredTemplate(revision);
  if (!stored) return {};
  json::object out = *stored;
  out.erase("$patch");
  return out;
}

int64_t RevisionNumber(const api::Object& revision) {
  return api::IntAt(&revision.json(), "revision");
}

std::string RevisionHash(const api::Object& revision) {
  auto hash = revision.labels().Get(kControllerRevisionHashLabel);
  return hash ? std::string(*hash) : std::string();
}

std::optional<int64_t> CollisionCount(const api::Object& owner) {
  const auto* status = api::StatusOf(owner);
  if (!status || !status->contains("collisionCount")) return std::nullopt;
  return api::IntAt(status, "collisionCount");
}

}  // namespace berth::controllers
