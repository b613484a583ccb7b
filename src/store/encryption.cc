#include "store/encryption.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <variant>

#include "api/codec/base64.h"

namespace berth::store {
namespace {

constexpr std::string_view kEncryptedPrefix = "k8s:enc:";
constexpr std::string_view kAesGcmPrefix = "k8s:enc:aesgcm:v1:";
constexpr size_t kNonceSize = 12;
constexpr size_t kTagSize = 16;

struct AesKey {
  std::string name;
  std::string prefix;  // "k8s:enc:aesgcm:v1:<name>:"
  std::string secret;  // 16, 24 or 32 bytes
};

const EVP_CIPHER* CipherFor(size_t key_size) {
  switch (key_size) {
    case 16: return EVP_aes_128_gcm();
    case 24: return EVP_aes_192_gcm();
    default: return EVP_aes_256_gcm();
  }
}

struct CipherContext {
  CipherContext() : ctx(EVP_CIPHER_CTX_new()) {}
  ~CipherContext() { EVP_CIPHER_CTX_free(ctx); }
  EVP_CIPHER_CTX* ctx;
};

Result<std::string> Seal(const AesKey& key, std::string_view aad, std::string_view plain) {
  std::string out = key.prefix;
  const size_t header = out.size();
  out.resize(header + kNonceSize + plain.size() + kTagSize);
  auto* nonce = reinterpret_cast<unsigned char*>(out.data() + header);
  auto* cipher = nonce + kNonceSize;
  if (RAND_bytes(nonce, kNonceSize) != 1) return Status::Internal("encryption: no random nonce");
  CipherContext c;
  int n = 0;
  const auto* k = reinterpret_cast<const unsigned char*>(key.secret.data());
  bool ok = c.ctx && EVP_EncryptInit_ex(c.ctx, CipherFor(key.secret.size()), nullptr, k, nonce) == 1 &&
            EVP_EncryptUpdate(c.ctx, nullptr, &n, reinterpret_cast<const unsigned char*>(aad.data()),
                              static_cast<int>(aad.size())) == 1 &&
            EVP_EncryptUpdate(c.ctx, cipher, &n, reinterpret_cast<const unsigned char*>(plain.data()),
                              static_cast<int>(plain.size())) == 1 &&
            EVP_EncryptFinal_ex(c.ctx, cipher + n, &n) == 1 &&
            EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagSize),
                                cipher + plain.size()) == 1;
  if (!ok) return Status::Internal("encryption with key " + key.name + " failed");
  return out;
}

Result<std::string> Open(const AesKey& key, std::string_view aad, std::string_view stored) {
  std::string_view body = stored.substr(key.prefix.size());
  if (body.size() < kNonceSize + kTagSize) {
    return Status::Internal("the data is too short to have been encrypted with key " + key.name);
  }
  const auto* nonce = reinterpret_cast<const unsigned char*>(body.data());
  const size_t size = body.size() - kNonceSize - kTagSize;
  const auto* cipher = nonce + kNonceSize;
  std::string plain(size, '\0');
  CipherContext c;
  int n = 0;
  const auto* k = reinterpret_cast<const unsigned char*>(key.secret.data());
  std::string tag(body.substr(kNonceSize + size));
  bool ok = c.ctx && EVP_DecryptInit_ex(c.ctx, CipherFor(key.secret.size()), nullptr, k, nonce) == 1 &&
            EVP_DecryptUpdate(c.ctx, nullptr, &n, reinterpret_cast<const unsigned char*>(aad.data()),
                              static_cast<int>(aad.size())) == 1 &&
            EVP_DecryptUpdate(c.ctx, reinterpret_cast<unsigned char*>(plain.data()), &n, cipher,
                              static_cast<int>(size)) == 1 &&
            EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagSize), tag.data()) == 1 &&
            EVP_DecryptFinal_ex(c.ctx, reinterpret_cast<unsigned char*>(plain.data()) + n, &n) == 1;
  if (!ok) {
    return Status::Internal("decryption with key " + key.name +
                            " failed: the data was not encrypted with it, or was altered");
  }
  return plain;
}

