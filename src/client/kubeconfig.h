#pragma once
// kubeconfig files as kubectl and client-go read them (clientcmd): parsing,
// merging a KUBECONFIG list, choosing the context, and turning the chosen
// cluster and user into a RestConfig.
//
// Precedence, as client-go's deferred loading rules:
//   1. --kubeconfig FILE (must exist), else
//   2. $KUBECONFIG, a ':'-separated list merged in order (missing files are
//      skipped; for each cluster, user and context name the first file that
//      defines it wins, and current-context comes from the first file that
//      sets it), else
//   3. ~/.kube/config when it exists, else
//   4. the in-cluster service account (KUBERNETES_SERVICE_HOST/PORT, its token
//      and ca.crt) when running in a pod.
// --context picks a context instead of current-context; an explicit --server
// replaces the chosen cluster's server and --token the user's credentials.
// Relative file names in a kubeconfig are resolved against that file's
// directory. Errors name the file and the key (`users[alice].client-key`).

#include <map>
#include <string>
#include <vector>

#include "api/status.h"
#include "client/rest_config.h"

namespace berth::client {

struct KubeconfigCluster {
  std::string server;
  std::string certificate_authority;       // a file, absolute once loaded
  std::string certificate_authority_data;  // decoded PEM
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string source;  // the file that defined it
};

struct KubeconfigUser {
  std::string token;
  std::string token_file;  // tokenFile
  std::string client_certificate;
  std::string client_certificate_data;
  std::string client_key;
  std::string client_key_data;
  std::string username;
  std::string password;
  std::string source;
};

struct KubeconfigContext {
  std::string cluster;
  std::string user;
  std::string namespace_name;
  std::string source;
};

struct Kubeconfig {
  std::map<std::string, KubeconfigCluster> clusters;
  std::map<std::string, KubeconfigUser> users;
  std::map<std::string, KubeconfigContext> contexts;
  std::string current_context;
  std::string current_context_source;
};

// One kubeconfig's YAML `text`, read from `path` (named in errors; relative
// file names are resolved against its directory). BadRequest naming the
// path and key on malformed content.
Result<Kubeconfig> ParseKubeconfig(const std::string& text, const std::string& path);
// ParseKubeconfig of a file. NotFound when it cannot be read.
Result<Kubeconfig> LoadKubeconfigFile(const std::string& path);
// Adds to `into` what it lacks from `later` (client-go's merge: the first
// definition of a name wins, and the first current-context set).
void MergeKubeconfig(Kubeconfig& into, const Kubeconfig& later);

// Where a client configuration comes from: the flags, and the environment
// (given, so that tests need not change the process's).
struct ClientConfigSources {
  std::string kubeconfig;      // --kubeconfig
  std::string context;         // --context
  std::string server;          // --server: overrides the cluster's server
  std::string token;           // --token: overrides the user's credentials
  std::string kubeconfig_env;  // $KUBECONFIG
  std::string home;            // $HOME
  // The in-cluster environment: KUBERNETES_SERVICE_HOST/PORT and the
  // service account's directory (…/serviceaccount holding token and ca.crt).
  std::string service_host;
  std::string service_port;
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";

  // The process's environment ($KUBECONFIG, $HOME, KUBERNETES_SERVICE_*).
  static ClientConfigSources FromEnvironment();
};

// The configuration `sources` select, with certificates and keys read. With
// no kubeconfig found, no in-cluster environment, and no --server: BadRequest
// ("no configuration has been provided …"). `fallback_server`, when not
// empty, is used instead of that error (berth's commands fall back to
// http://127.0.0.1:8080, the address kubectl falls back to).
Result<RestConfig> LoadClientConfig(const ClientConfigSources& sources,
                                    const std::string& fallback_server = "");

// The in-cluster configuration alone (client-go's rest.InClusterConfig).
Result<RestConfig> InClusterConfig(const ClientConfigSources& sources);

}  // namespace berth::client
