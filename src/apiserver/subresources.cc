// pods/log (simulated output, pod_log.h), pods/binding (and the legacy bindings resource), deployments|replicasets/scale,
// and the JSON-RPC endpoint that offers binding as one call.

#include <boost/json.hpp>
#include <charconv>
#include <optional>
#include <variant>

#include "api/codec/base64.h"
#include "api/codec/cbor.h"
#include "api/codec/json_parse.h"
#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/selector.h"
#include "api/time/rfc3339.h"
#include "apiserver/api_server.h"
#include "apiserver/patch/patch.h"
#include "apiserver/pod_log.h"
#include "apiserver/schema/decode_check.h"
#include "apiserver/schema/protobuf.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

const api::KindInfo& PodKind() { return api::Info(api::Kind::kPod); }

Status BindingConflict(const std::string& name, const std::string& why) {
  return Status::Conflict("Operation cannot be fulfilled on pods/binding \"" + name + "\": " + why);
}

// The largest decoded CBOR Binding a JSON-RPC call may carry.
constexpr size_t kMaxRpcBindingBytes = 64 * 1024;

// What a JSON-RPC bind.pod / unbind.pod names.
struct RpcPodTarget {
  std::string ns;
  std::string name;
  std::string node;
  int64_t resource_version = 0;
};

// params.binding: a v1 Binding in CBOR, base64-encoded (params.encoding
// "cbor-base64"). An error is the message of a -32602 answer.
std::variant<RpcPodTarget, std::string> ReadRpcBinding(const json::object& params) {
  const json::value& encoded = params.at("binding");
  if (api::StringAt(params, "encoding") != "cbor-base64") {
    return std::string("Invalid params: binding requires encoding \"cbor-base64\"");
  }
  if (!encoded.is_string()) return std::string("Invalid params: binding must be a base64 string");
  std::string_view text = encoded.get_string();
  const std::string limit = "Invalid params: the CBOR binding exceeds the limit of " +
                            std::to_string(kMaxRpcBindingBytes) + " bytes";
  // Base64 takes 4 characters per 3 bytes; refuse before decoding what must be too large.
  if (text.size() / 4 * 3 > kMaxRpcBindingBytes + 3) return limit;
  auto decoded = api::Base64Decode(text);
  if (auto* corrupt = std::get_if<api::Base64Corrupt>(&decoded)) {
    return "Invalid params: binding is not valid base64 (illegal base64 data at input byte " +
           std::to_string(corrupt->offset) + ")";
  }
  const std::string& bytes = std::get<std::string>(decoded);
  if (bytes.size() > kMaxRpcBindingBytes) return limit;
  auto value = api::DecodeCbor(bytes);
  if (!value.ok()) return "Invalid params: binding is not valid CBOR: " + value.status().message();
  if (!value.value().is_object()) return std::string("Invalid params: binding must be a Binding object");
  const json::object& b = value.value().get_object();
  if (std::string_view kind = api::StringAt(b, "kind"); !kind.empty() && kind != "Binding") {
    return "Invalid params: binding has kind \"" + std::string(kind) + "\", expected Binding";
  }
  if (std::string_view v = api::StringAt(b, "apiVersion"); !v.empty() && v != "v1") {
    return "Invalid params: binding has apiVersion \"" + std::string(v) + "\", expected v1";
  }
  RpcPodTarget target;
  if (const json::object* meta = api::ObjectAt(b, "metadata")) {
    target.ns = api::StringAt(*meta, "namespace");
    target.name = api::StringAt(*meta, "name");
    if (auto rv = api::ParseResourceVersion(api::StringAt(*meta, "resourceVersion"))) target.resource_version = *rv;
  }
  if (const json::object* t = api::ObjectAt(b, "target")) {
    if (std::string_view kind = api::StringAt(*t, "kind"); !kind.empty() && kind != "Node") {
      return "Invalid params: binding target has kind \"" + std::string(kind) + "\", expected Node";
    }
    target.node = api::StringAt(*t, "name");
  }
  return target;
}

}  // namespace

