#pragma once
// metadata.ownerReferences as controllers write and read them: the one
// reference with controller=true names the object's controller, and the
// garbage collector deletes dependents whose owners are gone.

#include <boost/json/object.hpp>
#include <string_view>

#include "api/object.h"

namespace berth::controllers {

// An ownerReference naming `owner` as the controller (controller and
// blockOwnerDeletion true).
boost::json::object ControllerRef(const api::Object& owner);
// The uid of `o`'s controller ownerReference when it is of `kind`; "" when
// `o` has no controller or another kind controls it.
std::string_view ControllerUid(const api::Object& o, std::string_view kind);

}  // namespace berth::controllers
