#include "apiserver/authz/service_account_tokens.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <variant>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "apiserver/api_server.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// kube's clock skew allowance (go-jose's DefaultLeeway).
constexpr int64_t kLeewaySeconds = 60;

std::string Base64Url(std::string_view bytes) {
  std::string text = api::Base64Encode(bytes);
  while (!text.empty() && text.back() == '=') text.pop_back();
  for (char& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return text;
}

std::optional<std::string> FromBase64Url(std::string_view text) {
  std::string standard(text);
  for (char& c : standard) {
    if (c == '-') c = '+';
    else if (c == '_') c = '/';
    else if (c == '+' || c == '/' || c == '=' || c == '\r' || c == '\n') return std::nullopt;
  }
  while (standard.size() % 4 != 0) standard += '=';
  auto decoded = api::Base64Decode(standard);
  if (auto* bytes = std::get_if<std::string>(&decoded)) return std::move(*bytes);
  return std::nullopt;
}

Result<std::string> ReadFile(const std::string& path, std::string_view flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::BadRequest(std::string(flag) + ": cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string JsonStrings(const std::vector<std::string>& values) {
  // Go's %q of a []string: ["a" "b"].
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += json::serialize(json::string(values[i]));
  }
  return out + "]";
}

json::object BindingJson(const TokenBinding& b) { return json::object{{"name", b.name}, {"uid", b.uid}}; }

std::optional<TokenBinding> BindingFrom(const json::object* claims, std::string_view key) {
  const json::object* o = api::ObjectAt(claims, key);
  if (!o) return std::nullopt;
  return TokenBinding{std::string(api::StringAt(o, "name")), std::string(api::StringAt(o, "uid"))};
}

}  // namespace

struct ServiceAccountTokens::Key {
  EVP_PKEY* pkey = nullptr;
  std::string id;   // kube's key ID: base64url(SHA-256(PKIX DER of the public key))
  std::string alg;  // the JWS algorithm it signs with: RS256, or ES256/ES384/ES512 by curve
  int ec_bytes = 0;  // an ECDSA key's coordinate size (a signature is r || s of this size each)
  ~Key() { EVP_PKEY_free(pkey); }

