// Routing, non-resource endpoints and shared helpers of the API server.

#include "apiserver/api_server.h"

#include <algorithm>
#include <cstdio>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/time/rfc3339.h"
#include "api/validation/validation.h"
#include "apiserver/authz/authentication.h"
#include "apiserver/authz/rbac/bootstrap_policy.h"
#include "apiserver/authz/service_account_tokens.h"
#include "apiserver/cbor_response.h"
#include "apiserver/component_status.h"
#include "apiserver/discovery.h"
#include "apiserver/health.h"
#include "apiserver/openapi/field_validation.h"
#include "apiserver/registry/strategies.h"
#include "apiserver/subresources/binding.h"
#include "log/log.h"

namespace berth::apiserver {

namespace json = boost::json;

Response JsonResponse(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  // kube's JSON serializer (Go's json.Encoder) ends every document with a newline.
  if (!r.body.empty() && r.body.back() != '\n') r.body += '\n';
  return r;
}

Response BodyResponse(int status, std::string body, std::string content_type) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return r;
}

Response ErrorResponse(const Status& status, const StatusDetails& details) {
  return JsonResponse(status.HttpCode(), json::serialize(StatusToJson(status, details)));
}

Response MethodNotAllowed() {
  return ErrorResponse(
      Status(StatusCode::kMethodNotAllowed, "the server does not allow this method on the requested resource"));
}

namespace {

uint64_t SeedOrRandom(uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device rd;
  return (uint64_t{rd()} << 32) | rd();
}

Response NotFoundPath() {
  return ErrorResponse(Status::NotFound("the server could not find the requested resource"));
}

}  // namespace

ApiServer::ApiServer(store::Store& store, Options options)
    : store_(store),
      options_(std::move(options)),
      fields_(SeedOrRandom(options_.seed)),
      openapi_(registry_) {
  auto chain = AdmissionChain::Make(options_.admission, store_);
  if (!chain.ok()) {
    // The command line checks the plugin names first (CheckAdmissionOptions).
    BERTH_LOG_ERROR(chain.status().message(), "Running kube's default admission plugins");
    AdmissionOptions defaults;
    defaults.default_not_ready_toleration_seconds = options_.admission.default_not_ready_toleration_seconds;
    defaults.default_unreachable_toleration_seconds = options_.admission.default_unreachable_toleration_seconds;
    chain = AdmissionChain::Make(defaults, store_);
  }
  admission_ = std::move(chain).value();
  access_ = std::make_unique<AccessControl>(
      store_, AccessOptions{options_.tokens, options_.client_certificates, options_.anonymous_auth,
                            options_.authorization_modes, options_.service_account_tokens.get()});
  auto ranges = ParseServiceRanges(options_.service_cluster_ip_range, options_.service_node_port_range);
  services_ = std::make_unique<ServiceAllocator>(ranges.ok() ? ranges.value() : ServiceRanges{});
  RegisterBuiltinStrategies(registry_, {store_, *services_, options_.service_account_tokens.get()});
  // The server answers while it runs; it is not ready while the store
  // refuses writes (a failed log, a full disk).
  const HealthCheck ping{"ping", [] { return Status::Ok(); }};
  const HealthCheck writable{"store", [this] { return store_.Health(); }};
  health_checks_ = {{"healthz", {ping}}, {"livez", {ping}}, {"readyz", {ping, writable}}};
  components_ = options_.components;
  components_.push_back({"etcd-0", [this] { return store_.Health(); }});
  registry_.Set(api::Kind::kCustomResourceDefinition, crd::CrdStrategy([this](const api::ObjectPtr& created) {
                  if (crds_) crds_->Sync(created);
                }));
}

void ApiServer::PrepareOwnObject(api::Kind kind, json::object& object) {
  const ResourceStrategy& strategy = registry_.For(kind);
  strategy.Default(object);
  fields_.PrepareCreate(kind, object);
  strategy.PrepareForCreate(object);
  strategy.Canonicalize(object);
}

ApiServer::~ApiServer() = default;

Status ApiServer::CreateOwnObject(api::Kind kind, json::object object) {
  PrepareOwnObject(kind, object);
  auto parsed = api::Object::FromJson(json::value(std::move(object)));
  if (!parsed.ok()) return parsed.status();
  auto created = store_.Create(parsed.value());
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) return created.status();
  return Status::Ok();
}

