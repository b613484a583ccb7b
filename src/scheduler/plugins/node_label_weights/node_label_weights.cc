#include "scheduler/plugins/node_label_weights/node_label_weights.h"

#include <boost/json/serialize.hpp>

#include "api/labels.h"

namespace berth::scheduler {

namespace json = boost::json;

PluginStatus NodeLabelWeights::Score(const CycleState&, const PodInfo&, const NodeInfo& node,
                                     int64_t* score) const {
  const api::Labels& labels = node.labels();
  int64_t sum = 0;
  for (const Rule& rule : rules_) {
    std::optional<std::string_view> value = labels.Get(rule.label);
    if (!value) continue;
    for (const auto& [wanted, points] : rule.values) {
      if (wanted == *value) {
        sum += points;
        break;
      }
    }
  }
  *score = sum;
  return {};
}

PluginStatus NodeLabelWeights::NormalizeScore(const CycleState&, const PodInfo&,
                                              std::span<NodeScore> scores) const {
  DefaultNormalizeScore(scores, /*reverse=*/false);
  return {};
}

Result<std::shared_ptr<Plugin>> NewNodeLabelWeights(const json::object& args, const Handle&) {
  std::vector<NodeLabelWeights::Rule> rules;
  for (const auto& [key, value] : args) {
    if (key != "labels") return Status::BadRequest(std::string(key) + ": unknown field");
    const json::array* list = value.if_array();
    if (!list)
      return Status::BadRequest("labels: Invalid value: " + json::serialize(value) +
                                ": must be a list");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string here = "labels[" + std::to_string(i) + "]";
      const json::object* entry = (*list)[i].if_object();
      if (!entry)
        return Status::BadRequest(here + ": Invalid value: " + json::serialize((*list)[i]) +
                                  ": must be a map");
      NodeLabelWeights::Rule rule;
      bool has_values = false;
      for (const auto& [field, v] : *entry) {
        if (field == "label") {
          if (!v.is_string())
            return Status::BadRequest(here + ".label: Invalid value: " + json::serialize(v) +
                                      ": must be a string");
          rule.label = v.get_string();
        } else if (field == "values") {
          const json::object* values = v.if_object();
          if (!values)
            return Status::BadRequest(here + ".values: Invalid value: " + json::serialize(v) +
                                      ": must be a map");
          has_values = true;
          for (const auto& [label_value, points] : *values) {
            const std::string where = here + ".values." + std::string(label_value);
            if (!points.is_int64() && !points.is_uint64()) {
              return Status::BadRequest(where + ": Invalid value: " + json::serialize(points) +
                                        ": must be an integer");
            }
            const bool in_range =
                points.is_int64()
                    ? points.get_int64() >= 0 && points.get_int64() <= NodeLabelWeights::kMaxValue
                    : points.get_uint64() <= NodeLabelWeights::kMaxValue;
            if (!in_range) {
              return Status::BadRequest(where + ": Invalid value: " + json::serialize(points) +
                                        ": must be between 0 and " +
                                        std::to_string(NodeLabelWeights::kMaxValue));
            }
            rule.values.emplace_back(std::string(label_value), points.to_number<int64_t>());
          }
        } else {
          return Status::BadRequest(here + "." + std::string(field) + ": unknown field");
        }
      }
      if (rule.label.empty()) return Status::BadRequest(here + ".label: Required value");
      if (!has_values) return Status::BadRequest(here + ".values: Required value");
      for (const auto& earlier : rules) {
        if (earlier.label == rule.label) {
          return Status::BadRequest(here + ".label: Duplicate value: \"" + rule.label + "\"");
        }
      }
      rules.push_back(std::move(rule));
    }
  }
  if (rules.empty()) return Status::BadRequest("labels: Required value: at least one label");
  return std::shared_ptr<Plugin>(std::make_shared<NodeLabelWeights>(std::move(rules)));
}

}  // namespace berth::scheduler
