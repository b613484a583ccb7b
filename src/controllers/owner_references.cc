#include "controllers/owner_references.h"

#include "api/json_fields.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

json::object ControllerRef(const api::Object& owner) {
  return {{"apiVersion", owner.info().ApiVersion()},
          {"kind", owner.info().name},
          {"name", owner.name()},
          {"uid", owner.uid()},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

std::string_view ControllerUid(const api::Object& o, std::string_view kind) {
  const json::array* refs = api::ArrayAt(api::Metadata(o), "ownerReferences");
  if (!refs) return {};
  for (const auto& ref : *refs) {
    if (!ref.is_object()) continue;
    const auto& r = ref.get_object();
    if (api::BoolAt(&r, "controller")) {
      return api::StringAt(r, "kind") == kind ? api::StringAt(r, "uid") : std::string_view();
    }
  }
  return {};
}

bool HasControllerRef(const api::Object& o) {
  const json::array* refs = api::ArrayAt(api::Metadata(o), "ownerReferences");
  if (!refs) return false;
  for (const auto& r : *refs) {
    if (r.is_object() && api::BoolAt(&r.get_object(), "controller")) return true;
  }
  return false;
}

namespace {

// The controller ownerReference of `o` when it is of `kind`.
const json::object* ControllerRefOfKind(const api::Object& o, std::string_view kind) {
  const json::array* refs = api::ArrayAt(api::Metadata(o), "ownerReferences");
  if (!refs) return nullptr;
  for (const auto& ref : *refs) {
    if (!ref.is_object() || !api::BoolAt(&ref.get_object(), "controller")) continue;
    return api::StringAt(ref.get_object(), "kind") == kind ? &ref.get_object() : nullptr;
  }
  return nullptr;
}

}  // namespace

std::string LiveControllerKey(const api::Object& dependent, std::string_view kind,
                              client::SharedInformer& owners) {
  const json::object* ref = ControllerRefOfKind(dependent, kind);
  if (!ref) return {};
  auto owner = owners.Get(client::ObjectKey(dependent.namespace_name(), api::StringAt(*ref, "name")));
  if (!owner || owner->uid() != api::StringAt(*ref, "uid")) return {};
  return client::ObjectKey(*owner);
}

std::string ControllerKeyByName(const api::Object& dependent, std::string_view kind) {
  const json::object* ref = ControllerRefOfKind(dependent, kind);
  if (!ref) return {};
  return client::ObjectKey(dependent.namespace_name(), api::StringAt(*ref, "name"));
}

std::vector<std::string> SelectingOwners(const api::Object& dependent, client::SharedInformer& owners) {
  std::vector<std::string> keys;
  for (const auto& owner : owners.ByIndex(client::kNamespaceIndex, dependent.namespace_name())) {
    if (OwnerSelector(*owner).Matches(dependent.labels())) keys.push_back(client::ObjectKey(*owner));
  }
  return keys;
}

namespace {

// A ReplicationController's selector, core/v1's map of labels each required
// equal (kube's labels.SelectorFromSet). An absent or empty map means the
// template's labels: what the API server's defaulting of an RC stores.
api::LabelSelector SelectorFromMap(const json::object* spec) {
  const json::object* labels = api::ObjectAt(spec, "selector");
  if (!labels || labels->empty()) {
    labels = api::ObjectAt(api::ObjectAt(api::ObjectAt(spec, "template"), "metadata"), "labels");
  }
  if (!labels || labels->empty()) return api::LabelSelector::Nothing();
  auto selector = api::LabelSelector::FromJson(json::object{{"matchLabels", *labels}});
  if (!selector.ok()) return api::LabelSelector::Nothing();
  return std::move(selector).value();
}

}  // namespace

api::LabelSelector OwnerSelector(const api::Object& owner) {
  const auto* spec = api::Spec(owner);
  if (owner.kind() == api::Kind::kReplicationController) return SelectorFromMap(spec);
  const json::value* value = spec ? spec->if_contains("selector") : nullptr;
  if (!value) return api::LabelSelector::Nothing();
  auto selector = api::LabelSelector::FromJson(*value);
  if (!selector.ok() || selector->Empty()) return api::LabelSelector::Nothing();
  return std::move(selector).value();
}

namespace {

// Adds `finalizer` to metadata.finalizers (once) or removes it; "" leaves them alone.
void SetFinalizer(json::object& meta, std::string_view finalizer, bool present) {
  if (finalizer.empty()) return;
  json::array& finalizers = api::MutableArray(meta, "finalizers");
  api::EraseIf(finalizers,
               [&](const json::value& f) { return f.is_string() && f.get_string() == finalizer; });
  if (present) finalizers.emplace_back(finalizer);
  if (finalizers.empty()) meta.erase("finalizers");
}

}  // namespace

Result<std::vector<api::ObjectPtr>> ClaimDependents(
    client::RestClient& client, client::SharedInformer& informer, const api::Object& owner,
    const api::LabelSelector& selector, const std::function<bool(const api::Object&)>& member,
    const std::function<bool(const api::Object&)>& adoptable, std::string_view finalizer) {
  const std::string_view kind = owner.info().name;
  auto selects = [&](const api::Object& o) {
    return selector.Matches(o.labels()) && (!member || member(o));
  };
  const bool owner_deleted = api::BeingDeleted(owner);
  std::vector<api::ObjectPtr> owned;
  for (const auto& o : informer.ByIndex(client::kOwnerUidIndex, owner.uid())) {
    if (ControllerUid(*o, kind) != owner.uid()) continue;
    if (selects(*o)) {
      owned.push_back(o);
      continue;
    }
    if (owner_deleted) continue;
    json::object edited = ForUpdate(*o);
    json::object& meta = api::MutableObject(edited, "metadata");
    api::EraseIf(api::MutableArray(meta, "ownerReferences"), [&](const json::value& r) {
      return r.is_object() && api::StringAt(r.get_object(), "uid") == owner.uid();
    });
    SetFinalizer(meta, finalizer, false);
    auto released = client.Update(o->kind(), edited);
    if (!released.ok() && released.status().code() != StatusCode::kNotFound)
      return released.status();
  }
  if (owner_deleted) return owned;
  for (const auto& o : informer.ByIndex(client::kNamespaceIndex, owner.namespace_name())) {
    if (HasControllerRef(*o) || api::BeingDeleted(*o) || !selects(*o) || (adoptable && !adoptable(*o))) continue;
    json::object edited = ForUpdate(*o);
    json::object& meta = api::MutableObject(edited, "metadata");
    api::MutableArray(meta, "ownerReferences").push_back(ControllerRef(owner));
    SetFinalizer(meta, finalizer, true);
    auto adopted = client.Update(o->kind(), edited);
    if (adopted.ok()) {
      owned.push_back(adopted.value());
    } else if (adopted.status().code() != StatusCode::kNotFound) {
      return adopted.status();
    }
  }
  return owned;
}

}  // namespace berth::controllers
