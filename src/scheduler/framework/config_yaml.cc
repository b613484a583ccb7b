// ParseSchedulerConfig: KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
// from YAML, with kube's defaulting of the scheduler name and its validation
// messages. Decoding is strict like kube's: unknown and repeated fields are
// errors, so a misspelt key never silently falls back to a default.
//
// Plain (unquoted) scalars are resolved as go-yaml v2 resolves them (kube reads
// its config through sigs.k8s.io/yaml): null, bool (true/yes/on/y...), int
// (decimal, 0x, 0o, 0b, leading-0 octal, '_' separators), float; quoted and
// block scalars, and scalars tagged !!str, are always strings.

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/time/duration.h"
#include "api/validation/name_validation.h"
#include "api/validation/validation.h"
#include "scheduler/framework/config.h"
#include "scheduler/framework/extender_config_yaml.h"
#include "scheduler/framework/yaml_fields.h"

namespace berth::scheduler {
namespace {

namespace json = boost::json;

constexpr std::string_view kApiVersion = "kubescheduler.config.k8s.io/v1";
constexpr std::string_view kKind = "KubeSchedulerConfiguration";

// Args deeper than this, or with more nodes than this (YAML aliases can expand
// exponentially), are rejected rather than converted.
constexpr int kMaxArgsDepth = 64;
constexpr size_t kMaxArgsNodes = size_t{1} << 16;

// Top-level fields of v1.KubeSchedulerConfiguration that ask for what berth's
// scheduler does not do (yet) are accepted only with the values that describe
// what it does, and refused otherwise with their path: a setting silently
// dropped would let a user believe it took effect. See LeaderElection,
// ClientConnection and OnlyFalse below.

class ConfigParser : public YamlFieldReader {
 public:
  Result<SchedulerConfig> Parse(const YAML::Node& root) {
    SchedulerConfig config;
    if (!root.IsNull() && !root.IsMap()) {
      Invalid("", root, "a KubeSchedulerConfiguration must be a YAML map");
      return ToStatus();
    }
    std::optional<std::string> api_version, kind;
    ForEachField(root, "", [&](const std::string& key, const YAML::Node& value) {
      if (key == "apiVersion") {
        api_version = String(value, key);
      } else if (key == "kind") {
        kind = String(value, key);
      } else if (key == "parallelism") {
        if (auto v = Int32(value, key)) {
          config.parallelism = *v;
          if (*v <= 0) Invalid(key, value, "should be an integer value greater than zero");
        }
      } else if (key == "percentageOfNodesToScore") {
        if (auto v = Percentage(value, key)) config.percentage_of_nodes_to_score = *v;
      } else if (key == "podInitialBackoffSeconds") {
        if (auto v = Int32(value, key)) config.pod_initial_backoff_seconds = *v;
      } else if (key == "podMaxBackoffSeconds") {
        if (auto v = Int32(value, key)) config.pod_max_backoff_seconds = *v;
      } else if (key == "profiles") {
        Profiles(value, key, config.profiles);
      } else if (key == "extenders") {
        ReadExtenders(*this, value, key, config.extenders);
      } else if (key == "leaderElection") {
        LeaderElection(value, key);
      } else if (key == "clientConnection") {
        ClientConnection(value, key);
      } else if (key == "enableProfiling" || key == "enableContentionProfiling") {
        OnlyFalse(value, key, "berth does not serve profiling endpoints from the scheduler yet");
      } else if (key == "delayCacheUntilActive") {
        OnlyFalse(value, key, "it applies only with leader election, which berth's scheduler does not do yet");
      } else {
        return false;
      }
      return true;
    });
    if (!api_version) {
      Required("apiVersion");
    } else if (*api_version != kApiVersion) {
      NotSupported("apiVersion", *api_version, kApiVersion);
    }
    if (!kind) {
      Required("kind");
    } else if (*kind != kKind) {
      NotSupported("kind", *kind, kKind);
    }
    if (config.pod_initial_backoff_seconds <= 0) {
      Invalid("podInitialBackoffSeconds", config.pod_initial_backoff_seconds, "must be greater than 0");
    }
    if (config.pod_max_backoff_seconds < config.pod_initial_backoff_seconds) {
      Invalid("podMaxBackoffSeconds", config.pod_max_backoff_seconds,
              "must be greater than or equal to PodInitialBackoffSeconds");
    }
    ValidateExtenders(*this, config.extenders);
    if (HasErrors()) return ToStatus();
    return config;
  }

 private:
  // ---- settings berth accepts only as what it does ----

  // A bool that must be false (absent or null: kube's default, also accepted).
  void OnlyFalse(const YAML::Node& n, const std::string& field, std::string_view why) {
    if (n.IsNull()) return;
    json::value v = n.IsScalar() ? api::YamlScalarToJson(n) : json::value();
    if (!v.is_bool()) {
      Invalid(field, n, "must be a boolean");
    } else if (v.get_bool()) {
      Forbidden(field, "may only be false: " + std::string(why));
    }
  }

