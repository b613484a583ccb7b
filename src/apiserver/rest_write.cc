// CREATE, UPDATE and PATCH (DELETE is in rest_delete.cc).

#include <algorithm>
#include <boost/json.hpp>
#include <optional>

#include "api/codec/cbor.h"
#include "api/codec/json_parse.h"
#include "api/conversion.h"
#include "api/json_fields.h"
#include "api/pod_view.h"
#include "api/time/rfc3339.h"
#include "api/validation/validation.h"
#include "apiserver/api_server.h"
#include "apiserver/openapi/field_validation.h"
#include "apiserver/patch/apply.h"
#include "apiserver/patch/patch.h"
#include "apiserver/registry/finalizers.h"
#include "apiserver/schema/decode_check.h"
#include "apiserver/schema/protobuf.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

// The strategy's warnings to the client's Warning headers.
void AddWarnings(std::vector<std::string> warnings, Request& request) {
  for (auto& w : warnings) request.AddWarning(std::move(w));
}

// Decodes a request body into an object of the expected kind (apiVersion and
// kind filled in when absent, as kube's decoder defaults them from the URL).
Result<json::value> DecodeBody(const Request& request, const api::KindInfo& kind) {
  json::value value;
  if (std::string_view(request.content_type).starts_with(kProtobufContentType)) {
    // kubectl's typed commands (create deployment, create namespace ...).
    auto decoded = DecodeProtobuf(request.body, kind.kind);
    if (!decoded.ok()) return decoded.status();
    value = std::move(decoded).value();
  } else if (IsCborContentType(request.content_type)) {
    auto decoded = api::DecodeCbor(request.body);
    if (!decoded.ok()) return Status::BadRequest("couldn't get version/kind; " + decoded.status().message());
    value = std::move(decoded).value();
  } else if (!IsJsonContentType(request.content_type)) {
    return Status(StatusCode::kUnsupportedMediaType,
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json, application/vnd.kubernetes.protobuf, application/cbor");
  } else {
    json::error_code ec;
    value = api::ParseJson(request.body, ec);
    if (ec) return Status::BadRequest("couldn't get version/kind; json parse error: " + ec.message());
  }
  if (!value.is_object()) {
    return Status::BadRequest("couldn't get version/kind; json parse error: the body is not a JSON object");
  }
  json::object& o = value.get_object();
  std::string api_version = kind.ApiVersion();
  if (api::StringAt(o, "apiVersion").empty()) o["apiVersion"] = api_version;
  if (api::StringAt(o, "kind").empty()) o["kind"] = kind.name;
  if (api::StringAt(o, "apiVersion") != api_version) {
    return Status::BadRequest("the API version in the data (" + std::string(api::StringAt(o, "apiVersion")) +
                              ") does not match the expected API version (" + api_version + ")");
  }
  if (api::StringAt(o, "kind") != kind.name) {
    return Status::BadRequest("the kind in the data (" + std::string(api::StringAt(o, "kind")) +
                              ") does not match the expected kind (" + std::string(kind.name) + ")");
  }
  if (auto m = o.find("metadata"); m != o.end() && !m->value().is_object() && !m->value().is_null()) {
    return Status::BadRequest("metadata: expected an object");
  }
  return value;
}

// Puts the namespace of the URL into the object, or rejects a mismatch.
Status ReconcileNamespace(json::object& object, const api::KindInfo& kind, const std::string& ns) {
  json::object& meta = api::MutableObject(object, "metadata");
  if (!kind.namespaced) {
    meta.erase("namespace");
    return Status::Ok();
  }
  std::string_view body_ns = api::StringAt(meta, "namespace");
  if (body_ns.empty()) {
    meta["namespace"] = ns;
  } else if (body_ns != ns) {
    return Status::BadRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
  }
  return Status::Ok();
}

// The current object's JSON with its real resourceVersion (the stored JSON
// carries the one it was written with).
json::value WithCurrentRevision(const api::ObjectPtr& object) {
  json::value v = object->json();
  api::MutableObject(v.get_object(), "metadata")["resourceVersion"] = std::to_string(object->resource_version());
  return v;
}

// kube's no-op update rule: an update that changes nothing but the
// resourceVersion it carries writes nothing.
bool SameExceptResourceVersion(const json::object& a, const json::object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [key, value] : a) {
    const json::value* other = b.if_contains(key);
    if (!other) return false;
    if (key != "metadata" || !value.is_object() || !other->is_object()) {
      if (value != *other) return false;
      continue;
    }
    const json::object& ma = value.get_object();
    const json::object& mb = other->get_object();
    size_t compared = 0;
    for (const auto& [mkey, mvalue] : ma) {
      if (mkey == "resourceVersion") continue;
      const json::value* mother = mb.if_contains(mkey);
      if (!mother || mvalue != *mother) return false;
      ++compared;
    }
    if (compared != mb.size() - (mb.contains("resourceVersion") ? 1 : 0)) return false;
  }
  return true;
}