Result<api::ObjectPtr> ApiServer::BindPod(const std::string& ns, const std::string& name,
                                          const std::string& node, const std::string& expected_uid,
                                          int64_t expected_revision,
                                          const json::object* annotations) {
  if (node.empty()) {
    // kube answers its raw validation error here, which surfaces as a 500;
    // berth answers what it is, an invalid Binding.
    return Status::Invalid("Binding \"" + name + "\" is invalid: target.name: Required value",
                           {{"FieldValueRequired", "Required value", "target.name"}});
  }
  const std::string key = api::StorageKey(api::Kind::kPod, ns, name);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto current = store_.Get(key);
    if (!current.ok()) return NotFoundFor(PodKind(), name);
    const api::ObjectPtr& pod = current.value();
    if (!expected_uid.empty() && expected_uid != pod->uid()) {
      return BindingConflict(name, "Precondition failed: UID in precondition: " + expected_uid +
                                       ", UID in object meta: " + pod->uid());
    }
    if (expected_revision > 0 && expected_revision != pod->resource_version()) {
      return BindingConflict(name, "the object has been modified; please apply your changes to "
                                   "the latest version and try again");
    }
    if (api::BeingDeleted(*pod)) {
      return BindingConflict(name, "pod " + name + " is being deleted, cannot be assigned to a host");
    }
    std::string current_node = pod->FieldValue("spec.nodeName");
    if (!current_node.empty()) {
      return BindingConflict(name, "pod " + name + " is already assigned to node \"" + current_node + "\"");
    }
    if (const json::array* gates = api::ArrayAt(api::Spec(*pod), "schedulingGates"); gates && !gates->empty()) {
      return BindingConflict(name, "pod " + name + " has non-empty .spec.schedulingGates");
    }
    // Binding changes nothing the pod's view reads but spec.nodeName: copy the
    // view instead of parsing the pod again, and leave the JSON to be made when
    // first read (this is the scheduler's hot path; see EditLazily). The edit
    // owns what it uses: it may run later, on another thread.
    auto view = std::make_shared<api::PodView>(*pod->As<api::PodView>());
    view->node_name = node;
    json::object added_annotations = annotations ? *annotations : json::object();
    api::ObjectPtr bound = api::Object::EditLazily(
        pod,
        [node, added_annotations = std::move(added_annotations),
         now = NowRfc3339()](json::object& p) {
          api::MutableObject(p, "spec")["nodeName"] = node;
          if (!added_annotations.empty()) {
            json::object& a = api::MutableObject(api::MutableObject(p, "metadata"), "annotations");
            for (const auto& kv : added_annotations) a[kv.key()] = kv.value();
          }
          api::SetCondition(api::MutableObject(p, "status"), {"PodScheduled", "True", "", ""}, now,
                            {.null_probe_time = true});
        },
        std::move(view));
    auto written = store_.Update(bound, pod->resource_version());
    if (written.ok()) return written;
    if (written.status().code() != StatusCode::kConflict || expected_revision > 0) {
      return written.status().code() == StatusCode::kConflict
                 ? BindingConflict(name, "the object has been modified; please apply your "
                                         "changes to the latest version and try again")
                 : written.status();
    }
  }
  return BindingConflict(name, "too many concurrent updates");
}

Result<api::ObjectPtr> ApiServer::UnbindPod(const std::string& ns, const std::string& name,
                                            int64_t expected_revision) {
  const std::string key = api::StorageKey(api::Kind::kPod, ns, name);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto current = store_.Get(key);
    if (!current.ok()) return NotFoundFor(PodKind(), name);
    const api::ObjectPtr& pod = current.value();
    if (expected_revision > 0 && expected_revision != pod->resource_version()) {
      return BindingConflict(name, "the object has been modified; please apply your changes to "
                                   "the latest version and try again");
    }
    if (pod->FieldValue("spec.nodeName").empty()) {
      return BindingConflict(name, "pod " + name + " is not assigned to a node");
    }
    std::string phase = pod->FieldValue("status.phase");
    if (!phase.empty() && phase != "Pending") {
      return BindingConflict(name, "pod " + name + " is " + phase + " and cannot be unassigned");
    }
    auto unbound = pod->Edit([&](json::object& p) {
      api::MutableObject(p, "spec").erase("nodeName");
      api::SetCondition(api::MutableObject(p, "status"), {"PodScheduled", "False", "Unbound", ""},
                        NowRfc3339(), {.null_probe_time = true});
    });
    if (!unbound.ok()) return unbound.status();
    auto written = store_.Update(unbound.value(), pod->resource_version());
    if (written.ok() || written.status().code() != StatusCode::kConflict || expected_revision > 0) {
      return written;
    }
  }
  return BindingConflict(name, "too many concurrent updates");
}

