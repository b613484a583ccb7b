#include "controllers/podgc/pod_gc_controller.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>
#include <vector>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kOutOfService = "node.kubernetes.io/out-of-service";

std::string_view Phase(const api::Object& pod) {
  return api::StringAt(api::StatusOf(pod), "phase");
}
bool Terminated(const api::Object& pod) {
  std::string_view phase = Phase(pod);
  return phase != "Pending" && phase != "Running" && phase != "Unknown" && !phase.empty();
}
std::string_view NodeName(const api::Object& pod) {
  return api::StringAt(api::Spec(pod), "nodeName");
}
bool Evicted(const api::Object& pod) {
  return Phase(pod) == "Failed" && api::StringAt(api::StatusOf(pod), "reason") == "Evicted";
}

bool ReadyTrue(const api::Object& node) {
  const json::array* conditions = api::ArrayAt(api::StatusOf(node), "conditions");
  if (!conditions) return false;
  return std::any_of(conditions->begin(), conditions->end(), [](const json::value& c) {
    return c.is_object() && api::StringAt(c.get_object(), "type") == "Ready" &&
           api::StringAt(c.get_object(), "status") == "True";
  });
}

bool OutOfService(const api::Object& node) {
  const json::array* taints = api::ArrayAt(api::Spec(node), "taints");
  if (!taints) return false;
  return std::any_of(taints->begin(), taints->end(), [](const json::value& t) {
    return t.is_object() && api::StringAt(t.get_object(), "key") == kOutOfService &&
           api::StringAt(t.get_object(), "effect") == "NoExecute";
  });
}

}  // namespace

PodGCController::PodGCController(const ControllerContext& context, PodGCOptions options)
    : Controller("podgc", context, 1),
      options_(options),
      pods_(context.informers.For(api::Kind::kPod)),
      nodes_(context.informers.For(api::Kind::kNode)) {}

PodGCController::~PodGCController() {
  ticker_.reset();  // returns once a tick is not running
  Stop();
}

void PodGCController::Start() {
  Run();
  ticker_ = std::make_unique<api::Ticker>(clock_, options_.gc_period, [this] { Enqueue(kKey); });
}

Status PodGCController::Reconcile(const std::string& key) {
  if (key != kKey) return Status::Ok();
  const std::vector<api::ObjectPtr> pods = pods_.List();
  // Every step runs even when an earlier one failed; the first error is
  // returned (and the pass retried).
  Status first = Status::Ok();
  auto keep = [&first](Status s) {
    if (first.ok() && !s.ok()) first = std::move(s);
  };
  if (options_.terminated_pod_threshold > 0) keep(GcTerminated(pods));
  keep(GcTerminatingOutOfService(pods));
  keep(GcOrphaned(pods));
  keep(GcUnscheduledTerminating(pods));
  return first;
}

Status PodGCController::GcTerminated(const std::vector<api::ObjectPtr>& pods) {
  std::vector<api::ObjectPtr> terminated;
  for (const auto& pod : pods) {
    if (Terminated(*pod)) terminated.push_back(pod);
  }
  const int64_t excess =
      static_cast<int64_t>(terminated.size()) - options_.terminated_pod_threshold;
  if (excess <= 0) return Status::Ok();
  // Evicted first (they matter least to their controllers), then oldest, then by name.
  std::sort(terminated.begin(), terminated.end(),
            [](const api::ObjectPtr& a, const api::ObjectPtr& b) {
              if (Evicted(*a) != Evicted(*b)) return Evicted(*a);
              std::string_view ca = api::StringAt(api::Metadata(*a), "creationTimestamp");
              std::string_view cb = api::StringAt(api::Metadata(*b), "creationTimestamp");
              if (ca != cb) return api::ParseRfc3339(ca) < api::ParseRfc3339(cb);
              return a->name() < b->name();
            });
  Status first = Status::Ok();
  for (int64_t i = 0; i < excess; ++i) {
    if (Status s = MarkFailedAndDelete(*terminated[i], nullptr); !s.ok() && first.ok()) first = s;
  }
  return first;
}

Status PodGCController::GcOrphaned(const std::vector<api::ObjectPtr>& pods) {
  const auto now = clock_.Now();
  std::set<std::string, std::less<>> missing;
  for (const auto& pod : pods) {
    std::string_view node = NodeName(*pod);
    if (!node.empty() && !nodes_.Get(std::string(node))) missing.emplace(node);
  }
  // Quarantine newly missing nodes; forget those that came back.
  for (const auto& node : missing) quarantined_.emplace(node, now);
  std::erase_if(quarantined_, [&](const auto& entry) { return !missing.count(entry.first); });
  std::set<std::string, std::less<>> deleted;
  Status first = Status::Ok();
  for (auto it = quarantined_.begin(); it != quarantined_.end();) {
    if (now - it->second < options_.quarantine) {
      ++it;
      continue;
    }
    // The cache may be behind: only the API's word counts.
    auto got = client_.Get(api::Kind::kNode, "", it->first);
    if (!got.ok() && got.status().code() == StatusCode::kNotFound) {
      deleted.insert(it->first);
    } else if (!got.ok() && first.ok()) {
      first = got.status();
    }
    // Looked at: quarantined again from the next pass if still missing (kube's node queue).
    it = quarantined_.erase(it);
  }
  const api::Condition condition{"DisruptionTarget", "True", "DeletionByPodGC",
                                 "PodGC: node no longer exists"};
  for (const auto& pod : pods) {
    if (!deleted.count(NodeName(*pod))) continue;
    if (Status s = MarkFailedAndDelete(*pod, &condition); !s.ok() && first.ok()) first = s;
  }
  return first;
}

Status PodGCController::GcTerminatingOutOfService(const std::vector<api::ObjectPtr>& pods) {
  Status first = Status::Ok();
  for (const auto& pod : pods) {
    if (!api::BeingDeleted(*pod) || NodeName(*pod).empty()) continue;
    api::ObjectPtr node = nodes_.Get(std::string(NodeName(*pod)));
    if (!node || ReadyTrue(*node) || !OutOfService(*node)) continue;
    if (Status s = MarkFailedAndDelete(*pod, nullptr); !s.ok() && first.ok()) first = s;
  }
  return first;
}

Status PodGCController::GcUnscheduledTerminating(const std::vector<api::ObjectPtr>& pods) {
  Status first = Status::Ok();
  for (const auto& pod : pods) {
    if (!api::BeingDeleted(*pod) || !NodeName(*pod).empty()) continue;
    if (Status s = MarkFailedAndDelete(*pod, nullptr); !s.ok() && first.ok()) first = s;
  }
  return first;
}

Status PodGCController::MarkFailedAndDelete(const api::Object& pod,
                                            const api::Condition* condition) {
  const std::string_view phase = Phase(pod);
  if (phase != "Succeeded" && phase != "Failed") {
    json::object next = ForUpdate(pod);
    json::object& status = api::MutableObject(next, "status");
    status["phase"] = "Failed";
    if (condition) api::SetCondition(status, *condition, api::FormatRfc3339(clock_.WallNow()));
    auto written = client_.UpdateStatus(api::Kind::kPod, next);
    if (!written.ok()) {
      return written.status().code() == StatusCode::kNotFound ? Status::Ok() : written.status();
    }
  }
  Status deleted = client_.Delete(api::Kind::kPod, pod.namespace_name(), pod.name(),
                                  {.grace_period_seconds = 0, .uid_precondition = pod.uid()});
  return deleted.code() == StatusCode::kNotFound ? Status::Ok() : deleted;
}

}  // namespace berth::controllers