Result<int64_t> BodyRevision(const json::object& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->value().is_object()) return int64_t{0};
  auto rv = meta->value().get_object().find("resourceVersion");
  if (rv == meta->value().get_object().end() || !rv->value().is_string() ||
      rv->value().get_string().empty()) {
    return int64_t{0};
  }
  auto parsed = api::ParseResourceVersion(rv->value().get_string());
  if (!parsed) {
    return Status::BadRequest("metadata.resourceVersion: Invalid value: \"" +
                              std::string(rv->value().get_string()) + "\": must be a number");
  }
  return *parsed;
}

}  // namespace

Status ToStoredForm(api::Kind kind, json::value& value) {
  if (!api::Info(kind).stored_as) return Status::Ok();
  auto converted = api::ConvertToStored(kind, std::move(value.get_object()));
  if (!converted.ok()) return converted.status();
  value = std::move(converted).value();
  return Status::Ok();
}

json::value ServedForm(api::Kind kind, const api::ObjectPtr& object) {
  json::value v = WithCurrentRevision(object);
  if (api::Info(kind).stored_as == object->kind()) return api::ConvertFromStored(kind, v.get_object());
  return v;
}

namespace {

// A held response's answer replaced; the headers set meanwhile (warnings,
// Audit-ID) stay.
void ReplaceAnswer(Response& held, Response answer) {
  held.status = answer.status;
  held.content_type = std::move(answer.content_type);
  held.body = std::move(answer.body);
}

}  // namespace

Response ApiServer::AnswerWhenVisible(Response response, int64_t revision) {
  if (revision > 0) {
    response.when_ready = [&store = store_, revision](std::function<void()> ready) {
      store.WhenVisible(revision, std::move(ready));
    };
    // The store failed before the write was durable: its error, not the success.
    response.finalize = [&store = store_, revision](Response& held) {
      if (Status s = store.WriteStatus(revision); !s.ok()) ReplaceAnswer(held, ErrorResponse(s));
    };
  }
  return response;
}

Response ApiServer::AnswerWhenCreated(api::ObjectPtr object, api::Kind served, Status exists, StatusDetails details) {
  auto outcome = std::make_shared<Result<api::ObjectPtr>>(Status::Internal("the create was not answered"));
  Response response;
  response.status = 201;
  response.when_ready = [&store = store_, object = std::move(object), outcome](std::function<void()> ready) mutable {
    store.CreateAsync(std::move(object), [outcome, ready = std::move(ready)](Result<api::ObjectPtr> created) {
      *outcome = std::move(created);
      ready();
    });
  };
  response.finalize = [outcome, served, exists = std::move(exists), details = std::move(details)](Response& held) {
    Response answer;
    if (outcome->ok()) {
      answer = JsonResponse(201, api::EncodedAs(*outcome->value(), served));
    } else if (outcome->status().code() == StatusCode::kAlreadyExists) {
      answer = ErrorResponse(exists, details);
    } else {
      answer = ErrorResponse(outcome->status());
    }
    ReplaceAnswer(held, std::move(answer));
  };
  return response;
}

