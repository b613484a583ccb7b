#pragma once
// Everything HttpClient needs to reach one API server, as client-go's
// rest.Config: where (server, TLS trust), as whom (token, client certificate,
// basic auth) and how fast (QPS, burst, requests in flight). Built from a
// kubeconfig (client/kubeconfig.h), the in-cluster service account, or a bare
// --server URL. Certificates and keys are held as PEM text, read when the
// configuration was loaded, so that a bad file is reported at start-up.

#include <string>

namespace berth::metrics {
class Registry;
}

namespace berth::client {

struct RestConfig {
  // "https://HOST[:PORT]" or "http://HOST[:PORT]" (kube's defaults: 443, 80).
  std::string server;

  // TLS. ca_pem empty: the system's trusted roots.
  std::string ca_pem;
  std::string ca_source;  // where ca_pem came from, for error messages
  bool insecure_skip_tls_verify = false;
  // The name the server's certificate must carry, instead of the server's host.
  std::string tls_server_name;
  std::string client_certificate_pem;
  std::string client_key_pem;

  // Credentials, sent as an Authorization header. bearer_token wins over
  // bearer_token_file (re-read every minute, as client-go does), which wins
  // over username/password.
  std::string bearer_token;
  std::string bearer_token_file;
  std::string username;
  std::string password;

  // kube's client-side limits: a token bucket of `qps` requests a second
  // holding up to `burst` (qps <= 0: unlimited), and at most `max_inflight`
  // requests at once (<= 0: unbounded). Watches are not counted by either.
  double qps = 5;  // client-go's DefaultQPS
  int burst = 10;  // client-go's DefaultBurst
  int max_inflight = 64;

  std::string user_agent = "berth";
  // Set: the rest_client_* metrics are registered there. Must outlive the client.
  metrics::Registry* metrics = nullptr;
};

}  // namespace berth::client
