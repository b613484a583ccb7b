#include "controllers/ttlafterfinished/ttl_after_finished_controller.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

// The terminal condition's lastTransitionTime, when the Job has finished.
std::optional<std::chrono::system_clock::time_point> FinishTime(const api::Object& job) {
  const json::object* status = api::StatusOf(job);
  const json::array* conditions = api::ArrayAt(status, "conditions");
  if (!conditions) return std::nullopt;
  for (const auto& c : *conditions) {
    if (!c.is_object()) continue;
    const json::object& o = c.get_object();
    const std::string_view type = api::StringAt(o, "type");
    if ((type != "Complete" && type != "Failed") || api::StringAt(o, "status") != "True") continue;
    if (auto done = api::ParseRfc3339(api::StringAt(status, "completionTime"));
        done && type == "Complete") {
      return done;
    }
    return api::ParseRfc3339(api::StringAt(o, "lastTransitionTime"));
  }
  return std::nullopt;
}

}  // namespace

TtlAfterFinishedController::TtlAfterFinishedController(const ControllerContext& context,
                                                       int workers)
    : Controller("ttlafterfinished", context, workers),
      jobs_(context.informers.For(api::Kind::kJob)) {
  auto enqueue = [this](const api::ObjectPtr& job) {
    if (ExpiresAt(*job)) Enqueue(client::ObjectKey(*job));
  };
  jobs_.AddHandlers({enqueue, enqueue, nullptr});
}

std::optional<std::chrono::system_clock::time_point> TtlAfterFinishedController::ExpiresAt(
    const api::Object& job) {
  const json::object* spec = api::Spec(job);
  if (!spec || !spec->contains("ttlSecondsAfterFinished") || api::BeingDeleted(job))
    return std::nullopt;
  const int64_t ttl = api::IntAt(spec, "ttlSecondsAfterFinished", -1);
  if (ttl < 0) return std::nullopt;
  auto finished = FinishTime(job);
  if (!finished) return std::nullopt;
  return *finished + std::chrono::seconds(ttl);
}

Status TtlAfterFinishedController::Reconcile(const std::string& key) {
  api::ObjectPtr cached = jobs_.Get(key);
  if (!cached) return Status::Ok();
  auto expires = ExpiresAt(*cached);
  if (!expires) return Status::Ok();
  const auto now = clock_.WallNow();
  if (now < *expires) {
    EnqueueAfter(key, std::chrono::ceil<std::chrono::milliseconds>(*expires - now));
    return Status::Ok();
  }
  // The cache may be behind: judge the Job as the API server has it.
  auto fresh = client_.Get(api::Kind::kJob, cached->namespace_name(), cached->name());
  if (!fresh.ok())
    return fresh.status().code() == StatusCode::kNotFound ? Status::Ok() : fresh.status();
  expires = ExpiresAt(*fresh.value());
  if (!expires) return Status::Ok();
  if (now < *expires) {
    EnqueueAfter(key, std::chrono::ceil<std::chrono::milliseconds>(*expires - now));
    return Status::Ok();
  }
  Status s = client_.Delete(api::Kind::kJob, fresh.value()->namespace_name(), fresh.value()->name(),
                            {.propagation_policy = "Foreground",
                             .uid_precondition = fresh.value()->uid(),
                             .resource_version_precondition = fresh.value()->resource_version()});
  if (s.code() == StatusCode::kNotFound) return Status::Ok();
  return s;
}

}  // namespace berth::controllers