Response ApiServer::Create(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  auto decoded = DecodeBody(request, kind);
  if (!decoded.ok()) return ErrorResponse(decoded.status());
  if (Status typed = CheckDecodable(kind, WriteVerb::kCreate, *decoded); !typed.ok()) return ErrorResponse(typed);
  Status fields = CheckFields(request, openapi_, kind, WriteVerb::kCreate, *decoded);
  if (!fields.ok()) return ErrorResponse(fields);
  if (Status converted = ToStoredForm(*info.kind, *decoded); !converted.ok()) return ErrorResponse(converted);
  // Admission and the server's fields see the objects as stored.
  const api::KindInfo& stored = api::Info(api::StorageKindOf(*info.kind));
  json::object& object = decoded->get_object();
  Status ns_ok = ReconcileNamespace(object, kind, info.ns);
  if (!ns_ok.ok()) return ErrorResponse(ns_ok);
  json::object& meta = api::MutableObject(object, "metadata");
  std::string name(api::StringAt(meta, "name"));
  std::string generate(api::StringAt(meta, "generateName"));
  if (name.empty() && generate.empty()) {
    return ErrorResponse(
        Status::Invalid(api::QualifiedKind(api::Info(api::StorageKindOf(kind.kind))) +
                            " \"\" is invalid: metadata.name: Required value: "
                        "name or generateName is required",
                        {{"FieldValueRequired", "Required value: name or generateName is required",
                          "metadata.name"}}),
        {"", std::string(kind.group), std::string(kind.name)});
  }
  const ResourceStrategy& strategy = registry_.For(*info.kind);
  const bool dry_run = request.Query("dryRun").has_value();
  strategy.Default(object);
  AdmissionEffects effects;
  AdmissionAttributes attributes{AdmissionOperation::kCreate, stored, "", info.ns, name, &object, nullptr, dry_run,
                                 &request, &effects};
  Status admitted = admission_->Admit(attributes, &object);
  TakeWarnings(effects, request);
  if (!admitted.ok()) {
    // NamespaceLifecycle: a missing namespace is NotFound about the namespace.
    return ErrorResponse(admitted, admitted.code() == StatusCode::kNotFound ? StatusDetails{info.ns, "", "namespaces"}
                                                                            : DetailsFor(kind, name));
  }
  if (effects.patched) strategy.Default(object);
  fields_.PrepareCreate(stored.kind, object);
  strategy.PrepareForCreate(object);
  // What the create holds until it is written (a Service's addresses).
  auto guard = strategy.BeginCreate(object);
  if (!guard.ok()) return ErrorResponse(guard.status(), DetailsFor(kind, name));
  ResourceStrategy::WriteGuard held = std::move(guard).value();
  RecordUpdate(OwnershipOf(*info.kind, strategy), nullptr, object, FieldManagerOf(request), api::NowRfc3339());

  // generateName: retry on a name collision, as kube does since 1.32. The
  // document moves into the object; a retry (rare) starts from its copy.
  json::value source = std::move(decoded).value();
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (!generate.empty() && (name.empty() || attempt > 0)) {
      name = fields_.GenerateName(generate);
      api::MutableObject(source.get_object(), "metadata")["name"] = name;
    }
    strategy.Canonicalize(source.get_object());
    auto built = api::Object::FromJson(std::move(source));
    if (!built.ok()) return ErrorResponse(built.status());
    Status valid = strategy.Validate(*built.value());
    if (!valid.ok()) return ErrorResponse(valid, {name, std::string(kind.group), std::string(kind.name)});
    if (attempt == 0) AddWarnings(strategy.Warnings(*built.value(), nullptr), request);
    if (attempt == 0 || !generate.empty()) {
      AdmissionAttributes validating{AdmissionOperation::kCreate, stored, "", info.ns, name, &built.value()->json(),
                                     nullptr, dry_run, &request, &effects};
      Status validated = admission_->Validate(validating);
      TakeWarnings(effects, request);
      if (!validated.ok()) return ErrorResponse(validated, DetailsFor(kind, name));
    }
    if (dry_run) return JsonResponse(201, api::EncodedAs(*built.value(), *info.kind));
    // Over HTTP the answer waits for the write without holding the thread
    // (etcd's round trip, the embedded store's fsync). A generated name may
    // have to be generated again, a held guard released on this thread, an
    // AfterCreate run: those creates complete here.
    // A custom resource with a conversion webhook converts on this thread.
    if (request.may_defer && generate.empty() && !held.owns_lock() && !strategy.HasAfterCreate() &&
        strategy.Converter() == nullptr) {
      return AnswerWhenCreated(built.value(), *info.kind, AlreadyExistsFor(kind, name), DetailsFor(kind, name));
    }
    auto stored_form = strategy.ForStorage(built.value());
    if (!stored_form.ok()) return ErrorResponse(stored_form.status());
    // Over HTTP the answer waits for durability without holding the thread.
    std::optional<store::DeferAcknowledgement> defer;
    if (request.may_defer) defer.emplace();
    auto created = store_.Create(stored_form.value());
    const int64_t deferred = defer ? defer->revision() : 0;
    defer.reset();
    if (created.ok()) {
      strategy.AfterCreate(created.value());
      auto shown = strategy.InVersion(created.value(), *info.kind);
      if (!shown.ok()) return AnswerWhenVisible(ErrorResponse(shown.status()), deferred);
      return AnswerWhenVisible(JsonResponse(201, api::EncodedAs(*shown.value(), *info.kind)), deferred);
    }
    if (created.status().code() != StatusCode::kAlreadyExists) return ErrorResponse(created.status());
    if (generate.empty()) return ErrorResponse(AlreadyExistsFor(kind, name), DetailsFor(kind, name));
    source = built.value()->json();
  }
  return ErrorResponse(AlreadyExistsFor(kind, name), DetailsFor(kind, name));
}