namespace {

// A Binding's body, JSON or (client-go's Pods().Bind: kube-scheduler and
// other schedulers) kube's protobuf.
Result<json::value> DecodeBindingBody(const Request& request) {
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    return DecodeProtobuf(request.body, api::Kind::kBinding);
  }
  json::error_code ec;
  json::value body = api::ParseJson(request.body, ec);
  if (ec || !body.is_object()) {
    return Status::BadRequest("couldn't get version/kind; json parse error: " +
                              (ec ? ec.message() : std::string("not an object")));
  }
  return body;
}

// What a Binding asks: the pod (its name from the URL or the body), the node,
// the preconditions and the annotations to add.
struct BindingRequest {
  std::string name;
  std::string node;
  std::string uid;
  int64_t resource_version = 0;
  const json::object* annotations = nullptr;
};

Result<BindingRequest> ReadBinding(const json::object& b, const RequestInfo& info) {
  static const json::object kEmpty;
  const json::object* found = api::ObjectAt(b, "metadata");
  const json::object& meta = found ? *found : kEmpty;
  BindingRequest binding;
  binding.name = std::string(api::StringAt(meta, "name"));
  if (!info.name.empty()) {
    if (!binding.name.empty() && binding.name != info.name) {
      return Status::BadRequest("name in URL does not match name in Binding object");
    }
    binding.name = info.name;
  }
  if (binding.name.empty()) {
    return Status::Invalid("Binding \"\" is invalid: metadata.name: Required value",
                           {{"FieldValueRequired", "Required value", "metadata.name"}});
  }
  std::string_view body_ns = api::StringAt(meta, "namespace");
  if (!body_ns.empty() && body_ns != info.ns) {
    return Status::BadRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  binding.node = std::string(api::StringAt(api::ObjectAt(b, "target"), "name"));
  binding.uid = std::string(api::StringAt(meta, "uid"));
  if (auto text = api::StringAt(meta, "resourceVersion"); !text.empty()) {
    auto parsed = api::ParseResourceVersion(text);
    if (!parsed) return Status::BadRequest("invalid metadata.resourceVersion");
    binding.resource_version = *parsed;
  }
  binding.annotations = api::ObjectAt(meta, "annotations");
  return binding;
}

}  // namespace

Response ApiServer::Binding(Request& request, const RequestInfo& info) {
  auto decoded = DecodeBindingBody(request);
  if (!decoded.ok()) return ErrorResponse(decoded.status());
  json::object& body = decoded.value().get_object();
  auto read = ReadBinding(body, info);
  if (!read.ok()) return ErrorResponse(read.status());
  const BindingRequest& binding = read.value();
  // Admission sees the create of pods/binding, as kube's does: the pod
  // plugins leave subresources alone, plugins about every kind (AlwaysDeny)
  // do not.
  AdmissionAttributes attributes{AdmissionOperation::kCreate, PodKind(), "binding", info.ns, binding.name, &body,
                                 nullptr, false};
  Status admitted = admission_->Admit(attributes, &body);
  if (admitted.ok()) admitted = admission_->Validate(attributes);
  if (!admitted.ok()) return ErrorResponse(admitted, StatusDetails{binding.name, "", "pods"});
  // Over HTTP the answer waits for durability without holding the thread, as
  // a create's does: the binding is one guarded write, and a conflict makes
  // the store wait until the version it lost to is visible before the retry
  // reads it.
  std::optional<store::DeferAcknowledgement> defer;
  if (request.may_defer) defer.emplace();
  auto bound = BindPod(info.ns, binding.name, binding.node, binding.uid, binding.resource_version,
                       binding.annotations);
  const int64_t deferred = defer ? defer->revision() : 0;
  defer.reset();
  if (!bound.ok()) {
    StatusDetails details{binding.name, "",
                          bound.status().code() == StatusCode::kConflict ? "pods/binding" : "pods"};
    return ErrorResponse(bound.status(), details);
  }
  return AnswerWhenVisible(JsonResponse(201, json::serialize(SuccessStatus(201))), deferred);
}

