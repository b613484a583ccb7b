#pragma once
// What berth reads from a Node, parsed once per object version
// (Object::As<NodeView>()). Labels are on the Object itself.

#include <cstdint>
#include <string>
#include <vector>

#include "api/resources.h"
#include "api/taints.h"
#include "api/views.h"

namespace berth::api {

struct NodeCondition {
  std::string type;    // "Ready", "MemoryPressure", ...
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string last_heartbeat_time;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
};

class NodeView : public TypedView {
 public:
  ResourceList capacity;
  // status.allocatable; the capacity when a node reports none.
  ResourceList allocatable;
  std::vector<Taint> taints;
  bool unschedulable = false;
  std::vector<NodeCondition> conditions;
  std::vector<ContainerImage> images;

  // The condition of `type`, or nullptr.
  const NodeCondition* Condition(std::string_view type) const;
  // Ready=True.
  bool Ready() const;
};

Result<std::shared_ptr<const TypedView>> ParseNodeView(const boost::json::object& node);

}  // namespace berth::api
