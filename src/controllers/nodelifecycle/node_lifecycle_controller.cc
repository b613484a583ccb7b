#include "controllers/nodelifecycle/node_lifecycle_controller.h"

#include <algorithm>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/node_view.h"
#include "api/pod_view.h"
#include "api/taints.h"
#include "api/time/rfc3339.h"
#include "controllers/for_update.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kUnreachable = "node.kubernetes.io/unreachable";
constexpr std::string_view kNotReady = "node.kubernetes.io/not-ready";
constexpr char kLeaseNamespace[] = "kube-node-lease";

using SysClock = std::chrono::system_clock;

// The taints this controller manages that `node` carries.
bool HasTaint(const json::array* taints, std::string_view key, std::string_view effect) {
  if (!taints) return false;
  return std::any_of(taints->begin(), taints->end(), [&](const json::value& t) {
    return t.is_object() && api::StringAt(t.get_object(), "key") == key && api::StringAt(t.get_object(), "effect") == effect;
  });
}

}  // namespace

NodeLifecycleController::NodeLifecycleController(const ControllerContext& context,
                                                 NodeLifecycleOptions options)
    : Controller("nodelifecycle", context, 2),
      options_(options),
      nodes_(context.informers.For(api::Kind::kNode)),
      leases_(context.informers.For(api::Kind::kLease)),
      pods_(context.informers.For(api::Kind::kPod)),
      node_events_(context.events, {"node-controller", ""}),
      eviction_events_(context.events, {"taint-eviction-controller", ""}) {
  auto node_changed = [this](const api::ObjectPtr& node) { Enqueue(node->name()); };
  nodes_.AddHandlers({node_changed, node_changed, node_changed});
  auto lease_changed = [this](const api::ObjectPtr& lease) {
    if (lease->namespace_name() == kLeaseNamespace) Enqueue(lease->name());
  };
  leases_.AddHandlers({lease_changed, lease_changed, lease_changed});
}

NodeLifecycleController::~NodeLifecycleController() {
  ticker_.reset();  // returns once a tick is not running
  Stop();
}

void NodeLifecycleController::Start() {
  Run();
  ticker_ = std::make_unique<api::Ticker>(clock_, options_.monitor_period, [this] {
    for (const auto& node : nodes_.List()) Enqueue(node->name());
  });
}

Status NodeLifecycleController::Reconcile(const std::string& key) {
  api::ObjectPtr node = nodes_.Get(key);
  if (!node) {
    std::lock_guard lock(registered_mu_);
    registered_.erase(key);
    return Status::Ok();
  }
  bool first_seen;
  {
    std::lock_guard lock(registered_mu_);
    first_seen = registered_.insert(key).second;
  }
  if (first_seen) {
    node_events_.Event(*node, "Normal", "RegisteredNode",
                       "Node " + key + " event: Registered Node " + key + " in Controller");
  }
  api::ObjectPtr lease = leases_.Get(client::ObjectKey(kLeaseNamespace, key));
  if (!lease) return Status::Ok();  // no kubelet: nothing to monitor
  auto renewed = api::ParseRfc3339(api::StringAt(api::Spec(*lease), "renewTime"));
  bool healthy = renewed && clock_.WallNow() - *renewed <= options_.grace_period;
  if (Status s = UpdateNode(node, healthy, true); !s.ok()) return s;
  // The cache may already hold the node as just written (taints); it may also be gone.
  api::ObjectPtr current = nodes_.Get(key);
  return current ? EvictPods(*current, key) : Status::Ok();
}

