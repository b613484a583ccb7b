#include "scheduler/framework/framework.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include <boost/json/serialize.hpp>

#include "api/validation/validation.h"
#include "scheduler/parallelizer.h"

namespace berth::scheduler {

namespace {

struct PointSpec {
  const char* name;  // as in the config file
  PluginSet PluginsConfig::*set;
};

constexpr PointSpec kPoints[] = {
    {"preEnqueue", &PluginsConfig::pre_enqueue}, {"queueSort", &PluginsConfig::queue_sort},
    {"preFilter", &PluginsConfig::pre_filter},   {"filter", &PluginsConfig::filter},
    {"postFilter", &PluginsConfig::post_filter}, {"preScore", &PluginsConfig::pre_score},
    {"score", &PluginsConfig::score},            {"reserve", &PluginsConfig::reserve},
    {"permit", &PluginsConfig::permit},          {"preBind", &PluginsConfig::pre_bind},
    {"bind", &PluginsConfig::bind},              {"postBind", &PluginsConfig::post_bind},
};

// Whether `plugin` implements the extension point `point`.
bool Implements(const Plugin* plugin, std::string_view point) {
  if (point == "preEnqueue") return dynamic_cast<const PreEnqueuePlugin*>(plugin);
  if (point == "queueSort") return dynamic_cast<const QueueSortPlugin*>(plugin);
  if (point == "preFilter") return dynamic_cast<const PreFilterPlugin*>(plugin);
  if (point == "filter") return dynamic_cast<const FilterPlugin*>(plugin);
  if (point == "postFilter") return dynamic_cast<const PostFilterPlugin*>(plugin);
  if (point == "preScore") return dynamic_cast<const PreScorePlugin*>(plugin);
  if (point == "score") return dynamic_cast<const ScorePlugin*>(plugin);
  if (point == "reserve") return dynamic_cast<const ReservePlugin*>(plugin);
  if (point == "permit") return dynamic_cast<const PermitPlugin*>(plugin);
  if (point == "preBind") return dynamic_cast<const PreBindPlugin*>(plugin);
  if (point == "bind") return dynamic_cast<const BindPlugin*>(plugin);
  if (point == "postBind") return dynamic_cast<const PostBindPlugin*>(plugin);
  return false;
}

bool Disables(const PluginSet& set, const std::string& name) {
  return std::any_of(set.disabled.begin(), set.disabled.end(),
                     [&](const PluginRef& r) { return r.name == "*" || r.name == name; });
}

// A configured plugin at one point, with where it was written (for errors).
struct Entry {
  std::string name;
  int32_t weight;
  std::string field;
  bool from_multi_point;
};

// The extension_point label of each Framework::Point, and the status label of each Code.
constexpr const char* kPointNames[] = {"PreFilter", "Filter", "PreScore", "Score",
                                       "Reserve",   "Permit", "PreBind",  "Bind"};
constexpr const char* kCodeNames[] = {"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
                                      "Wait",    "Skip",  "Pending"};

// The first of `errors` as Build reports a field error: BadRequest
// "<field>: <message>", with the error as its cause.
Status FieldError(const api::FieldErrors& errors) {
  const StatusCause& cause = errors.causes().front();
  return Status(StatusCode::kBadRequest, cause.field + ": " + cause.message, errors.causes());
}

const PluginStatus& StatusOf(const PluginStatus& status) { return status; }

}  // namespace

// Go's %v of a []string: "[a b c]".
std::string GoList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ' ';
    out += items[i];
  }
  return out + "]";
}

namespace {

// NodeSelection's args: {strategy: TopScore | WeightedRandom}; {} is TopScore.
Result<NodeSelectionStrategy> ParseNodeSelection(const boost::json::object& args) {
  NodeSelectionStrategy strategy = NodeSelectionStrategy::kTopScore;
  for (const auto& [key, value] : args) {
    if (key != "strategy") return Status::BadRequest(std::string(key) + ": unknown field");
    const boost::json::string* name = value.if_string();
    if (name && *name == "TopScore") {
      strategy = NodeSelectionStrategy::kTopScore;
    } else if (name && *name == "WeightedRandom") {
      strategy = NodeSelectionStrategy::kWeightedRandom;
    } else {
      return Status::BadRequest("strategy: Unsupported value: " + boost::json::serialize(value) +
                                ": supported values: \"TopScore\", \"WeightedRandom\"");
    }
  }
  return strategy;
}

}  // namespace