  // Takes `key` (an RSA key, or an ECDSA key on P-256, P-384 or P-521: the
  // keys kube takes); nullptr when it is another.
  static std::unique_ptr<Key> Of(EVP_PKEY* key) {
    if (!key) return nullptr;
    auto k = std::make_unique<Key>();
    k->pkey = key;
    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA) {
      k->alg = "RS256";
    } else if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC) {
      char curve[64] = {0};
      size_t length = 0;
      EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, curve, sizeof curve, &length);
      const std::string_view name(curve);
      if (name == "prime256v1" || name == "P-256") {
        k->alg = "ES256", k->ec_bytes = 32;
      } else if (name == "secp384r1" || name == "P-384") {
        k->alg = "ES384", k->ec_bytes = 48;
      } else if (name == "secp521r1" || name == "P-521") {
        k->alg = "ES512", k->ec_bytes = 66;
      }
    }
    if (k->alg.empty()) return nullptr;  // frees the key
    unsigned char* der = nullptr;
    int size = i2d_PUBKEY(key, &der);
    if (size > 0) {
      unsigned char digest[SHA256_DIGEST_LENGTH];
      SHA256(der, static_cast<size_t>(size), digest);
      k->id = Base64Url(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
    }
    OPENSSL_free(der);
    return k;
  }

  bool IsPrivate() const {
    BIGNUM* secret = nullptr;
    const bool found = EVP_PKEY_get_bn_param(pkey, ec_bytes ? OSSL_PKEY_PARAM_PRIV_KEY : OSSL_PKEY_PARAM_RSA_D,
                                             &secret) == 1;
    BN_free(secret);
    return found;
  }

  const EVP_MD* Digest() const {
    if (alg == "ES384") return EVP_sha384();
    if (alg == "ES512") return EVP_sha512();
    return EVP_sha256();
  }

  // The RSA and ECDSA keys of a PEM text: public keys, private keys, certificates.
  static std::vector<std::unique_ptr<Key>> AllIn(std::string_view pem) {
    std::vector<std::unique_ptr<Key>> keys;
    size_t at = 0;
    while ((at = pem.find("-----BEGIN ", at)) != std::string_view::npos) {
      size_t end = pem.find("-----END ", at);
      if (end == std::string_view::npos) break;
      end = pem.find('\n', end);
      std::string_view block = pem.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at + 1);
      at += 11;
      BIO* bio = BIO_new_mem_buf(block.data(), static_cast<int>(block.size()));
      EVP_PKEY* key = nullptr;
      if (block.find("-----BEGIN CERTIFICATE-----") == 0) {
        if (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
          key = X509_get_pubkey(cert);
          X509_free(cert);
        }
      } else if (block.find("PRIVATE KEY-----") != std::string_view::npos) {
        key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
      } else {
        key = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
        if (!key) {
          // "RSA PUBLIC KEY": PKCS #1.
          BIO_free(bio);
          bio = BIO_new_mem_buf(block.data(), static_cast<int>(block.size()));
          char* name = nullptr;
          char* header = nullptr;
          unsigned char* der = nullptr;
          long size = 0;
          if (PEM_read_bio(bio, &name, &header, &der, &size) == 1) {
            const unsigned char* p = der;
            key = d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, size);
          }
          OPENSSL_free(name);
          OPENSSL_free(header);
          OPENSSL_free(der);
        }
      }
      BIO_free(bio);
      if (auto k = Of(key)) keys.push_back(std::move(k));
    }
    return keys;
  }

  static Result<std::unique_ptr<Key>> Generated() {
    EVP_PKEY* key = EVP_RSA_gen(2048);
    if (!key) return Status::Internal("cannot generate a service account signing key");
    return Of(key);
  }

  std::string PrivatePem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, pkey, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    long size = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<size_t>(size));
    BIO_free(bio);
    return pem;
  }

  // The JWS signature of `data`: RSASSA-PKCS1-v1_5, or ECDSA's r || s.
  std::optional<std::string> Sign(std::string_view data) const {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    std::optional<std::string> out;
    size_t size = 0;
    const auto* in = reinterpret_cast<const unsigned char*>(data.data());
    if (EVP_DigestSignInit(ctx, nullptr, Digest(), nullptr, pkey) == 1 &&
        EVP_DigestSign(ctx, nullptr, &size, in, data.size()) == 1) {
      std::string signature(size, '\0');
      if (EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &size, in, data.size()) == 1) {
        signature.resize(size);
        out = ec_bytes ? RawFromDer(signature) : std::move(signature);
      }
    }
    EVP_MD_CTX_free(ctx);
    return out;
  }

  bool Verify(std::string_view data, std::string_view signature) const {
    std::string der;
    if (ec_bytes) {
      auto converted = DerFromRaw(signature);
      if (!converted) return false;
      der = std::move(*converted);
      signature = der;
    }
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    bool ok = EVP_DigestVerifyInit(ctx, nullptr, Digest(), nullptr, pkey) == 1 &&
              EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                               reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
  }

  // An ECDSA signature as OpenSSL writes it (DER) into JWS's r || s, and back.
  std::optional<std::string> RawFromDer(const std::string& der) const {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
    if (!sig) return std::nullopt;
    std::string raw(static_cast<size_t>(2 * ec_bytes), '\0');
    auto* bytes = reinterpret_cast<unsigned char*>(raw.data());
    const bool ok = BN_bn2binpad(ECDSA_SIG_get0_r(sig), bytes, ec_bytes) == ec_bytes &&
                    BN_bn2binpad(ECDSA_SIG_get0_s(sig), bytes + ec_bytes, ec_bytes) == ec_bytes;
    ECDSA_SIG_free(sig);
    return ok ? std::optional<std::string>(std::move(raw)) : std::nullopt;
  }
  std::optional<std::string> DerFromRaw(std::string_view raw) const {
    if (raw.size() != static_cast<size_t>(2 * ec_bytes)) return std::nullopt;
    const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
    BIGNUM* r = BN_bin2bn(bytes, ec_bytes, nullptr);
    BIGNUM* s = BN_bin2bn(bytes + ec_bytes, ec_bytes, nullptr);
    ECDSA_SIG* sig = ECDSA_SIG_new();
    if (!r || !s || !sig || ECDSA_SIG_set0(sig, r, s) != 1) {
      BN_free(r);
      BN_free(s);
      ECDSA_SIG_free(sig);
      return std::nullopt;
    }
    unsigned char* der = nullptr;
    const int size = i2d_ECDSA_SIG(sig, &der);
    ECDSA_SIG_free(sig);
    if (size <= 0) return std::nullopt;
    std::string out(reinterpret_cast<const char*>(der), static_cast<size_t>(size));
    OPENSSL_free(der);
    return out;
  }

  // The key as a JWK (kube's JWKS document).
  json::object Jwk() const {
    json::object jwk{{"use", "sig"}, {"kid", id}, {"alg", alg}};
    if (ec_bytes) {
      jwk["kty"] = "EC";
      jwk["crv"] = alg == "ES256" ? "P-256" : alg == "ES384" ? "P-384" : "P-521";
      jwk["x"] = Param(OSSL_PKEY_PARAM_EC_PUB_X, ec_bytes);
      jwk["y"] = Param(OSSL_PKEY_PARAM_EC_PUB_Y, ec_bytes);
    } else {
      jwk["kty"] = "RSA";
      jwk["n"] = Param(OSSL_PKEY_PARAM_RSA_N);
      jwk["e"] = Param(OSSL_PKEY_PARAM_RSA_E);
    }
    return jwk;
  }

  // A big-number parameter in base64url, left-padded to `width` bytes when given.
  std::string Param(const char* name, int width = 0) const {
    BIGNUM* bn = nullptr;
    if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) return {};
    const int size = std::max(width, BN_num_bytes(bn));
    std::string bytes(static_cast<size_t>(size), '\0');
    BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(bytes.data()), size);
    BN_free(bn);
    return Base64Url(bytes);
  }
};

