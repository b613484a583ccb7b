#pragma once
// PodDisruptionBudget rules shared by the API server's eviction subresource
// and the disruption controller: which pods a budget covers, the
// DisruptionAllowed condition, and kube's int-or-percent scaling.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "api/object.h"
#include "api/selector.h"
#include "api/status.h"

namespace berth::api {

// How long a pod the eviction subresource recorded in status.disruptedPods
// is taken as about to go (kube's DeletionTimeout); after that the
// controller counts it again.
inline constexpr std::chrono::minutes kDisruptedPodTimeout{2};
// Beyond this many unconfirmed evictions in status.disruptedPods, evictions
// are refused (kube's MaxDisruptedPodSize).
inline constexpr size_t kMaxDisruptedPods = 2000;

// The budget's spec.selector (policy/v1): absent or null selects nothing,
// {} selects every pod of its namespace; an invalid selector selects nothing.
LabelSelector BudgetSelector(const Object& budget);
// True when `budget` covers `pod`: same namespace and the selector matches.
bool BudgetCoversPod(const Object& budget, const Object& pod);

// Sets status.conditions' DisruptionAllowed from status.disruptionsAllowed
// (True/SufficientPods when above 0, else False/InsufficientPods), with
// status.observedGeneration, as kube's UpdateDisruptionAllowedCondition.
void SetDisruptionAllowedCondition(boost::json::object& status, std::string_view now);
// The failure form: False/SyncFailed with the error as message.
void SetDisruptionSyncFailedCondition(boost::json::object& status, std::string_view message,
                                      std::string_view now);

// kube's GetScaledValueFromIntOrPercent: an integer as is, "N%" of `total`
// rounded up or down. Invalid for anything else (kube's message).
Result<int64_t> ScaledValueFromIntOrPercent(const boost::json::value& value, int64_t total,
                                            bool round_up);

}  // namespace berth::api