PluginSet DefaultMultiPoint() {
  PluginSet set;
  set.enabled = {
      {"SchedulingGates", 0},
      {"PrioritySort", 0},
      {"NodeUnschedulable", 0},
      {"NodeName", 0},
      {"TaintToleration", 3},
      {"NodeAffinity", 2},
      {"NodePorts", 0},
      {"NodeResourcesFit", 1},
      {"VolumeRestrictions", 0},
      {"NodeVolumeLimits", 0},
      {"VolumeBinding", 0},
      {"VolumeZone", 0},
      {"PodTopologySpread", 2},
      {"InterPodAffinity", 2},
      {"DefaultPreemption", 0},
      {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},
      {"DefaultBinder", 0},
  };
  return set;
}

namespace {

// multiPoint: the defaults, minus the user's disabled, plus the user's enabled.
std::vector<Entry> MultiPointEntries(const PluginSet& user_multi, const std::string& base) {
  std::vector<Entry> multi;
  for (const auto& r : DefaultMultiPoint().enabled) {
    if (!Disables(user_multi, r.name)) multi.push_back({r.name, r.weight, base + ".multiPoint", true});
  }
  for (size_t i = 0; i < user_multi.enabled.size(); ++i) {
    const auto& r = user_multi.enabled[i];
    std::string field = base + ".multiPoint.enabled[" + std::to_string(i) + "]";
    auto it = std::find_if(multi.begin(), multi.end(), [&](const Entry& e) { return e.name == r.name; });
    if (it != multi.end()) {
      it->weight = r.weight ? r.weight : it->weight;
      it->field = field;
    } else {
      multi.push_back({r.name, r.weight, field, true});
    }
  }
  return multi;
}

}  // namespace

// One run of Build: the profile it reads, the plugins instantiated so far
// (each once, however often it is named), the framework it fills in.
class Framework::Builder {
 public:
  Builder(const ProfileConfig& profile, const Registry& registry, const Handle& handle,
          std::string_view field_path, Framework& fw)
      : profile_(profile), registry_(registry), handle_(handle), field_path_(field_path), fw_(fw) {}

  // Instantiates plugin `name` with its pluginConfig args unless it already
  // is; `field` names where it was written, for errors.
  Status Instantiate(const std::string& name, const std::string& field);
  // The plugins at `point`, in the order they run.
  Result<std::vector<Entry>> EntriesAt(const PointSpec& point, const std::string& base,
                                       const std::vector<Entry>& multi);
  // Appends `entries` to the framework's list for `point`.
  Status AddAt(std::string_view point, const std::vector<Entry>& entries);
  // pre_filter_to_filter_ and pre_score_to_score_.
  void MapPrePluginPositions();
  // NodeSelection, and the args of every other pluginConfig entry.
  Status ReadPluginConfig();

 private:
  const ProfileConfig& profile_;
  const Registry& registry_;
  const Handle& handle_;
  const std::string_view field_path_;
  Framework& fw_;
  std::map<std::string, std::shared_ptr<Plugin>> instances_;
};

Status Framework::Builder::Instantiate(const std::string& name, const std::string& field) {
  if (instances_.count(name)) return Status::Ok();
  const PluginFactory* factory = registry_.Find(name);
  if (!factory) return Status::BadRequest(field + ": plugin \"" + name + "\" does not exist");
  boost::json::object args;
  for (const auto& [plugin, config] : profile_.plugin_config) {
    if (plugin == name) args = config;
  }
  auto plugin = (*factory)(args, handle_);
  if (!plugin.ok()) {
    return Status::BadRequest(std::string(field_path_) + ".pluginConfig[" + name + "].args: " +
                              plugin.status().message());
  }
  instances_[name] = std::move(plugin).value();
  fw_.owned_.push_back(instances_[name]);
  return Status::Ok();
}

