#include "controllers/job/pod_failure_policy.h"

#include <boost/json.hpp>

#include "api/json_fields.h"

namespace berth::controllers::job {

namespace json = boost::json;

namespace {

bool ExitCodeMatches(int64_t code, const json::object& requirement) {
  bool listed = false;
  if (const json::array* values = api::ArrayAt(requirement, "values")) {
    for (const auto& v : *values)
      listed = listed || (v.is_number() && v.to_number<int64_t>() == code);
  }
  const std::string_view op = api::StringAt(requirement, "operator");
  if (op == "In") return listed;
  if (op == "NotIn") return !listed;
  return false;
}

// The first terminated container (of `statuses`) whose exit code matches.
const json::object* MatchingContainer(const json::array* statuses,
                                      const json::object& requirement) {
  if (!statuses) return nullptr;
  const std::string_view only = api::StringAt(requirement, "containerName");
  for (const auto& s : *statuses) {
    if (!s.is_object()) continue;
    const json::object& status = s.get_object();
    const json::object* terminated = api::ObjectAt(api::ObjectAt(status, "state"), "terminated");
    if (!terminated) continue;  // still running or terminating: no exit code yet
    if (!only.empty() && api::StringAt(status, "name") != only) continue;
    const int64_t code = api::IntAt(terminated, "exitCode");
    if (code != 0 && ExitCodeMatches(code, requirement)) return &status;
  }
  return nullptr;
}

const json::object* MatchingCondition(const json::object* pod_status, const json::array& patterns) {
  const json::array* conditions = api::ArrayAt(pod_status, "conditions");
  if (!conditions) return nullptr;
  for (const auto& c : *conditions) {
    if (!c.is_object()) continue;
    for (const auto& p : patterns) {
      if (!p.is_object()) continue;
      // status defaults to True (API defaulting); an absent one reads as True here too.
      std::string_view want = api::StringAt(p.get_object(), "status");
      if (want.empty()) want = "True";
      if (api::StringAt(c.get_object(), "type") == api::StringAt(p.get_object(), "type") &&
          api::StringAt(c.get_object(), "status") == want) {
        return &c.get_object();
      }
    }
  }
  return nullptr;
}

}  // namespace

PodFailureDecision MatchPodFailurePolicy(const json::object* policy, const api::Object& pod) {
  PodFailureDecision decision;
  const json::array* rules = api::ArrayAt(policy, "rules");
  if (!rules) return decision;
  const json::object* status = api::StatusOf(pod);
  const std::string where = pod.namespace_name() + "/" + pod.name();
  for (size_t index = 0; index < rules->size(); ++index) {
    if (!(*rules)[index].is_object()) continue;
    const json::object& rule = (*rules)[index].get_object();
    const std::string action(api::StringAt(rule, "action"));
    std::optional<std::string> message;
    if (const json::object* on_exit = api::ObjectAt(rule, "onExitCodes")) {
      const json::object* container =
          MatchingContainer(api::ArrayAt(status, "containerStatuses"), *on_exit);
      if (!container)
        container = MatchingContainer(api::ArrayAt(status, "initContainerStatuses"), *on_exit);
      if (!container) continue;
      const int64_t code =
          api::IntAt(api::ObjectAt(api::ObjectAt(*container, "state"), "terminated"), "exitCode");
      message = "Container " + std::string(api::StringAt(*container, "name")) + " for pod " +
                where + " failed with exit code " + std::to_string(code) + " matching " + action +
                " rule at index " + std::to_string(index);
    } else if (const json::array* on_conditions = api::ArrayAt(rule, "onPodConditions")) {
      const json::object* condition = MatchingCondition(status, *on_conditions);
      if (!condition) continue;
      message = "Pod " + where + " has condition " +
                std::string(api::StringAt(*condition, "type")) + " matching " + action +
                " rule at index " + std::to_string(index);
    } else {
      continue;
    }
    decision.action = action;
    if (action == "Ignore") {
      decision.count = false;
    } else if (action == "FailJob") {
      decision.fail_job_message = std::move(message);
    } else if (action != "Count" && action != "FailIndex") {
      // An action this controller does not know: kube's switch falls through to the next rule.
      decision.action.clear();
      continue;
    }
    return decision;
  }
  return decision;
}

}  // namespace berth::controllers::job
