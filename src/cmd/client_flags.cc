#include "cmd/client_flags.h"

#include <CLI/CLI.hpp>

#include "client/kubeconfig.h"

namespace berth::cmd {

void ClientFlags::AddTo(CLI::App* command, double default_qps, int default_burst) {
  qps = default_qps;
  burst = default_burst;
  command->add_option(
      "--kubeconfig", kubeconfig,
      "Path to a kubeconfig file (else $KUBECONFIG, ~/.kube/config, the in-cluster service "
      "account, or http://127.0.0.1:8080)");
  command->add_option("--context", context,
                      "The kubeconfig context to use (else its current-context)");
  command->add_option("--server,-s", server,
                      "The API server's address; overrides the kubeconfig's");
  command->add_option("--token", token, "Bearer token for authentication to the API server");
  command
      ->add_option("--kube-api-qps", qps,
                   "QPS to use while talking with the API server (<= 0: unlimited)")
      ->capture_default_str();
  command->add_option("--kube-api-burst", burst, "Burst to use while talking with the API server")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

Result<client::RestConfig> ClientFlags::Load() const {
  client::ClientConfigSources sources = client::ClientConfigSources::FromEnvironment();
  sources.kubeconfig = kubeconfig;
  sources.context = context;
  sources.server = server;
  sources.token = token;
  auto config = client::LoadClientConfig(sources, "http://127.0.0.1:8080");
  if (!config.ok()) return config.status();
  config->qps = qps;
  config->burst = burst;
  return config;
}

Result<std::unique_ptr<client::HttpClient>> ClientFlags::Connect(
    const std::string& user_agent) const {
  auto config = Load();
  if (!config.ok()) return config.status();
  config->user_agent = user_agent;
  const std::string server = config->server;
  auto http = client::HttpClient::Connect(std::move(config).value());
  if (!http.ok()) return Status(http.status().code(), server + ": " + http.status().message());
  return http;
}

}  // namespace berth::cmd