  // leaderElection: berth's scheduler does not elect a leader (yet), so
  // leaderElect must say false; the lease settings are accepted with it, as
  // kube ignores them when it does not elect either.
  void LeaderElection(const YAML::Node& n, const std::string& path) {
    if (!ExpectMap(n, path) || n.IsNull()) return;
    bool said_false = false;
    ForEachField(n, path, [&](const std::string& key, const YAML::Node& value) {
      if (key == "leaderElect") {
        json::value v = value.IsScalar() ? api::YamlScalarToJson(value) : json::value();
        said_false = v.is_bool() && !v.get_bool();
        if (!v.is_bool()) Invalid(Child(path, key), value, "must be a boolean");
        return true;
      }
      return key == "leaseDuration" || key == "renewDeadline" || key == "retryPeriod" || key == "resourceLock" ||
             key == "resourceName" || key == "resourceNamespace";
    });
    if (!said_false) {
      Forbidden(Child(path, "leaderElect"),
                "must be false: berth's scheduler does not do leader election yet (kube's default is true)");
    }
  }

  // clientConnection: berth's scheduler reaches its API server by --server,
  // in JSON, without client-side rate limits; only settings that say so pass.
  void ClientConnection(const YAML::Node& n, const std::string& path) {
    if (!ExpectMap(n, path) || n.IsNull()) return;
    ForEachField(n, path, [&](const std::string& key, const YAML::Node& value) {
      const std::string field = Child(path, key);
      if (key == "kubeconfig") {
        if (auto v = String(value, field); v && !v->empty()) {
          Forbidden(field, "berth's scheduler does not read kubeconfig files yet: use --server");
        }
      } else if (key == "contentType" || key == "acceptContentType") {
        if (auto v = String(value, field); v && !v->empty() && *v != "application/json") {
          NotSupported(field, *v, "application/json");
        }
      } else if (key == "qps" || key == "burst") {
        if (!value.IsNull()) {
          Forbidden(field, "berth's scheduler does not rate-limit its requests; leave it unset");
        }
      } else {
        return false;
      }
      return true;
    });
  }

  // ---- profiles ----

  void Profiles(const YAML::Node& list, const std::string& path, std::vector<ProfileConfig>& out) {
    if (!ExpectList(list, path) || list.IsNull()) return;
    std::vector<bool> named;
    for (size_t i = 0; i < list.size(); ++i) {
      ProfileConfig profile;
      named.push_back(Profile(list[i], Index(path, i), profile));
      out.push_back(std::move(profile));
    }
    // kube defaults the name only when there is a single profile.
    for (size_t i = 0; i < out.size(); ++i) {
      if (!named[i] && out.size() > 1) Required(Index(path, i) + ".schedulerName");
    }
    std::set<std::string> names;
    for (size_t i = 0; i < out.size(); ++i) {
      if (!named[i] || out[i].scheduler_name.empty()) continue;
      if (!names.insert(out[i].scheduler_name).second) {
        Duplicate(Index(path, i) + ".schedulerName", out[i].scheduler_name);
      }
    }
  }

  // Returns whether schedulerName was given (even if empty).
  bool Profile(const YAML::Node& node, const std::string& path, ProfileConfig& profile) {
    if (!node.IsMap()) {
      Invalid(path, node, "must be a map");
      return true;  // no second error about its name
    }
    bool named = false;
    ForEachField(node, path, [&](const std::string& key, const YAML::Node& value) {
      std::string field = Child(path, key);
      if (key == "schedulerName") {
        if (auto name = String(value, field)) {
          named = true;
          profile.scheduler_name = *name;
          if (name->empty()) Required(field);
        }
      } else if (key == "percentageOfNodesToScore") {
        if (auto v = Percentage(value, field)) profile.percentage_of_nodes_to_score = *v;
      } else if (key == "plugins") {
        Plugins(value, field, profile.plugins);
      } else if (key == "pluginConfig") {
        PluginConfigs(value, field, profile.plugin_config);
      } else {
        return false;
      }
      return true;
    });
    return named;
  }

  void Plugins(const YAML::Node& node, const std::string& path, PluginsConfig& plugins) {
    if (!ExpectMap(node, path)) return;
    const std::pair<std::string_view, PluginSet*> points[] = {
        {"preEnqueue", &plugins.pre_enqueue}, {"queueSort", &plugins.queue_sort},
        {"preFilter", &plugins.pre_filter},   {"filter", &plugins.filter},
        {"postFilter", &plugins.post_filter}, {"preScore", &plugins.pre_score},
        {"score", &plugins.score},            {"reserve", &plugins.reserve},
        {"permit", &plugins.permit},          {"preBind", &plugins.pre_bind},
        {"bind", &plugins.bind},              {"postBind", &plugins.post_bind},
        {"multiPoint", &plugins.multi_point},
    };
    ForEachField(node, path, [&](const std::string& key, const YAML::Node& value) {
      for (const auto& [name, set] : points) {
        if (key == name) {
          Set(value, Child(path, key), *set);
          return true;
        }
      }
      return false;
    });
  }