ServiceAccountTokens::~ServiceAccountTokens() = default;

namespace {

// The text of the key file `path`; empty when there is none yet.
std::string ExistingKeyPem(const std::string& path) {
  std::ifstream existing(path, std::ios::binary);
  if (!existing) return {};
  std::stringstream buffer;
  buffer << existing.rdbuf();
  return buffer.str();
}

}  // namespace

Result<std::unique_ptr<ServiceAccountTokens>> ServiceAccountTokens::Load(const ServiceAccountTokenOptions& options) {
  std::unique_ptr<ServiceAccountTokens> tokens(new ServiceAccountTokens());
  tokens->options_ = options;
  tokens->issuers_ = options.issuers;
  if (tokens->issuers_.empty()) tokens->issuers_.emplace_back(kDefaultServiceAccountIssuer);
  for (const auto& issuer : tokens->issuers_) {
    if (issuer.empty()) return Status::BadRequest("--service-account-issuer: an issuer may not be empty");
  }
  tokens->audiences_ = options.api_audiences.empty() ? tokens->issuers_ : options.api_audiences;
  if (options.max_expiration_seconds < 0) {
    return Status::BadRequest("--service-account-max-token-expiration: may not be negative");
  }
  if (options.max_expiration_seconds > 0 && options.max_expiration_seconds < 3600) {
    // kube's rule: the limit may not be under an hour.
    return Status::BadRequest("--service-account-max-token-expiration: the minimum valid value is 1h");
  }

  if (!options.signing_key_file.empty()) {
    auto pem = ReadFile(options.signing_key_file, "--service-account-signing-key-file");
    if (!pem.ok()) return pem.status();
    for (auto& key : Key::AllIn(*pem)) {
      if (key->IsPrivate()) {
        tokens->signing_ = std::move(key);
        break;
      }
    }
    if (!tokens->signing_) {
      return Status::BadRequest("--service-account-signing-key-file: " + options.signing_key_file +
                                " holds no RSA or ECDSA private key");
    }
  } else {
    // The key generated earlier, or a new one (written owner-only when it
    // has a file).
    const std::string pem = options.generated_key_file.empty() ? "" : ExistingKeyPem(options.generated_key_file);
    if (!pem.empty()) {
      auto keys = Key::AllIn(pem);
      if (keys.empty()) return Status::Internal(options.generated_key_file + " holds no RSA or ECDSA private key");
      tokens->signing_ = std::move(keys.front());
    } else {
      auto made = Key::Generated();
      if (!made.ok()) return made.status();
      tokens->signing_ = std::move(made).value();
      if (!options.generated_key_file.empty()) {
        const std::string temporary = options.generated_key_file + ".tmp";
        {
          std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
          ::chmod(temporary.c_str(), 0600);
          out << tokens->signing_->PrivatePem();
          if (!out.flush()) return Status::Internal("cannot write " + temporary);
        }
        if (std::rename(temporary.c_str(), options.generated_key_file.c_str()) != 0) {
          return Status::Internal("cannot write " + options.generated_key_file);
        }
      }
    }
  }

  // The signing key always verifies; the key files' keys too.
  auto own = Key::AllIn(tokens->signing_->PrivatePem());
  for (auto& key : own) tokens->verifying_.push_back(std::move(key));
  for (const auto& file : options.key_files) {
    auto pem = ReadFile(file, "--service-account-key-file");
    if (!pem.ok()) return pem.status();
    auto keys = Key::AllIn(*pem);
    if (keys.empty()) return Status::BadRequest("--service-account-key-file: " + file + " holds no RSA or ECDSA key");
    for (auto& key : keys) {
      const bool known = std::any_of(tokens->verifying_.begin(), tokens->verifying_.end(),
                                     [&](const auto& k) { return k->id == key->id; });
      if (!known) tokens->verifying_.push_back(std::move(key));
    }
  }
  return tokens;
}

