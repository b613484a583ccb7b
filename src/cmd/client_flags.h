#pragma once
// The flags every command that talks to an API server shares, with kube's
// names: --kubeconfig, --context, --server (-s), --token, --kube-api-qps and
// --kube-api-burst. They select a client configuration by kubectl's rules
// (client/kubeconfig.h); with no kubeconfig found and no --server, berth
// falls back to http://127.0.0.1:8080, the address kubectl falls back to.

#include <CLI/App.hpp>
#include <memory>
#include <string>

#include "api/status.h"
#include "client/http_client.h"
#include "client/rest_config.h"

namespace berth::cmd {

struct ClientFlags {
  std::string kubeconfig;
  std::string context;
  std::string server;
  std::string token;
  double qps = 50;
  int burst = 100;

  // Adds the flags to `command`; `qps` and `burst` are the command's defaults
  // (kube-scheduler: 50/100, kube-controller-manager: 20/30).
  void AddTo(CLI::App* command, double default_qps, int default_burst);
  // The configuration the flags and the environment select, with the QPS
  // limits applied. Errors name the flag or the kubeconfig file and key.
  Result<client::RestConfig> Load() const;
  // Load, then a client for it (HttpClient::Connect), speaking as
  // `user_agent`. Errors name the flag, the file or the server.
  Result<std::unique_ptr<client::HttpClient>> Connect(const std::string& user_agent) const;
};

}  // namespace berth::cmd