// "/<group>/<resource>/..." → group ("" for core) and resource.
bool SplitKey(std::string_view key, std::string_view* group, std::string_view* resource) {
  if (key.empty() || key[0] != '/') return false;
  const size_t g_end = key.find('/', 1);
  if (g_end == std::string_view::npos) return false;
  const size_t r_end = key.find('/', g_end + 1);
  if (r_end == std::string_view::npos) return false;
  *group = key.substr(1, g_end - 1);
  if (*group == "core") *group = {};
  *resource = key.substr(g_end + 1, r_end - g_end - 1);
  return true;
}

}  // namespace

struct Encryption::Rule {
  // "secrets", "deployments.apps", "*.apps", "*." (every core resource), "*.*".
  std::vector<std::pair<std::string, std::string>> matches;  // {resource or "*", group or "*"}
  // In order; an empty name is identity.
  struct Provider {
    bool identity = false;
    std::vector<AesKey> keys;  // aesgcm
  };
  std::vector<Provider> providers;
  bool identity_reads = false;  // identity is in the list

  bool Matches(std::string_view group, std::string_view resource) const {
    for (const auto& [r, g] : matches) {
      if ((r == "*" || r == resource) && (g == "*" || g == group)) return true;
    }
    return false;
  }
};

Encryption::Encryption() = default;
Encryption::~Encryption() = default;

Result<std::shared_ptr<const Encryption>> Encryption::LoadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::BadRequest("encryption provider config " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path);
}

Result<std::shared_ptr<const Encryption>> Encryption::Parse(std::string_view text,
                                                            const std::string& source) {
  auto error = [&](const std::string& field, const std::string& message) {
    return Status::BadRequest("encryption provider config " + source + ": " +
                              (field.empty() ? "" : field + ": ") + message);
  };
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return error("", std::string("cannot be parsed: ") + e.what());
  }
  if (!root.IsMap()) return error("", "expected an EncryptionConfiguration object");
  auto scalar = [](const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : std::string(); };
  if (scalar(root["kind"]) != "EncryptionConfiguration") {
    return error("kind", "expected EncryptionConfiguration, got \"" + scalar(root["kind"]) + "\"");
  }
  const std::string api_version = scalar(root["apiVersion"]);
  if (api_version != "apiserver.config.k8s.io/v1") {
    return error("apiVersion", "expected apiserver.config.k8s.io/v1, got \"" + api_version + "\"");
  }
  const YAML::Node resources = root["resources"];
  if (!resources || !resources.IsSequence() || resources.size() == 0) {
    return error("resources", "Required value: at least one resources is required");
  }
  std::shared_ptr<Encryption> config(new Encryption());
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string at = "resources[" + std::to_string(i) + "]";
    const YAML::Node entry = resources[i];
    if (!entry.IsMap()) return error(at, "expected an object");
    auto rule = std::make_unique<Rule>();
    const YAML::Node names = entry["resources"];
    if (!names || !names.IsSequence() || names.size() == 0) {
      return error(at + ".resources", "Required value: at least one resource is required");
    }
    for (size_t j = 0; j < names.size(); ++j) {
      const std::string name = scalar(names[j]);
      const std::string field = at + ".resources[" + std::to_string(j) + "]";
      if (name.empty()) return error(field, "expected a resource name such as secrets");
      const size_t dot = name.find('.');
      std::string resource = dot == std::string::npos ? name : name.substr(0, dot);
      std::string group = dot == std::string::npos ? "" : name.substr(dot + 1);
      if (resource == "*" && dot == std::string::npos) {
        return error(field, "Invalid value: \"*\": use '*.' to encrypt all the resources from core "
                            "API group or *.* to encrypt all resources");
      }
      if (resource.empty()) return error(field, "Invalid value: \"" + name + "\": resource name missing");
      rule->matches.emplace_back(std::move(resource), std::move(group));
    }
    const YAML::Node providers = entry["providers"];
    if (!providers || !providers.IsSequence() || providers.size() == 0) {
      return error(at + ".providers", "Required value: at least one provider is required");
    }
    for (size_t j = 0; j < providers.size(); ++j) {
      const std::string pat = at + ".providers[" + std::to_string(j) + "]";
      const YAML::Node p = providers[j];
      if (!p.IsMap() || p.size() != 1) {
        return error(pat, p.IsMap() && p.size() > 1
                              ? "more than one provider specified in a single element, should split "
                                "into different list elements"
                              : "expected exactly one provider (aesgcm or identity)");
      }
      const std::string type = p.begin()->first.as<std::string>();
      Rule::Provider provider;
      if (type == "identity") {
        provider.identity = true;
        rule->identity_reads = true;
      } else if (type == "aesgcm") {
        const YAML::Node keys = p["aesgcm"]["keys"];
        if (!keys || !keys.IsSequence() || keys.size() == 0) {
          return error(pat + ".aesgcm.keys", "Required value: at least one key is required");
        }
        for (size_t k = 0; k < keys.size(); ++k) {
          const std::string kat = pat + ".aesgcm.keys[" + std::to_string(k) + "]";
          AesKey key;
          key.name = scalar(keys[k]["name"]);
          if (key.name.empty()) return error(kat + ".name", "Required value: key name is required");
          if (key.name.find(':') != std::string::npos) {
            return error(kat + ".name", "Invalid value: \"" + key.name + "\": should not contain ':'");
          }
          for (const AesKey& other : provider.keys) {
            if (other.name == key.name) {
              return error(kat + ".name", "Duplicate value: \"" + key.name + "\"");
            }
          }
          const std::string secret = scalar(keys[k]["secret"]);
          if (secret.empty()) return error(kat + ".secret", "Required value: secret is required");
          auto decoded = api::Base64Decode(secret);
          if (!std::holds_alternative<std::string>(decoded)) {
            return error(kat + ".secret", "Invalid value: \"REDACTED\": secrets must be base64 encoded");
          }
          key.secret = std::get<std::string>(std::move(decoded));
          const size_t n = key.secret.size();
          if (n != 16 && n != 24 && n != 32) {
            return error(kat + ".secret", "Invalid value: \"REDACTED\": secret is not of the expected "
                                          "length, got " + std::to_string(n) +
                                          ", expected one of [16 24 32]");
          }
          key.prefix = std::string(kAesGcmPrefix) + key.name + ":";
          provider.keys.push_back(std::move(key));
        }
      } else {
        return error(pat + "." + type, "provider " + type +
                                            " is not supported (berth supports aesgcm and identity)");
      }
      rule->providers.push_back(std::move(provider));
    }
    config->rules_.push_back(std::move(rule));
  }
  return std::shared_ptr<const Encryption>(std::move(config));
}

