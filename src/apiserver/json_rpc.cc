// The JSON-RPC endpoint (POST /rpc): bind.pod and unbind.pod, pods/binding's
// write and its reverse as one call each (subresources/binding.h).

#include <variant>

#include <boost/json.hpp>

#include "api/codec/base64.h"
#include "api/codec/cbor.h"
#include "api/codec/json_parse.h"
#include "api/json_fields.h"
#include "apiserver/api_server.h"
#include "apiserver/subresources/binding.h"

namespace berth::apiserver {

namespace json = boost::json;

Result<api::ObjectPtr> ApiServer::BindPod(const std::string& ns, const std::string& name, const std::string& node,
                                          const std::string& expected_uid, int64_t expected_revision,
                                          const json::object* annotations) {
  return AssignPod(store_, ns, name, node, expected_uid, expected_revision, annotations);
}

Result<api::ObjectPtr> ApiServer::UnbindPod(const std::string& ns, const std::string& name,
                                            int64_t expected_revision) {
  return UnassignPod(store_, ns, name, expected_revision);
}

namespace {

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

}  // namespace berth::apiserver