Status NodeLifecycleController::UpdateNode(const api::ObjectPtr& node, bool healthy_lease, bool lease_known) {
  const auto* ready = api::FindCondition(api::StatusOf(*node), "Ready");
  std::string_view ready_status = ready ? api::StringAt(*ready, "status") : "Unknown";
  json::object next = ForUpdate(*node);
  bool changed = false;
  std::string now = api::FormatRfc3339(clock_.WallNow());
  if (!healthy_lease && ready_status != "Unknown") {
    // The kubelet went silent: every condition becomes Unknown.
    json::object& status = api::MutableObject(next, "status");
    std::vector<std::string> types;
    for (const auto& c : api::MutableArray(status, "conditions")) {
      if (c.is_object()) types.emplace_back(api::StringAt(c.get_object(), "type"));
    }
    for (const auto& type : types) {
      api::SetCondition(status, {type, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."},
                        now);
    }
    auto written = client_.UpdateStatus(api::Kind::kNode, next);
    if (!written.ok()) return written.status();
    node_events_.Event(*written.value(), "Normal", "NodeNotReady",
                       "Node " + node->name() + " status is now: NodeNotReady");
    next = ForUpdate(*written.value());
    ready_status = "Unknown";
    changed = true;
  }
  // Taints follow the Ready condition.
  std::string_view want_key = ready_status == "Unknown" ? kUnreachable : ready_status == "False" ? kNotReady : "";
  json::object& spec = api::MutableObject(next, "spec");
  json::array& taints = api::MutableArray(spec, "taints");
  bool taints_changed = false;
  for (std::string_view key : {kUnreachable, kNotReady}) {
    for (std::string_view effect : {"NoSchedule", "NoExecute"}) {
      bool want = key == want_key;
      bool has = HasTaint(&taints, key, effect);
      if (want && !has) {
        taints.push_back(json::object{{"key", key}, {"effect", effect}, {"timeAdded", now}});
        taints_changed = true;
      } else if (!want && has) {
        api::EraseIf(taints, [&](const json::value& t) {
          return t.is_object() && api::StringAt(t.get_object(), "key") == key && api::StringAt(t.get_object(), "effect") == effect;
        });
        taints_changed = true;
      }
    }
  }
  if (taints.empty()) spec.erase("taints");
  if (taints_changed) {
    auto written = client_.Update(api::Kind::kNode, next);
    if (!written.ok()) return written.status();
  }
  (void)changed;
  (void)lease_known;
  return Status::Ok();
}

Status NodeLifecycleController::EvictPods(const api::Object& node, const std::string& key) {
  const auto* spec = api::Spec(node);
  const json::array* taints = spec ? api::ArrayAt(*spec, "taints") : nullptr;
  if (!taints) return Status::Ok();
  struct NoExecute {
    api::Taint taint;
    SysClock::time_point added;
  };
  std::vector<NoExecute> no_execute;
  for (const auto& t : *taints) {
    if (!t.is_object() || api::StringAt(t.get_object(), "effect") != "NoExecute") continue;
    const auto& o = t.get_object();
    auto added = api::ParseRfc3339(api::StringAt(o, "timeAdded")).value_or(clock_.WallNow());
    no_execute.push_back({{std::string(api::StringAt(o, "key")), std::string(api::StringAt(o, "value")),
                           api::TaintEffect::kNoExecute, "NoExecute"},
                          added});
  }
  if (no_execute.empty()) return Status::Ok();
  auto now = clock_.WallNow();
  std::optional<SysClock::time_point> next_check;
  Status first;
  for (const auto& pod : pods_.ByIndex(client::kNodeNameIndex, key)) {
    if (api::BeingDeleted(*pod)) continue;
    const auto* view = pod->As<api::PodView>();
    if (!view) continue;
    // kube's rule: evict now when some NoExecute taint is not tolerated; else
    // after the shortest tolerationSeconds among the matching tolerations
    // (counted from the newest taint), never when none of them has seconds.
    bool all_tolerated = true;
    std::optional<int64_t> min_seconds;
    SysClock::time_point newest{};
    for (const auto& ne : no_execute) {
      newest = std::max(newest, ne.added);
      bool tolerated = false;
      for (const auto& tol : view->tolerations) {
        if (!tol.Tolerates(ne.taint)) continue;
        tolerated = true;
        if (tol.toleration_seconds) {
          int64_t seconds = std::max<int64_t>(0, *tol.toleration_seconds);
          if (!min_seconds || seconds < *min_seconds) min_seconds = seconds;
        }
      }
      all_tolerated = all_tolerated && tolerated;
    }
    std::optional<SysClock::time_point> deadline;
    if (!all_tolerated) {
      deadline = now;
    } else if (min_seconds) {
      deadline = newest + std::chrono::seconds(*min_seconds);
    }
    if (!deadline) continue;
    if (*deadline <= now) {
      eviction_events_.Event(
          *pod, "Normal", "TaintManagerEviction",
          "Marking for deletion Pod " + pod->namespace_name() + "/" + pod->name());
      Status s = client_.Delete(api::Kind::kPod, pod->namespace_name(), pod->name(), {.uid_precondition = pod->uid()});
      if (!s.ok() && s.code() != StatusCode::kNotFound && first.ok()) first = s;
    } else if (!next_check || *deadline < *next_check) {
      next_check = deadline;
    }
  }
  if (next_check) {
    EnqueueAfter(key, std::chrono::duration_cast<std::chrono::milliseconds>(*next_check - now) +
                          std::chrono::milliseconds(50));
  }
  return first;
}

}  // namespace berth::controllers
