#pragma once
// spec.podFailurePolicy as kube's Job controller applies it to a failed pod:
// the first rule that matches decides. onExitCodes matches a terminated
// container (containers, then init containers; optionally only the one named
// containerName) whose non-zero exit code is In / NotIn the values;
// onPodConditions matches a pod condition of that type and status (e.g.
// DisruptionTarget True). No rule matching counts the failure.

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "api/object.h"

namespace berth::controllers::job {

struct PodFailureDecision {
  // Set when a FailJob rule matched: the Job fails with this message.
  std::optional<std::string> fail_job_message;
  // Whether the failure counts towards backoffLimit (false for Ignore).
  bool count = true;
  // The matched rule's action ("FailJob", "FailIndex", "Ignore", "Count"); "" when none matched.
  std::string action;
};

// `policy` is spec.podFailurePolicy (nullptr: none, every failure counts).
PodFailureDecision MatchPodFailurePolicy(const boost::json::object* policy, const api::Object& pod);

}  // namespace berth::controllers::job