namespace {

// An integer JSON value; 0 for anything else (a custom resource's replicas
// may be any JSON its schema allows).
int64_t IntegerOf(const json::value* v) {
  if (v == nullptr || !v->is_number()) return 0;
  json::error_code ec;
  const int64_t n = v->to_number<int64_t>(ec);
  return ec ? 0 : n;
}

// The value at a dotted path (".spec.replicas"); nullptr when absent.
const json::value* AtDotted(const json::object& root, std::string_view path) {
  const json::object* at = &root;
  const json::value* value = nullptr;
  while (!path.empty()) {
    if (path.front() == '.') path.remove_prefix(1);
    size_t dot = path.find('.');
    std::string_view key = path.substr(0, dot);
    value = at ? at->if_contains(key) : nullptr;
    if (!value) return nullptr;
    at = value->if_object();
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot);
  }
  return value;
}

void SetDotted(json::object& root, std::string_view path, json::value v) {
  json::object* at = &root;
  while (true) {
    if (!path.empty() && path.front() == '.') path.remove_prefix(1);
    size_t dot = path.find('.');
    std::string_view key = path.substr(0, dot);
    if (dot == std::string_view::npos) {
      (*at)[key] = std::move(v);
      return;
    }
    at = &api::MutableObject(*at, key);
    path = path.substr(dot);
  }
}

json::object ScaleOf(const api::ObjectPtr& object, const ResourceStrategy::ScalePaths& paths) {
  const json::object& o = object->json();
  json::object scale;
  scale["kind"] = "Scale";
  scale["apiVersion"] = "autoscaling/v1";
  json::object meta;
  meta["name"] = object->name();
  if (!object->namespace_name().empty()) meta["namespace"] = object->namespace_name();
  meta["uid"] = object->uid();
  meta["resourceVersion"] = std::to_string(object->resource_version());
  if (const json::object* m = api::ObjectAt(o, "metadata")) {
    if (const json::value* ts = m->if_contains("creationTimestamp")) meta["creationTimestamp"] = *ts;
  }
  scale["metadata"] = std::move(meta);
  int64_t replicas = 0, current = 0;
  std::string selector;
  replicas = IntegerOf(AtDotted(o, paths.spec_replicas));
  current = IntegerOf(AtDotted(o, paths.status_replicas));
  if (const json::value* sel = paths.label_selector.empty() ? nullptr : AtDotted(o, paths.label_selector)) {
    if (!paths.selector_is_object) {
      if (sel->is_string()) selector = sel->get_string();
    } else if (auto parsed = api::LabelSelector::FromJson(*sel); parsed.ok()) {
      selector = parsed->ToString();
    }
  }
  scale["spec"] = json::object{{"replicas", replicas}};
  scale["status"] = json::object{{"replicas", current}, {"selector", selector}};
  return scale;
}

}  // namespace

Response ApiServer::Scale(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  const std::string key = api::StorageKey(*info.kind, info.ns, info.name);
  StatusDetails details{info.name, std::string(kind.group), std::string(kind.resource)};
  const ResourceStrategy::ScalePaths paths = registry_.For(*info.kind).ScaleAt();
  if (request.method == "GET") {
    auto current = store_.Get(key);
    if (!current.ok()) return ErrorResponse(NotFoundFor(kind, info.name), details);
    return JsonResponse(200, json::serialize(ScaleOf(current.value(), paths)));
  }
  if (request.method != "PUT" && request.method != "PATCH") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed, "the server does not allow this method on the requested resource"));
  }
  std::optional<PatchType> patch_type;
  if (request.method == "PATCH") {
    patch_type = PatchTypeFromContentType(request.content_type);
    if (!patch_type) {
      return ErrorResponse(Status(StatusCode::kUnsupportedMediaType, "the body of the request was in an unknown format"));
    }
  }
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto current = store_.Get(key);
    if (!current.ok()) return ErrorResponse(NotFoundFor(kind, info.name), details);
    json::value scale;
    if (patch_type) {
      auto patched = ApplyPatch(*patch_type, *info.kind, json::value(ScaleOf(current.value(), paths)), request.body);
      if (!patched.ok()) return ErrorResponse(patched.status());
      scale = std::move(patched).value();
    } else {
      json::error_code ec;
      scale = api::ParseJson(request.body, ec);
      if (ec) return ErrorResponse(Status::BadRequest("couldn't get version/kind; json parse error: " + ec.message()));
    }
    if (Status typed = CheckScaleDecodable(patch_type ? WriteVerb::kPatch : WriteVerb::kUpdate, scale); !typed.ok()) {
      return ErrorResponse(typed);
    }
    int64_t replicas = 0;  // a Scale without spec.replicas asks for none, as in kube
    int64_t precondition = 0;
    if (scale.is_object()) {
      json::object& s = scale.get_object();
      const json::object* spec = api::ObjectAt(s, "spec");
      if (const json::value* r = spec ? spec->if_contains("replicas") : nullptr; r && r->is_number()) {
        replicas = r->to_number<int64_t>();
      }
      if (auto rv = api::StringAt(api::ObjectAt(s, "metadata"), "resourceVersion"); !rv.empty()) {
        precondition = api::ParseResourceVersion(rv).value_or(0);
      }
    }
    if (replicas < 0) {
      // kube's ValidateScale: autoscaling/v1 Scale, named with its group.
      const std::string detail = "Invalid value: " + std::to_string(replicas) + ": must be greater than or equal to 0";
      return ErrorResponse(Status::Invalid("Scale.autoscaling \"" + info.name + "\" is invalid: spec.replicas: " + detail,
                                           {{"FieldValueInvalid", detail, "spec.replicas"}}),
                           {info.name, "autoscaling", "Scale"});
    }
    if (precondition > 0 && precondition != current.value()->resource_version()) {
      return ErrorResponse(ConflictFor(kind, info.name, "the object has been modified; please apply your changes to the latest version and try again"), details);
    }
    json::value next = current.value()->json();
    SetDotted(next.get_object(), paths.spec_replicas, replicas);
    RequestInfo main = info;
    main.subresource.clear();
    auto written = WriteUpdate(main, current.value(), std::move(next), request.Query("dryRun").has_value());
    if (written.ok()) return JsonResponse(200, json::serialize(ScaleOf(written.value(), paths)));
    if (written.status().code() != StatusCode::kConflict || precondition > 0) {
      return ErrorResponse(written.status(), details);
    }
  }
  return ErrorResponse(ConflictFor(kind, info.name, "too many concurrent updates"), details);
}

