#include "controllers/daemonset/daemon_pod.h"

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/node_view.h"
#include "api/pod_view.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

struct DaemonToleration {
  const char* key;
  const char* effect;
};

constexpr DaemonToleration kDaemonTolerations[] = {
    {"node.kubernetes.io/not-ready", "NoExecute"},
    {"node.kubernetes.io/unreachable", "NoExecute"},
    {"node.kubernetes.io/disk-pressure", "NoSchedule"},
    {"node.kubernetes.io/memory-pressure", "NoSchedule"},
    {"node.kubernetes.io/pid-pressure", "NoSchedule"},
    {"node.kubernetes.io/unschedulable", "NoSchedule"},
};
constexpr DaemonToleration kHostNetworkToleration = {"node.kubernetes.io/network-unavailable",
                                                     "NoSchedule"};

// kube's AddOrUpdateTolerationInPodSpec: a toleration equal in key,
// operator, value and effect is replaced; otherwise the new one is added.
void AddOrUpdateToleration(json::array& tolerations, const DaemonToleration& t) {
  json::object added{{"key", t.key}, {"operator", "Exists"}, {"effect", t.effect}};
  for (auto& existing : tolerations) {
    const json::object* e = existing.if_object();
    if (!e) continue;
    if (api::StringAt(*e, "key") == t.key && api::StringAt(*e, "operator") == "Exists" &&
        api::StringAt(*e, "value").empty() && api::StringAt(*e, "effect") == t.effect) {
      existing = std::move(added);
      return;
    }
  }
  tolerations.push_back(std::move(added));
}

const json::object* TemplateOf(const api::Object& daemon_set) {
  const json::object* spec = api::Spec(daemon_set);
  return spec ? api::ObjectAt(*spec, "template") : nullptr;
}

}  // namespace

void AddDaemonPodTolerations(json::object& pod_spec) {
  if (!pod_spec.contains("tolerations") || !pod_spec.at("tolerations").is_array())
    pod_spec["tolerations"] = json::array();
  json::array& tolerations = pod_spec["tolerations"].get_array();
  for (const auto& t : kDaemonTolerations) AddOrUpdateToleration(tolerations, t);
  if (api::BoolAt(&pod_spec, "hostNetwork"))
    AddOrUpdateToleration(tolerations, kHostNetworkToleration);
}

void PinToNode(json::object& pod_spec, std::string_view node) {
  json::object term{
      {"matchFields", json::array{json::object{{"key", "metadata.name"},
                                               {"operator", "In"},
                                               {"values", json::array{json::string(node)}}}}}};
  json::object& affinity = api::MutableObject(pod_spec, "affinity");
  json::object& node_affinity = api::MutableObject(affinity, "nodeAffinity");
  json::object& required =
      api::MutableObject(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution");
  required["nodeSelectorTerms"] = json::array{std::move(term)};
}

std::string TargetNodeName(const api::Object& pod) {
  const auto* view = pod.As<api::PodView>();
  if (!view) return {};
  if (!view->node_name.empty()) return view->node_name;
  if (!view->required_node_affinity) return {};
  for (const auto& term : view->required_node_affinity->terms) {
    for (const auto& r : term.match_fields) {
      if (r.key == "metadata.name" && r.op == api::NodeSelectorRequirement::Op::kIn) {
        return r.values.size() == 1 ? r.values[0] : std::string();
      }
    }
  }
  return {};
}

Result<std::shared_ptr<const DaemonPlacement>> DaemonPlacement::For(const api::Object& daemon_set) {
  const json::object* tmpl = TemplateOf(daemon_set);
  json::object pod;
  json::object spec;
  if (tmpl) {
    if (const json::object* s = api::ObjectAt(*tmpl, "spec")) spec = *s;
  }
  AddDaemonPodTolerations(spec);
  pod["spec"] = std::move(spec);
  auto parsed = api::ParsePodView(pod);
  if (!parsed.ok()) return parsed.status();
  const auto* view = static_cast<const api::PodView*>(parsed.value().get());
  auto placement = std::make_shared<DaemonPlacement>();
  placement->node_name_ = view->node_name;
  placement->node_selector_ = view->node_selector;
  placement->required_ = view->required_node_affinity;
  placement->tolerations_ = view->tolerations;
  return std::shared_ptr<const DaemonPlacement>(std::move(placement));
}

DaemonPlacement::Fit DaemonPlacement::Evaluate(const api::Object& node) const {
  static const std::vector<api::Taint> kNone;
  const auto* view = node.As<api::NodeView>();
  return Evaluate(node.name(), node.labels(), view ? view->taints : kNone);
}

DaemonPlacement::Fit DaemonPlacement::Evaluate(std::string_view node_name,
                                               const api::Labels& labels,
                                               const std::vector<api::Taint>& taints) const {
  if (!node_name_.empty() && node_name_ != node_name) return {};
  for (const auto& [key, value] : node_selector_) {
    auto have = labels.Get(key);
    if (!have || *have != value) return {};
  }
  if (required_ && !required_->Matches(labels, node_name)) return {};
  bool untolerated_no_schedule = false;
  for (const auto& taint : taints) {
    if (taint.effect != api::TaintEffect::kNoSchedule &&
        taint.effect != api::TaintEffect::kNoExecute)
      continue;
    if (api::Tolerated(tolerations_, taint)) continue;
    // A pod that does not tolerate a NoExecute taint may not stay either.
    if (taint.effect == api::TaintEffect::kNoExecute) return {};
    untolerated_no_schedule = true;
  }
  return {!untolerated_no_schedule, true};
}

}  // namespace berth::controllers
