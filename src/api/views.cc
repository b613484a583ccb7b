#include "api/views.h"

#include "api/node_view.h"
#include "api/pod_view.h"
#include "api/storage_views.h"

namespace berth::api {

Result<std::shared_ptr<const TypedView>> ParseView(Kind kind, const boost::json::object& object) {
  switch (kind) {
    case Kind::kPod:
      return ParsePodView(object);
    case Kind::kNode:
      return ParseNodeView(object);
    case Kind::kPersistentVolume:
      return ParsePersistentVolumeView(object);
    case Kind::kPersistentVolumeClaim:
      return ParsePersistentVolumeClaimView(object);
    case Kind::kStorageClass:
      return ParseStorageClassView(object);
    case Kind::kPriorityClass:
      return ParsePriorityClassView(object);
    default:
      return std::shared_ptr<const TypedView>();
  }
}

}  // namespace berth::api