// JSON-RPC 2.0: {"jsonrpc":"2.0","method":"bind.pod","params":{…},"id":1}, or a batch (array).
// params name the pod and node either as namespace/name/node, or as
// "binding": a v1 Binding in CBOR, base64-encoded, with "encoding":"cbor-base64"
// (at most 64 KiB once decoded). Every answer echoes the request's id.
// Application errors carry the HTTP status of the equivalent REST call as
// their code and the Kubernetes Status as data.
Response ApiServer::Rpc(Request& request) {
  if (request.method != "POST") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed, "JSON-RPC requests must be POSTed"));
  }
  auto error = [](const json::value& id, int code, std::string message, json::value data = nullptr) {
    json::object e{{"code", code}, {"message", std::move(message)}};
    if (!data.is_null()) e["data"] = std::move(data);
    return json::object{{"jsonrpc", "2.0"}, {"error", std::move(e)}, {"id", id}};
  };
  auto call = [&](const json::value& req) -> json::object {
    if (!req.is_object()) return error(nullptr, -32600, "Invalid Request");
    const json::object& r = req.get_object();
    json::value id = r.contains("id") ? r.at("id") : json::value(nullptr);
    if (r.if_contains("jsonrpc") == nullptr || r.at("jsonrpc") != "2.0" || !r.contains("method") ||
        !r.at("method").is_string()) {
      return error(id, -32600, "Invalid Request");
    }
    std::string_view method = r.at("method").get_string();
    if (method != "bind.pod" && method != "unbind.pod") return error(id, -32601, "Method not found");
    const json::value* params = r.if_contains("params");
    if (!params || !params->is_object()) return error(id, -32602, "Invalid params: an object is required");
    const json::object& p = params->get_object();
    std::string ns(api::StringAt(p, "namespace"));
    std::string name(api::StringAt(p, "name"));
    std::string node(api::StringAt(p, "node"));
    int64_t rv = 0;
    if (p.contains("binding")) {
      auto read = ReadRpcBinding(p);
      if (auto* message = std::get_if<std::string>(&read)) return error(id, -32602, std::move(*message));
      RpcPodTarget& target = std::get<RpcPodTarget>(read);
      ns = std::move(target.ns);
      name = std::move(target.name);
      node = std::move(target.node);
      rv = target.resource_version;
    }
    if (ns.empty()) ns = "default";
    if (name.empty()) return error(id, -32602, "Invalid params: name is required");
    if (auto v = p.find("resourceVersion"); v != p.end()) {
      if (v->value().is_string()) {
        auto parsed = api::ParseResourceVersion(v->value().get_string());
        if (!parsed) return error(id, -32602, "Invalid params: resourceVersion must be a number");
        rv = *parsed;
      } else if (v->value().is_int64()) {
        rv = v->value().get_int64();
      }
    }
    Result<api::ObjectPtr> result = method == "bind.pod"
                                        ? BindPod(ns, name, node, "", rv, nullptr)
                                        : UnbindPod(ns, name, rv);
    if (!result.ok()) {
      StatusDetails details{name, "", result.status().code() == StatusCode::kConflict ? "pods/binding" : "pods"};
      return error(id, result.status().HttpCode(), result.status().message(),
                   StatusToJson(result.status(), details));
    }
    return json::object{{"jsonrpc", "2.0"}, {"result", api::ParseJson(result.value()->Encoded())}, {"id", id}};
  };

  json::error_code ec;
  json::value body = api::ParseJson(request.body, ec);
  if (ec) return JsonResponse(200, json::serialize(error(nullptr, -32700, "Parse error")));
  if (body.is_array()) {
    if (body.get_array().empty()) return JsonResponse(200, json::serialize(error(nullptr, -32600, "Invalid Request")));
    json::array out;
    for (const auto& r : body.get_array()) out.push_back(call(r));
    return JsonResponse(200, json::serialize(out));
  }
  return JsonResponse(200, json::serialize(call(body)));
}

