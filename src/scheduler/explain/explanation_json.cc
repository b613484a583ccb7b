#include <boost/json.hpp>
#include <map>

#include "scheduler/explain/explanation.h"

namespace berth::scheduler {

namespace json = boost::json;

namespace {

// kube's framework.Code names.
std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
    case Code::kPending:
      return "Pending";
  }
  return "Unknown";
}

json::array Strings(const std::vector<std::string>& items) {
  return json::array(items.begin(), items.end());
}

json::object StatusJson(const PluginStatus& s) {
  json::object o;
  o["code"] = CodeName(s.code());
  if (!s.plugin().empty()) o["plugin"] = s.plugin();
  if (!s.reasons().empty()) o["reasons"] = Strings(s.reasons());
  return o;
}

}  // namespace

json::object ExplanationToJson(const Explanation& e) {
  json::object o;
  o["pod"] = e.pod;
  o["schedulerName"] = e.profile;
  o["summary"] = e.summary;
  o["suggestions"] = Strings(e.suggestions);
  o["phase"] = e.bound_node.empty() ? "Pending" : "Bound";
  if (!e.bound_node.empty()) o["nodeName"] = e.bound_node;
  if (!e.nominated_node.empty()) o["nominatedNodeName"] = e.nominated_node;
  o["totalNodes"] = e.total_nodes;
  o["feasibleNodes"] = e.feasible;
  if (e.pre_filter) o["preFilter"] = StatusJson(*e.pre_filter);

  // How many nodes each reason rejected (kube's FitError counts).
  std::map<std::string, int64_t> counts;
  json::array nodes;
  for (const auto& n : e.nodes) {
    json::object node;
    node["name"] = n.node;
    node["status"] = StatusJson(n.status);
    node["failingPlugins"] = n.failing_plugins;
    json::array filters;
    for (const auto& f : n.filters) {
      json::object v;
      v["plugin"] = f.plugin;
      v["code"] = CodeName(f.code);
      if (!f.reasons.empty()) v["reasons"] = Strings(f.reasons);
      filters.push_back(std::move(v));
    }
    node["filters"] = std::move(filters);
    if (!n.would_fit.empty()) node["wouldFit"] = Strings(n.would_fit);
    if (n.shortfall > 0) node["shortfall"] = n.shortfall;
    for (const auto& r : n.status.reasons()) counts[r]++;
    nodes.push_back(std::move(node));
  }
  o["nodes"] = std::move(nodes);
  json::object reason_counts;
  for (const auto& [reason, count] : counts) reason_counts[reason] = count;
  o["reasonCounts"] = std::move(reason_counts);
  o["closestNodes"] = Strings(e.closest_nodes);

  json::array scores;
  for (const auto& row : e.scores) {
    json::object r;
    r["node"] = row.node;
    json::array plugins;
    for (const auto& c : row.cells) {
      plugins.push_back(json::object{{"plugin", c.plugin},
                                     {"raw", c.raw},
                                     {"normalized", c.normalized},
                                     {"weight", c.weight},
                                     {"weighted", c.weighted}});
    }
    r["plugins"] = std::move(plugins);
    r["total"] = row.total;
    scores.push_back(std::move(r));
  }
  o["scores"] = std::move(scores);

  json::object selection;
  selection["strategy"] = e.selection;
  if (!e.chosen.empty()) selection["chosen"] = e.chosen;
  if (!e.runner_up.empty()) {
    selection["runnerUp"] = e.runner_up;
    selection["margin"] = e.margin;
  }
  selection["tied"] = e.tied;
  selection["randomTieBreak"] = e.random_decides;
  selection["chosenProbability"] = e.chosen_probability;
  o["selection"] = std::move(selection);

  json::object preemption;
  preemption["considered"] = e.preemption.considered;
  if (e.preemption.considered) {
    preemption["helps"] = e.preemption.helps;
    if (!e.preemption.reason.empty()) preemption["reason"] = e.preemption.reason;
    if (e.preemption.helps) {
      preemption["node"] = e.preemption.node;
      preemption["victims"] = Strings(e.preemption.victims);
      preemption["pdbViolations"] = e.preemption.pdb_violations;
    }
    preemption["candidates"] = e.preemption.candidates;
  }
  o["preemption"] = std::move(preemption);
  if (const auto& d = e.decision) {
    json::object decision{{"node", d->node},
                          {"score", d->score},
                          {"feasibleNodes", d->feasible},
                          {"tied", d->tied},
                          {"randomTieBreak", d->weighted_random ? d->feasible > 1 : d->tied > 1},
                          {"strategy", d->weighted_random ? "WeightedRandom" : "TopScore"},
                          {"secondsAgo", d->seconds_ago}};
    if (!d->runner_up.empty()) {
      decision["runnerUp"] = d->runner_up;
      decision["margin"] = d->margin;
    }
    o["decision"] = std::move(decision);
  }
  o["notes"] = Strings(e.notes);
  return o;
}

}  // namespace berth::scheduler