Result<std::vector<Entry>> Framework::Builder::EntriesAt(const PointSpec& point, const std::string& base,
                                                         const std::vector<Entry>& multi) {
  const PluginSet& specific = profile_.plugins.*point.set;
  std::vector<Entry> entries;
  // Plugins named at this point run first, in order; then multiPoint's.
  for (size_t i = 0; i < specific.enabled.size(); ++i) {
    const auto& r = specific.enabled[i];
    std::string field = base + "." + point.name + ".enabled[" + std::to_string(i) + "]";
    if (Status s = Instantiate(r.name, field); !s.ok()) return s;
    if (!Implements(instances_[r.name].get(), point.name)) {
      return Status::BadRequest(field + ": plugin \"" + r.name + "\" does not extend " + point.name +
                                " plugin");
    }
    int32_t weight = r.weight;
    if (weight == 0) {
      for (const auto& m : multi) {
        if (m.name == r.name) weight = m.weight;
      }
    }
    entries.push_back({r.name, weight, field, false});
  }
  for (const auto& m : multi) {
    if (Disables(specific, m.name)) continue;
    if (!Implements(instances_[m.name].get(), point.name)) continue;
    if (std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == m.name; })) continue;
    entries.push_back(m);
  }
  return entries;
}

Status Framework::Builder::AddAt(std::string_view p, const std::vector<Entry>& entries) {
  for (const auto& e : entries) {
    Plugin* plugin = instances_[e.name].get();
    if (p == "preEnqueue") fw_.pre_enqueue_.push_back(dynamic_cast<const PreEnqueuePlugin*>(plugin));
    if (p == "queueSort") {
      if (fw_.queue_sort_ && !e.from_multi_point) {
        api::FieldErrors errors;
        errors.Invalid(e.field, e.name, "only one queueSort plugin can be enabled");
        return FieldError(errors);
      }
      if (!fw_.queue_sort_) fw_.queue_sort_ = dynamic_cast<const QueueSortPlugin*>(plugin);
    }
    if (p == "preFilter") fw_.pre_filter_.push_back(dynamic_cast<const PreFilterPlugin*>(plugin));
    if (p == "filter") fw_.filter_.push_back(dynamic_cast<const FilterPlugin*>(plugin));
    if (p == "postFilter") fw_.post_filter_.push_back(dynamic_cast<const PostFilterPlugin*>(plugin));
    if (p == "preScore") fw_.pre_score_.push_back(dynamic_cast<const PreScorePlugin*>(plugin));
    if (p == "score") {
      if (e.weight < 0) {
        api::FieldErrors errors;
        errors.InvalidValue(e.field + ".weight", boost::json::value(e.weight), "must not be negative");
        return FieldError(errors);
      }
      fw_.score_.push_back({dynamic_cast<const ScorePlugin*>(plugin), e.weight > 0 ? e.weight : 1});
    }
    if (p == "reserve") fw_.reserve_.push_back(dynamic_cast<const ReservePlugin*>(plugin));
    if (p == "permit") fw_.permit_.push_back(dynamic_cast<const PermitPlugin*>(plugin));
    if (p == "preBind") fw_.pre_bind_.push_back(dynamic_cast<const PreBindPlugin*>(plugin));
    if (p == "bind") fw_.bind_.push_back(dynamic_cast<const BindPlugin*>(plugin));
    if (p == "postBind") fw_.post_bind_.push_back(dynamic_cast<const PostBindPlugin*>(plugin));
  }
  return Status::Ok();
}

void Framework::Builder::MapPrePluginPositions() {
  for (const auto* p : fw_.pre_filter_) {
    int index = -1;
    for (size_t i = 0; i < fw_.filter_.size(); ++i) {
      if (fw_.filter_[i]->Name() == p->Name()) index = static_cast<int>(i);
    }
    fw_.pre_filter_to_filter_.push_back(index);
  }
  for (const auto* p : fw_.pre_score_) {
    int index = -1;
    for (size_t i = 0; i < fw_.score_.size(); ++i) {
      if (fw_.score_[i].plugin->Name() == p->Name()) index = static_cast<int>(i);
    }
    fw_.pre_score_to_score_.push_back(index);
  }
}

