#pragma once
// The scheduler's configuration in KubeSchedulerConfiguration's shape
// (kubescheduler.config.k8s.io/v1): profiles, plugins per extension point with
// weights, pluginConfig args, percentageOfNodesToScore, parallelism, extenders.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/object.hpp>

#include "api/status.h"

namespace berth::scheduler {

struct PluginRef {
  std::string name;
  int32_t weight = 0;  // Score only; 0: the plugin's default weight (1 when it has none)
};

struct PluginSet {
  std::vector<PluginRef> enabled;
  std::vector<PluginRef> disabled;  // name "*": every default plugin of this point
};

// One PluginSet per extension point, as in the config file.
struct PluginsConfig {
  PluginSet pre_enqueue, queue_sort, pre_filter, filter, post_filter, pre_score, score, reserve, permit,
      pre_bind, bind, post_bind;
  // Enabled at every extension point the plugin implements.
  PluginSet multi_point;
};

// How a profile picks one node among the scored feasible nodes: berth's own
// pluginConfig entry "NodeSelection" (args {strategy: TopScore|WeightedRandom}),
// which names no plugin. TopScore is kube's selectHost and the default.
inline constexpr std::string_view kNodeSelection = "NodeSelection";
enum class NodeSelectionStrategy {
  kTopScore,        // the highest total, ties broken at random
  kWeightedRandom,  // a node drawn with probability proportional to its total (Walker's alias method)
};

struct ProfileConfig {
  std::string scheduler_name = "default-scheduler";
  PluginsConfig plugins;
  // pluginConfig: plugin name → its args (the "args" object, apiVersion/kind removed).
  std::vector<std::pair<std::string, boost::json::object>> plugin_config;
  std::optional<int32_t> percentage_of_nodes_to_score;
};

// How to reach an extender over HTTPS (v1.ExtenderTLSConfig). The *_data
// fields hold the bytes themselves (the file's base64 decoded).
struct ExtenderTlsConfig {
  bool insecure = false;  // no verification of the server's certificate
  std::string server_name;  // for SNI and verification; default: the URL's host
  std::string cert_file, key_file, ca_file;
  std::string cert_data, key_data, ca_data;
};

// A resource an extender manages (v1.ExtenderManagedResource): pods asking
// for it interest the extender; ignored_by_scheduler keeps NodeResourcesFit
// from checking it.
struct ExtenderManagedResource {
  std::string name;
  bool ignored_by_scheduler = false;
};

// One scheduler extender (v1.Extender), an HTTP service called at
// urlPrefix/<verb>. An empty verb: the extender does not take part there.
struct ExtenderConfig {
  std::string url_prefix;
  std::string filter_verb, preempt_verb, prioritize_verb, bind_verb;
  int64_t weight = 0;  // multiplies the prioritize scores
  bool enable_https = false;
  std::optional<ExtenderTlsConfig> tls_config;
  std::chrono::milliseconds http_timeout{0};  // 0: kube's default, 5s
  bool node_cache_capable = false;  // send node names only
  std::vector<ExtenderManagedResource> managed_resources;  // empty: every pod interests it
  bool ignorable = false;  // its errors (unreachable, failing) do not fail scheduling
};

struct SchedulerConfig {
  int32_t parallelism = 16;
  // 0: kube's adaptive default (50% minus 1% per 125 nodes, at least 5%, at least 100 nodes).
  int32_t percentage_of_nodes_to_score = 0;
  int32_t pod_initial_backoff_seconds = 1;
  int32_t pod_max_backoff_seconds = 10;
  std::vector<ProfileConfig> profiles;  // empty: one default profile
  std::vector<ExtenderConfig> extenders;  // called in this order
};

// kube-scheduler's default profile for 1.32 (the plugins berth implements),
// as multiPoint entries with their default weights.
PluginSet DefaultMultiPoint();

// Parses a KubeSchedulerConfiguration YAML document. Errors (BadRequest)
// name the field path ("profiles[0].plugins.score.enabled[1].weight: Invalid
// value: -1: must be greater than or equal to 0", worded by api::FieldErrors),
// or an unknown field, or for malformed YAML and repeated keys the line.
// Extenders are validated as kube's validateExtenders does.
// Several errors are reported together, "[a, b]", each also as a cause. Unknown plugin names are checked later, against
// the registry, by BuildFramework.
Result<SchedulerConfig> ParseSchedulerConfig(std::string_view yaml_text);

}  // namespace berth::scheduler
