#pragma once
// The status a ReplicaSet or ReplicationController reports after a sync, as
// kube's calculateStatus makes it (pkg/controller/replicaset): counts of its
// active pods, the generation observed, and the ReplicaFailure condition
// while creating or deleting its pods fails. Pure functions of their inputs.

#include <boost/json/object.hpp>
#include <chrono>
#include <vector>

#include "api/object.h"
#include "api/status.h"

namespace berth::controllers {

// spec.replicas; 1 when absent, kube's default for both kinds.
int64_t DesiredReplicas(const api::Object& owner);

// `owner`'s current status with
// - replicas, fullyLabeledReplicas (pods carrying every template label),
//   readyReplicas and availableReplicas (ready for minReadySeconds by `now`)
//   counted over `active`, its active pods before the sync created or
//   deleted any; zero counts but replicas left out (kube's omitempty);
// - observedGeneration its metadata.generation;
// - ReplicaFailure: added when `manage_error` is an error and the condition
//   is absent (status "True", reason FailedCreate when `active` was short of
//   spec.replicas, FailedDelete when over, the error as message), kept as it
//   is while errors go on, and removed (with `conditions` once empty) after a
//   sync whose creations and deletions succeeded or were not attempted.
boost::json::object CalculateStatus(const api::Object& owner, const std::vector<api::ObjectPtr>& active,
                                    const Status& manage_error, std::chrono::system_clock::time_point now);

// Whether `next` differs from `current` (nullptr: no status yet) in what kube
// compares before writing: the four counts, observedGeneration and the
// conditions. Nothing else a status holds makes a write.
bool StatusDiffers(const boost::json::object* current, const boost::json::object& next);

}  // namespace berth::controllers
