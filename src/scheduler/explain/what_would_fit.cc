#include "scheduler/explain/what_would_fit.h"

#include <algorithm>
#include <limits>
#include <map>

#include "api/quantity.h"
#include "api/resources.h"
#include "scheduler/plugins/basic/basic_plugins.h"
#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_resources/node_resources_fit.h"
#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"

namespace berth::scheduler {

namespace {

// At most this many pods are named in one hint ("and N more").
constexpr size_t kMaxPodsNamed = 3;

bool HasReason(const std::vector<std::string>& reasons, std::string_view reason) {
  return std::find(reasons.begin(), reasons.end(), reason) != reasons.end();
}

std::string TaintText(const api::Taint& taint) {
  std::string text = taint.key;
  if (!taint.value.empty()) text += "=" + taint.value;
  return text + ":" + std::string(api::TaintEffectName(taint.effect));
}

std::string LabelText(std::string_view key, std::string_view value) {
  return std::string(key) + "=" + std::string(value);
}

// "ns/a, ns/b and 3 more".
std::string PodList(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size() && i < kMaxPodsNamed; ++i) out += (i ? ", " : "") + keys[i];
  if (keys.size() > kMaxPodsNamed)
    out += " and " + std::to_string(keys.size() - kMaxPodsNamed) + " more";
  return out;
}

FitHint ResourcesHint(const FilterPlugin& plugin, const std::vector<std::string>& reasons,
                      const PodInfo& pod, const NodeInfo& node) {
  FitHint hint;
  const auto* fit = dynamic_cast<const NodeResourcesFit*>(&plugin);
  const int64_t headroom = fit ? fit->headroom_percent : 0;
  auto usable = [&](int64_t allocatable) {
    return headroom == 0
               ? allocatable
               : allocatable / 100 * (100 - headroom) + allocatable % 100 * (100 - headroom) / 100;
  };
  const api::ResourceList& alloc = node.allocatable();
  const api::ResourceList& used = node.requested();
  if (HasReason(reasons, "Too many pods")) {
    hint.changes.push_back("pods: the node already runs " + std::to_string(used.pods) +
                           " pods, its allocatable " + std::to_string(alloc.pods) +
                           ": one must go");
    hint.shortfall += alloc.pods > 0 ? 1.0 / static_cast<double>(alloc.pods) : 1.0;
  }
  std::vector<std::string> names = {"cpu", "memory", "ephemeral-storage"};
  for (const auto& [name, amount] : pod.view->requests.scalars) names.push_back(name);
  for (const std::string& name : names) {
    if (!HasReason(reasons, "Insufficient " + name)) continue;
    const int64_t want = pod.view->requests.Get(name);
    const int64_t capacity = usable(alloc.Get(name));
    const int64_t free = std::max<int64_t>(0, capacity - used.Get(name));
    const int64_t short_by = want - free;
    std::string text = name + ": short by " + FormatAmount(name, short_by) + " (the pod requests " +
                       FormatAmount(name, want) + ", " + FormatAmount(name, free) + " free of " +
                       FormatAmount(name, capacity) + (headroom ? " usable" : " allocatable") + ")";
    if (want > capacity) text += "; more than the node has: no eviction can make room";
    hint.changes.push_back(std::move(text));
    hint.shortfall +=
        capacity > 0 ? static_cast<double>(short_by) / static_cast<double>(capacity) : 1.0;
  }
  return hint;
}

FitHint TaintHint(const PodInfo& pod, const NodeInfo& node) {
  FitHint hint;
  if (!node.view()) return hint;
  for (const auto& taint : node.view()->taints) {
    if (taint.effect != api::TaintEffect::kNoSchedule &&
        taint.effect != api::TaintEffect::kNoExecute)
      continue;
    if (api::Tolerated(pod.view->tolerations, taint)) continue;
    hint.changes.push_back("add a toleration for taint " + TaintText(taint) +
                           " (or remove the taint)");
  }
  return hint;
}

// Why one node selector requirement does not match the node's labels.
std::string RequirementMiss(const api::NodeSelectorRequirement& r, const NodeInfo& node) {
  std::optional<std::string_view> has = node.labels().Get(r.key);
  std::string want = r.key + " " + r.operator_text;
  if (!r.values.empty()) {
    want += " [";
    for (size_t i = 0; i < r.values.size(); ++i) want += (i ? " " : "") + r.values[i];
    want += "]";
  }
  return "node affinity wants " + want +
         (has ? ", the node has " + LabelText(r.key, *has) : ", the node lacks label " + r.key);
}

FitHint NodeAffinityHint(const PodInfo& pod, const NodeInfo& node) {
  FitHint hint;
  for (const auto& [key, value] : pod.view->node_selector) {
    std::optional<std::string_view> has = node.labels().Get(key);
    if (has && *has == value) continue;
    hint.changes.push_back(has ? "nodeSelector wants " + LabelText(key, value) + ", the node has " +
                                     LabelText(key, *has)
                               : "node lacks label " + LabelText(key, value) + " (nodeSelector)");
  }
  if (const auto& required = pod.view->required_node_affinity;
      required && !required->Matches(node.labels(), node.name())) {
    // The term that misses by the fewest requirements: the smallest change.
    std::vector<std::string> best;
    size_t best_count = std::numeric_limits<size_t>::max();
    for (const auto& term : required->terms) {
      std::vector<std::string> misses;
      for (const auto& r : term.match_expressions) {
        if (!r.Matches(node.labels())) misses.push_back(RequirementMiss(r, node));
      }
      for (const auto& r : term.match_fields) {
        if (!r.MatchesField(node.name()))
          misses.push_back("node affinity's matchFields " + r.key + " excludes the node");
      }
      if (term.match_expressions.empty() && term.match_fields.empty())
        misses.push_back("an empty node selector term matches no node");
      if (misses.size() < best_count) {
        best_count = misses.size();
        best = std::move(misses);
      }
    }
    hint.changes.insert(hint.changes.end(), best.begin(), best.end());
  }
  if (hint.changes.empty())
    hint.changes.emplace_back("the profile's addedAffinity (NodeAffinity args) excludes the node");
  return hint;
}

FitHint PortsHint(const PodInfo& pod, const NodeInfo& node) {
  FitHint hint;
  for (const auto& port : pod.view->host_ports) {
    if (!node.PortConflicts(port)) continue;
    std::vector<std::string> holders;
    for (const auto& p : node.pods()) {
      for (const auto& used : p->view->host_ports) {
        if (api::HostPortsConflict(port, used)) {
          holders.push_back(p->key);
          break;
        }
      }
    }
    hint.changes.push_back("host port " + std::to_string(port.port) + "/" + port.protocol +
                           " is taken" +
                           (holders.empty() ? std::string() : " by " + PodList(holders)));
  }
  return hint;
}

// The matching pods (the pod's namespace, the constraint's selector) per
// domain of `key`, over the nodes the constraint counts.
std::map<std::string, int64_t> SpreadCounts(const api::TopologySpreadConstraint& c,
                                            const PodInfo& pod, const Snapshot& snapshot) {
  std::map<std::string, int64_t> counts;
  for (const auto& n : snapshot.nodes()) {
    std::optional<std::string_view> domain = n->labels().Get(c.topology_key);
    if (!domain) continue;
    if (c.node_affinity_honor && !NodeAffinity::RequiredMatches(pod, *n)) continue;
    int64_t& count = counts[std::string(*domain)];
    for (const auto& p : n->pods()) {
      if (p->namespace_name() == pod.namespace_name() && !p->view->terminating &&
          p->key != pod.key && c.label_selector.Matches(p->labels())) {
        ++count;
      }
    }
  }
  return counts;
}

FitHint SpreadHint(const PodInfo& pod, const NodeInfo& node, const Snapshot& snapshot) {
  FitHint hint;
  for (const auto& c : pod.view->topology_spread_constraints) {
    if (!c.do_not_schedule) continue;
    std::optional<std::string_view> domain = node.labels().Get(c.topology_key);
    if (!domain) {
      hint.changes.push_back("node lacks label " + c.topology_key +
                             " (a topology spread constraint's topologyKey)");
      continue;
    }
    auto counts = SpreadCounts(c, pod, snapshot);
    if (counts.empty()) continue;
    auto least = std::min_element(counts.begin(), counts.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    const int64_t self = c.label_selector.Matches(pod.labels()) ? 1 : 0;
    const int64_t here = counts[std::string(*domain)];
    const int64_t skew = here + self - least->second;
    if (skew <= c.max_skew) continue;
    hint.changes.push_back(
        "topology " + LabelText(c.topology_key, *domain) + " has " + std::to_string(here) +
        " matching pods, " + LabelText(c.topology_key, least->first) + " has " +
        std::to_string(least->second) + ": placing the pod here makes skew " +
        std::to_string(skew) + " > maxSkew " + std::to_string(c.max_skew) + " (room in " +
        LabelText(c.topology_key, least->first) + " or a larger maxSkew would do)");
  }
  return hint;
}

FitHint InterPodAffinityHint(const FilterPlugin& plugin, const PodInfo& pod, const NodeInfo& node,
                             const Snapshot& snapshot) {
  FitHint hint;
  const auto* affinity = dynamic_cast<const InterPodAffinity*>(&plugin);
  if (!affinity) return hint;
  // The pods in the node's domain of `key` that `match` accepts.
  auto pods_in_domain = [&](const std::string& key, const auto& match) {
    std::vector<std::string> found;
    std::optional<std::string_view> domain = node.labels().Get(key);
    if (!domain) return found;
    for (const auto& n : snapshot.nodes()) {
      if (n->labels().Get(key) != domain) continue;
      for (const auto& p : n->pods()) {
        if (p->key != pod.key && match(*p)) found.push_back(p->key);
      }
    }
    return found;
  };
  for (const auto& term : pod.view->pod_affinity.required) {
    std::optional<std::string_view> domain = node.labels().Get(term.topology_key);
    if (!domain) {
      hint.changes.push_back("node lacks label " + term.topology_key +
                             " (a required pod affinity term's topologyKey)");
      continue;
    }
    auto found = pods_in_domain(
        term.topology_key, [&](const PodInfo& p) { return affinity->TermMatches(term, pod, p); });
    if (found.empty()) {
      hint.changes.push_back("no pod matching the required pod affinity term (selector " +
                             term.label_selector.ToString() + ") runs in " +
                             LabelText(term.topology_key, *domain));
    }
  }
  for (const auto& term : pod.view->pod_anti_affinity.required) {
    auto found = pods_in_domain(
        term.topology_key, [&](const PodInfo& p) { return affinity->TermMatches(term, pod, p); });
    if (!found.empty()) {
      hint.changes.push_back(
          "pod(s) " + PodList(found) + " in " +
          LabelText(term.topology_key, *node.labels().Get(term.topology_key)) +
          " match the pod's anti-affinity: they would have to go, or the term be relaxed");
    }
  }
  // Existing pods whose own required anti-affinity rejects this pod here.
  std::vector<std::string> rejecting;
  for (const NodeInfo* n : snapshot.have_pods_with_required_anti_affinity()) {
    for (const auto& p : n->pods_with_required_anti_affinity()) {
      if (p->key == pod.key) continue;
      for (const auto& term : p->view->pod_anti_affinity.required) {
        std::optional<std::string_view> theirs = n->labels().Get(term.topology_key);
        if (!theirs || node.labels().Get(term.topology_key) != theirs) continue;
        if (affinity->TermMatches(term, *p, pod)) {
          rejecting.push_back(p->key + " (" + LabelText(term.topology_key, *theirs) + ")");
          break;
        }
      }
    }
  }
  if (!rejecting.empty()) {
    hint.changes.push_back("the anti-affinity of pod(s) " + PodList(rejecting) +
                           " keeps this pod away");
  }
  return hint;
}

}  // namespace

std::string FormatAmount(std::string_view resource, int64_t amount) {
  if (resource == "cpu") return api::Quantity::FromMilli(amount).ToString();
  if (resource == "memory" || resource == "ephemeral-storage" ||
      resource.starts_with("hugepages-")) {
    return api::Quantity::FromInt(amount, api::Quantity::Format::kBinarySI).ToString();
  }
  return std::to_string(amount);
}

FitHint WhatWouldFit(const FilterPlugin& plugin, const std::vector<std::string>& reasons,
                     const PodInfo& pod, const NodeInfo& node, const Snapshot& snapshot) {
  const std::string_view name = plugin.Name();
  FitHint hint;
  if (name == NodeResourcesFit::kName) {
    hint = ResourcesHint(plugin, reasons, pod, node);
  } else if (name == TaintToleration::kName) {
    hint = TaintHint(pod, node);
  } else if (name == NodeUnschedulable::kName) {
    if (node.node()) {
      hint.changes.push_back("the node is cordoned (spec.unschedulable): kubectl uncordon " +
                             node.name() +
                             ", or a toleration for node.kubernetes.io/unschedulable:NoSchedule");
    }
  } else if (name == NodeAffinity::kName) {
    hint = NodeAffinityHint(pod, node);
  } else if (name == NodeName::kName) {
    hint.changes.push_back("spec.nodeName names node " + pod.view->node_name);
  } else if (name == NodePorts::kName) {
    hint = PortsHint(pod, node);
  } else if (name == PodTopologySpread::kName) {
    hint = SpreadHint(pod, node, snapshot);
  } else if (name == InterPodAffinity::kName) {
    hint = InterPodAffinityHint(plugin, pod, node, snapshot);
  }
  // A plugin this file knows nothing more about (volumes, out-of-tree), or a
  // case the hints above did not recognise: its own reasons.
  if (hint.changes.empty()) {
    for (const auto& r : reasons) hint.changes.push_back(std::string(name) + ": " + r);
  }
  return hint;
}

}  // namespace berth::scheduler
