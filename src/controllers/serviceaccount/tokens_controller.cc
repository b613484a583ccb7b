#include "controllers/serviceaccount/tokens_controller.h"

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/json_fields.h"
#include "log/log.h"

namespace berth::controllers {

namespace json = boost::json;

namespace {

constexpr std::string_view kSecretKey = "secret/";
constexpr std::string_view kAccountKey = "account/";

bool IsTokenSecret(const api::Object& secret) {
  return api::StringAt(secret.json(), "type") == TokensController::kSecretType;
}

// Whether `secret` is a token of the account `name` with `uid` (kube's
// IsServiceAccountToken: the name annotation, and the uid one when set).
bool TokenOf(const api::Object& secret, std::string_view name, std::string_view uid) {
  if (!IsTokenSecret(secret) || api::Annotation(secret, TokensController::kNameAnnotation) != name) return false;
  std::string_view claimed = api::Annotation(secret, TokensController::kUidAnnotation);
  return claimed.empty() || claimed == uid;
}

// The pieces of a key "P/a/b/c" after its prefix P/.
std::vector<std::string> KeyParts(std::string_view key) {
  std::vector<std::string> parts;
  for (size_t start = key.find('/') + 1;;) {
    size_t slash = key.find('/', start);
    parts.emplace_back(key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

std::string Decoded(const json::object* data, std::string_view key) {
  auto decoded = api::Base64Decode(api::StringAt(data, key));
  const std::string* bytes = std::get_if<std::string>(&decoded);
  return bytes ? *bytes : std::string();
}

}  // namespace

TokensController::TokensController(const ControllerContext& context, TokensControllerOptions options, int workers)
    : Controller("serviceaccount-token", context, workers),
      secrets_(context.informers.For(api::Kind::kSecret)),
      accounts_(context.informers.For(api::Kind::kServiceAccount)),
      options_(std::move(options)) {
  auto secret_changed = [this](const api::ObjectPtr& secret) {
    if (IsTokenSecret(*secret)) Enqueue(std::string(kSecretKey) + secret->namespace_name() + "/" + secret->name());
  };
  secrets_.AddHandlers({secret_changed, secret_changed, nullptr});
  auto account_deleted = [this](const api::ObjectPtr& account) {
    Enqueue(std::string(kAccountKey) + account->namespace_name() + "/" + account->name() + "/" + account->uid());
  };
  // An account made after its Secret: the Secret was deleted by then, as in kube.
  accounts_.AddHandlers({nullptr, nullptr, account_deleted});
}

Status TokensController::Reconcile(const std::string& key) {
  std::vector<std::string> parts = KeyParts(key);
  if (key.starts_with(kSecretKey) && parts.size() == 2) return SyncSecret(parts[0], parts[1]);
  if (key.starts_with(kAccountKey) && parts.size() == 3) return SyncDeletedAccount(parts[0], parts[1], parts[2]);
  return Status::Ok();
}

Status TokensController::SyncSecret(const std::string& ns, const std::string& name) {
  api::ObjectPtr secret = secrets_.Get(client::ObjectKey(ns, name));
  if (!secret || !IsTokenSecret(*secret)) return Status::Ok();
  const std::string account_name(api::Annotation(*secret, kNameAnnotation));
  const std::string claimed_uid(api::Annotation(*secret, kUidAnnotation));
  // The account, from the API server when the cache does not have it yet.
  api::ObjectPtr account = accounts_.Get(client::ObjectKey(ns, account_name));
  if (!account && !account_name.empty()) {
    auto live = client_.Get(api::Kind::kServiceAccount, ns, account_name);
    if (live.ok()) {
      account = live.value();
    } else if (live.status().code() != StatusCode::kNotFound) {
      return live.status();
    }
  }
  if (!account || (!claimed_uid.empty() && claimed_uid != account->uid())) {
    // kube: a token of an account that does not exist goes.
    client::DeleteOptions precondition;
    precondition.uid_precondition = secret->uid();
    Status deleted = client_.Delete(api::Kind::kSecret, ns, name, precondition);
    if (deleted.ok() || deleted.code() == StatusCode::kNotFound || deleted.code() == StatusCode::kConflict) {
      return Status::Ok();
    }
    return deleted;
  }
  const json::object* data = api::ObjectAt(secret->json(), "data");
  const bool needs_ca = !options_.root_ca.empty() && Decoded(data, "ca.crt") != options_.root_ca;
  const bool needs_namespace = Decoded(data, "namespace") != ns;
  const bool needs_token = api::StringAt(data, "token").empty();
  const bool needs_uid = claimed_uid.empty();
  if (!needs_ca && !needs_namespace && !needs_token && !needs_uid) return Status::Ok();

  json::object next = secret->json();
  json::object& filled = api::MutableObject(next, "data");
  if (needs_ca) filled["ca.crt"] = api::Base64Encode(options_.root_ca);
  if (needs_namespace) filled["namespace"] = api::Base64Encode(ns);
  if (needs_token) {
    auto token = options_.sign(LegacyToken{ns, account->name(), account->uid(), name});
    if (!token.ok()) return token.status();
    filled["token"] = api::Base64Encode(token.value());
  }
  json::object& annotations = api::MutableObject(api::MutableObject(next, "metadata"), "annotations");
  annotations[kNameAnnotation] = account->name();
  annotations[kUidAnnotation] = account->uid();
  auto written = client_.Update(api::Kind::kSecret, next);
  // Conflict or gone: the informer brings the newer version, or nothing.
  if (written.ok() || written.status().code() == StatusCode::kConflict ||
      written.status().code() == StatusCode::kNotFound) {
    return Status::Ok();
  }
  return written.status();
}

Status TokensController::SyncDeletedAccount(const std::string& ns, const std::string& name, const std::string& uid) {
  // Made again meanwhile with another uid: its tokens are its own.
  for (const auto& secret : secrets_.ByIndex(client::kNamespaceIndex, ns)) {
    if (!TokenOf(*secret, name, uid)) continue;
    client::DeleteOptions precondition;
    precondition.uid_precondition = secret->uid();
    Status deleted = client_.Delete(api::Kind::kSecret, ns, secret->name(), precondition);
    if (!deleted.ok() && deleted.code() != StatusCode::kNotFound && deleted.code() != StatusCode::kConflict) {
      return deleted;
    }
  }
  return Status::Ok();
}

}  // namespace berth::controllers
