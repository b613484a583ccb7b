#pragma once
// Encryption at rest, as kube-apiserver's --encryption-provider-config
// configures it: an EncryptionConfiguration (apiserver.config.k8s.io/v1)
// names, per resource, a list of providers. The first provider encrypts what
// is written; every provider in the list can read what it wrote.
//
// Supported providers: `aesgcm` (AES-GCM with 16, 24 or 32 byte keys; the
// first key encrypts, every key decrypts) and `identity` (stored as is).
// Others (aescbc, secretbox, kms) are refused with the field named.
//
// The stored form is kube's: "k8s:enc:aesgcm:v1:<key name>:" followed by a
// 12-byte random nonce, the ciphertext and the 16-byte GCM tag; the storage
// key is the authenticated data, so a value moved to another key does not
// decrypt. Values the identity provider wrote carry no prefix.
//
// The transformation sits at the store's durable boundary (the embedded
// store's log records and snapshots); objects in memory, reads and watches
// are plain. It is independent of the store: a backend that writes values
// elsewhere (etcd) can call ToStorage/FromStorage at its own put and get.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/status.h"

namespace berth::store {

class Encryption {
 public:
  // Reads and parses `path`. Errors name the file and the field, e.g.
  // "encryption provider config f.yaml: resources[0].providers[0].aesgcm.keys[0].secret: ...".
  static Result<std::shared_ptr<const Encryption>> LoadFile(const std::string& path);
  // Parses YAML (or JSON) text; `source` names it in errors.
  static Result<std::shared_ptr<const Encryption>> Parse(std::string_view text,
                                                         const std::string& source);
  ~Encryption();

  // Whether values under `key` ("/<group>/<resource>/...") are covered by a
  // resource rule of the configuration (whatever its first provider).
  bool Covers(std::string_view key) const;
  // The value to store for `key`: written by the first provider of the rule
  // covering the key; unchanged when no rule covers it or that provider is identity.
  Result<std::string> ToStorage(std::string_view key, std::string_view plain) const;
  // Whether FromStorage may change `stored` (a covered key, or an encrypted value).
  bool MayTransform(std::string_view key, std::string_view stored) const;
  // A stored value made plain by the provider whose prefix it carries. A
  // value with no prefix is read by identity when the key's rule lists it (or
  // no rule covers the key); otherwise an error, as kube answers.
  Result<std::string> FromStorage(std::string_view key, std::string_view stored) const;

  struct Rule;  // one resources[] entry

 private:
  Encryption();
  const Rule* RuleFor(std::string_view key) const;
  std::vector<std::unique_ptr<Rule>> rules_;
};

}  // namespace berth::store
