#pragma once
// The Kubernetes REST API over a Store: routing, discovery, the verbs with
// kube's semantics (get, list, watch, create, update, patch, delete), Tables
// for kubectl, and the JSON-RPC endpoint. Subresources (a pod's binding,
// status, scale ...) are objects the kind's strategy holds
// (registry/subresource.h, implemented in subresources/): a request for one
// is routed to it, and it builds on the generic handlers through GenericRest,
// which the server implements for them alone.
// Transport-free: HttpServer calls Handle from its worker threads.
// Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "api/object.h"
#include "apiserver/admission/admission.h"
#include "apiserver/audit/audit.h"
#include "apiserver/authz/authorization_filter.h"
#include "apiserver/crd/crd_controller.h"
#include "apiserver/discovery.h"
#include "apiserver/health.h"
#include "apiserver/http.h"
#include "apiserver/openapi/openapi.h"
#include "apiserver/registry/registry.h"
#include "apiserver/registry/service_alloc.h"
#include "apiserver/registry/subresource.h"
#include "apiserver/registry/system_fields.h"
#include "apiserver/request_info.h"
#include "apiserver/status_json.h"
#include "store/store.h"

namespace berth::apiserver {

class ServiceAccountTokens;  // authz/service_account_tokens.h

class ApiServer final : private GenericRest {
 public:
  struct Options {
    std::string berth_version = "0.0.0";
    std::string advertise_address = "127.0.0.1:8080";
    // kube-apiserver's --service-cluster-ip-range and --service-node-port-range
    // (checked with ParseServiceRanges before; an invalid one falls back to these).
    std::string service_cluster_ip_range = "10.96.0.0/12";
    std::string service_node_port_range = "30000-32767";
    AdmissionOptions admission;
    uint64_t seed = 0;  // uid / generateName randomness (0: from std::random_device)
    std::chrono::milliseconds bookmark_interval{60'000};
    std::chrono::seconds default_watch_timeout{1800};
    // Static bearer tokens (token → user). Empty: no authentication.
    std::map<std::string, UserInfo> tokens;
    // True (--client-ca-file): a verified client certificate authenticates
    // its CN as the user, its O values as groups; requests must then carry
    // a certificate or a token.
    bool client_certificates = false;
    // Their CAs (PEM), published as kube-apiserver publishes them: kube-system's
    // extension-apiserver-authentication ConfigMap, key client-ca-file.
    std::string client_ca_pem;
    // kube's --anonymous-auth and --authorization-mode (authorization_filter.h).
    bool anonymous_auth = true;
    std::vector<std::string> authorization_modes{"AlwaysAllow"};
    // Renders /metrics (Prometheus text); unset: 404.
    std::function<std::string()> metrics;
    // Paths served beside the API (after authentication, before the API's
    // own paths): see Route.
    std::vector<Route> routes;
    // --audit-log-path: every request but health checks is audited (audit.h).
    std::shared_ptr<AuditLog> audit;
    // Service account tokens: issued by serviceaccounts/token, accepted as
    // bearer tokens, reviewed by TokenReview, published by OIDC discovery.
    // Unset: none are issued (503) or accepted.
    std::shared_ptr<const ServiceAccountTokens> service_account_tokens;
    // componentstatuses' parts besides the store (etcd-0, which the server
    // checks itself): the scheduler and the controller manager, as the
    // cluster running them sees them.
    std::vector<HealthCheck> components;
  };

  ApiServer(store::Store& store, Options options);
  ~ApiServer();

  // Creates the namespaces every cluster has (default, kube-system,
  // kube-node-lease, kube-public) and the built-in PriorityClasses
  // (system-node-critical, system-cluster-critical) and the `kubernetes`
  // Service in default when missing, and starts serving the
  // CustomResourceDefinitions in the store.
  Status Bootstrap();
  // Whether `request` may now wait on a call out of the server: a write when
  // an admission webhook is configured, any request for a custom resource
  // of a group with a conversion webhook. Such requests are not run on an io thread.
  bool MayCallOut(const Request& request) const;
  // 503 for a path under /apis/GROUP/VERSION that a stored APIService backed
  // by a Service names (berth does not proxy to it); nullopt otherwise.
  std::optional<Response> AggregatedUnavailable(std::string_view path) const;
  // The group versions of the stored APIServices backed by a Service (discovery lists them, stale).
  std::vector<AggregatedVersion> AggregatedVersions() const;

  // Serves `request`, audited (audit.h).
  Response Handle(Request& request);
  // Records in the audit log a request the HTTP server answered itself
  // (`response`: 429 beyond the in-flight limits), with the user its
  // credentials name, as kube audits what its max-in-flight filter drops.
  void AuditUnhandled(const Request& request, const Response& response);
  // Whether the request's credentials make its user a member of
  // system:masters: kube serves those beyond the in-flight limits
  // (HttpServer::Options::exempt_from_limits).
  bool Privileged(const Request& request) const;

  // The OpenAPI documents served under /openapi and the schemas field
  // validation checks writes against; registered kinds' schemas are set here.
  OpenApi& openapi() { return openapi_; }

  // pods/binding's write (subresources/binding.h: AssignPod), also JSON-RPC's
  // bind.pod: sets spec.nodeName and the PodScheduled condition in one write.
  // Conflict when the pod is already bound or being deleted; `expected_uid` /
  // `expected_revision` (when non-empty / > 0) are preconditions.
  Result<api::ObjectPtr> BindPod(const std::string& ns, const std::string& name,
                                 const std::string& node, const std::string& expected_uid,
                                 int64_t expected_revision, const boost::json::object* annotations);
  // The reverse (JSON-RPC unbind.pod): clears spec.nodeName of a bound pod that
  // has not started. Conflict when it is not bound.
  Result<api::ObjectPtr> UnbindPod(const std::string& ns, const std::string& name,
                                   int64_t expected_revision);

