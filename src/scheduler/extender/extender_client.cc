#include "scheduler/extender/extender_client.h"

namespace berth::scheduler {

Result<std::unique_ptr<ExtenderClient>> ExtenderClient::Create(const std::string& url_prefix, bool enable_https,
                                                              const std::optional<ExtenderTlsConfig>& tls,
                                                              std::chrono::milliseconds timeout) {
  const ExtenderTlsConfig config = tls.value_or(ExtenderTlsConfig{});
  const bool has_ca = !config.ca_file.empty() || !config.ca_data.empty();
  client::PostTls trust{
      // kube-scheduler: enableHTTPS without a CA does not verify the server.
      .verify = !config.insecure && !(enable_https && !has_ca),
      .server_name = config.server_name,
      .ca_pem = config.ca_data,
      .ca_file = config.ca_file,
      .cert_pem = config.cert_data,
      .cert_file = config.cert_file,
      .key_pem = config.key_data,
      .key_file = config.key_file,
  };
  auto http = client::PostClient::Create(url_prefix, trust, timeout, "berth-scheduler", "urlPrefix");
  if (!http.ok()) {
    const std::string& why = http.status().message();
    if (why.rfind("urlPrefix: ", 0) == 0) return http.status();
    return Status::BadRequest("tlsConfig: " + why);
  }
  return std::unique_ptr<ExtenderClient>(new ExtenderClient(std::move(http).value()));
}

Result<std::string> ExtenderClient::Post(std::string_view verb, std::string_view body) {
  auto answer = http_->Post("/" + std::string(verb), body);
  if (!answer.ok()) return answer.status();
  if (answer.value().status != 200) {
    return Status::Internal("failed " + std::string(verb) + " with extender at URL " + Url(verb) + ", code " +
                            std::to_string(answer.value().status));
  }
  return std::move(answer.value().body);
}

}  // namespace berth::scheduler
