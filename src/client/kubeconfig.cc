#include "client/kubeconfig.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "api/codec/base64.h"

namespace berth::client {
namespace {

namespace fs = std::filesystem;

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    std::string why = fs::exists(path, ec) ? "permission denied" : "no such file or directory";
    return Status::NotFound("open " + path + ": " + why);
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Parses one file's sections; every error names the file and key.
class Parser {
 public:
  Parser(const std::string& path) : path_(path) {
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    dir_ = (ec ? fs::path(path) : absolute).parent_path();
  }

  Status Error(const std::string& key, const std::string& what) const {
    return Status::BadRequest("kubeconfig " + path_ + ": " + key + ": " + what);
  }

  // A file name relative to the kubeconfig's directory.
  std::string Resolve(const std::string& file) const {
    if (file.empty() || fs::path(file).is_absolute()) return file;
    return (dir_ / file).lexically_normal().string();
  }

  Status String(const YAML::Node& map, const char* field, const std::string& key,
                std::string& out) const {
    YAML::Node v = map[field];
    if (!v || v.IsNull()) return Status::Ok();
    if (!v.IsScalar()) return Error(key + "." + field, "expected a string");
    out = v.Scalar();
    return Status::Ok();
  }

  Status Bool(const YAML::Node& map, const char* field, const std::string& key, bool& out) const {
    YAML::Node v = map[field];
    if (!v || v.IsNull()) return Status::Ok();
    bool b = false;
    if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b))
      return Error(key + "." + field, "expected true or false");
    out = b;
    return Status::Ok();
  }

  // A []byte field: base64 in the file, decoded here.
  Status Bytes(const YAML::Node& map, const char* field, const std::string& key,
               std::string& out) const {
    std::string text;
    if (Status s = String(map, field, key, text); !s.ok()) return s;
    if (text.empty()) return Status::Ok();
    auto decoded = api::Base64Decode(text);
    if (auto* bad = std::get_if<api::Base64Corrupt>(&decoded)) {
      return Error(key + "." + field,
                   "illegal base64 data at input byte " + std::to_string(bad->offset));
    }
    out = std::get<std::string>(std::move(decoded));
    return Status::Ok();
  }

