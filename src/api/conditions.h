#pragma once
// status.conditions as Kubernetes keeps them: one entry per type, and
// lastTransitionTime marks the last change of the condition's status (a new
// reason or message alone keeps it), so "Ready since" means what it says.

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace berth::api {

struct Condition {
  std::string type, status, reason, message;
};

// Timestamps some kinds' conditions carry beside lastTransitionTime.
struct ConditionStamps {
  // Node conditions: lastHeartbeatTime is `now` on every call, which then
  // always counts as a change (the kubelet's heartbeat).
  bool heartbeat = false;
  // Pod conditions as the API server writes them: lastProbeTime present and null.
  bool null_probe_time = false;
};

// Sets `c` in status["conditions"] (the array is created when missing). lastTransitionTime is `now`
// when the condition is new or its status changes, else the old one is kept. Returns true when
// anything changed. An empty reason or message leaves the field out (kube's omitempty).
bool SetCondition(boost::json::object& status, const Condition& c, std::string_view now);
// As above, with the extra `stamps`.
bool SetCondition(boost::json::object& status, const Condition& c, std::string_view now,
                  const ConditionStamps& stamps);

// The condition of `type` in status.conditions; nullptr when absent (or
// `status` is nullptr).
const boost::json::object* FindCondition(const boost::json::object* status, std::string_view type);

}  // namespace berth::api
