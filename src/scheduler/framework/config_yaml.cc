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

#include "api/duration.h"
#include "api/name_validation.h"
#include "api/validation.h"
#include "scheduler/framework/config.h"

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

// Go's %q, enough for config values: quotes, backslashes and control characters escaped.
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(c >> 4) & 0xf];
          out += kHex[c & 0xf];
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string Child(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string Index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string Where(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) + ": ";
}

// Go's encoding/json reads a []byte field (certData...) as standard base64
// with padding. nullopt for anything else.
std::optional<std::string> DecodeBase64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int padding = 0;
    for (int j = 0; j < 4; ++j) {
      char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++padding;
        v[j] = 0;
        continue;
      }
      if (padding > 0 || (v[j] = value(c)) < 0) return std::nullopt;
    }
    uint32_t bits = static_cast<uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
    out += static_cast<char>(bits >> 16);
    if (padding < 2) out += static_cast<char>(bits >> 8 & 0xff);
    if (padding < 1) out += static_cast<char>(bits & 0xff);
  }
  return out;
}

// kube's v1helper.IsExtendedResourceName: a name with a domain other than
// kubernetes.io, not a quota name ("requests."), valid as a quota name.
bool IsExtendedResourceName(std::string_view name) {
  if (name.find('/') == std::string_view::npos || name.find("kubernetes.io/") != std::string_view::npos) return false;
  if (name.rfind("requests.", 0) == 0) return false;
  return api::IsQualifiedName("requests." + std::string(name)).empty();
}

// ---- Scalar resolution (go-yaml v2's resolve table) ----

std::optional<bool> ResolveBool(std::string_view s) {
  for (std::string_view t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"}) {
    if (s == t) return true;
  }
  for (std::string_view f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"}) {
    if (s == f) return false;
  }
  return std::nullopt;
}

// Go's strconv.ParseInt(s, 0, 64) after go-yaml removed the '_' separators;
// an unsigned value above int64's range comes back as uint64.
std::optional<json::value> ResolveInteger(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != '_') s += c;
  }
  std::string_view v = s;
  bool negative = false;
  if (!v.empty() && (v.front() == '+' || v.front() == '-')) {
    negative = v.front() == '-';
    v.remove_prefix(1);
  }
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    base = 16;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B')) {
    base = 2;
    v.remove_prefix(2);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O')) {
    base = 8;
    v.remove_prefix(2);
  } else if (v.size() > 1 && v[0] == '0') {
    base = 8;
    v.remove_prefix(1);
  }
  if (v.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), magnitude, base);
  if (ec != std::errc() || ptr != v.data() + v.size()) return std::nullopt;
  constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kInt64Max + 1) return std::nullopt;
    return json::value(magnitude == kInt64Max + 1 ? std::numeric_limits<int64_t>::min()
                                                   : -static_cast<int64_t>(magnitude));
  }
  if (magnitude > kInt64Max) return json::value(magnitude);
  return json::value(static_cast<int64_t>(magnitude));
}

// YAML's float syntax: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
// (.inf and .nan have no JSON form and stay strings.)
std::optional<double> ResolveFloat(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != '_') s += c;
  }
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mantissa_start = i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return std::nullopt;
  } else {
    if (digits() == 0) return std::nullopt;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  bool negative = s[0] == '-';
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data() + mantissa_start, s.data() + s.size(), value);
  if (ec != std::errc() && ec != std::errc::result_out_of_range) return std::nullopt;
  if (ptr != s.data() + s.size()) return std::nullopt;
  return negative ? -value : value;
}