namespace {

// kube-aggregator's local APIService for each group/version served here:
// "v1." for the core group, "<version>.<group>" for the others. Groups
// take priorities in serving order, versions theirs within the group
// (the preferred one highest).
std::vector<json::object> LocalApiServices() {
  const std::string now = api::NowRfc3339();
  std::vector<json::object> services;
  int64_t group_priority = 18000;
  for (const ServedGroup& served : ServedGroups()) {
    const std::string group(served.group);
    int64_t version_priority = 15;
    for (std::string_view version_name : served.versions) {
      const std::string version(version_name);
      json::object service;
      service["apiVersion"] = "apiregistration.k8s.io/v1";
      service["kind"] = "APIService";
      service["metadata"] = json::object{{"name", version + "." + group},
                                         {"labels", json::object{{"kube-aggregator.kubernetes.io/automanaged", "onstart"}}}};
      service["spec"] = json::object{{"group", group},
                                     {"version", version},
                                     {"groupPriorityMinimum", group_priority},
                                     {"versionPriority", version_priority}};
      service["status"] = json::object{
          {"conditions", json::array{json::object{{"type", "Available"},
                                                  {"status", "True"},
                                                  {"lastTransitionTime", now},
                                                  {"reason", "Local"},
                                                  {"message", "Local APIServices are always available"}}}}};
      services.push_back(std::move(service));
      version_priority = std::max<int64_t>(1, version_priority - 1);
    }
    group_priority -= 100;
  }
  return services;
}

}  // namespace

Status ApiServer::PublishAuthenticationConfigMap() {
  json::object data;
  if (!options_.client_ca_pem.empty()) data["client-ca-file"] = options_.client_ca_pem;
  const std::string key = api::StorageKey(api::Kind::kConfigMap, "kube-system", "extension-apiserver-authentication");
  if (auto current = store_.Get(key); current.ok()) {
    const json::value* stored = current.value()->json().if_contains("data");
    if ((stored ? *stored : json::value(json::object())) == json::value(data)) return Status::Ok();
    json::object next = current.value()->json();
    next["data"] = std::move(data);
    auto object = api::Object::FromJson(json::value(std::move(next)));
    if (!object.ok()) return object.status();
    return store_.Update(object.value(), current.value()->resource_version()).status();
  }
  return CreateOwnObject(api::Kind::kConfigMap,
                         json::object{{"apiVersion", "v1"},
                                      {"kind", "ConfigMap"},
                                      {"metadata", json::object{{"name", "extension-apiserver-authentication"},
                                                                {"namespace", "kube-system"}}},
                                      {"data", std::move(data)}});
}

Status ApiServer::Bootstrap() {
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    json::object ns{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", name}}}};
    if (Status s = CreateOwnObject(api::Kind::kNamespace, std::move(ns)); !s.ok()) return s;
  }
  // kube-apiserver's built-in PriorityClasses.
  for (const auto& system : api::SystemPriorityClasses()) {
    json::object pc;
    pc["apiVersion"] = "scheduling.k8s.io/v1";
    pc["kind"] = "PriorityClass";
    pc["metadata"] = json::object{{"name", system.name}};
    pc["value"] = system.value;
    pc["description"] = system.description;
    if (Status s = CreateOwnObject(api::Kind::kPriorityClass, std::move(pc)); !s.ok()) return s;
  }
  // The `kubernetes` Service, as kube-apiserver keeps it: the range's first
  // address, 443 to the port the API server listens on.
  if (!store_.Get(api::StorageKey(api::Kind::kService, "default", "kubernetes")).ok()) {
    const std::string& address = options_.advertise_address;
    int64_t port = 443;
    if (auto colon = address.rfind(':'); colon != std::string::npos) {
      try {
        port = std::stoll(address.substr(colon + 1));
      } catch (const std::exception&) {
      }
    }
    json::object svc;
    svc["apiVersion"] = "v1";
    svc["kind"] = "Service";
    svc["metadata"] = json::object{{"name", "kubernetes"},
                                   {"namespace", "default"},
                                   {"labels", json::object{{"component", "apiserver"}, {"provider", "kubernetes"}}}};
    svc["spec"] = json::object{
        {"clusterIP", services_->FirstAddress()},
        {"type", "ClusterIP"},
        {"sessionAffinity", "None"},
        {"ports", json::array{json::object{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}, {"targetPort", port}}}}};
    PrepareOwnObject(api::Kind::kService, svc);
    auto guard = registry_.For(api::Kind::kService).BeginCreate(svc);
    if (!guard.ok()) return guard.status();
    auto object = api::Object::FromJson(json::value(std::move(svc)));
    if (!object.ok()) return object.status();
    auto created = store_.Create(object.value());
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) return created.status();
  }
  // kube's bootstrap RBAC policy, created when absent.
  for (auto& policy : rbac::BootstrapPolicy()) {
    auto kind = api::KindFromApiVersion(policy["apiVersion"].as_string(), policy["kind"].as_string());
    if (!kind) return Status::Internal("bootstrap policy of an unknown kind");
    if (Status s = CreateOwnObject(*kind, std::move(policy)); !s.ok()) return s;
  }
  if (Status s = PublishAuthenticationConfigMap(); !s.ok()) return s;
  for (auto& service : LocalApiServices()) {
    if (Status s = CreateOwnObject(api::Kind::kAPIService, std::move(service)); !s.ok()) return s;
  }
  if (!access_started_) {
    access_started_ = true;
    if (Status s = access_->Start(); !s.ok()) return s;
  }
  if (!crds_) {
    crds_ = std::make_unique<crd::CrdController>(store_, registry_, &openapi_);
    return crds_->Start();
  }
  return Status::Ok();
}

