#include <algorithm>
#include <iterator>

#include "scheduler/framework/interface.h"

namespace berth::scheduler {

void CycleState::Write(std::string_view key, std::unique_ptr<StateData> data) {
  for (auto& [k, v] : data_) {
    if (k == key) {
      v = std::move(data);
      return;
    }
  }
  data_.emplace_back(std::string(key), std::move(data));
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto copy = std::make_unique<CycleState>(snapshot_);
  copy->skip_filter_ = skip_filter_;
  copy->skip_score_ = skip_score_;
  copy->record_plugin_metrics_ = record_plugin_metrics_;
  copy->plugin_node_phase_ = plugin_node_phase_;
  copy->node_restriction_ = node_restriction_;
  copy->restricting_plugins_ = restricting_plugins_;
  copy->data_.reserve(data_.size());
  for (const auto& [key, data] : data_) {
    std::unique_ptr<StateData> cloned = data ? data->Clone() : nullptr;
    copy->data_.emplace_back(key, cloned ? std::shared_ptr<StateData>(std::move(cloned)) : data);
  }
  return copy;
}

const StateData* CycleState::Read(std::string_view key) const {
  for (const auto& [k, v] : data_) {
    if (k == key) return v.get();
  }
  return nullptr;
}

void CycleState::RestrictNodes(std::string_view plugin, std::vector<std::string> node_names) {
  std::sort(node_names.begin(), node_names.end());
  node_names.erase(std::unique(node_names.begin(), node_names.end()), node_names.end());
  if (node_restriction_) {
    std::vector<std::string> both;
    std::set_intersection(node_restriction_->begin(), node_restriction_->end(), node_names.begin(), node_names.end(),
                          std::back_inserter(both));
    node_names = std::move(both);
  }
  node_restriction_ = std::move(node_names);
  restricting_plugins_.emplace_back(plugin);
}

void DefaultNormalizeScore(std::span<NodeScore> scores, bool reverse) {
  int64_t max = 0;
  for (const auto& s : scores) max = std::max(max, s.score);
  if (max == 0) {
    if (reverse) {
      for (auto& s : scores) s.score = kMaxNodeScore;
    }
    return;
  }
  for (auto& s : scores) {
    s.score = kMaxNodeScore * s.score / max;
    if (reverse) s.score = kMaxNodeScore - s.score;
  }
}

}  // namespace berth::scheduler