Response ApiServer::PodLog(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = PodKind();
  if (request.method != "GET") {
    return ErrorResponse(Status(StatusCode::kMethodNotAllowed, "the server does not allow this method on the requested resource"));
  }
  auto current = store_.Get(api::StorageKey(api::Kind::kPod, info.ns, info.name));
  if (!current.ok()) return ErrorResponse(NotFoundFor(kind, info.name), DetailsFor(kind, info.name));
  // kube's ValidatePodLogOptions.
  std::vector<std::string> errors;
  auto integer = [&](std::string_view key) -> std::optional<int64_t> {
    auto text = request.Query(key);
    if (!text) return std::nullopt;
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (ec != std::errc() || end != text->data() + text->size()) {
      errors.push_back(std::string(key) + ": Invalid value: \"" + std::string(*text) + "\": must be an integer");
      return std::nullopt;
    }
    return value;
  };
  PodLogQuery query;
  query.container = std::string(request.Query("container").value_or(""));
  query.previous = request.QueryBool("previous");
  query.timestamps = request.QueryBool("timestamps");
  query.tail_lines = integer("tailLines");
  query.limit_bytes = integer("limitBytes");
  auto since_seconds = integer("sinceSeconds");
  if (query.tail_lines && *query.tail_lines < 0) {
    errors.push_back("tailLines: Invalid value: " + std::to_string(*query.tail_lines) +
                     ": must be greater than or equal to 0");
  }
  if (query.limit_bytes && *query.limit_bytes < 1) {
    errors.push_back("limitBytes: Invalid value: " + std::to_string(*query.limit_bytes) + ": must be greater than 0");
  }
  if (since_seconds && *since_seconds < 1) {
    errors.push_back("sinceSeconds: Invalid value: " + std::to_string(*since_seconds) + ": must be greater than 0");
  }
  if (auto since_time = request.Query("sinceTime")) {
    if (since_seconds) errors.push_back("at most one of `sinceTime` or `sinceSeconds` may be specified");
    query.since = api::ParseRfc3339(*since_time);
    if (!query.since) {
      errors.push_back("sinceTime: Invalid value: \"" + std::string(*since_time) + "\": not an RFC 3339 time");
    }
  } else if (since_seconds && *since_seconds > 0) {
    query.since = std::chrono::system_clock::now() - std::chrono::seconds(*since_seconds);
  }
  if (!errors.empty()) {
    std::string message = "PodLogOptions \"" + info.name + "\" is invalid: ";
    for (size_t i = 0; i < errors.size(); ++i) message += (i ? ", " : "") + errors[i];
    return ErrorResponse(Status::Invalid(message));
  }
  // follow: the simulated output is complete as it is; it is sent and the
  // stream ends (kubectl logs -f prints what there is and returns).
  auto text = RenderPodLog(*current.value(), query);
  if (!text.ok()) return ErrorResponse(text.status());
  Response response;
  response.content_type = "text/plain";
  response.body = std::move(text).value();
  return response;
}

}  // namespace berth::apiserver
