#include "scheduler/plugins/node_affinity/node_affinity.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace berth::scheduler {

namespace json = boost::json;

bool NodeAffinity::RequiredMatches(const PodInfo& pod, const NodeInfo& node) {
  const api::Labels& labels = node.labels();
  for (const auto& [key, value] : pod.view->node_selector) {
    auto have = labels.Get(key);
    if (!have || *have != value) return false;
  }
  const auto& required = pod.view->required_node_affinity;
  return !required || required->Matches(labels, node.name());
}

PluginStatus NodeAffinity::PreFilter(CycleState& state, const PodInfo& pod) const {
  if (pod.view->node_selector.empty() && !pod.view->required_node_affinity && !added_required) {
    return PluginStatus::Skip();
  }
  // Required terms that each name their nodes (matchFields metadata.name In,
  // as DaemonSet pods have) restrict the pod to the union of those names,
  // each term's names being the intersection of its In requirements. One
  // term without such a requirement lets every node through (terms are ORed).
  if (const auto& required = pod.view->required_node_affinity; required && !required->terms.empty()) {
    std::vector<std::string> names;
    for (const auto& term : required->terms) {
      std::optional<std::vector<std::string>> term_names;
      for (const auto& r : term.match_fields) {
        if (r.key != "metadata.name" || r.op != api::NodeSelectorRequirement::Op::kIn) continue;
        std::vector<std::string> values = r.values;
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        if (term_names) {
          std::vector<std::string> both;
          std::set_intersection(term_names->begin(), term_names->end(), values.begin(), values.end(),
                                std::back_inserter(both));
          values = std::move(both);
        }
        term_names = std::move(values);
      }
      if (!term_names) return {};
      names.insert(names.end(), term_names->begin(), term_names->end());
    }
    if (names.empty()) return PluginStatus::Unresolvable(std::string(kConflictReason));
    state.RestrictNodes(kName, std::move(names));
  }
  return {};
}

PluginStatus NodeAffinity::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  if (added_required && !added_required->Matches(node.labels(), node.name())) {
    return PluginStatus::Unresolvable("node(s) didn't match scheduler-enforced node affinity");
  }
  if (!RequiredMatches(pod, node)) return PluginStatus::Unresolvable(std::string(kReason));
  return {};
}

PluginStatus NodeAffinity::PreScore(CycleState&, const PodInfo& pod, std::span<const NodeInfo* const>) const {
  if (pod.view->preferred_node_affinity.empty() && added_preferred.empty()) return PluginStatus::Skip();
  return {};
}

PluginStatus NodeAffinity::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node, int64_t* score) const {
  int64_t sum = 0;
  for (const auto* terms : {&pod.view->preferred_node_affinity, &added_preferred}) {
    for (const auto& term : *terms) {
      if (term.weight != 0 && term.preference.Matches(node.labels(), node.name())) sum += term.weight;
    }
  }
  *score = sum;
  return {};
}

PluginStatus NodeAffinity::NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore> scores) const {
  DefaultNormalizeScore(scores, /*reverse=*/false);
  return {};
}

Result<std::shared_ptr<Plugin>> NewNodeAffinity(const json::object& args, const Handle&) {
  auto plugin = std::make_shared<NodeAffinity>();
  auto it = args.find("addedAffinity");
  if (it != args.end() && !it->value().is_null()) {
    if (!it->value().is_object()) return Status::BadRequest("addedAffinity: expected an object");
    // Reuse the pod reader: wrap the affinity as a pod's spec.affinity.nodeAffinity.
    json::object pod{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", json::object{{"name", "args"}}},
                     {"spec", json::object{{"affinity", json::object{{"nodeAffinity", it->value()}}}}}};
    auto object = api::Object::FromJson(json::value(std::move(pod)));
    if (!object.ok()) {
      std::string message = object.status().message();
      const std::string prefix = "spec.affinity.nodeAffinity";
      if (message.rfind(prefix, 0) == 0) message = "addedAffinity" + message.substr(prefix.size());
      return Status::BadRequest(message);
    }
    const auto* view = object.value()->As<api::PodView>();
    plugin->added_required = view->required_node_affinity;
    plugin->added_preferred = view->preferred_node_affinity;
  }
  for (const auto& entry : args) {
    if (entry.key() != "addedAffinity") {
      return Status::BadRequest(std::string(entry.key()) + ": unknown field");
    }
  }
  return std::shared_ptr<Plugin>(std::move(plugin));
}

}  // namespace berth::scheduler