Result<api::ObjectPtr> ApiServer::CurrentInVersion(const RequestInfo& info) {
  auto current = store_.Get(api::StorageKey(*info.kind, info.ns, info.name));
  if (!current.ok()) return NotFoundFor(api::Info(*info.kind), info.name);
  return registry_.For(*info.kind).InVersion(current.value(), *info.kind);
}

Result<api::ObjectPtr> ApiServer::WriteUpdate(const RequestInfo& info, const api::ObjectPtr& as_stored,
                                              json::value next_value, bool dry_run, Request* request) {
  const api::KindInfo& kind = api::Info(*info.kind);
  const ResourceStrategy& strategy = registry_.For(*info.kind);
  // The write is made in the version asked for (a custom resource stored in
  // another is converted: kube's update reads the object in the request's version).
  auto in_version = strategy.InVersion(as_stored, *info.kind);
  if (!in_version.ok()) return in_version.status();
  const api::ObjectPtr& current = in_version.value();
  json::object& next = next_value.get_object();
  const json::object& cur = current->json();
  if (!info.subresource.empty()) {
    // A write through a subresource changes only what it owns.
    const Subresource* through = strategy.FindSubresource(info.subresource);
    if (!through) return Status::NotFound("the server could not find the requested resource");
    auto merged = through->MergeWrite(cur, next);
    if (!merged.ok()) return merged.status();
    next_value = std::move(merged).value();
  } else if (strategy.HasStatus()) {
    // The main resource keeps the stored status.
    if (auto s = cur.find("status"); s != cur.end()) {
      next["status"] = s->value();
    } else {
      next.erase("status");
    }
  }
  json::object& result = next_value.get_object();
  const bool whole = info.subresource.empty();
  if (whole) strategy.Default(result);
  const std::string_view name = current->name();
  const api::KindInfo& stored = api::Info(api::StorageKindOf(*info.kind));
  AdmissionEffects effects;
  AdmissionAttributes attributes{AdmissionOperation::kUpdate, stored, info.subresource, info.ns, name, &result, &cur,
                                 dry_run, request, &effects};
  Status admitted = admission_->Admit(attributes, &result);
  if (request) TakeWarnings(effects, *request);
  if (!admitted.ok()) return admitted;
  if (effects.patched && whole) strategy.Default(result);
  fields_.PrepareUpdate(stored.kind, cur, result);
  ResourceStrategy::WriteGuard held;
  if (whole) {
    strategy.PrepareForUpdate(result, cur);
    strategy.Canonicalize(result);
    auto guard = strategy.BeginUpdate(result, cur);
    if (!guard.ok()) return guard.status();
    held = std::move(guard).value();
  }
  api::MutableObject(result, "metadata").erase("resourceVersion");
  auto built = api::Object::FromJson(std::move(next_value));
  if (!built.ok()) return built.status();
  // A subresource's write (a pod's /status) changes what the kind's update
  // rules are not about.
  Status valid = whole ? strategy.ValidateUpdate(*built.value(), *current) : strategy.Validate(*built.value());
  if (!valid.ok()) return valid;
  if (whole && request) AddWarnings(strategy.Warnings(*built.value(), current.get()), *request);
  AdmissionAttributes validating{AdmissionOperation::kUpdate, stored, info.subresource, info.ns, name,
                                 &built.value()->json(), &cur, dry_run, request, &effects};
  Status validated = admission_->Validate(validating);
  if (request) TakeWarnings(effects, *request);
  if (!validated.ok()) return validated;
  if (SameExceptResourceVersion(built.value()->json(), cur)) return current;
  if (dry_run) return built.value()->WithResourceVersion(current->resource_version());
  auto stored_form = strategy.ForStorage(built.value());
  if (!stored_form.ok()) return stored_form.status();
  // Removing the last finalizer of an object being deleted completes the deletion.
  // (A pod in graceful termination has none to begin with: its kubelet deletes it.)
  // A namespace also waits for spec.finalizers (its namespace controller's).
  if (api::BeingDeleted(*built.value()) && !HasFinalizers(built.value()->json()) && HasFinalizers(cur) &&
      (!strategy.DeletesContents() || Finalized(built.value()->json()))) {
    auto deleted = store_.Delete(current->StorageKey(), current->resource_version());
    if (!deleted.ok() && deleted.status().code() == StatusCode::kConflict) {
      return ConflictFor(kind, current->name(), "the object has been modified; please apply your "
                                                "changes to the latest version and try again");
    }
    if (!deleted.ok()) return deleted;
    return strategy.InVersion(deleted.value(), *info.kind);
  }
  auto written = store_.Update(stored_form.value(), current->resource_version());
  if (!written.ok() && written.status().code() == StatusCode::kConflict) {
    return ConflictFor(kind, current->name(),
                       "the object has been modified; please apply your changes to the latest "
                       "version and try again");
  }
  if (!written.ok()) return written;
  return strategy.InVersion(written.value(), *info.kind);
}