namespace {

// kube's legacy claims (pkg/serviceaccount's legacyPrivateClaims), flat under
// the kubernetes.io/serviceaccount/ prefix.
constexpr std::string_view kLegacyNamespace = "kubernetes.io/serviceaccount/namespace";
constexpr std::string_view kLegacySecretName = "kubernetes.io/serviceaccount/secret.name";
constexpr std::string_view kLegacyAccountName = "kubernetes.io/serviceaccount/service-account.name";
constexpr std::string_view kLegacyAccountUid = "kubernetes.io/serviceaccount/service-account.uid";

json::object LegacyPayload(const TokenClaims& claims) {
  return json::object{{"iss", kLegacyServiceAccountIssuer},
                      {kLegacyNamespace, claims.ns},
                      {kLegacySecretName, claims.secret ? claims.secret->name : std::string()},
                      {kLegacyAccountName, claims.account.name},
                      {kLegacyAccountUid, claims.account.uid},
                      {"sub", ServiceAccountUserName(claims.ns, claims.account.name)}};
}

}  // namespace

Result<std::string> ServiceAccountTokens::Sign(TokenClaims claims) const {
  if (claims.legacy) return SignPayload(LegacyPayload(claims));
  claims.issuer = issuer();
  json::object kubernetes{{"namespace", claims.ns}, {"serviceaccount", BindingJson(claims.account)}};
  if (claims.pod) kubernetes["pod"] = BindingJson(*claims.pod);
  if (claims.secret) kubernetes["secret"] = BindingJson(*claims.secret);
  if (claims.node) kubernetes["node"] = BindingJson(*claims.node);
  if (claims.warn_after != 0) kubernetes["warnafter"] = claims.warn_after;
  json::array audiences;
  for (const auto& a : claims.audiences) audiences.emplace_back(a);
  json::object payload{{"aud", std::move(audiences)},
                       {"exp", claims.expires_at},
                       {"iat", claims.issued_at},
                       {"iss", claims.issuer},
                       {"kubernetes.io", std::move(kubernetes)},
                       {"nbf", claims.issued_at},
                       {"sub", ServiceAccountUserName(claims.ns, claims.account.name)}};
  if (!claims.id.empty()) payload["jti"] = claims.id;
  return SignPayload(payload);
}

