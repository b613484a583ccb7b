#include "controllers/deployment/deployment_progress.h"

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/time/rfc3339.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kProgressing = "Progressing";
constexpr int64_t kMaxInt32 = 2147483647;

json::object* MutableCondition(json::object& status, std::string_view type) {
  auto* conditions = status.if_contains("conditions");
  if (!conditions || !conditions->is_array()) return nullptr;
  for (auto& c : conditions->get_array()) {
    if (c.is_object() && api::StringAt(c.get_object(), "type") == type) return &c.get_object();
  }
  return nullptr;
}

}  // namespace

std::optional<int64_t> ProgressDeadline(const json::object* spec) {
  const json::value* d = spec ? spec->if_contains("progressDeadlineSeconds") : nullptr;
  if (!d || !d->is_number()) return std::nullopt;
  const int64_t seconds = d->to_number<int64_t>();
  if (seconds == kMaxInt32) return std::nullopt;
  return seconds;
}

std::optional<std::chrono::milliseconds> UpdateProgressing(
    json::object& status, const ProgressInput& in, std::chrono::system_clock::time_point now) {
  const std::string stamp = api::FormatRfc3339(now);
  if (!in.deadline_seconds) {
    if (auto* conditions = status.if_contains("conditions"); conditions && conditions->is_array()) {
      api::EraseIf(conditions->get_array(), [](const json::value& c) {
        return c.is_object() && api::StringAt(c.get_object(), "type") == kProgressing;
      });
      if (conditions->get_array().empty()) status.erase("conditions");
    }
    return std::nullopt;
  }
  // kube's SetDeploymentCondition: the same status and reason is no change
  // (unless `always`); otherwise lastUpdateTime is now and lastTransitionTime
  // moves only with the status.
  auto set = [&](std::string_view state, std::string_view reason, std::string message,
                 bool always = false) {
    const json::object* current = api::FindCondition(&status, kProgressing);
    if (!always && current && api::StringAt(*current, "status") == state &&
        api::StringAt(*current, "reason") == reason) {
      return;
    }
    api::SetCondition(
        status,
        {std::string(kProgressing), std::string(state), std::string(reason), std::move(message)},
        stamp);
    if (json::object* c = MutableCondition(status, kProgressing)) (*c)["lastUpdateTime"] = stamp;
  };
  auto reason_now = [&] {
    const json::object* c = api::FindCondition(&status, kProgressing);
    return c ? std::string(api::StringAt(*c, "reason")) : std::string();
  };
  const std::string subject = in.new_replica_set.empty()
                                  ? "Deployment \"" + in.deployment + "\""
                                  : "ReplicaSet \"" + in.new_replica_set + "\"";

  // checkPausedConditions.
  if (reason_now() != "ProgressDeadlineExceeded") {
    if (in.paused && reason_now() != "DeploymentPaused") {
      set("Unknown", "DeploymentPaused", "Deployment is paused");
    } else if (!in.paused && reason_now() == "DeploymentPaused") {
      set("Unknown", "DeploymentResumed", "Deployment is resumed");
    }
  }
  if (in.paused) return std::nullopt;  // a paused Deployment's progress is not judged

  // getNewReplicaSet.
  if (in.created_new_replica_set) {
    set("True", "NewReplicaSetCreated", "Created new replica set \"" + in.new_replica_set + "\"");
  } else if (!in.new_replica_set.empty() && !api::FindCondition(&status, kProgressing)) {
    set("True", "FoundNewReplicaSet", "Found new replica set \"" + in.new_replica_set + "\"");
  }

  // syncRolloutStatus.
  const RolloutCounts& b = in.before;
  const RolloutCounts& n = in.now;
  const bool complete = n.updated == in.spec_replicas && n.replicas == in.spec_replicas &&
                        n.available == in.spec_replicas;
  const bool already_complete = n.replicas == n.updated && reason_now() == "NewReplicaSetAvailable";
  if (!already_complete) {
    const bool progressing = n.updated > b.updated ||
                             (n.replicas - n.updated) < (b.replicas - b.updated) ||
                             n.ready > b.ready || n.available > b.available;
    if (complete) {
      set("True", "NewReplicaSetAvailable", subject + " has successfully progressed.");
    } else if (progressing) {
      set("True", "ReplicaSetUpdated", subject + " is progressing.", /*always=*/true);
    } else if (const json::object* c = api::FindCondition(&status, kProgressing)) {
      const std::string_view reason = api::StringAt(*c, "reason");
      auto last = api::ParseRfc3339(api::StringAt(*c, "lastUpdateTime"));
      if (reason != "NewReplicaSetAvailable" && reason != "ProgressDeadlineExceeded" && last &&
          *last + std::chrono::seconds(*in.deadline_seconds) < now) {
        set("False", "ProgressDeadlineExceeded", subject + " has timed out progressing.");
      }
    }
  }

  // requeueStuckDeployment.
  const json::object* c = api::FindCondition(&status, kProgressing);
  if (!c || complete || api::StringAt(*c, "reason") == "ProgressDeadlineExceeded" ||
      api::StringAt(*c, "reason") == "NewReplicaSetAvailable") {
    return std::nullopt;
  }
  auto last = api::ParseRfc3339(api::StringAt(*c, "lastUpdateTime"));
  if (!last) last = now;
  auto after = std::chrono::duration_cast<std::chrono::milliseconds>(
      *last + std::chrono::seconds(*in.deadline_seconds) - now);
  if (after < std::chrono::milliseconds(0)) after = std::chrono::milliseconds(0);
  return after + std::chrono::seconds(1);
}

}  // namespace berth::controllers