Response ApiServer::Update(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  auto decoded = DecodeBody(request, kind);
  if (!decoded.ok()) return ErrorResponse(decoded.status());
  if (Status typed = CheckDecodable(kind, WriteVerb::kUpdate, *decoded); !typed.ok()) return ErrorResponse(typed);
  Status fields = CheckFields(request, openapi_, kind, WriteVerb::kUpdate, *decoded);
  if (!fields.ok()) return ErrorResponse(fields);
  if (Status converted = ToStoredForm(*info.kind, *decoded); !converted.ok()) return ErrorResponse(converted);
  json::object& object = decoded->get_object();
  Status ns_ok = ReconcileNamespace(object, kind, info.ns);
  if (!ns_ok.ok()) return ErrorResponse(ns_ok);
  std::string_view body_name = api::StringAt(api::MutableObject(object, "metadata"), "name");
  if (body_name.empty()) {
    api::MutableObject(object, "metadata")["name"] = info.name;
  } else if (body_name != info.name) {
    return ErrorResponse(Status::BadRequest("the name of the object (" + std::string(body_name) +
                                            ") does not match the name on the URL (" + info.name +
                                            ")"));
  }
  auto expected = BodyRevision(object);
  if (!expected.ok()) return ErrorResponse(expected.status());
  const bool dry_run = request.Query("dryRun").has_value();
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto current = CurrentInVersion(info);
    if (!current.ok()) return ErrorResponse(current.status(), DetailsFor(kind, info.name));
    if (expected.value() > 0 && expected.value() != current.value()->resource_version()) {
      return ErrorResponse(ConflictFor(kind, info.name,
                                       "the object has been modified; please apply your changes "
                                       "to the latest version and try again"),
                           DetailsFor(kind, info.name));
    }
    json::value next = *decoded;
    if (info.subresource.empty()) {
      RecordUpdate(OwnershipOf(*info.kind, registry_.For(*info.kind)), &current.value()->json(), next.get_object(),
                   FieldManagerOf(request), api::NowRfc3339());
    }
    auto written = WriteUpdate(info, current.value(), std::move(next), dry_run, &request);
    if (written.ok()) return JsonResponse(200, api::EncodedAs(*written.value(), *info.kind));
    if (written.status().code() != StatusCode::kConflict || expected.value() > 0) {
      return ErrorResponse(written.status(), {info.name, std::string(kind.group),
                                              written.status().code() == StatusCode::kInvalid
                                                  ? std::string(kind.name)
                                                  : std::string(kind.resource)});
    }
  }
  return ErrorResponse(ConflictFor(kind, info.name, "too many concurrent updates"));
}

