// A profile built from its configuration: the plugins of each extension
// point (multiPoint expanded, kube's defaults merged with the user's
// enabled and disabled sets), their args, and the errors naming the field.

#include "scheduler/framework/framework.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include <boost/json/serialize.hpp>

#include "api/validation/validation.h"
#include "scheduler/framework/framework_labels.h"
#include "scheduler/parallelizer.h"

namespace berth::scheduler {

namespace {

using framework_labels::kPointNames;

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

// The first of `errors` as Build reports a field error: BadRequest
// "<field>: <message>", with the error as its cause.
Status FieldError(const api::FieldErrors& errors) {
  const StatusCause& cause = errors.causes().front();
  return Status(StatusCode::kBadRequest, cause.field + ": " + cause.message, errors.causes());
}

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


}  // namespace berth::scheduler
