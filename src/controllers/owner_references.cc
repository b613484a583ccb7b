#include "controllers/owner_references.h"

#include "api/json_fields.h"

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

}  // namespace berth::controllers