// pluginConfig: NodeSelection is read here; every other entry must name a
// plugin, and the args of plugins not enabled are checked all the same
// (a misspelt name or a bad value is an error, never silently unused).
Status Framework::Builder::ReadPluginConfig() {
  for (size_t i = 0; i < profile_.plugin_config.size(); ++i) {
    const auto& [name, args] = profile_.plugin_config[i];
    if (name == kNodeSelection) {
      auto strategy = ParseNodeSelection(args);
      if (!strategy.ok()) {
        return Status::BadRequest(std::string(field_path_) + ".pluginConfig[" + name + "].args: " +
                                  strategy.status().message());
      }
      fw_.node_selection_ = strategy.value();
      continue;
    }
    if (instances_.count(name)) continue;
    const PluginFactory* factory = registry_.Find(name);
    if (!factory) {
      return Status::BadRequest(std::string(field_path_) + ".pluginConfig[" + std::to_string(i) + "].name: plugin \"" +
                                name + "\" does not exist");
    }
    if (auto unused = (*factory)(args, handle_); !unused.ok()) {
      return Status::BadRequest(std::string(field_path_) + ".pluginConfig[" + name + "].args: " +
                                unused.status().message());
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Framework>> Framework::Build(const ProfileConfig& profile, const Registry& registry,
                                                    const Handle& handle, std::string_view field_path,
                                                    const FrameworkMetrics& metrics) {
  auto fw = std::unique_ptr<Framework>(new Framework());
  fw->handle_ = &handle;
  fw->scheduler_name_ = profile.scheduler_name;
  fw->percentage_of_nodes_to_score_ = profile.percentage_of_nodes_to_score;
  fw->clock_ = metrics.clock ? metrics.clock : &api::RealClock::Instance();
  fw->extension_point_duration_ = metrics.extension_point_duration;
  if (fw->extension_point_duration_) {
    for (int p = 0; p < kPointCount; ++p) {
      fw->point_success_[p] =
          &fw->extension_point_duration_->WithLabels({kPointNames[p], "Success", fw->scheduler_name_});
    }
  }
  std::string base = std::string(field_path) + ".plugins";
  const std::vector<Entry> multi = MultiPointEntries(profile.plugins.multi_point, base);

  // Instantiate every plugin named anywhere, once.
  Builder builder(profile, registry, handle, field_path, *fw);
  for (const auto& e : multi) {
    if (Status s = builder.Instantiate(e.name, e.field); !s.ok()) return s;
  }
  for (const auto& point : kPoints) {
    auto entries = builder.EntriesAt(point, base, multi);
    if (!entries.ok()) return entries.status();
    if (Status s = builder.AddAt(point.name, entries.value()); !s.ok()) return s;
  }
  if (fw->filter_.size() > 64 || fw->score_.size() > 64) {
    return Status::BadRequest(base + ": at most 64 filter and 64 score plugins per profile");
  }
  builder.MapPrePluginPositions();
  if (Status s = builder.ReadPluginConfig(); !s.ok()) return s;
  api::FieldErrors errors;
  if (!fw->queue_sort_) errors.Required(base + ".queueSort", "one queueSort plugin");
  if (fw->bind_.empty()) errors.Required(base + ".bind", "at least one bind plugin");
  if (!errors.empty()) return FieldError(errors);
  fw->InitPluginMetrics(metrics);
  return fw;
}

template <typename Run>
auto Framework::Timed(Point point, Run&& run) const {
  if (!extension_point_duration_) return run();
  api::Clock::time_point since = clock_->Now();
  auto result = run();
  ObservePoint(point, StatusOf(result).code(), since);
  return result;
}

void Framework::ObservePoint(Point point, Code code, api::Clock::time_point since) const {
  double seconds = std::chrono::duration<double>(clock_->Now() - since).count();
  if (code == Code::kSuccess) return point_success_[point]->Observe(seconds);
  extension_point_duration_->WithLabels({kPointNames[point], kCodeNames[static_cast<int>(code)], scheduler_name_})
      .Observe(seconds);
}

PluginStatus Framework::RunPreEnqueue(const PodInfo& pod) const {
  for (const auto* p : pre_enqueue_) {
    PluginStatus s = p->PreEnqueue(pod);
    if (!s.ok()) return s.WithPlugin(p->Name());
  }
  return {};
}

PluginStatus Framework::RunPreFilter(CycleState& state, const PodInfo& pod) const {
  return Timed(kPreFilter, [&]() -> PluginStatus {
    for (size_t i = 0; i < pre_filter_.size(); ++i) {
      const PreFilterPlugin* p = pre_filter_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kPreFilter, i, [&] { return p->PreFilter(state, pod); });
      if (s.IsSkip()) {
        if (pre_filter_to_filter_[i] >= 0) state.SkipFilterAt(static_cast<size_t>(pre_filter_to_filter_[i]));
        continue;
      }
      evaluations_.Add(PluginEvaluations::kPreFilter, i);
      if (!s.ok()) return s.WithPlugin(p->Name());
      if (state.node_restriction() && state.node_restriction()->empty()) {
        // The plugins' node names have nothing in common (kube's words).
        const auto& by = state.restricting_plugins();
        std::string message = by.size() == 1 ? "node(s) didn't satisfy plugin " + by.front()
                                             : "node(s) didn't satisfy plugin(s) " + GoList(by) + " simultaneously";
        return PluginStatus::Unresolvable(std::move(message)).WithPlugin(p->Name());
      }
    }
    return {};
  });
}

PluginStatus Framework::RunFilter(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const {
  size_t ran = 0;
  PluginStatus s = FilterNode(state, pod, node, ran);
  evaluations_.AddFilterRuns(state, ran, 1);
  return s;
}

PluginStatus Framework::FilterNode(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                                   size_t& ran) const {
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (state.FilterSkippedAt(i)) continue;
    const FilterPlugin* p = filter_[i];
    PluginStatus s = plugin_durations_.TimeOnNode(state, PluginDurations::kFilter, i, node.slot(),
                                                  [&] { return p->Filter(state, pod, node); });
    if (!s.ok()) {
      ran = i + 1;
      return s.WithPlugin(p->Name());
    }
  }
  ran = filter_.size();
  return {};
}

size_t Framework::RunFilterOverNodes(const CycleState& state, const PodInfo& pod,
                                     std::span<const std::shared_ptr<const NodeInfo>> nodes, size_t start,
                                     size_t wanted, Parallelizer* parallelizer,
                                     std::vector<const NodeInfo*>& feasible,
                                     std::vector<NodeStatus>& rejected) const {
  const size_t n = nodes.size();
  // Passing nodes take slots by an atomic counter (most nodes pass: no lock
  // per node); the rejected ones are few and appended under a lock.
  feasible.resize(wanted);
  rejected.clear();
  std::mutex rejected_mu;
  std::atomic<bool> enough{false};
  std::atomic<size_t> found{0};
  const bool nominations = handle_ && handle_->HasNominatedPods();
  // How far the plugins got on the rejected nodes, by position (the passing
  // nodes ran them all): scheduler_plugin_evaluation_total, added once.
  std::vector<uint32_t> rejected_ran(evaluations_.enabled() ? filter_.size() + 1 : 0);
  auto check = [&](size_t i) {
    const NodeInfo& node = *nodes[(start + i) % n];
    size_t ran = 0;
    PluginStatus s = nominations ? FilterNodeWithNominatedPods(state, pod, node, ran)
                                 : FilterNode(state, pod, node, ran);
    if (s.ok()) {
      const size_t slot = found.fetch_add(1, std::memory_order_relaxed);
      if (slot < wanted) feasible[slot] = &node;
      if (slot + 1 >= wanted) enough.store(true, std::memory_order_relaxed);
    } else {
      std::lock_guard lock(rejected_mu);
      rejected.push_back({&node, std::move(s)});
      if (!rejected_ran.empty()) ++rejected_ran[std::min(ran, filter_.size())];
    }
  };
  api::Clock::time_point since{};
  if (extension_point_duration_) since = clock_->Now();
  if (parallelizer) {
    parallelizer->Until(n, check, &enough, "Filter");
  } else {
    for (size_t i = 0; i < n && !enough.load(std::memory_order_relaxed); ++i) check(i);
  }
  feasible.resize(std::min(found.load(), wanted));
  if (evaluations_.enabled()) {
    evaluations_.AddFilterRuns(state, filter_.size(), found.load());
    for (size_t ran = 0; ran < rejected_ran.size(); ++ran) evaluations_.AddFilterRuns(state, ran, rejected_ran[ran]);
  }
  if (extension_point_duration_) ObservePoint(kFilter, feasible.empty() ? Code::kUnschedulable : Code::kSuccess, since);
  return found.load();
}

PluginStatus Framework::RunPostFilter(CycleState& state, const PodInfo& pod, std::span<const NodeStatus> rejected,
                                      PostFilterResult* result) const {
  std::vector<std::string> reasons;
  std::string failed_plugin;
  for (size_t i = 0; i < post_filter_.size(); ++i) {
    const PostFilterPlugin* p = post_filter_[i];
    PostFilterResult r;
    PluginStatus s = plugin_durations_.Time(state, PluginDurations::kPostFilter, i,
                                            [&] { return p->PostFilter(state, pod, rejected, *this, &r); });
    if (s.ok()) {
      *result = std::move(r);
      return s;
    }
    if (s.code() == Code::kUnschedulableAndUnresolvable) {
      *result = std::move(r);
      return s.WithPlugin(p->Name());
    }
    if (!s.IsRejected()) return PluginStatus::Error(s.Message()).WithPlugin(p->Name());
    if (r.nominated_node) *result = std::move(r);
    for (const auto& reason : s.reasons()) reasons.push_back(reason);
    if (failed_plugin.empty()) failed_plugin = std::string(p->Name());
  }
  PluginStatus joined(Code::kUnschedulable, std::move(reasons));
  return joined.WithPlugin(failed_plugin);
}

PluginStatus Framework::RunFilterWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                   const NodeInfo& node) const {
  size_t ran = 0;
  PluginStatus s = FilterNodeWithNominatedPods(state, pod, node, ran);
  evaluations_.AddFilterRuns(state, ran, 1);
  return s;
}

PluginStatus Framework::FilterNodeWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                    const NodeInfo& node, size_t& ran) const {
  ran = 0;
  // First with the nominated pods of equal or higher priority on the node
  // (this pod must not take the room freed for them), then without them
  // (a filter such as pod affinity may pass only with them).
  std::vector<PodInfoPtr> nominated;
  if (handle_ && handle_->HasNominatedPods()) {
    handle_->ForEachNominatedPod(node.name(), [&](const PodInfoPtr& p) {
      if (p->view->priority >= pod.view->priority && p->uid() != pod.uid()) nominated.push_back(p);
    });
  }
  if (nominated.empty()) return FilterNode(state, pod, node, ran);
  NodeInfo with_node = node;
  for (const auto& p : nominated) with_node.AddPod(p);
  // The state needs a copy only for plugins whose PreFilter data counts
  // pods (their extensions add the nominated ones); else it is read as is.
  std::unique_ptr<CycleState> with_state;
  if (HasActivePreFilterExtensions(state)) {
    with_state = state.Clone();
    for (const auto& p : nominated) {
      PluginStatus added = RunPreFilterAddPod(*with_state, pod, *p, with_node);
      if (!added.ok()) return added;
    }
  }
  PluginStatus first = FilterNode(with_state ? *with_state : state, pod, with_node, ran);
  if (!first.ok()) return first;
  evaluations_.AddFilterRuns(state, ran, 1);
  return FilterNode(state, pod, node, ran);
}

