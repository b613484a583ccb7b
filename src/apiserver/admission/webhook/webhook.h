#pragma once
// Admission webhooks as kube-apiserver calls them
// (k8s.io/apiserver/pkg/admission/plugin/webhook): the webhooks of the stored
// Mutating/ValidatingWebhookConfigurations, which writes each one is about
// (rules, namespace and object selectors), the AdmissionReview sent and the
// answer read, and the call itself (a URL, or a Service reached through its
// endpoints, over TLS trusted by the caBundle). The two admission plugins
// (mutating_webhook.cc, validating_webhook.cc) are built from these pieces.
//
// Not acted on yet, so refused when a configuration is written
// (api/validation/admissionregistration.cc): matchConditions (CEL).

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "api/labels.h"
#include "api/selector.h"
#include "api/status.h"
#include "apiserver/admission/admission.h"

namespace berth::client {
class PostClient;
}
namespace berth::store {
class Store;
class Watch;
}

namespace berth::apiserver::webhook {

// One rule of a webhook (v1.RuleWithOperations).
struct Rule {
  std::vector<std::string> operations;  // CREATE, UPDATE, DELETE, CONNECT, *
  std::vector<std::string> groups, versions, resources;
  std::string scope = "*";  // Cluster, Namespaced, *
};

struct ServiceRef {
  std::string ns, name, path;
  int port = 443;
};

// One webhook of a configuration, read from its stored (defaulted) JSON.
struct Hook {
  std::string configuration;  // the configuration's name
  std::string name;
  bool mutating = false;
  std::optional<std::string> url;
  std::optional<ServiceRef> service;
  std::string ca_bundle;  // PEM; empty: the system's roots
  std::vector<Rule> rules;
  bool fail_open = false;         // failurePolicy Ignore
  bool match_equivalent = true;   // matchPolicy Equivalent (not Exact)
  api::LabelSelector namespace_selector, object_selector;
  std::chrono::seconds timeout{10};
  // kube's admission calls say their timeout in the URL (?timeout=10s); its
  // CRD conversion calls do not.
  bool timeout_in_url = true;
  bool reinvoke_if_needed = false;            // reinvocationPolicy IfNeeded
  std::vector<std::string> review_versions;  // admissionReviewVersions, in preference order
  // Set when the configuration holds what berth cannot act on (a selector it
  // cannot parse): the call fails, and the failure policy decides.
  std::optional<std::string> broken;
};

// A clientConfig (url, or service with namespace, name, path and port, and
// caBundle in base64) into `hook`; a caBundle that is not base64 marks it broken.
void ReadClientConfig(const boost::json::object* config, Hook& hook);

// The webhooks of one stored configuration, in order.
std::vector<Hook> ReadHooks(const boost::json::object& configuration, bool mutating);

// Whether `hook` is about the write `a`: its rules (operation, group,
// version, resource/subresource, scope) and its object selector.
// Namespace selection is separate (it needs the namespace's labels).
bool MatchesRules(const Hook& hook, const AdmissionAttributes& a);
bool MatchesObjectSelector(const Hook& hook, const AdmissionAttributes& a);
// The namespace selector: a Namespace is matched by its own labels (the old
// object's on delete), other cluster-scoped objects always match, a
// namespaced object by `namespace_labels` (nullptr: its namespace is gone,
// no match).
bool MatchesNamespaceSelector(const Hook& hook, const AdmissionAttributes& a, const api::Labels* namespace_labels);

// What a webhook answered.
struct Verdict {
  bool allowed = false;
  // A refusal's Status, as kube-apiserver returns it ("admission webhook
  // \"x\" denied the request: …").
  Status denial;
  std::optional<std::string> patch;  // a JSON Patch (decoded from base64)
  std::vector<std::string> warnings;
};

// The AdmissionReview for `a`, in the first of the hook's review versions
// berth speaks (v1, v1beta1). `object` is the object as it stands now.
struct Review {
  std::string uid;
  std::string version;  // "v1" or "v1beta1"
  std::string body;
};
Result<Review> MakeReview(const Hook& hook, const AdmissionAttributes& a, const boost::json::object* object);
// The answer to `review`: malformed, the wrong kind or uid, an unknown patch
// type: an error (the failure policy decides).
Result<Verdict> ReadVerdict(const Hook& hook, const Review& review, std::string_view body);

// Calls webhooks: their clients kept per webhook (a URL, a trust, a timeout),
// Services resolved through the store.
class Caller {
 public:
  explicit Caller(store::Store& store);
  ~Caller();
  // POSTs `review` to the hook; the answer's body when it is 200.
  // Unavailable/Internal with kube's text otherwise ("Post \"https://…\": …").
  Result<std::string> Call(const Hook& hook, const Review& review);

 private:
  // The URL the hook is reached at, a Service's through one of its ready endpoints.
  Result<std::string> Resolve(const Hook& hook, std::string* server_name) const;

  store::Store& store_;
  std::mutex mu_;
  // Clients by URL, server name, CA bundle and timeout.
  std::vector<std::pair<std::string, std::shared_ptr<client::PostClient>>> clients_;  // guarded by mu_
};

// The webhooks of every stored configuration of one kind, sorted as kube
// calls them (configurations by name, then the order within each), listed
// again only when a watch on the configurations saw a change.
class HookSource {
 public:
  HookSource(store::Store& store, bool mutating);
  ~HookSource();
  std::shared_ptr<const std::vector<Hook>> Hooks();

 private:
  store::Store& store_;
  const bool mutating_;
  std::mutex mu_;
  std::unique_ptr<store::Watch> watch_;             // guarded by mu_: from the last list's revision
  std::shared_ptr<const std::vector<Hook>> hooks_;  // guarded by mu_
};

// The labels of the namespace `a` is in; nullptr when it has none or is gone.
std::optional<api::Labels> NamespaceLabels(store::Store& store, const AdmissionAttributes& a);

// Runs one matching hook on `a`: the review made, the call, the verdict
// read. A failed call or an unreadable answer is the failure policy's:
// nullopt when the hook fails open, else kube's InternalError ("failed
// calling webhook \"x\": …").
Result<std::optional<Verdict>> Run(Caller& caller, const Hook& hook, const AdmissionAttributes& a,
                                   const boost::json::object* object);

// Whether the hook is about `a` at all (rules, selectors). Writes to webhook
// configurations are never sent to webhooks (kube's rule: a broken webhook
// could otherwise lock itself in).
bool Concerns(store::Store& store, const Hook& hook, const AdmissionAttributes& a);

}  // namespace berth::apiserver::webhook