  void Set(const YAML::Node& node, const std::string& path, PluginSet& set) {
    if (!ExpectMap(node, path)) return;
    ForEachField(node, path, [&](const std::string& key, const YAML::Node& value) {
      if (key == "enabled") {
        Refs(value, Child(path, key), set.enabled);
      } else if (key == "disabled") {
        Refs(value, Child(path, key), set.disabled);
      } else {
        return false;
      }
      return true;
    });
  }

  void Refs(const YAML::Node& list, const std::string& path, std::vector<PluginRef>& out) {
    if (!ExpectList(list, path) || list.IsNull()) return;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string here = Index(path, i);
      const YAML::Node& entry = list[i];
      if (!entry.IsMap()) {
        Invalid(here, entry, "must be a map");
        continue;
      }
      PluginRef ref;
      ForEachField(entry, here, [&](const std::string& key, const YAML::Node& value) {
        std::string field = Child(here, key);
        if (key == "name") {
          if (auto name = String(value, field)) ref.name = *name;
        } else if (key == "weight") {
          if (auto weight = Int32(value, field)) {
            ref.weight = *weight;
            if (*weight < 0) Invalid(field, value, "must be greater than or equal to 0");
          }
        } else {
          return false;
        }
        return true;
      });
      if (ref.name.empty()) Required(Child(here, "name"));
      out.push_back(std::move(ref));
    }
  }

  void PluginConfigs(const YAML::Node& list, const std::string& path,
                     std::vector<std::pair<std::string, json::object>>& out) {
    if (!ExpectList(list, path) || list.IsNull()) return;
    std::set<std::string> names;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string here = Index(path, i);
      const YAML::Node& entry = list[i];
      if (!entry.IsMap()) {
        Invalid(here, entry, "must be a map");
        continue;
      }
      std::string name;
      json::object args;
      ForEachField(entry, here, [&](const std::string& key, const YAML::Node& value) {
        std::string field = Child(here, key);
        if (key == "name") {
          if (auto n = String(value, field)) name = *n;
        } else if (key == "args") {
          Args(value, field, args);
        } else {
          return false;
        }
        return true;
      });
      if (name.empty()) {
        Required(Child(here, "name"));
      } else if (!names.insert(name).second) {
        Duplicate(here, name);
      }
      out.emplace_back(std::move(name), std::move(args));
    }
  }

  // ---- extenders ----

  // ---- args: YAML → JSON ----

  void Args(const YAML::Node& node, const std::string& path, json::object& out) {
    if (!ExpectMap(node, path) || node.IsNull()) return;
    nodes_converted_ = 0;
    json::value v = ToJson(node, path, 0);
    if (!v.is_object()) return;
    out = std::move(v.get_object());
    // The args' own TypeMeta (kind: NodeResourcesFitArgs) says nothing the plugin needs.
    out.erase("apiVersion");
    out.erase("kind");
  }

  json::value ToJson(const YAML::Node& node, const std::string& path, int depth) {
    if (depth > kMaxArgsDepth) {
      Invalid(path, node, "nested too deeply");
      return nullptr;
    }
    if (++nodes_converted_ > kMaxArgsNodes) {
      if (nodes_converted_ == kMaxArgsNodes + 1) Invalid(path, node, "too large");
      return nullptr;
    }
    if (node.IsNull()) return nullptr;
    if (node.IsScalar()) return api::YamlScalarToJson(node);
    if (node.IsSequence()) {
      json::array array;
      array.reserve(node.size());
      for (size_t i = 0; i < node.size(); ++i) array.push_back(ToJson(node[i], Index(path, i), depth + 1));
      return array;
    }
    json::object object;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: it-> yields a temporary
      if (!key.IsScalar()) {
        Invalid(path, key, "keys must be strings");
        continue;
      }
      const std::string& name = key.Scalar();
      if (object.contains(name)) {
        RepeatedKey(key, Child(path, name));
        continue;
      }
      object.emplace(name, ToJson(it->second, Child(path, name), depth + 1));
    }
    return object;
  }

  size_t nodes_converted_ = 0;
};

}  // namespace

Result<SchedulerConfig> ParseSchedulerConfig(std::string_view yaml_text) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml_text));
    return ConfigParser().Parse(root);
  } catch (const YAML::Exception& e) {
    return Status::BadRequest(Where(e.mark) + e.msg);
  }
}

}  // namespace berth::scheduler
