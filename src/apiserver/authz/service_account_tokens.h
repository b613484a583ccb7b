#pragma once
// Service account tokens as kube-apiserver issues and checks them: JWTs
// (RFC 7519) signed with the key of --service-account-signing-key-file (RS256
// for an RSA key, ES256/ES384/ES512 for an ECDSA one on P-256/P-384/P-521),
// checked against the public keys of --service-account-key-file (the signing
// key's own always among them), their issuer one of --service-account-issuer
// (the first issues) and their audience one of --api-audiences (default: the
// issuers). The claims are kube's: sub system:serviceaccount:<ns>:<name>,
// and under "kubernetes.io" the namespace, the account and the pod, secret or
// node the token is bound to. Without a signing key file the server uses a
// key it generated (serve keeps it in its data directory, so that tokens
// outlive a restart).
//
// Also the OIDC discovery documents kube serves for the issuer
// (/.well-known/openid-configuration, /openid/v1/jwks).
//
// Thread-safety: immutable once made; Sign and Verify may run on any thread.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/status.h"
#include "apiserver/http.h"

namespace berth::apiserver {

struct ServiceAccountTokenOptions {
  // --service-account-issuer: the first names the issuer of new tokens; all
  // are accepted. Empty: kube's usual "https://kubernetes.default.svc.cluster.local".
  std::vector<std::string> issuers;
  // --service-account-signing-key-file: a PEM RSA private key. Empty:
  // `generated_key_file` (made on first use), or a key made in memory.
  std::string signing_key_file;
  std::string generated_key_file;
  // --service-account-key-file: PEM public or private keys that verify tokens.
  std::vector<std::string> key_files;
  // --api-audiences: what a token must be meant for; empty: the issuers.
  std::vector<std::string> api_audiences;
  // --service-account-max-token-expiration in seconds (0: no limit).
  int64_t max_expiration_seconds = 0;
  // --service-account-extend-token-expiration: pod-bound tokens of kube's
  // default projection (3607 s) are valid a year, warning after their hour.
  bool extend_expiration = true;
  // --service-account-jwks-uri: the JWKS address discovery names; empty:
  // the issuer's /openid/v1/jwks.
  std::string jwks_uri;
};

inline constexpr std::string_view kDefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local";

// An object a token is bound to (and the account it is for).
struct TokenBinding {
  std::string name;
  std::string uid;
};

struct TokenClaims {
  std::string issuer;
  std::vector<std::string> audiences;
  std::string ns;
  TokenBinding account;
  std::optional<TokenBinding> pod, secret, node;
  int64_t issued_at = 0;   // seconds since the epoch (iat, nbf)
  int64_t expires_at = 0;  // exp
  int64_t warn_after = 0;  // kubernetes.io.warnafter; 0: none
  std::string id;          // jti
  // A legacy token (a kubernetes.io/service-account-token Secret's, issuer
  // kLegacyServiceAccountIssuer): the account and `secret` (name only), no
  // audience, no expiry; valid while its Secret holds it.
  bool legacy = false;
};

// The issuer of kube's legacy Secret-based tokens.
inline constexpr std::string_view kLegacyServiceAccountIssuer = "kubernetes/serviceaccount";

class ServiceAccountTokens {
 public:
  ~ServiceAccountTokens();

  // The keys and issuers of `options`. Error: a file that cannot be read or
  // holds no RSA or ECDSA key, an issuer that is empty (naming the flag).
  static Result<std::unique_ptr<ServiceAccountTokens>> Load(const ServiceAccountTokenOptions& options);

  // The compact JWT carrying `claims` (their issuer is set to the first one;
  // a legacy token's to kLegacyServiceAccountIssuer, with kube's legacy claims).
  Result<std::string> Sign(TokenClaims claims) const;

  // The token's claims when it is one of ours: a JWT whose issuer is one of
  // the issuers, or the legacy one. nullopt: not ours (another authenticator
  // may know it). An error: ours but not valid (signature, time, audience),
  // kube's message. The token must be meant for one of `audiences` (empty:
  // the API audiences); the claims' audiences are then those it shares with
  // them. A legacy token has none and is good for any (kube's legacy tokens
  // are audience-agnostic): its audiences are the targets.
  std::optional<Result<TokenClaims>> Verify(std::string_view token, int64_t now,
                                            const std::vector<std::string>& audiences = {}) const;

  const std::string& issuer() const { return issuers_.front(); }
  // The audiences a token must be meant for (--api-audiences).
  const std::vector<std::string>& audiences() const { return audiences_; }
  const ServiceAccountTokenOptions& options() const { return options_; }

  // The OIDC discovery documents; nullopt when the issuer is not an https
  // URL (kube serves discovery only then).
  std::optional<boost::json::object> OpenIdConfiguration() const;
  boost::json::object Jwks() const;

 private:
  struct Key;
  ServiceAccountTokens() = default;
  Result<std::string> SignPayload(const boost::json::object& payload) const;
  // A verified legacy token's claims, good for `targets`.
  static Result<TokenClaims> LegacyClaims(const boost::json::object& claims, const std::vector<std::string>& targets);

  ServiceAccountTokenOptions options_;
  std::vector<std::string> issuers_;
  std::vector<std::string> audiences_;
  std::unique_ptr<Key> signing_;
  std::vector<std::unique_ptr<Key>> verifying_;
};

// GET /.well-known/openid-configuration and /openid/v1/jwks, as kube serves
// them (404 for the configuration when the issuer is not an https URL);
// nullopt for other paths.
std::optional<Response> ServeIssuerDiscovery(const Request& request, const ServiceAccountTokens& tokens);

// kube's user name of a service account: system:serviceaccount:<ns>:<name>.
std::string ServiceAccountUserName(std::string_view ns, std::string_view name);

}  // namespace berth::apiserver