// How a non-null scalar reads in JSON: plain scalars are resolved, everything else is a string.
json::value ScalarToJson(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  const std::string& tag = n.Tag();
  if (tag != "?") {
    // Quoted, block, or explicitly tagged. Explicit core tags other than !!str resolve as if plain.
    bool core = tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
                tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null";
    if (!core) return json::value(s);
  }
  if (auto b = ResolveBool(s)) return json::value(*b);
  if (auto i = ResolveInteger(s)) return *i;
  if (auto f = ResolveFloat(s)) return json::value(*f);
  if (s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  return json::value(s);
}

// How kube would show a value that api::FieldErrors cannot: a float as written
// (FieldErrors writes numbers as JSON, 1.5E0), a map or a list elided.
std::string ShowUnquoted(const YAML::Node& n) {
  if (n.IsMap()) return "{...}";
  if (n.IsSequence()) return "[...]";
  return n.Scalar();
}

// One pass over the document, collecting every problem with kube's field path.
class ConfigParser {
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
        Extenders(value, key, config.extenders);
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
    ValidateExtenders(config.extenders);
    if (!causes_.empty()) return ToStatus();
    return config;
  }

 private:
  // ---- Errors ----
  //
  // Field errors are worded by api::FieldErrors (kube's "Required value",
  // "Invalid value", "Duplicate value", "Unsupported value"); the strict
  // decoder's own errors (unknown fields, repeated keys) are not field-value
  // errors and keep kube's decoder wording. Both are kept in document order.

  // Takes the cause FieldErrors just recorded into the document-ordered lists.
  void TakeNewestFieldError() {
    const StatusCause& cause = field_errors_.causes().back();
    texts_.push_back(cause.field.empty() ? cause.message : cause.field + ": " + cause.message);
    causes_.push_back(cause);
  }
  void Required(std::string field) {
    field_errors_.Required(std::move(field));
    TakeNewestFieldError();
  }
  // `value` as kube shows it: a string quoted, a number, bool or null as
  // decoded (0x10 shows as 16).
  void Invalid(std::string field, const YAML::Node& value, std::string_view detail) {
    json::value decoded = value.IsScalar() ? ScalarToJson(value) : json::value();
    if (value.IsScalar() && decoded.is_string()) {
      field_errors_.Invalid(std::move(field), value.Scalar(), detail);
    } else if ((value.IsScalar() && !decoded.is_double()) || value.IsNull() || !value.IsDefined()) {
      field_errors_.InvalidValue(std::move(field), decoded, detail);
    } else {
      std::string message = "Invalid value: " + ShowUnquoted(value) + ": " + std::string(detail);
      texts_.push_back(field.empty() ? message : field + ": " + message);
      causes_.push_back({"FieldValueInvalid", std::move(message), std::move(field)});
      return;
    }
    TakeNewestFieldError();
  }
  void Invalid(std::string field, int64_t value, std::string_view detail) {
    field_errors_.InvalidValue(std::move(field), json::value(value), detail);
    TakeNewestFieldError();
  }
  void InvalidString(std::string field, std::string_view value, std::string_view detail) {
    field_errors_.Invalid(std::move(field), value, detail);
    TakeNewestFieldError();
  }
  void Forbidden(std::string field, std::string_view detail) {
    field_errors_.Forbidden(std::move(field), detail);
    TakeNewestFieldError();
  }
  void Duplicate(std::string field, std::string_view value) {
    field_errors_.Duplicate(std::move(field), value);
    TakeNewestFieldError();
  }
  void NotSupported(std::string field, std::string_view value, std::string_view supported) {
    field_errors_.NotSupported(std::move(field), value, {std::string(supported)});
    TakeNewestFieldError();
  }
  void UnknownField(const std::string& field) {
    texts_.push_back("unknown field " + Quote(field));
    causes_.push_back({"FieldValueUnknown", "unknown field", field});
  }
  void RepeatedKey(const YAML::Node& key, const std::string& field) {
    texts_.push_back(Where(key.Mark()) + "key " + Quote(key.Scalar()) + " already set in map");
    causes_.push_back({"FieldValueDuplicate", "key already set in map", field});
  }

  Status ToStatus() const {
    std::string message;
    if (texts_.size() == 1) {
      message = texts_[0];
    } else {
      message = "[";
      for (size_t i = 0; i < texts_.size(); ++i) {
        if (i) message += ", ";
        message += texts_[i];
      }
      message += "]";
    }
    return Status(StatusCode::kBadRequest, std::move(message), causes_);
  }

  // ---- Typed readers; each returns nullopt (having recorded why) or for null ----

  // Calls on_field(key, value) for each entry of a map (null: none); a false
  // return marks the key unknown. Repeated keys are errors.
  template <typename F>
  void ForEachField(const YAML::Node& map, const std::string& path, F&& on_field) {
    if (map.IsNull()) return;
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: it-> yields a temporary
      if (!key.IsScalar()) {
        Invalid(path, key, "field names must be strings");
        continue;
      }
      std::string name = key.Scalar();
      if (!seen.insert(name).second) {
        RepeatedKey(key, Child(path, name));
        continue;
      }
      if (!on_field(name, it->second)) UnknownField(Child(path, name));
    }
  }

  bool ExpectMap(const YAML::Node& n, const std::string& field) {
    if (n.IsMap() || n.IsNull()) return true;
    Invalid(field, n, "must be a map");
    return false;
  }

  bool ExpectList(const YAML::Node& n, const std::string& field) {
    if (n.IsSequence() || n.IsNull()) return true;
    Invalid(field, n, "must be a list");
    return false;
  }

  std::optional<std::string> String(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    if (!n.IsScalar()) {
      Invalid(field, n, "must be a string");
      return std::nullopt;
    }
    return n.Scalar();
  }

  std::optional<int32_t> Int32(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    json::value v = n.IsScalar() ? ScalarToJson(n) : json::value();
    if (!v.is_int64()) {
      Invalid(field, n, "must be an integer");
      return std::nullopt;
    }
    int64_t i = v.get_int64();
    if (i < std::numeric_limits<int32_t>::min() || i > std::numeric_limits<int32_t>::max()) {
      Invalid(field, n, "must fit in a 32-bit integer");
      return std::nullopt;
    }
    return static_cast<int32_t>(i);
  }

  std::optional<int64_t> Int64(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    json::value v = n.IsScalar() ? ScalarToJson(n) : json::value();
    if (!v.is_int64()) {
      Invalid(field, n, "must be an integer");
      return std::nullopt;
    }
    return v.get_int64();
  }

  std::optional<bool> Bool(const YAML::Node& n, const std::string& field) {
    if (n.IsNull()) return std::nullopt;
    json::value v = n.IsScalar() ? ScalarToJson(n) : json::value();
    if (!v.is_bool()) {
      Invalid(field, n, "must be a boolean");
      return std::nullopt;
    }
    return v.get_bool();
  }

  std::optional<int32_t> Percentage(const YAML::Node& n, const std::string& field) {
    auto v = Int32(n, field);
    if (v && (*v < 0 || *v > 100)) {
      Invalid(field, n, "not in valid range [0-100]");
      return std::nullopt;
    }
    return v;
  }

  // ---- settings berth accepts only as what it does ----

  // A bool that must be false (absent or null: kube's default, also accepted).
  void OnlyFalse(const YAML::Node& n, const std::string& field, std::string_view why) {
    if (n.IsNull()) return;
    json::value v = n.IsScalar() ? ScalarToJson(n) : json::value();
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
        json::value v = value.IsScalar() ? ScalarToJson(value) : json::value();
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

  void Extenders(const YAML::Node& list, const std::string& path, std::vector<ExtenderConfig>& out) {
    if (!ExpectList(list, path) || list.IsNull()) return;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string here = Index(path, i);
      ExtenderConfig extender;
      if (!list[i].IsMap()) {
        Invalid(here, list[i], "must be a map");
      } else {
        Extender(list[i], here, extender);
      }
      out.push_back(std::move(extender));
    }
  }

  void Extender(const YAML::Node& node, const std::string& path, ExtenderConfig& e) {
    const std::pair<std::string_view, std::string*> strings[] = {
        {"urlPrefix", &e.url_prefix},         {"filterVerb", &e.filter_verb}, {"preemptVerb", &e.preempt_verb},
        {"prioritizeVerb", &e.prioritize_verb}, {"bindVerb", &e.bind_verb},
    };
    const std::pair<std::string_view, bool*> bools[] = {
        {"enableHTTPS", &e.enable_https}, {"nodeCacheCapable", &e.node_cache_capable}, {"ignorable", &e.ignorable}};
    ForEachField(node, path, [&](const std::string& key, const YAML::Node& value) {
      std::string field = Child(path, key);
      for (const auto& [name, target] : strings) {
        if (key == name) {
          if (auto v = String(value, field)) *target = *v;
          return true;
        }
      }
      for (const auto& [name, target] : bools) {
        if (key == name) {
          if (auto v = Bool(value, field)) *target = *v;
          return true;
        }
      }
      if (key == "weight") {
        if (auto v = Int64(value, field)) e.weight = *v;
      } else if (key == "httpTimeout") {
        if (auto v = String(value, field)) {
          auto d = api::ParseGoDuration(*v);
          if (!d || d->count() < 0) {
            Invalid(field, value, "must be a duration such as \"30s\"");
          } else {
            e.http_timeout = *d;
          }
        }
      } else if (key == "tlsConfig") {
        if (ExpectMap(value, field) && !value.IsNull()) e.tls_config = TlsConfig(value, field);
      } else if (key == "managedResources") {
        ManagedResources(value, field, e.managed_resources);
      } else {
        return false;
      }
      return true;
    });
  }

  ExtenderTlsConfig TlsConfig(const YAML::Node& node, const std::string& path) {
    ExtenderTlsConfig tls;
    const std::pair<std::string_view, std::string*> strings[] = {
        {"serverName", &tls.server_name}, {"certFile", &tls.cert_file}, {"keyFile", &tls.key_file},
        {"caFile", &tls.ca_file}};
    const std::pair<std::string_view, std::string*> bytes[] = {
        {"certData", &tls.cert_data}, {"keyData", &tls.key_data}, {"caData", &tls.ca_data}};
    ForEachField(node, path, [&](const std::string& key, const YAML::Node& value) {
      std::string field = Child(path, key);
      if (key == "insecure") {
        if (auto v = Bool(value, field)) tls.insecure = *v;
        return true;
      }
      for (const auto& [name, target] : strings) {
        if (key == name) {
          if (auto v = String(value, field)) *target = *v;
          return true;
        }
      }
      for (const auto& [name, target] : bytes) {
        if (key == name) {
          if (auto v = String(value, field)) {
            if (auto decoded = DecodeBase64(*v)) {
              *target = std::move(*decoded);
            } else {
              Invalid(field, value, "must be base64-encoded bytes");
            }
          }
          return true;
        }
      }
      return false;
    });
    return tls;
  }

  void ManagedResources(const YAML::Node& list, const std::string& path, std::vector<ExtenderManagedResource>& out) {
    if (!ExpectList(list, path) || list.IsNull()) return;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string here = Index(path, i);
      ExtenderManagedResource resource;
      if (!list[i].IsMap()) {
        Invalid(here, list[i], "must be a map");
      } else {
        ForEachField(list[i], here, [&](const std::string& key, const YAML::Node& value) {
          std::string field = Child(here, key);
          if (key == "name") {
            if (auto v = String(value, field)) resource.name = *v;
          } else if (key == "ignoredByScheduler") {
            if (auto v = Bool(value, field)) resource.ignored_by_scheduler = *v;
          } else {
            return false;
          }
          return true;
        });
      }
      out.push_back(std::move(resource));
    }
  }

  // kube's validateExtenders: a positive weight for a prioritizer, managed
  // resources with valid extended resource names, each managed once (across
  // all extenders), and at most one binder.
  void ValidateExtenders(const std::vector<ExtenderConfig>& extenders) {
    int binders = 0;
    std::set<std::string> managed;
    for (size_t i = 0; i < extenders.size(); ++i) {
      const ExtenderConfig& e = extenders[i];
      std::string path = Index("extenders", i);
      if (!e.prioritize_verb.empty() && e.weight <= 0) {
        Invalid(path + ".weight", e.weight, "must have a positive weight applied to it");
      }
      if (!e.bind_verb.empty()) ++binders;
      for (size_t j = 0; j < e.managed_resources.size(); ++j) {
        const std::string& name = e.managed_resources[j].name;
        std::string field = Index(path + ".managedResources", j) + ".name";
        std::vector<std::string> problems = api::IsQualifiedName(name);
        for (const auto& problem : problems) InvalidString(field, name, problem);
        if (problems.empty() && !IsExtendedResourceName(name)) {
          InvalidString(field, name, "is an invalid extended resource name");
        }
        if (!managed.insert(name).second) InvalidString(field, name, "duplicate extender managed resource name");
      }
    }
    if (binders > 1) {
      InvalidString("extenders", "found " + std::to_string(binders) + " extenders implementing bind",
                    "only one extender can implement bind");
    }
  }

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
    if (node.IsScalar()) return ScalarToJson(node);
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

  api::FieldErrors field_errors_;
  // Every problem in document order: its cause, and how the message shows it
  // ("field: message" for field errors).
  std::vector<StatusCause> causes_;
  std::vector<std::string> texts_;
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
