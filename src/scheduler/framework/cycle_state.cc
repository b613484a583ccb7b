#include <algorithm>

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

const StateData* CycleState::Read(std::string_view key) const {
  for (const auto& [k, v] : data_) {
    if (k == key) return v.get();
  }
  return nullptr;
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
