#pragma once
// Writing back what a controller read, without losing a concurrent change.

#include <boost/json/object.hpp>
#include <string>

#include "api/json_fields.h"
#include "api/object.h"

namespace berth::controllers {

// The object's JSON to edit and write back, with metadata.resourceVersion set
// to the version it was read at: the write is refused (Conflict) when the
// object changed since, instead of overwriting the change. (The JSON a store
// object carries does not hold its own version; resource_version() does.)
inline boost::json::object ForUpdate(const api::Object& o) {
  boost::json::object copy = o.json();
  if (o.resource_version() > 0) {
    api::MutableObject(copy, "metadata")["resourceVersion"] = std::to_string(o.resource_version());
  }
  return copy;
}

}  // namespace berth::controllers
