#pragma once
// ControllerRevisions as the DaemonSet and StatefulSet controllers keep them
// (kube's pkg/controller/history): one revision per pod template, named
// <owner>-<hash>, labelled controller-revision-hash=<hash>, its data the
// template as a strategic merge patch {"spec":{"template":{...,
// "$patch":"replace"}}} (what `kubectl rollout undo` sends back to the
// owner), and revision numbers that only grow.

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "api/object.h"

namespace berth::controllers {

inline constexpr char kControllerRevisionHashLabel[] = "controller-revision-hash";

// The ControllerRevision data for the owner's current spec.template.
boost::json::object HistoryData(const api::Object& owner);
// Whether the revision holds the owner's current spec.template (nulls, which
// decoders treat as absent members, are ignored).
bool HistoryMatches(const api::Object& owner, const api::Object& revision);
// The pod template a revision holds (its data's spec.template without
// "$patch"); an empty object when it holds none.
boost::json::object RevisionTemplate(const api::Object& revision);

// The revision's `revision` number.
int64_t RevisionNumber(const api::Object& revision);
// The revision's controller-revision-hash label; "" when it has none.
std::string RevisionHash(const api::Object& revision);
// The owner's status.collisionCount; nullopt when never written.
std::optional<int64_t> CollisionCount(const api::Object& owner);

}  // namespace berth::controllers