Response ApiServer::Patch(Request& request, const RequestInfo& info) {
  const api::KindInfo& kind = api::Info(*info.kind);
  auto type = PatchTypeFromContentType(request.content_type);
  if (!type) {
    return ErrorResponse(Status(StatusCode::kUnsupportedMediaType,
                                "the body of the request was in an unknown format - accepted media "
                                "types include: application/json-patch+json, "
                                "application/merge-patch+json, "
                                "application/strategic-merge-patch+json"));
  }
  if (*type == PatchType::kApplyYaml) return Apply(request, info);
  const bool dry_run = request.Query("dryRun").has_value();
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    auto current = CurrentInVersion(info);
    if (!current.ok()) return ErrorResponse(current.status(), DetailsFor(kind, info.name));
    json::value original = ServedForm(*info.kind, current.value());
    auto patched = ApplyPatch(*type, *info.kind, original, request.body);
    if (!patched.ok()) return ErrorResponse(patched.status());
    if (!patched->is_object()) return ErrorResponse(Status::BadRequest("the patch result is not an object"));
    if (Status typed = CheckDecodable(kind, WriteVerb::kPatch, *patched); !typed.ok()) return ErrorResponse(typed);
    Status fields = CheckFields(request, openapi_, kind, WriteVerb::kPatch, *patched, &original);
    if (!fields.ok()) return ErrorResponse(fields);
    auto precondition = BodyRevision(patched->get_object());
    if (!precondition.ok()) return ErrorResponse(precondition.status());
    if (precondition.value() > 0 && precondition.value() != current.value()->resource_version()) {
      return ErrorResponse(ConflictFor(kind, info.name,
                                       "the object has been modified; please apply your changes "
                                       "to the latest version and try again"),
                           DetailsFor(kind, info.name));
    }
    json::object& p = patched->get_object();
    if (api::StringAt(p, "apiVersion") != kind.ApiVersion() || api::StringAt(p, "kind") != kind.name ||
        api::StringAt(api::MutableObject(p, "metadata"), "name") != info.name ||
        api::StringAt(api::MutableObject(p, "metadata"), "namespace") != current.value()->namespace_name()) {
      return ErrorResponse(Status::BadRequest(
          "the patch may not change the object's apiVersion, kind, name or namespace"));
    }
    if (info.subresource.empty()) {
      RecordUpdate(OwnershipOf(*info.kind, registry_.For(*info.kind)), &original.get_object(), p,
                   FieldManagerOf(request), api::NowRfc3339());
    }
    if (Status converted = ToStoredForm(*info.kind, *patched); !converted.ok()) return ErrorResponse(converted);
    auto written = WriteUpdate(info, current.value(), std::move(patched).value(), dry_run, &request);
    if (written.ok()) return JsonResponse(200, api::EncodedAs(*written.value(), *info.kind));
    if (written.status().code() != StatusCode::kConflict) {
      return ErrorResponse(written.status(), {info.name, std::string(kind.group),
                                              written.status().code() == StatusCode::kInvalid
                                                  ? std::string(kind.name)
                                                  : std::string(kind.resource)});
    }
  }
  return ErrorResponse(ConflictFor(kind, info.name, "too many concurrent updates"));
}

}  // namespace berth::apiserver
