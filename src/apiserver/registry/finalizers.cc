#include "apiserver/registry/finalizers.h"

#include <algorithm>
#include <boost/json/array.hpp>

#include "api/json_fields.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// A namespace's spec.finalizers; nullptr when it has none.
const json::array* SpecFinalizers(const json::object& ns) {
  return api::ArrayAt(api::ObjectAt(ns, "spec"), "finalizers");
}

}  // namespace

bool HasFinalizers(const json::object& object) {
  const json::array* finalizers = api::ArrayAt(api::ObjectAt(object, "metadata"), "finalizers");
  return finalizers && !finalizers->empty();
}

bool OnlyKubernetesFinalizer(const json::object& ns) {
  if (HasFinalizers(ns)) return false;
  const json::array* f = SpecFinalizers(ns);
  return !f || std::all_of(f->begin(), f->end(), [](const json::value& v) {
    return v.is_string() && v.get_string() == "kubernetes";
  });
}

bool Finalized(const json::object& ns) {
  const json::array* f = SpecFinalizers(ns);
  return !HasFinalizers(ns) && (!f || f->empty());
}

}  // namespace berth::apiserver