Result<std::string> ServiceAccountTokens::SignPayload(const json::object& payload) const {
  json::object header{{"alg", signing_->alg}, {"kid", signing_->id}};
  std::string signed_part = Base64Url(json::serialize(header)) + "." + Base64Url(json::serialize(payload));
  auto signature = signing_->Sign(signed_part);
  if (!signature) return Status::Internal("failed to generate token: cannot sign");
  return signed_part + "." + Base64Url(*signature);
}

std::optional<Result<TokenClaims>> ServiceAccountTokens::Verify(std::string_view token, int64_t now,
                                                                const std::vector<std::string>& requested) const {
  const std::vector<std::string>& targets = requested.empty() ? audiences_ : requested;
  const size_t first = token.find('.');
  const size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) return std::nullopt;
  auto header_text = FromBase64Url(token.substr(0, first));
  auto payload_text = FromBase64Url(token.substr(first + 1, second - first - 1));
  auto signature = FromBase64Url(token.substr(second + 1));
  if (!header_text || !payload_text || !signature) return std::nullopt;
  json::error_code ec;
  json::value header = api::ParseJson(*header_text, ec);
  if (ec || !header.is_object()) return std::nullopt;
  json::value payload = api::ParseJson(*payload_text, ec);
  if (ec || !payload.is_object()) return std::nullopt;
  const json::object& claims = payload.get_object();
  TokenClaims out;
  out.issuer = api::StringAt(claims, "iss");
  out.legacy = out.issuer == kLegacyServiceAccountIssuer;
  if (!out.legacy && std::find(issuers_.begin(), issuers_.end(), out.issuer) == issuers_.end()) return std::nullopt;

  const std::string_view alg = api::StringAt(header.get_object(), "alg");
  const bool known_alg = std::any_of(verifying_.begin(), verifying_.end(), [&](const auto& k) { return k->alg == alg; });
  if (!known_alg) return Status(StatusCode::kUnauthorized, "token could not be verified: unsupported signing algorithm");
  const std::string_view signed_part = token.substr(0, second);
  // Every key of the token's algorithm is tried, whatever the header's kid, as kube's authenticator does.
  const bool verified = std::any_of(verifying_.begin(), verifying_.end(), [&](const auto& key) {
    return key->alg == alg && key->Verify(signed_part, *signature);
  });
  if (!verified) return Status(StatusCode::kUnauthorized, "token could not be verified: invalid signature");
  if (out.legacy) return LegacyClaims(claims, targets);

  out.expires_at = api::IntAt(&claims, "exp");
  out.issued_at = api::IntAt(&claims, "iat");
  const int64_t not_before = api::IntAt(&claims, "nbf");
  if (claims.contains("exp") && now > out.expires_at + kLeewaySeconds) {
    return Status(StatusCode::kUnauthorized, "service account token has expired");
  }
  if (claims.contains("nbf") && now + kLeewaySeconds < not_before) {
    return Status(StatusCode::kUnauthorized, "service account token is not valid yet");
  }
  if (claims.contains("iat") && now + kLeewaySeconds < out.issued_at) {
    return Status(StatusCode::kUnauthorized, "service account token is issued in the future");
  }
  if (const json::value* aud = claims.if_contains("aud"); aud && aud->is_string()) {
    out.audiences.emplace_back(aud->get_string());
  } else if (const json::array* list = api::ArrayAt(claims, "aud")) {
    for (const auto& a : *list) {
      if (a.is_string()) out.audiences.emplace_back(a.get_string());
    }
  }
  std::vector<std::string> shared;
  for (const auto& a : out.audiences) {
    if (std::find(targets.begin(), targets.end(), a) != targets.end()) shared.push_back(a);
  }
  if (shared.empty()) {
    return Status(StatusCode::kUnauthorized, "token audiences " + JsonStrings(out.audiences) +
                                                 " is invalid for the target audiences " + JsonStrings(targets));
  }
  out.audiences = std::move(shared);
  const json::object* kubernetes = api::ObjectAt(claims, "kubernetes.io");
  out.ns = api::StringAt(kubernetes, "namespace");
  auto account = BindingFrom(kubernetes, "serviceaccount");
  if (out.ns.empty() || !account || account->name.empty() ||
      api::StringAt(claims, "sub") != ServiceAccountUserName(out.ns, account->name)) {
    return Status(StatusCode::kUnauthorized, "service account token claims are invalid");
  }
  out.account = std::move(*account);
  out.pod = BindingFrom(kubernetes, "pod");
  out.secret = BindingFrom(kubernetes, "secret");
  out.node = BindingFrom(kubernetes, "node");
  out.warn_after = api::IntAt(kubernetes, "warnafter");
  out.id = api::StringAt(claims, "jti");
  return out;
}