bool Framework::HasActivePreFilterExtensions(const CycleState& state) const {
  for (size_t i = 0; i < pre_filter_.size(); ++i) {
    if (!pre_filter_[i]->HasPreFilterExtensions()) continue;
    if (pre_filter_to_filter_[i] >= 0 && state.FilterSkippedAt(static_cast<size_t>(pre_filter_to_filter_[i]))) continue;
    return true;
  }
  return false;
}

PluginStatus Framework::RunPreFilterExtension(CycleState& state, bool add, const PodInfo& pod, const PodInfo& other,
                                              const NodeInfo& node) const {
  for (size_t i = 0; i < pre_filter_.size(); ++i) {
    const PreFilterPlugin* p = pre_filter_[i];
    if (!p->HasPreFilterExtensions()) continue;
    // A plugin whose PreFilter skipped this cycle has no state to keep true.
    if (pre_filter_to_filter_[i] >= 0 && state.FilterSkippedAt(static_cast<size_t>(pre_filter_to_filter_[i]))) continue;
    PluginStatus s = add ? p->AddPod(state, pod, other, node) : p->RemovePod(state, pod, other, node);
    if (!s.ok()) return PluginStatus::Error(s.Message()).WithPlugin(p->Name());
  }
  return {};
}

PluginStatus Framework::RunPreFilterAddPod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                           const NodeInfo& node) const {
  return RunPreFilterExtension(state, /*add=*/true, pod, other, node);
}