  // Calls `each(name, body, key)` for every `{name: N, <body_field>: {...}}`
  // entry of the list `section`.
  template <typename F>
  Status Entries(const YAML::Node& root, const char* section, const char* body_field,
                 F&& each) const {
    YAML::Node list = root[section];
    if (!list || list.IsNull()) return Status::Ok();
    if (!list.IsSequence()) return Error(section, "expected a list");
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node& entry = list[i];
      std::string at = std::string(section) + "[" + std::to_string(i) + "]";
      if (!entry.IsMap())
        return Error(at, "expected a map with name and " + std::string(body_field));
      std::string name;
      if (Status s = String(entry, "name", at, name); !s.ok()) return s;
      if (name.empty()) return Error(at + ".name", "required");
      std::string key = std::string(section) + "[" + name + "]";
      YAML::Node body = entry[body_field];
      if (body && !body.IsNull() && !body.IsMap())
        return Error(key + "." + body_field, "expected a map");
      if (Status s = each(name, body && body.IsMap() ? body : YAML::Node(YAML::NodeType::Map), key);
          !s.ok()) {
        return s;
      }
    }
    return Status::Ok();
  }

 private:
  std::string path_;
  fs::path dir_;
};

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Result<Kubeconfig> ParseKubeconfig(const std::string& text, const std::string& path) {
  Parser p(path);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status::BadRequest("kubeconfig " + path + ": " + e.what());
  }
  Kubeconfig out;
  if (!root || root.IsNull()) return out;  // an empty file is an empty config
  if (!root.IsMap()) return p.Error("(top level)", "expected a map (apiVersion: v1, kind: Config)");
  std::string kind;
  if (Status s = p.String(root, "kind", "", kind); !s.ok()) return s;
  if (!kind.empty() && kind != "Config") return p.Error("kind", "expected Config, not " + kind);

  Status s = p.Entries(
      root, "clusters", "cluster",
      [&](const std::string& name, const YAML::Node& c, const std::string& key) -> Status {
        KubeconfigCluster cluster;
        cluster.source = path;
        if (Status e = p.String(c, "server", key, cluster.server); !e.ok()) return e;
        if (Status e = p.String(c, "certificate-authority", key, cluster.certificate_authority);
            !e.ok())
          return e;
        cluster.certificate_authority = p.Resolve(cluster.certificate_authority);
        if (Status e =
                p.Bytes(c, "certificate-authority-data", key, cluster.certificate_authority_data);
            !e.ok()) {
          return e;
        }
        if (Status e = p.Bool(c, "insecure-skip-tls-verify", key, cluster.insecure_skip_tls_verify);
            !e.ok())
          return e;
        if (Status e = p.String(c, "tls-server-name", key, cluster.tls_server_name); !e.ok())
          return e;
        out.clusters.emplace(
            name, std::move(cluster));  // a repeated name: the first stays, as client-go keeps it
        return Status::Ok();
      });
  if (!s.ok()) return s;
  s = p.Entries(
      root, "users", "user",
      [&](const std::string& name, const YAML::Node& u, const std::string& key) -> Status {
        KubeconfigUser user;
        user.source = path;
        for (auto [field, value] :
             {std::pair{"token", &user.token}, std::pair{"tokenFile", &user.token_file},
              std::pair{"client-certificate", &user.client_certificate},
              std::pair{"client-key", &user.client_key}, std::pair{"username", &user.username},
              std::pair{"password", &user.password}}) {
          if (Status e = p.String(u, field, key, *value); !e.ok()) return e;
        }
        user.token_file = p.Resolve(user.token_file);
        user.client_certificate = p.Resolve(user.client_certificate);
        user.client_key = p.Resolve(user.client_key);
        if (Status e = p.Bytes(u, "client-certificate-data", key, user.client_certificate_data);
            !e.ok())
          return e;
        if (Status e = p.Bytes(u, "client-key-data", key, user.client_key_data); !e.ok()) return e;
        for (const char* unsupported : {"exec", "auth-provider"}) {
          if (u[unsupported] && !u[unsupported].IsNull()) {
            return p.Error(key + "." + unsupported,
                           "not supported by berth (use a token or a client certificate)");
          }
        }
        out.users.emplace(name, std::move(user));
        return Status::Ok();
      });
  if (!s.ok()) return s;
  s = p.Entries(
      root, "contexts", "context",
      [&](const std::string& name, const YAML::Node& c, const std::string& key) -> Status {
        KubeconfigContext context;
        context.source = path;
        if (Status e = p.String(c, "cluster", key, context.cluster); !e.ok()) return e;
        if (Status e = p.String(c, "user", key, context.user); !e.ok()) return e;
        if (Status e = p.String(c, "namespace", key, context.namespace_name); !e.ok()) return e;
        out.contexts.emplace(name, std::move(context));
        return Status::Ok();
      });
  if (!s.ok()) return s;
  if (Status e = p.String(root, "current-context", "", out.current_context); !e.ok()) return e;
  if (!out.current_context.empty()) out.current_context_source = path;
  return out;
}

Result<Kubeconfig> LoadKubeconfigFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseKubeconfig(text.value(), path);
}

void MergeKubeconfig(Kubeconfig& into, const Kubeconfig& later) {
  for (const auto& [name, c] : later.clusters) into.clusters.emplace(name, c);
  for (const auto& [name, u] : later.users) into.users.emplace(name, u);
  for (const auto& [name, c] : later.contexts) into.contexts.emplace(name, c);
  if (into.current_context.empty()) {
    into.current_context = later.current_context;
    into.current_context_source = later.current_context_source;
  }
}

ClientConfigSources ClientConfigSources::FromEnvironment() {
  ClientConfigSources s;
  s.kubeconfig_env = Getenv("KUBECONFIG");
  s.home = Getenv("HOME");
  s.service_host = Getenv("KUBERNETES_SERVICE_HOST");
  s.service_port = Getenv("KUBERNETES_SERVICE_PORT");
  return s;
}

Result<RestConfig> InClusterConfig(const ClientConfigSources& sources) {
  if (sources.service_host.empty() || sources.service_port.empty()) {
    return Status::BadRequest(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must be "
        "defined");
  }
  RestConfig config;
  std::string host = sources.service_host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // IPv6
  config.server = "https://" + host + ":" + sources.service_port;
  config.bearer_token_file = sources.service_account_dir + "/token";
  auto token = ReadWholeFile(config.bearer_token_file);
  if (!token.ok()) return token.status();
  auto ca = ReadWholeFile(sources.service_account_dir + "/ca.crt");
  if (!ca.ok()) return ca.status();
  config.ca_pem = std::move(ca).value();
  config.ca_source = sources.service_account_dir + "/ca.crt";
  return config;
}

