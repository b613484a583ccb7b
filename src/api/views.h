#pragma once
// Typed views: what berth reads from an object, parsed once per object version
// when the Object is built. The JSON stays the source of truth; a view never
// changes it. Concrete views: pod_view.h, node_view.h, storage_views.h
// (PersistentVolume, PersistentVolumeClaim, StorageClass, PriorityClass).

#include <memory>

#include <boost/json/fwd.hpp>

#include "api/kinds.h"
#include "api/status.h"

namespace berth::api {

class TypedView {
 public:
  virtual ~TypedView() = default;
};

// Parses the view for `kind` from a whole object. nullptr (ok) for kinds that
// have no view. A field of the wrong JSON type or an unparseable quantity is a
// BadRequest naming the field path, as Kubernetes' decoder reports it.
Result<std::shared_ptr<const TypedView>> ParseView(Kind kind, const boost::json::object& object);

}  // namespace berth::api