PluginStatus Framework::RunPreFilterRemovePod(CycleState& state, const PodInfo& pod, const PodInfo& other,
                                              const NodeInfo& node) const {
  return RunPreFilterExtension(state, /*add=*/false, pod, other, node);
}

PluginStatus Framework::RunPreScore(CycleState& state, const PodInfo& pod,
                                    std::span<const NodeInfo* const> nodes) const {
  return Timed(kPreScore, [&]() -> PluginStatus {
    for (size_t i = 0; i < pre_score_.size(); ++i) {
      const PreScorePlugin* p = pre_score_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kPreScore, i, [&] { return p->PreScore(state, pod, nodes); });
      if (s.IsSkip()) {
        if (pre_score_to_score_[i] >= 0) state.SkipScoreAt(static_cast<size_t>(pre_score_to_score_[i]));
        continue;
      }
      evaluations_.Add(PluginEvaluations::kPreScore, i);
      if (!s.ok()) return s.WithPlugin(p->Name());
    }
    return {};
  });
}

PluginStatus Framework::RunScore(const CycleState& state, const PodInfo& pod, std::span<const NodeInfo* const> nodes,
                                 std::span<int64_t> totals, std::vector<NodeScore>& scratch) const {
  return Timed(kScore, [&]() -> PluginStatus {
    scratch.resize(nodes.size());
    for (size_t p = 0; p < score_.size(); ++p) {
      if (state.ScoreSkippedAt(p)) continue;
      const auto& [plugin, weight] = score_[p];
      for (size_t i = 0; i < nodes.size(); ++i) {
        scratch[i].node = nodes[i];
        PluginStatus s = plugin_durations_.TimeOnNode(state, PluginDurations::kScore, p, nodes[i]->slot(), [&] {
          return plugin->Score(state, pod, *nodes[i], &scratch[i].score);
        });
        if (!s.ok()) {
          evaluations_.Add(PluginEvaluations::kScore, p, i + 1);
          return s.WithPlugin(plugin->Name());
        }
      }
      evaluations_.Add(PluginEvaluations::kScore, p, nodes.size());
      if (plugin->HasNormalizeScore()) {
        PluginStatus s = plugin_durations_.Time(state, PluginDurations::kScoreNormalize, p, [&] {
          return plugin->NormalizeScore(state, pod, std::span<NodeScore>(scratch.data(), nodes.size()));
        });
        if (!s.ok()) return s.WithPlugin(plugin->Name());
      }
      for (size_t i = 0; i < nodes.size(); ++i) {
        int64_t score = scratch[i].score;
        if (score < kMinNodeScore || score > kMaxNodeScore) {
          return PluginStatus::Error("plugin " + std::string(plugin->Name()) + " returns an invalid score " +
                                     std::to_string(score) + ", it should in the range of [0, 100] after normalizing");
        }
        totals[i] += score * weight;
      }
    }
    return {};
  });
}