const Encryption::Rule* Encryption::RuleFor(std::string_view key) const {
  std::string_view group, resource;
  if (!SplitKey(key, &group, &resource)) return nullptr;
  for (const auto& rule : rules_) {
    if (rule->Matches(group, resource)) return rule.get();
  }
  return nullptr;
}

bool Encryption::Covers(std::string_view key) const { return RuleFor(key) != nullptr; }

Result<std::string> Encryption::ToStorage(std::string_view key, std::string_view plain) const {
  const Rule* rule = RuleFor(key);
  if (!rule || rule->providers.front().identity) return std::string(plain);
  return Seal(rule->providers.front().keys.front(), key, plain);
}

bool Encryption::MayTransform(std::string_view key, std::string_view stored) const {
  return stored.starts_with(kEncryptedPrefix) || Covers(key);
}

Result<std::string> Encryption::FromStorage(std::string_view key, std::string_view stored) const {
  const Rule* rule = RuleFor(key);
  if (!stored.starts_with(kEncryptedPrefix)) {
    if (!rule || rule->identity_reads) return std::string(stored);
    return Status::Internal(std::string(key) + ": no matching prefix found (the value is not "
                            "encrypted and the identity provider is not configured for it)");
  }
  if (rule) {
    for (const Rule::Provider& p : rule->providers) {
      for (const AesKey& k : p.keys) {
        if (stored.starts_with(k.prefix)) {
          auto plain = Open(k, key, stored);
          if (!plain.ok()) return Status::Internal(std::string(key) + ": " + plain.status().message());
          return plain;
        }
      }
    }
  }
  const size_t end = stored.find(':', kAesGcmPrefix.size());
  return Status::Internal(std::string(key) + ": no provider configured for the stored prefix \"" +
                          std::string(stored.substr(0, end == std::string_view::npos ? 64 : end + 1)) + "\"");
}

}  // namespace berth::store
