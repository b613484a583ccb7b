#pragma once
// NodeLabelWeights: a Score plugin that turns node labels into weights, so
// that operators steer placement — and above all the WeightedRandom node
// selection's draw — by hardware and topology labels. berth's own plugin
// (kube has none like it).
//
// Args:
//   labels:
//   - label: example.com/memory-bandwidth
//     values: {high: 10, medium: 5}
//   - label: topology.kubernetes.io/zone
//     values: {zone-a: 3}
//
// A node's raw score is the sum, over the listed labels, of the value its
// label has in `values` (a missing label, or a value not listed, adds 0).
// Scores are then normalised so that the best feasible node gets 100 (kube's
// DefaultNormalizeScore), so only the values' ratios matter: with only this
// plugin scoring and WeightedRandom selection, a "high" node above is drawn
// twice as often as a "medium" one, and a node with neither never (unless no
// node has either: all scores 0 draw uniformly).

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

class NodeLabelWeights final : public ScorePlugin {
 public:
  static constexpr std::string_view kName = "NodeLabelWeights";
  static constexpr int64_t kMaxValue = 100;  // each value is in [0, kMaxValue]

  struct Rule {
    std::string label;
    std::vector<std::pair<std::string, int64_t>> values;  // label value → score, in the order given
  };

  explicit NodeLabelWeights(std::vector<Rule> rules) : rules_(std::move(rules)) {}
  std::string_view Name() const override { return kName; }
  PluginStatus Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  PluginStatus NormalizeScore(const CycleState&, const PodInfo&,
                              std::span<NodeScore> scores) const override;

 private:
  std::vector<Rule> rules_;
};

// Errors name the field: "labels[0].values.high: Invalid value: 101: must be
// between 0 and 100", "labels[1].label: Required value", "labels: Required value".
Result<std::shared_ptr<Plugin>> NewNodeLabelWeights(const boost::json::object& args,
                                                    const Handle& handle);

}  // namespace berth::scheduler