PluginStatus Framework::RunReserve(CycleState& state, const PodInfo& pod, const std::string& node) const {
  return Timed(kReserve, [&]() -> PluginStatus {
    for (size_t i = 0; i < reserve_.size(); ++i) {
      const ReservePlugin* p = reserve_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kReserve, i, [&] { return p->Reserve(state, pod, node); });
      if (!s.ok()) return s.WithPlugin(p->Name());
    }
    return {};
  });
}

void Framework::RunUnreserve(CycleState& state, const PodInfo& pod, const std::string& node) const {
  for (size_t i = reserve_.size(); i-- > 0;) {
    plugin_durations_.Time(state, PluginDurations::kUnreserve, i, [&] { reserve_[i]->Unreserve(state, pod, node); });
  }
}

PluginStatus Framework::RunPermit(CycleState& state, const PodInfoPtr& pod, const std::string& node,
                                   WaitingPods& waiting) const {
  return Timed(kPermit, [&]() -> PluginStatus {
    std::vector<std::pair<std::string, std::chrono::milliseconds>> waits;
    for (size_t i = 0; i < permit_.size(); ++i) {
      const PermitPlugin* p = permit_[i];
      PermitDecision d;
      plugin_durations_.Time(state, PluginDurations::kPermit, i, [&] {
        d = p->Permit(state, *pod, node);
        return d.status.code() == Code::kSuccess ? PluginStatus() : PluginStatus(d.status.code(), "");
      });
      if (d.status.ok()) continue;
      if (d.status.IsRejected()) return std::move(d.status.WithPlugin(p->Name()));
      if (d.status.code() == Code::kWait) {
        waits.emplace_back(p->Name(), std::min(d.timeout, kMaxPermitWait));
        continue;
      }
      return std::move(PluginStatus::Error("running Permit plugin \"" + std::string(p->Name()) +
                                           "\": " + d.status.Message())
                           .WithPlugin(p->Name()));
    }
    if (waits.empty()) return {};
    waiting.Add(pod, waits);
    return PluginStatus(Code::kWait,
                        "one or more plugins asked to wait and no plugin rejected pod \"" + pod->object->name() + "\"");
  });
}

