#pragma once
// Where and how `berth serve` listens: kube-apiserver's serving flags turned
// into HttpServer options. Errors name the flag.

#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "api/status.h"

namespace berth::apiserver {

struct ListenAddress {
  std::string host;  // without IPv6 brackets
  uint16_t port = 0;
  bool loopback = false;
};

// "HOST:PORT" ("[::1]:8080" for IPv6). BadRequest naming --listen.
Result<ListenAddress> ParseListenAddress(const std::string& listen);

// A TLS server context from a PEM certificate chain and private key
// (--tls-cert-file, --tls-private-key-file).
Result<std::shared_ptr<boost::asio::ssl::context>> LoadTlsServerContext(const std::string& cert_file,
                                                                      const std::string& key_file);

// Makes `tls` ask clients for a certificate and verify it against the CAs of
// `client_ca_file` (--client-ca-file). A client without one, or with one that
// does not verify, still connects: its requests are then authenticated by
// other means or refused with 401, as kube-apiserver does.
Status AddClientCertificateAuthority(boost::asio::ssl::context& tls, const std::string& client_ca_file);

}  // namespace berth::apiserver