 private:
  // What subresources call (GenericRest). Writes at a subresource
  // (info.subresource set) go through its MergeWrite.
  store::Store& store() override { return store_; }
  AdmissionChain& admission() override { return *admission_; }
  Response Get(Request& request, const RequestInfo& info) override;
  Response Update(Request& request, const RequestInfo& info) override;
  Response Patch(Request& request, const RequestInfo& info) override;
  // Writes `next` (a whole object's JSON) as the new version of `current`:
  // a write of the object itself keeps the stored status when the kind has
  // the status subresource; a write at a subresource changes what that
  // subresource owns (Subresource::MergeWrite); then admission and validation.
  // The answer is in info.kind's version (a custom resource converted from its storage version).
  Result<api::ObjectPtr> WriteUpdate(const RequestInfo& info, const api::ObjectPtr& current,
                                     boost::json::value next, bool dry_run, Request* request) override;
  // The stored object `info` names, in info.kind's version
  // (ResourceStrategy::InVersion); NotFound with kube's message when there is none.
  Result<api::ObjectPtr> CurrentInVersion(const RequestInfo& info);
  // Deletes `object`, or marks it (deletionTimestamp) when finalizers hold it
  // or, for a pod on a node with a kubelet, for its graceful termination.
  // `grace_seconds`: DeleteOptions.gracePeriodSeconds (pods; unset: the pod's
  // terminationGracePeriodSeconds). `finalizer`: added first ("orphan",
  // "foregroundDeletion") for those propagation policies; empty for none.
  Result<api::ObjectPtr> DeleteObject(const api::ObjectPtr& object, std::optional<int64_t> grace_seconds,
                                      std::string_view finalizer) override;
  // `response` to a write made under a store::DeferAcknowledgement that
  // deferred `revision` (0: nothing was deferred, the answer goes at once):
  // sent once that revision is visible (Response::when_ready).
  Response AnswerWhenVisible(Response response, int64_t revision) override;

  Response Serve(Request& request);
  std::optional<Response> ServeHealthCheck(const Request& request) const;
  // A resource path: the kind's verbs, or the subresource its strategy holds
  // under the path's name.
  Response HandleResource(Request& request, const RequestInfo& info);
  Response List(Request& request, const RequestInfo& info);
  Response Watch(Request& request, const RequestInfo& info);
  Response Create(Request& request, const RequestInfo& info);
  // Server-side apply (rest_apply.cc): a PATCH with application/apply-patch+yaml.
  Response Apply(Request& request, const RequestInfo& info);
  Response Delete(Request& request, const RequestInfo& info);
  Response DeleteCollection(Request& request, const RequestInfo& info);
  // POST /rpc (json_rpc.cc).
  Response Rpc(Request& request);
  // A create answered once Store::CreateAsync completes: 201 with the object
  // as `served`, `exists` (with `details`) when the name is taken, or the
  // store's error.
  Response AnswerWhenCreated(api::ObjectPtr object, api::Kind served, Status exists, StatusDetails details);

  // Deletes every object in `ns`; true when none is left (nothing held back).
  Result<bool> DeleteNamespaceContents(const std::string& ns);
  // DELETE of a namespace: marks it Terminating and drains it; purges it when
  // nothing is left, or when already terminating with no finalizer left
  // (Conflict while finalizers remain).
  Result<api::ObjectPtr> DeleteNamespace(api::ObjectPtr current);
  // The request's objects for a list/watch: key prefix and predicate.
  Result<store::Predicate> SelectorPredicate(const Request& request, api::Kind kind);
  // An object the server makes itself (Bootstrap): defaulted and prepared
  // as a create would be, without admission.
  void PrepareOwnObject(api::Kind kind, boost::json::object& object);
  // Creates such an object unless one of its name exists.
  Status CreateOwnObject(api::Kind kind, boost::json::object object);
  // kube-system's extension-apiserver-authentication ConfigMap, created or
  // brought up to date with the client CA the server was started with.
  Status PublishAuthenticationConfigMap();

  store::Store& store_;
  Options options_;
  SystemFields fields_;
  std::unique_ptr<AdmissionChain> admission_;
  ResourceRegistry registry_;
  OpenApi openapi_;  // lists the subresources registry_'s strategies hold
  std::unique_ptr<ServiceAllocator> services_;
  // Serves CustomResourceDefinitions; started by Bootstrap.
  std::unique_ptr<crd::CrdController> crds_;
  // Authentication and authorization of every request; started by Bootstrap.
  std::unique_ptr<AccessControl> access_;
  // /healthz, /livez and /readyz with their checks (apiserver/health.h).
  std::vector<std::pair<std::string, std::vector<HealthCheck>>> health_checks_;
  std::vector<HealthCheck> components_;  // componentstatuses
  bool access_started_ = false;
};

// A request body of a kind served over another's objects (KindInfo::stored_as)
// in the stored form (api/conversion.h); Ok and unchanged for other kinds.
Status ToStoredForm(api::Kind kind, boost::json::value& value);
// `object` (stored) as a client of `kind` reads it, with its current resourceVersion.
boost::json::value ServedForm(api::Kind kind, const api::ObjectPtr& object);

// Response helpers shared by the handlers.
// A JSON answer; the body (when there is one) ends with a newline, as kube's encoder writes it.
Response JsonResponse(int status, std::string body);
// Any other answer, its body as given.
Response BodyResponse(int status, std::string body, std::string content_type);
Response ErrorResponse(const Status& status, const StatusDetails& details = {});
// 405 with kube's message, for a method the resource does not serve.
Response MethodNotAllowed();

}  // namespace berth::apiserver
