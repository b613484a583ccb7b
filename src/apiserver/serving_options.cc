#include "apiserver/serving_options.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl.hpp>

namespace berth::apiserver {

Result<ListenAddress> ParseListenAddress(const std::string& listen) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return Status::BadRequest("--listen " + listen + ": expected HOST:PORT");
  ListenAddress a;
  a.host = listen.substr(0, colon);
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') a.host = a.host.substr(1, a.host.size() - 2);
  const std::string port = listen.substr(colon + 1);
  int number = -1;
  if (!port.empty() && port.size() <= 5 && port.find_first_not_of("0123456789") == std::string::npos) {
    number = std::stoi(port);
  }
  if (number < 0 || number > 65535) return Status::BadRequest("--listen " + listen + ": invalid port");
  a.port = static_cast<uint16_t>(number);
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(a.host, ec);
  if (ec) return Status::BadRequest("--listen " + listen + ": invalid address \"" + a.host + "\"");
  a.loopback = address.is_loopback();
  return a;
}

Result<std::shared_ptr<boost::asio::ssl::context>> LoadTlsServerContext(const std::string& cert_file,
                                                                      const std::string& key_file) {
  auto tls = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
  boost::system::error_code ec;
  tls->use_certificate_chain_file(cert_file, ec);
  if (ec) return Status::BadRequest("--tls-cert-file " + cert_file + ": " + ec.message());
  tls->use_private_key_file(key_file, boost::asio::ssl::context::pem, ec);
  if (ec) return Status::BadRequest("--tls-private-key-file " + key_file + ": " + ec.message());
  return tls;
}

Status AddClientCertificateAuthority(boost::asio::ssl::context& tls, const std::string& client_ca_file) {
  boost::system::error_code ec;
  tls.load_verify_file(client_ca_file, ec);
  if (ec) return Status::BadRequest("--client-ca-file " + client_ca_file + ": " + ec.message());
  // The CAs' names go into the CertificateRequest, so that clients choose a
  // certificate those CAs issued.
  STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(client_ca_file.c_str());
  if (names == nullptr) {
    ERR_clear_error();
    return Status::BadRequest("--client-ca-file " + client_ca_file + ": no certificate found");
  }
  SSL_CTX_set_client_CA_list(tls.native_handle(), names);
  // Verification errors do not end the handshake: the server reads the
  // result after it and trusts only a verified certificate.
  tls.set_verify_mode(boost::asio::ssl::verify_peer);
  tls.set_verify_callback([](bool, boost::asio::ssl::verify_context&) { return true; });
  // Sessions are not resumed: a resumed session would carry no certificate to read.
  SSL_CTX_set_session_cache_mode(tls.native_handle(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(tls.native_handle(), SSL_OP_NO_TICKET);
  return Status::Ok();
}

}  // namespace berth::apiserver
