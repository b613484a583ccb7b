#pragma once
// The tokens controller (kube's pkg/controller/serviceaccount TokensController,
// kube-controller-manager's serviceaccount-token-controller): a Secret of type
// kubernetes.io/service-account-token that a user creates, annotated
// kubernetes.io/service-account.name, gets its legacy token: data.token (a
// JWT of issuer "kubernetes/serviceaccount" naming the account, its uid and
// the Secret), data.namespace, data.ca.crt when there is a root CA, and the
// kubernetes.io/service-account.uid annotation. A Secret whose account does
// not exist (or has another uid than the annotation says) is deleted, and
// so are an account's token Secrets when the account is deleted.
//
// As in kube 1.24 and later, no Secret is created for an account: only the
// Secrets users create are filled in (LegacyServiceAccountTokenNoAutoGeneration).
// The authenticator keeps the Secret's kubernetes.io/legacy-token-last-used
// label and refuses a token whose Secret has legacy-token-invalid-since
// (apiserver/authz/authentication.cc). Not built: kube's
// legacy-serviceaccount-token-cleaner, which labels tokens unused for a year
// invalid and later deletes them.
//
// Reads the Secret and ServiceAccount informers' caches (and the account
// from the API server when the cache does not have it, as kube does); writes
// through the controllers' RestClient. Keys are "secret/NS/NAME" and
// "account/NS/NAME/UID". Records no Events (kube records none).

#include <functional>
#include <string>

#include "api/status.h"
#include "controllers/controller.h"

namespace berth::controllers {

// What a legacy token says: the account (name, uid) and the Secret holding it.
struct LegacyToken {
  std::string ns, account, account_uid, secret;
};

struct TokensControllerOptions {
  // Signs a legacy token (the API server's service account key); unset: the
  // controller is not started (kube's needs --service-account-private-key-file).
  std::function<Result<std::string>(const LegacyToken&)> sign;
  // Published as each Secret's ca.crt; empty: none.
  std::string root_ca;
};

class TokensController final : public Controller {
 public:
  static constexpr char kSecretType[] = "kubernetes.io/service-account-token";
  static constexpr char kNameAnnotation[] = "kubernetes.io/service-account.name";
  static constexpr char kUidAnnotation[] = "kubernetes.io/service-account.uid";

  TokensController(const ControllerContext& context, TokensControllerOptions options, int workers = 1);

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // A token Secret: filled in, or deleted when its account is gone.
  Status SyncSecret(const std::string& ns, const std::string& name);
  // A deleted account: its token Secrets go.
  Status SyncDeletedAccount(const std::string& ns, const std::string& name, const std::string& uid);

  client::SharedInformer& secrets_;
  client::SharedInformer& accounts_;
  const TokensControllerOptions options_;
};

}  // namespace berth::controllers
