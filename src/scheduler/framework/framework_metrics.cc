// The framework's per-plugin metrics, set up once the profile's plugins are
// known: their durations (plugin_durations.h) and evaluations
// (plugin_evaluations.h).

#include <string>
#include <vector>

#include "scheduler/framework/framework.h"

namespace berth::scheduler {

void Framework::InitPluginMetrics(const FrameworkMetrics& metrics) {
  auto names = [](const auto& list) {
    std::vector<std::string> out;
    for (const auto* p : list) out.emplace_back(p->Name());
    return out;
  };
  std::vector<std::string> scores;
  for (const auto& s : score_) scores.emplace_back(s.plugin->Name());

  evaluations_.Init(metrics.plugin_evaluation, scheduler_name_);
  using E = PluginEvaluations;
  evaluations_.SetPlugins(E::kPreFilter, names(pre_filter_));
  evaluations_.SetPlugins(E::kFilter, names(filter_));
  evaluations_.SetPlugins(E::kPreScore, names(pre_score_));
  evaluations_.SetPlugins(E::kScore, scores);

  plugin_durations_.Init(metrics.plugin_execution_duration, clock_);
  if (!metrics.plugin_execution_duration) return;
  using D = PluginDurations;
  plugin_durations_.SetPlugins(D::kPreFilter, names(pre_filter_));
  plugin_durations_.SetPlugins(D::kFilter, names(filter_));
  plugin_durations_.SetPlugins(D::kPostFilter, names(post_filter_));
  plugin_durations_.SetPlugins(D::kPreScore, names(pre_score_));
  plugin_durations_.SetPlugins(D::kScore, scores);
  plugin_durations_.SetPlugins(D::kScoreNormalize, scores);
  plugin_durations_.SetPlugins(D::kReserve, names(reserve_));
  plugin_durations_.SetPlugins(D::kUnreserve, names(reserve_));
  plugin_durations_.SetPlugins(D::kPermit, names(permit_));
  plugin_durations_.SetPlugins(D::kPreBind, names(pre_bind_));
  plugin_durations_.SetPlugins(D::kBind, names(bind_));
  plugin_durations_.SetPlugins(D::kPostBind, names(post_bind_));
}

}  // namespace berth::scheduler
