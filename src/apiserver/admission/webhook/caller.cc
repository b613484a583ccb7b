// Calling a webhook: where it is (a URL, or a Service through its endpoints:
// berth has no proxy in front of Service addresses, so the call goes where
// kube-proxy would send it), with the trust its caBundle gives, within its
// timeout; and the failure policy over what can go wrong.

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/object.h"
#include "apiserver/admission/webhook/webhook.h"
#include "client/post_client.h"
#include "log/log.h"
#include "store/store.h"

namespace berth::apiserver::webhook {

namespace json = boost::json;

namespace {

constexpr size_t kMaxClients = 64;

std::string ServiceHost(const ServiceRef& s) { return s.name + "." + s.ns + ".svc"; }

// The address and port of a ready endpoint of `port_name` in a core/v1 Endpoints.
std::optional<std::string> ReadyEndpoint(const json::object& endpoints, std::string_view port_name) {
  const json::array* subsets = api::ArrayAt(endpoints, "subsets");
  if (subsets == nullptr) return std::nullopt;
  for (const auto& s : *subsets) {
    if (!s.is_object()) continue;
    const json::array* addresses = api::ArrayAt(s.get_object(), "addresses");
    const json::array* ports = api::ArrayAt(s.get_object(), "ports");
    if (addresses == nullptr || addresses->empty() || ports == nullptr) continue;
    for (const auto& p : *ports) {
      if (!p.is_object() || api::StringAt(p.get_object(), "name") != port_name) continue;
      std::string_view ip = api::StringAt(addresses->front().if_object(), "ip");
      if (ip.empty()) continue;
      std::string host = ip.find(':') == std::string_view::npos ? std::string(ip) : "[" + std::string(ip) + "]";
      return host + ":" + std::to_string(api::IntAt(&p.get_object(), "port"));
    }
  }
  return std::nullopt;
}

Status CallFailure(const Hook& hook, std::string_view why) {
  return Status::Internal("Internal error occurred: failed calling webhook \"" + hook.name + "\": " + std::string(why));
}

}  // namespace

Caller::Caller(store::Store& store) : store_(store) {}
Caller::~Caller() = default;

Result<std::string> Caller::Resolve(const Hook& hook, std::string* server_name) const {
  if (hook.url) return *hook.url;
  if (!hook.service) return Status::BadRequest("neither url nor service is set");
  const ServiceRef& ref = *hook.service;
  *server_name = ServiceHost(ref);
  auto service = store_.Get(api::StorageKey(api::Kind::kService, ref.ns, ref.name));
  if (!service.ok()) return Status::NotFound("service \"" + ref.name + "\" not found");
  const json::object* spec = api::ObjectAt(service.value()->json(), "spec");
  if (api::StringAt(spec, "type") == "ExternalName") {
    return "https://" + std::string(api::StringAt(spec, "externalName")) + ":" + std::to_string(ref.port) + ref.path;
  }
  std::optional<std::string> port_name;
  if (const json::array* ports = api::ArrayAt(spec, "ports")) {
    for (const auto& p : *ports) {
      if (p.is_object() && api::IntAt(&p.get_object(), "port") == ref.port) {
        port_name = std::string(api::StringAt(p.get_object(), "name"));
        break;
      }
    }
  }
  if (!port_name) return Status::NotFound("service \"" + ref.name + "\" has no port " + std::to_string(ref.port));
  auto endpoints = store_.Get(api::StorageKey(api::Kind::kEndpoints, ref.ns, ref.name));
  std::optional<std::string> target;
  if (endpoints.ok()) target = ReadyEndpoint(endpoints.value()->json(), *port_name);
  if (!target) return Status::Unavailable("no endpoints available for service \"" + ref.name + "\"");
  return "https://" + *target + ref.path;
}

Result<std::string> Caller::Call(const Hook& hook, const Review& review) {
  std::string server_name;
  auto url = Resolve(hook, &server_name);
  const std::string shown = hook.url ? *hook.url
                                     : "https://" + ServiceHost(*hook.service) + ":" +
                                           std::to_string(hook.service->port) + hook.service->path;
  const std::string query = hook.timeout_in_url ? "?timeout=" + std::to_string(hook.timeout.count()) + "s" : "";
  if (!url.ok()) return Status::Unavailable("Post \"" + shown + query + "\": " + url.status().message());
  const std::string key = url.value() + "\n" + server_name + "\n" + std::to_string(hook.timeout.count()) + "\n" +
                          hook.ca_bundle;
  std::shared_ptr<client::PostClient> http;
  {
    std::lock_guard lock(mu_);
    for (const auto& [k, c] : clients_) {
      if (k == key) http = c;
    }
  }
  if (!http) {
    client::PostTls trust{.server_name = server_name, .ca_pem = hook.ca_bundle};
    auto made = client::PostClient::Create(url.value(), trust, hook.timeout, "berth-apiserver");
    if (!made.ok()) return Status::BadRequest("could not get REST client: " + made.status().message());
    http = std::move(made).value();
    std::lock_guard lock(mu_);
    if (clients_.size() >= kMaxClients) clients_.erase(clients_.begin());
    clients_.emplace_back(key, http);
  }
  auto answer = http->Post(query, review.body);
  if (!answer.ok()) {
    // Said with the address the webhook was configured by, as kube does.
    std::string why = answer.status().message();
    const std::string dialed = "Post \"" + http->Url(query) + "\": ";
    if (why.rfind(dialed, 0) == 0) why = "Post \"" + shown + query + "\": " + why.substr(dialed.size());
    return Status::Unavailable(why);
  }
  if (answer.value().status != 200) {
    return Status::Internal("the server responded with the status code " + std::to_string(answer.value().status) +
                            " but did not return more information");
  }
  return std::move(answer.value().body);
}

Result<std::optional<Verdict>> Run(Caller& caller, const Hook& hook, const AdmissionAttributes& a,
                                   const json::object* object) {
  std::string failure;
  if (hook.broken) {
    failure = "could not get REST client: " + *hook.broken;
  } else if (auto review = MakeReview(hook, a, object); !review.ok()) {
    failure = "could not get REST client: " + review.status().message();
  } else if (auto body = caller.Call(hook, review.value()); !body.ok()) {
    failure = "failed to call webhook: " + body.status().message();
  } else if (auto verdict = ReadVerdict(hook, review.value(), body.value()); !verdict.ok()) {
    failure = "received invalid webhook response: " + verdict.status().message();
  } else {
    return std::optional<Verdict>(std::move(verdict).value());
  }
  if (hook.fail_open) {
    // kube logs it and lets the request go on.
    BERTH_LOG_ERROR(failure, "Failed calling webhook, failing open", {"webhook", hook.name});
    return std::optional<Verdict>();
  }
  return CallFailure(hook, failure);
}

}  // namespace berth::apiserver::webhook
