#include "apiserver/subresources/finalize.h"

#include "apiserver/api_server.h"

namespace berth::apiserver {

namespace json = boost::json;

FinalizeSubresource::FinalizeSubresource()
    : Subresource({.name = "finalize",
                   .group = "",
                   .version = "v1",
                   .kind = "Namespace",
                   .verbs = {"update"},
                   .listed = false}) {}

Response FinalizeSubresource::Serve(Request& request, const RequestInfo& info, GenericRest& rest) const {
  if (request.method != "PUT") return MethodNotAllowed();
  return rest.Update(request, info);
}

Result<json::value> FinalizeSubresource::MergeWrite(const json::object& current, const json::object& sent) const {
  json::value merged = current;
  json::value& spec = merged.get_object()["spec"];
  if (!spec.is_object()) spec = json::object();
  const json::value* sent_spec = sent.if_contains("spec");
  const json::value* finalizers =
      sent_spec && sent_spec->is_object() ? sent_spec->get_object().if_contains("finalizers") : nullptr;
  if (finalizers) {
    spec.get_object()["finalizers"] = *finalizers;
  } else {
    spec.get_object().erase("finalizers");
  }
  return merged;
}

}  // namespace berth::apiserver