PluginStatus Framework::RunPreBind(CycleState& state, const PodInfo& pod, const std::string& node) const {
  return Timed(kPreBind, [&]() -> PluginStatus {
    for (size_t i = 0; i < pre_bind_.size(); ++i) {
      const PreBindPlugin* p = pre_bind_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kPreBind, i, [&] { return p->PreBind(state, pod, node); });
      if (!s.ok()) return s.WithPlugin(p->Name());
    }
    return {};
  });
}

PluginStatus Framework::RunBind(CycleState& state, const PodInfo& pod, const std::string& node) const {
  return Timed(kBind, [&]() -> PluginStatus {
    for (size_t i = 0; i < bind_.size(); ++i) {
      const BindPlugin* p = bind_[i];
      PluginStatus s =
          plugin_durations_.Time(state, PluginDurations::kBind, i, [&] { return p->Bind(state, pod, node); });
      if (s.IsSkip()) continue;
      if (!s.ok()) s.WithPlugin(p->Name());
      return s;
    }
    return PluginStatus::Error("no bind plugin bound the pod");
  });
}

void Framework::RunPostBind(CycleState& state, const PodInfo& pod, const std::string& node) const {
  for (size_t i = 0; i < post_bind_.size(); ++i) {
    plugin_durations_.Time(state, PluginDurations::kPostBind, i, [&] { post_bind_[i]->PostBind(state, pod, node); });
  }
}

std::vector<std::string> Framework::PluginNames(std::string_view point) const {
  std::vector<std::string> out;
  auto add = [&](const auto& list) {
    for (const auto* p : list) out.emplace_back(p->Name());
  };
  if (point == "preEnqueue") add(pre_enqueue_);
  if (point == "queueSort") out.emplace_back(queue_sort_->Name());
  if (point == "preFilter") add(pre_filter_);
  if (point == "filter") add(filter_);
  if (point == "postFilter") add(post_filter_);
  if (point == "preScore") add(pre_score_);
  if (point == "score") {
    for (const auto& s : score_) out.emplace_back(s.plugin->Name());
  }
  if (point == "reserve") add(reserve_);
  if (point == "permit") add(permit_);
  if (point == "preBind") add(pre_bind_);
  if (point == "bind") add(bind_);
  if (point == "postBind") add(post_bind_);
  return out;
}

std::unique_ptr<Framework> Framework::Untimed() const {
  auto copy = std::make_unique<Framework>(*this);
  copy->extension_point_duration_ = nullptr;
  return copy;
}

int32_t Framework::ScoreWeight(std::string_view plugin) const {
  for (const auto& s : score_) {
    if (s.plugin->Name() == plugin) return static_cast<int32_t>(s.weight);
  }
  return 0;
}

}  // namespace berth::scheduler