namespace {

// KUBECONFIG's files merged in order (each once; missing ones skipped, as
// client-go does). `found` when any was read.
Status MergeKubeconfigList(const std::string& list_text, Kubeconfig& merged, bool& found) {
  std::vector<std::string> seen;
  std::stringstream list(list_text);
  for (std::string file; std::getline(list, file, ':');) {
    if (file.empty() || std::find(seen.begin(), seen.end(), file) != seen.end()) continue;
    seen.push_back(file);
    std::error_code ec;
    if (!fs::exists(file, ec)) continue;  // client-go skips missing files of the list
    auto loaded = LoadKubeconfigFile(file);
    if (!loaded.ok())
      return Status(loaded.status().code(), "KUBECONFIG: " + loaded.status().message());
    MergeKubeconfig(merged, loaded.value());
    found = true;
  }
  return Status::Ok();
}

// The kubeconfig client-go would read: --kubeconfig, else KUBECONFIG's
// files, else ~/.kube/config when it exists. `found` when any file was read.
Status LoadKubeconfigs(const ClientConfigSources& sources, Kubeconfig& merged, bool& found) {
  if (!sources.kubeconfig.empty()) {
    auto loaded = LoadKubeconfigFile(sources.kubeconfig);
    if (!loaded.ok())
      return Status(loaded.status().code(), "--kubeconfig: " + loaded.status().message());
    merged = std::move(loaded).value();
    found = true;
  } else if (!sources.kubeconfig_env.empty()) {
    return MergeKubeconfigList(sources.kubeconfig_env, merged, found);
  } else if (!sources.home.empty()) {
    std::string file = sources.home + "/.kube/config";
    std::error_code ec;
    if (fs::exists(file, ec)) {
      auto loaded = LoadKubeconfigFile(file);
      if (!loaded.ok()) return loaded.status();
      merged = std::move(loaded).value();
      found = true;
    }
  }
  return Status::Ok();
}

// In a pod with no (or an empty) kubeconfig and nothing asked for on the
// command line, the service account's configuration is used.
bool UsesInClusterConfig(const ClientConfigSources& sources, const Kubeconfig& merged, bool found) {
  const bool empty = merged.clusters.empty() && merged.users.empty() && merged.contexts.empty() &&
                     merged.current_context.empty();
  return (!found || empty) && sources.kubeconfig.empty() && sources.context.empty() &&
         sources.server.empty() && !sources.service_host.empty();
}

// The context's cluster: its server and how to trust it.
Status ApplyCluster(const Kubeconfig& merged, const KubeconfigContext& context,
                    const std::string& context_name, const ClientConfigSources& sources,
                    RestConfig& config) {
  const std::string at = "kubeconfig " + context.source + ": contexts[" + context_name + "]";
  auto c = merged.clusters.find(context.cluster);
  if (c == merged.clusters.end()) {
    return Status::BadRequest(at + ".cluster: cluster \"" + context.cluster + "\" not found");
  }
  const KubeconfigCluster& cluster = c->second;
  const std::string key = "kubeconfig " + cluster.source + ": clusters[" + context.cluster + "]";
  config.server = cluster.server;
  config.insecure_skip_tls_verify = cluster.insecure_skip_tls_verify;
  config.tls_server_name = cluster.tls_server_name;
  // certificate-authority-data overrides certificate-authority (client-go).
  if (!cluster.certificate_authority_data.empty()) {
    config.ca_pem = cluster.certificate_authority_data;
    config.ca_source = key + ".certificate-authority-data";
  } else if (!cluster.certificate_authority.empty()) {
    auto ca = ReadWholeFile(cluster.certificate_authority);
    if (!ca.ok())
      return Status::BadRequest(key + ".certificate-authority: " + ca.status().message());
    config.ca_pem = std::move(ca).value();
    config.ca_source = cluster.certificate_authority;
  }
  if (config.insecure_skip_tls_verify && !config.ca_pem.empty()) {
    return Status::BadRequest(
        key + ": specifying a root certificates file with the insecure flag is not allowed");
  }
  if (config.server.empty() && sources.server.empty()) {
    return Status::BadRequest(key + ".server: cluster has no server defined");
  }
  return Status::Ok();
}

// The context's user `user_name`: a token (or token file), a client
// certificate and key, or a username and password.
Status ApplyUser(const KubeconfigUser& user, const std::string& user_name, RestConfig& config) {
  const std::string key = "kubeconfig " + user.source + ": users[" + user_name + "]";
  config.bearer_token = user.token;
  if (user.token.empty() && !user.token_file.empty()) {
    auto token = ReadWholeFile(user.token_file);
    if (!token.ok()) return Status::BadRequest(key + ".tokenFile: " + token.status().message());
    config.bearer_token_file = user.token_file;
  }
  config.client_certificate_pem = user.client_certificate_data;
  if (config.client_certificate_pem.empty() && !user.client_certificate.empty()) {
    auto pem = ReadWholeFile(user.client_certificate);
    if (!pem.ok())
      return Status::BadRequest(key + ".client-certificate: " + pem.status().message());
    config.client_certificate_pem = std::move(pem).value();
  }
  config.client_key_pem = user.client_key_data;
  if (config.client_key_pem.empty() && !user.client_key.empty()) {
    auto pem = ReadWholeFile(user.client_key);
    if (!pem.ok()) return Status::BadRequest(key + ".client-key: " + pem.status().message());
    config.client_key_pem = std::move(pem).value();
  }
  if (config.client_certificate_pem.empty() != config.client_key_pem.empty()) {
    return Status::BadRequest(key + ": " +
                              (config.client_key_pem.empty()
                                   ? "client-certificate without client-key"
                                   : "client-key without client-certificate"));
  }
  config.username = user.username;
  config.password = user.password;
  return Status::Ok();
}

// The context --context names, else the current context: its cluster and
// its user. Nothing when there is neither.
Status ApplyContext(const Kubeconfig& merged, const ClientConfigSources& sources,
                    RestConfig& config) {
  std::string context_name = sources.context.empty() ? merged.current_context : sources.context;
  if (context_name.empty()) return Status::Ok();
  auto it = merged.contexts.find(context_name);
  if (it == merged.contexts.end()) {
    if (!sources.context.empty()) {
      return Status::BadRequest("context was not found for specified context: " + context_name);
    }
    return Status::BadRequest("kubeconfig " + merged.current_context_source +
                              ": current-context: context \"" + context_name +
                              "\" does not exist");
  }
  const KubeconfigContext& context = it->second;
  if (!context.cluster.empty()) {
    if (Status s = ApplyCluster(merged, context, context_name, sources, config); !s.ok()) return s;
  }
  if (!context.user.empty()) {
    auto u = merged.users.find(context.user);
    // client-go tolerates a context naming a user that is not defined (an
    // anonymous client); so does berth.
    if (u != merged.users.end()) {
      if (Status s = ApplyUser(u->second, context.user, config); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<RestConfig> LoadClientConfig(const ClientConfigSources& sources,
                                    const std::string& fallback_server) {
  Kubeconfig merged;
  bool found = false;
  if (Status s = LoadKubeconfigs(sources, merged, found); !s.ok()) return s;

  if (UsesInClusterConfig(sources, merged, found)) {
    auto in_cluster = InClusterConfig(sources);
    if (!in_cluster.ok()) return in_cluster.status();
    if (!sources.token.empty()) {
      in_cluster->bearer_token = sources.token;
      in_cluster->bearer_token_file.clear();
    }
    return in_cluster;
  }

  RestConfig config;
  if (Status s = ApplyContext(merged, sources, config); !s.ok()) return s;
  // --server and --token override what the kubeconfig says.
  if (!sources.server.empty()) config.server = sources.server;
  if (!sources.token.empty()) {
    config.bearer_token = sources.token;
    config.bearer_token_file.clear();
  }
  if (config.server.empty()) {
    if (fallback_server.empty()) {
      return Status::BadRequest(
          "invalid configuration: no configuration has been provided, try setting "
          "KUBERNETES_MASTER environment "
          "variable");
    }
    config.server = fallback_server;
  }
  return config;
}

}  // namespace berth::client