Response ApiServer::Handle(Request& request) {
  AuditRecord audit = BeginAudit(options_.audit.get(), request);
  return FinishAudit(std::move(audit), request, Serve(request));
}

void ApiServer::AuditUnhandled(const Request& unhandled, const Response& response) {
  if (!options_.audit) return;
  Request request = unhandled;
  if (auto user = Authenticate(request, options_.tokens, options_.client_certificates)) {
    request.user = user->name;
    request.groups = user->groups;
  } else {
    request.user = std::string(kAnonymousUser);
    request.groups = {std::string(kUnauthenticatedGroup)};
  }
  FinishAudit(BeginAudit(options_.audit.get(), request), request, response);
}

std::vector<AggregatedVersion> ApiServer::AggregatedVersions() const {
  std::vector<AggregatedVersion> found;
  auto listed = store_.List({.prefix = api::StoragePrefix(api::Kind::kAPIService)});
  if (!listed.ok()) return found;
  for (const auto& service : listed->items) {
    const boost::json::object* spec = api::ObjectAt(service->json(), "spec");
    if (api::ObjectAt(spec, "service") == nullptr) continue;
    found.push_back({std::string(api::StringAt(spec, "group")), std::string(api::StringAt(spec, "version"))});
  }
  return found;
}

std::optional<Response> ApiServer::AggregatedUnavailable(std::string_view path) const {
  constexpr std::string_view kApis = "/apis/";
  if (!path.starts_with(kApis)) return std::nullopt;
  std::string_view rest = path.substr(kApis.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view group = rest.substr(0, slash);
  std::string_view version = rest.substr(slash + 1);
  version = version.substr(0, version.find('/'));
  const std::string name = std::string(version) + "." + std::string(group);
  auto service = store_.Get(api::StorageKey(api::Kind::kAPIService, "", name));
  if (!service.ok() || api::ObjectAt(api::ObjectAt(service.value()->json(), "spec"), "service") == nullptr) {
    return std::nullopt;
  }
  // kube's aggregator answers 503 while an APIService is unavailable; berth's never becomes available.
  return ErrorResponse(Status::Unavailable("the server is currently unable to handle the request (APIService " + name +
                                           " is served by another API server; API aggregation is not supported by "
                                           "this server)"));
}

bool ApiServer::MayCallOut(const Request& request) const {
  const bool read = request.method == "GET" || request.method == "HEAD";
  if (!read && admission_->MayCallOut()) return true;
  // /apis/GROUP/...: a custom resource whose versions convert through a webhook.
  constexpr std::string_view kApis = "/apis/";
  if (!crds_ || !std::string_view(request.path).starts_with(kApis)) return false;
  std::string_view group = std::string_view(request.path).substr(kApis.size());
  group = group.substr(0, group.find('/'));
  return crds_->ConvertsThroughWebhook(group);
}

bool ApiServer::Privileged(const Request& request) const {
  auto user = Authenticate(request, options_.tokens, options_.client_certificates);
  return user && std::find(user->groups.begin(), user->groups.end(), kPrivilegedGroup) != user->groups.end();
}

// kube's /healthz, /livez and /readyz (the checks are made once, in the
// constructor): nullopt for any other path.
std::optional<Response> ApiServer::ServeHealthCheck(const Request& request) const {
  for (const auto& [root, checks] : health_checks_) {
    if (auto answer = ServeHealth(root, checks, request)) return answer;
  }
  return std::nullopt;
}

Response ApiServer::Serve(Request& request) {
  // Routes marked anonymous (the dashboard's static files) need no
  // credentials and reach nothing of the API.
  if (AnonymousRoute(options_.routes, request.path)) {
    if (const Handler* route = FindRoute(options_.routes, request.path)) return (*route)(request);
  }
  UserInfo user;
  std::optional<Response> refused = access_->Admit(request, user);
  // The audit log records who asked, refused or not.
  request.user = user.name;
  request.groups = user.groups;
  if (refused) return std::move(*refused);
  if (auto review = access_->ServeReview(request, user)) return std::move(*review);

  const std::string& path = request.path;
  const bool get = request.method == "GET";
  if (path == "/version" || path == "/version/") {
    if (!get) return ErrorResponse(Status(StatusCode::kMethodNotAllowed, "method not allowed"));
    return JsonResponse(200, json::serialize(VersionInfo(options_.berth_version)));
  }
  if (std::optional<Response> health = ServeHealthCheck(request)) return std::move(*health);
  if (path == "/metrics") {
    if (!options_.metrics) return NotFoundPath();
    Response r = JsonResponse(200, options_.metrics());
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  if (const Handler* route = FindRoute(options_.routes, path)) return (*route)(request);
  if (options_.service_account_tokens) {
    if (auto discovery = ServeIssuerDiscovery(request, *options_.service_account_tokens)) return std::move(*discovery);
  }
  if (path == "/rpc") return Rpc(request);
  if (path == "/api" || path == "/apis" || path == "/api/" || path == "/apis/") {
    if (!get) return ErrorResponse(Status(StatusCode::kMethodNotAllowed, "method not allowed"));
    DiscoveryFormat format = NegotiateDiscovery(request.accept);
    json::object body = path.starts_with("/apis")
                            ? GroupsDiscovery(registry_, format, AggregatedVersions())
                            : CoreDiscovery(registry_, format, options_.advertise_address);
    Response r = JsonResponse(200, json::serialize(body));
    r.content_type = std::string(DiscoveryContentType(format));
    return r;
  }
  if (path.starts_with("/openapi/")) {
    if (auto served = ServeOpenApi(openapi_, request)) return std::move(*served);
    return NotFoundPath();
  }
  if (auto statuses = ServeComponentStatuses(request, components_)) return std::move(*statuses);

  auto info = ParseResourcePath(path);
  if (!info) {
    // Group and version documents: /api/v1, /apis/apps, /apis/apps/v1.
    std::string_view p = path;
    if (p.ends_with('/')) p.remove_suffix(1);
    if (p.starts_with("/api/")) {
      auto list = ResourceList(registry_, "", p.substr(5));
      if (list && get) return JsonResponse(200, json::serialize(*list));
    } else if (p.starts_with("/apis/")) {
      std::string_view rest = p.substr(6);
      auto slash = rest.find('/');
      if (slash == std::string_view::npos) {
        auto group = ApiGroup(rest, AggregatedVersions());
        if (group && get) return JsonResponse(200, json::serialize(*group));
      } else {
        auto list = ResourceList(registry_, rest.substr(0, slash), rest.substr(slash + 1));
        if (list && get) return JsonResponse(200, json::serialize(*list));
      }
    }
    if (auto unavailable = AggregatedUnavailable(path)) return std::move(*unavailable);
    return NotFoundPath();
  }
  // A custom resource's kind is registered a moment before its strategy is set.
  if (!info->kind || !registry_.Has(*info->kind) || !registry_.For(*info->kind).Served()) {
    if (auto unavailable = AggregatedUnavailable(path)) return std::move(*unavailable);
    return NotFoundPath();
  }
  Response response = HandleResource(request, *info);
  for (const auto& warning : request.warnings) response.headers.emplace_back("Warning", WarningHeaderValue(warning));
  if (PrefersCbor(request.accept)) {
    return ToCbor(std::move(response), info->watch_path || request.QueryBool("watch"));
  }
  return response;
}

Response ApiServer::HandleResource(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  const std::string& method = request.method;
  // Cluster-scoped resources have no namespace segment; namespaced ones may
  // omit it only for cluster-wide lists and watches.
  if (!kind.namespaced && !info.ns.empty()) return NotFoundPath();
  if (kind.namespaced && info.ns.empty() && !info.name.empty()) return NotFoundPath();

  if (kind.create_only) {
    // The legacy `bindings` resource: pods/binding's POST, the pod named in the body.
    if (method != "POST" || !info.name.empty()) return MethodNotAllowed();
    return ServeBinding(request, info, *this);
  }
  if (!info.subresource.empty()) {
    const Subresource* subresource = registry_.For(*info.kind).FindSubresource(info.subresource);
    if (!subresource) return NotFoundPath();
    return subresource->Serve(request, info, *this);
  }

  if (info.name.empty()) {
    if (method == "GET") {
      bool watch = info.watch_path || request.QueryBool("watch");
      return watch ? Watch(request, info) : List(request, info);
    }
    if (method == "POST") return Create(request, info);
    if (method == "DELETE") return DeleteCollection(request, info);
  } else {
    if (method == "GET") {
      if (info.watch_path || request.QueryBool("watch")) return Watch(request, info);
      return Get(request, info);
    }
    if (method == "PUT") return Update(request, info);
    if (method == "PATCH") return Patch(request, info);
    if (method == "DELETE") return Delete(request, info);
  }
  return MethodNotAllowed();
}

}  // namespace berth::apiserver