Result<TokenClaims> ServiceAccountTokens::LegacyClaims(const json::object& claims,
                                                       const std::vector<std::string>& targets) {
  TokenClaims out;
  out.legacy = true;
  out.issuer = std::string(kLegacyServiceAccountIssuer);
  out.audiences = targets;
  out.ns = api::StringAt(claims, kLegacyNamespace);
  out.account = {std::string(api::StringAt(claims, kLegacyAccountName)),
                 std::string(api::StringAt(claims, kLegacyAccountUid))};
  std::string secret(api::StringAt(claims, kLegacySecretName));
  if (out.ns.empty() || out.account.name.empty() || secret.empty() ||
      api::StringAt(claims, "sub") != ServiceAccountUserName(out.ns, out.account.name)) {
    return Status(StatusCode::kUnauthorized, "service account token claims are invalid");
  }
  out.secret = TokenBinding{std::move(secret), ""};
  return out;
}

std::optional<json::object> ServiceAccountTokens::OpenIdConfiguration() const {
  if (!issuer().starts_with("https://")) return std::nullopt;
  std::string jwks = options_.jwks_uri;
  if (jwks.empty()) {
    jwks = issuer();
    if (jwks.ends_with('/')) jwks.pop_back();
    jwks += "/openid/v1/jwks";
  }
  // The algorithms of the verifying keys, sorted, once each.
  std::vector<std::string> algs;
  for (const auto& key : verifying_) algs.push_back(key->alg);
  std::sort(algs.begin(), algs.end());
  algs.erase(std::unique(algs.begin(), algs.end()), algs.end());
  json::array algorithms(algs.begin(), algs.end());
  return json::object{{"issuer", issuer()},
                      {"jwks_uri", jwks},
                      {"response_types_supported", json::array{"id_token"}},
                      {"subject_types_supported", json::array{"public"}},
                      {"id_token_signing_alg_values_supported", std::move(algorithms)}};
}

json::object ServiceAccountTokens::Jwks() const {
  json::array keys;
  for (const auto& key : verifying_) keys.push_back(key->Jwk());
  return json::object{{"keys", std::move(keys)}};
}

std::optional<Response> ServeIssuerDiscovery(const Request& request, const ServiceAccountTokens& tokens) {
  std::string_view path = request.path;
  if (path.ends_with('/')) path.remove_suffix(1);
  const bool configuration = path == "/.well-known/openid-configuration";
  if (!configuration && path != "/openid/v1/jwks") return std::nullopt;
  if (request.method != "GET") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed, "the server does not allow this method on the requested resource"));
  }
  std::optional<json::object> document = configuration ? tokens.OpenIdConfiguration() : tokens.Jwks();
  if (!document) return ErrorResponse(Status(StatusCode::kNotFound, "the server could not find the requested resource"));
  Response r = JsonResponse(200, json::serialize(*document));
  if (!configuration) r.content_type = "application/jwk-set+json";
  r.headers.emplace_back("Cache-Control", "public, max-age=3600");
  return r;
}

std::string ServiceAccountUserName(std::string_view ns, std::string_view name) {
  return "system:serviceaccount:" + std::string(ns) + ":" + std::string(name);
}

}  // namespace berth::apiserver
