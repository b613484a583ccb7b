#include "apiserver/subresources/binding.h"

#include <optional>
#include <string_view>

#include <boost/json.hpp>

#include "api/codec/json_parse.h"
#include "api/conditions.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"
#include "apiserver/admission/admission.h"
#include "apiserver/api_server.h"
#include "apiserver/schema/protobuf.h"
#include "store/store.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

const api::KindInfo& PodKind() { return api::Info(api::Kind::kPod); }

Status BindingConflict(const std::string& name, const std::string& why) {
  return Status::Conflict("Operation cannot be fulfilled on pods/binding \"" + name + "\": " + why);
}

}  // namespace

BindingSubresource::BindingSubresource()
    : Subresource({.name = "binding", .group = "", .version = "v1", .kind = "Binding", .verbs = {"create"}}) {}

Response BindingSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  if (request.method != "POST") return MethodNotAllowed();
  return ServeBinding(request, info, rest);
}

Result<api::ObjectPtr> AssignPod(store::Store& store, const std::string& ns, const std::string& name,
                                 const std::string& node, const std::string& expected_uid, int64_t expected_revision,
                                 const json::object* annotations) {
  if (node.empty()) {
    // kube answers its raw validation error here, which surfaces as a 500;
    // berth answers what it is, an invalid Binding.
    return Status::Invalid("Binding \"" + name + "\" is invalid: target.name: Required value",
                           {{"FieldValueRequired", "Required value", "target.name"}});
  }
  const std::string key = api::StorageKey(api::Kind::kPod, ns, name);
  for (int attempt = 0; attempt < GenericRest::kMaxAttempts; ++attempt) {
    auto current = store.Get(key);
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
         now = api::NowRfc3339()](json::object& p) {
          api::MutableObject(p, "spec")["nodeName"] = node;
          if (!added_annotations.empty()) {
            json::object& a = api::MutableObject(api::MutableObject(p, "metadata"), "annotations");
            for (const auto& kv : added_annotations) a[kv.key()] = kv.value();
          }
          api::SetCondition(api::MutableObject(p, "status"), {"PodScheduled", "True", "", ""}, now,
                            {.null_probe_time = true});
        },
        std::move(view));
    auto written = store.Update(bound, pod->resource_version());
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

Result<api::ObjectPtr> UnassignPod(store::Store& store, const std::string& ns, const std::string& name,
                                   int64_t expected_revision) {
  const std::string key = api::StorageKey(api::Kind::kPod, ns, name);
  for (int attempt = 0; attempt < GenericRest::kMaxAttempts; ++attempt) {
    auto current = store.Get(key);
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
                        api::NowRfc3339(), {.null_probe_time = true});
    });
    if (!unbound.ok()) return unbound.status();
    auto written = store.Update(unbound.value(), pod->resource_version());
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

Response ServeBinding(Request& request, const RequestInfo& info, GenericRest& rest) {
  auto decoded = DecodeBindingBody(request);
  if (!decoded.ok()) return ErrorResponse(decoded.status());
  json::object& body = decoded.value().get_object();
  auto read = ReadBinding(body, info);
  if (!read.ok()) return ErrorResponse(read.status());
  const BindingRequest& binding = read.value();
  // Admission sees the create of pods/binding, as kube's does: the pod
  // plugins leave subresources alone, plugins about every kind (AlwaysDeny)
  // do not.
  AdmissionEffects effects;
  AdmissionAttributes attributes{AdmissionOperation::kCreate, PodKind(), "binding", info.ns, binding.name, &body,
                                 nullptr, false, &request, &effects};
  Status admitted = rest.admission().Admit(attributes, &body);
  if (admitted.ok()) admitted = rest.admission().Validate(attributes);
  TakeWarnings(effects, request);
  if (!admitted.ok()) return ErrorResponse(admitted, StatusDetails{binding.name, "", "pods"});
  // Over HTTP the answer waits for durability without holding the thread, as
  // a create's does: the binding is one guarded write, and a conflict makes
  // the store wait until the version it lost to is visible before the retry
  // reads it.
  std::optional<store::DeferAcknowledgement> defer;
  if (request.may_defer) defer.emplace();
  auto bound = AssignPod(rest.store(), info.ns, binding.name, binding.node, binding.uid, binding.resource_version,
                         binding.annotations);
  const int64_t deferred = defer ? defer->revision() : 0;
  defer.reset();
  if (!bound.ok()) {
    StatusDetails details{binding.name, "",
                          bound.status().code() == StatusCode::kConflict ? "pods/binding" : "pods"};
    return ErrorResponse(bound.status(), details);
  }
  return rest.AnswerWhenVisible(JsonResponse(201, json::serialize(SuccessStatus(201))), deferred);
}

}  // namespace berth::apiserver
