// The paths of /openapi/v3 and /openapi/v2: each kind's operations with
// kube's parameters, operation ids, tags and GVK extensions.

#include "apiserver/openapi/openapi_paths.h"

#include <boost/json.hpp>

#include <algorithm>

#include "api/json_fields.h"
#include "apiserver/openapi/openapi_schemas.h"

namespace berth::apiserver::openapi_paths {

namespace json = boost::json;

std::string GroupVersionPath(std::string_view group, std::string_view version) {
  return group.empty() ? "api/" + std::string(version)
                       : "apis/" + std::string(group) + "/" + std::string(version);
}

json::object GvkObject(std::string_view group, std::string_view version, std::string_view kind) {
  return json::object{{"group", group}, {"kind", kind}, {"version", version}};
}

namespace {

struct Param {
  std::string_view name;
  std::string_view type;  // "string", "integer", "boolean"
  std::string_view description;
};

constexpr Param kPretty{"pretty", "string", "If 'true', the output is indented."};
constexpr Param kDryRun{"dryRun", "string",
                        "When present (\"All\"), the request runs every stage but persists nothing."};
constexpr Param kFieldManager{"fieldManager", "string",
                              "Names the actor making the change; recorded in metadata.managedFields."};
constexpr Param kFieldValidation{
    "fieldValidation", "string",
    "What to do with unknown or duplicate fields in the request body: Ignore drops them silently, Warn "
    "(the default) drops them and answers with a warning header for each, Strict fails the request."};
constexpr Param kForce{"force", "boolean", "Take over fields other managers own (apply patches only)."};
constexpr Param kLabelSelector{"labelSelector", "string", "Only objects whose labels match this selector."};
constexpr Param kFieldSelector{"fieldSelector", "string", "Only objects whose fields match this selector."};
constexpr Param kLimit{"limit", "integer", "At most this many objects; the list's continue token fetches the rest."};
constexpr Param kContinue{"continue", "string", "The continue token of the previous page of a limited list."};
constexpr Param kWatch{"watch", "boolean", "Stream changes (ADDED, MODIFIED, DELETED) instead of listing."};
constexpr Param kBookmarks{"allowWatchBookmarks", "boolean", "Allow BOOKMARK events in a watch."};
constexpr Param kResourceVersion{"resourceVersion", "string",
                                 "Which version to read from: unset is the latest, \"0\" any, N not older than N."};
constexpr Param kResourceVersionMatch{"resourceVersionMatch", "string",
                                      "How resourceVersion applies to a list: NotOlderThan or Exact."};
constexpr Param kSendInitialEvents{"sendInitialEvents", "boolean",
                                   "Start a watch with the current objects, ended by a bookmark."};
constexpr Param kTimeoutSeconds{"timeoutSeconds", "integer", "End the list or watch after this many seconds."};
constexpr Param kGracePeriod{"gracePeriodSeconds", "integer", "Seconds the object gets to terminate; 0 is at once."};
constexpr Param kOrphan{"orphanDependents", "boolean", "Deprecated: use propagationPolicy."};
constexpr Param kPropagation{"propagationPolicy", "string",
                             "What happens to dependents: Orphan, Background or Foreground."};

const std::vector<Param> kListParams = {kBookmarks, kContinue, kFieldSelector, kLabelSelector, kLimit,
                                        kResourceVersion, kResourceVersionMatch, kSendInitialEvents,
                                        kTimeoutSeconds, kWatch};
const std::vector<Param> kWriteParams = {kDryRun, kFieldManager, kFieldValidation};
const std::vector<Param> kPatchParams = {kDryRun, kForce, kFieldManager, kFieldValidation};
const std::vector<Param> kDeleteParams = {kGracePeriod, kOrphan, kPropagation, kDryRun};
const std::vector<Param> kDeleteCollectionParams = {kContinue, kDryRun, kFieldSelector, kGracePeriod,
                                                    kLabelSelector, kLimit, kOrphan, kPropagation,
                                                    kResourceVersion, kResourceVersionMatch,
                                                    kSendInitialEvents, kTimeoutSeconds};

std::string RefTo(Dialect dialect, std::string_view definition) {
  return (dialect == Dialect::kV3 ? "#/components/schemas/" : "#/definitions/") + std::string(definition);
}

json::object ParamJson(Dialect dialect, const Param& p, std::string_view in, bool required = false) {
  json::object o{{"name", p.name}, {"in", in}, {"description", p.description}};
  if (required) o["required"] = true;
  if (dialect == Dialect::kV3) {
    o["schema"] = json::object{{"type", p.type}, {"uniqueItems", true}};
  } else {
    o["type"] = p.type;
    o["uniqueItems"] = true;
  }
  return o;
}

json::array Params(Dialect dialect, const std::vector<Param>& params) {
  json::array a;
  for (const auto& p : params) a.push_back(ParamJson(dialect, p, "query"));
  return a;
}

// "Core", "Apps", "Coordination", "RbacAuthorization", "StableExampleCom".
std::string GroupCamel(std::string_view group) {
  if (group.empty()) return "Core";
  if (group.ends_with(".k8s.io")) group.remove_suffix(7);
  std::string out;
  bool upper = true;
  for (char c : group) {
    if (c == '.' || c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string Capitalized(std::string_view s) {
  std::string out(s);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

struct OperationSpec {
  std::string_view method;  // "get", "put", ...
  std::string_view action;  // x-kubernetes-action
  std::string verb;         // for operationId: "list", "create", "read", ...
  std::string description;
  const std::vector<Param>* params = nullptr;
  std::string body;                                 // definition of the request body; "" for none
  std::vector<std::string_view> body_types;         // its media types (v3)
  std::vector<std::pair<int, std::string>> responses;  // code -> definition
  bool watch_stream = false;                        // responses also as watch streams
  json::object gvk;
};

class PathBuilder {
 public:
  PathBuilder(Dialect dialect, json::object& paths) : dialect_(dialect), paths_(paths) {}

  void Add(const std::string& path, std::vector<json::object> path_params, const std::string& operation_suffix,
           const std::string& tag, std::vector<OperationSpec> ops) {
    json::object item;
    json::array params;
    for (auto& p : path_params) params.push_back(std::move(p));
    params.push_back(ParamJson(dialect_, kPretty, "query"));
    item["parameters"] = std::move(params);
    for (auto& op : ops) item[op.method] = Operation(op, operation_suffix, tag);
    paths_[path] = std::move(item);
  }

  json::object PathParam(const Param& p) { return ParamJson(dialect_, p, "path", true); }

 private:
  json::object Operation(const OperationSpec& op, const std::string& suffix, const std::string& tag) {
    json::object o;
    o["description"] = op.description;
    o["operationId"] = op.verb + suffix;
    if (op.params && !op.params->empty()) o["parameters"] = Params(dialect_, *op.params);
    if (dialect_ == Dialect::kV3) {
      if (!op.body.empty()) {
        json::object content;
        for (auto type : op.body_types) content[type] = json::object{{"schema", json::object{{"$ref", RefTo(dialect_, op.body)}}}};
        o["requestBody"] = json::object{{"content", std::move(content)}, {"required", true}};
      }
      json::object responses;
      for (const auto& [code, def] : op.responses) {
        json::object schema{{"$ref", RefTo(dialect_, def)}};
        json::object content;
        content["application/json"] = json::object{{"schema", schema}};
        content["application/yaml"] = json::object{{"schema", schema}};
        content["application/vnd.kubernetes.protobuf"] = json::object{{"schema", schema}};
        if (op.watch_stream) {
          content["application/json;stream=watch"] = json::object{{"schema", schema}};
          content["application/vnd.kubernetes.protobuf;stream=watch"] = json::object{{"schema", schema}};
        }
        responses[std::to_string(code)] =
            json::object{{"description", Describe(code)}, {"content", std::move(content)}};
      }
      o["responses"] = std::move(responses);
    } else {
      json::array consumes;
      for (auto type : op.body_types) consumes.emplace_back(type);
      if (!consumes.empty()) o["consumes"] = std::move(consumes);
      json::array produces{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};
      if (op.watch_stream) {
        produces.emplace_back("application/json;stream=watch");
        produces.emplace_back("application/vnd.kubernetes.protobuf;stream=watch");
      }
      o["produces"] = std::move(produces);
      if (!op.body.empty()) {
        json::array& params = api::MutableArray(o, "parameters");
        params.insert(params.begin(), json::object{{"name", "body"},
                                                   {"in", "body"},
                                                   {"required", true},
                                                   {"schema", json::object{{"$ref", RefTo(dialect_, op.body)}}}});
      }
      json::object responses;
      for (const auto& [code, def] : op.responses) {
        responses[std::to_string(code)] =
            json::object{{"description", Describe(code)}, {"schema", json::object{{"$ref", RefTo(dialect_, def)}}}};
      }
      o["responses"] = std::move(responses);
      o["schemes"] = json::array{"https"};
    }
    o["tags"] = json::array{json::string(tag)};
    o["x-kubernetes-action"] = op.action;
    o["x-kubernetes-group-version-kind"] = op.gvk;
    return o;
  }

  static std::string_view Describe(int code) {
    switch (code) {
      case 201:
        return "Created";
      case 202:
        return "Accepted";
      default:
        return "OK";
    }
  }

  Dialect dialect_;
  json::object& paths_;
};

// Whether discovery lists `verb` for the subresource.
bool Serves(const Subresource::Description& sub, std::string_view verb) {
  return std::find(sub.verbs.begin(), sub.verbs.end(), verb) != sub.verbs.end();
}

const std::vector<std::string_view> kJsonBody = {"application/json", "application/yaml",
                                                 "application/vnd.kubernetes.protobuf"};
// Not application/strategic-merge-patch+json: kubectl then computes its apply
// patches from its compiled-in types, which know each list's merge key, rather
// than from these schemas, which do not say.
const std::vector<std::string_view> kPatchBody = {"application/json-patch+json", "application/merge-patch+json",
                                                  "application/apply-patch+yaml"};

}  // namespace

// The paths kube publishes for one kind.
void AddKindPaths(Dialect dialect, const api::KindInfo& info, const std::vector<const Subresource*>& subresources,
                  json::object& paths) {
  PathBuilder b(dialect, paths);
  const std::string def = DefinitionName(info);
  const std::string list_def = def + "List";
  const std::string status_def = std::string(kMetaDefs) + "Status";
  const std::string delete_def = std::string(kMetaDefs) + "DeleteOptions";
  const std::string patch_def = std::string(kMetaDefs) + "Patch";
  const std::string event_def = std::string(kMetaDefs) + "WatchEvent";
  const json::object gvk = GvkObject(info.group, info.version, info.name);
  const std::string kind(info.name);
  const std::string base = "/" + GroupVersionPath(info.group, info.version);
  const std::string resource(info.resource);
  const std::string tag = [&] {
    std::string g = GroupCamel(info.group);
    g[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(g[0])));
    return g + "_" + std::string(info.version);
  }();
  const std::string id = GroupCamel(info.group) + Capitalized(info.version);
  const std::string scope = info.namespaced ? "Namespaced" : "";
  const std::string ns_prefix = info.namespaced ? "/namespaces/{namespace}" : "";
  auto ns_params = [&] {
    std::vector<json::object> p;
    if (info.namespaced) p.push_back(b.PathParam({"namespace", "string", "The namespace of the objects."}));
    return p;
  };
  auto name_params = [&] {
    std::vector<json::object> p;
    p.push_back(b.PathParam({"name", "string", "The name of the object."}));
    if (info.namespaced) p.push_back(b.PathParam({"namespace", "string", "The namespace of the objects."}));
    return p;
  };
  auto op = [&](std::string_view method, std::string_view action, std::string verb, std::string description,
                const std::vector<Param>* params, std::string body, std::vector<std::string_view> body_types,
                std::vector<std::pair<int, std::string>> responses, bool stream = false) {
    OperationSpec s;
    s.method = method;
    s.action = action;
    s.verb = std::move(verb);
    s.description = std::move(description);
    s.params = params;
    s.body = std::move(body);
    s.body_types = std::move(body_types);
    s.responses = std::move(responses);
    s.watch_stream = stream;
    s.gvk = gvk;
    return s;
  };
  const std::vector<Param> none;

  const bool create_only = info.create_only;
  if (create_only) {
    b.Add(base + ns_prefix + "/" + resource, ns_params(), id + scope + kind, tag,
          {op("post", "post", "create", "create a " + kind, &kWriteParams, def, kJsonBody,
              {{200, def}, {201, def}, {202, def}})});
    return;
  }

  // Collection and item.
  b.Add(base + ns_prefix + "/" + resource, ns_params(), id + scope + kind, tag,
        {op("get", "list", "list", "list or watch objects of kind " + kind, &kListParams, "", {}, {{200, list_def}},
            true),
         op("post", "post", "create", "create a " + kind, &kWriteParams, def, kJsonBody,
            {{200, def}, {201, def}, {202, def}}),
         op("delete", "deletecollection", "deleteCollection", "delete a collection of " + kind,
            &kDeleteCollectionParams, delete_def, {"application/json"}, {{200, status_def}})});
  b.Add(base + ns_prefix + "/" + resource + "/{name}", name_params(), id + scope + kind, tag,
        {op("get", "get", "read", "read the specified " + kind, &none, "", {}, {{200, def}}),
         op("put", "put", "replace", "replace the specified " + kind, &kWriteParams, def, kJsonBody,
            {{200, def}, {201, def}}),
         op("patch", "patch", "patch", "partially update the specified " + kind, &kPatchParams, patch_def,
            kPatchBody, {{200, def}, {201, def}}),
         op("delete", "delete", "delete", "delete a " + kind, &kDeleteParams, delete_def, {"application/json"},
            {{200, status_def}, {202, status_def}})});
  if (info.namespaced) {
    b.Add(base + "/" + resource, {}, id + kind + "ForAllNamespaces", tag,
          {op("get", "list", "list", "list or watch objects of kind " + kind, &kListParams, "", {},
              {{200, list_def}}, true)});
  }
  // Watches, kept by kube for old clients.
  b.Add(base + "/watch" + ns_prefix + "/" + resource, ns_params(), id + scope + kind + "List", tag,
        {op("get", "watchlist", "watch", "watch changes to a list of " + kind, &kListParams, "", {},
            {{200, event_def}}, true)});
  b.Add(base + "/watch" + ns_prefix + "/" + resource + "/{name}", name_params(), id + scope + kind, tag,
        {op("get", "watch", "watch", "watch changes to an object of kind " + kind, &kListParams, "", {},
            {{200, event_def}}, true)});
  if (info.namespaced) {
    b.Add(base + "/watch/" + resource, {}, id + kind + "ListForAllNamespaces", tag,
          {op("get", "watchlist", "watch", "watch changes to a list of " + kind, &kListParams, "", {},
              {{200, event_def}}, true)});
  }

  // Subresources: POST for create, then GET, PUT and PATCH for get, update and patch.
  for (const Subresource* subresource : subresources) {
    const Subresource::Description& sub = subresource->description();
    const std::string path = base + ns_prefix + "/" + resource + "/{name}/" + sub.name;
    const std::string suffix = id + scope + kind + Capitalized(sub.name);
    const std::string sub_def =
        DefinitionName({.group = sub.group, .version = sub.version, .name = sub.kind, .builtin = true});
    std::vector<OperationSpec> ops;
    if (Serves(sub, "create")) {
      ops.push_back(op("post", "post", "create", "create " + sub.name + " of a " + kind, &kWriteParams, sub_def,
                       kJsonBody, {{200, sub_def}, {201, sub_def}, {202, sub_def}}));
    }
    const std::string of = sub.name + " of the specified " + kind;
    if (Serves(sub, "get")) ops.push_back(op("get", "get", "read", "read " + of, &none, "", {}, {{200, sub_def}}));
    if (Serves(sub, "update")) {
      ops.push_back(op("put", "put", "replace", "replace " + of, &kWriteParams, sub_def, kJsonBody,
                       {{200, sub_def}, {201, sub_def}}));
    }
    if (Serves(sub, "patch")) {
      ops.push_back(op("patch", "patch", "patch", "partially update " + of, &kPatchParams, patch_def, kPatchBody,
                       {{200, sub_def}, {201, sub_def}}));
    }
    for (auto& o : ops) o.gvk = GvkObject(sub.group, sub.version, sub.kind);
    b.Add(path, name_params(), suffix, tag, std::move(ops));
  }
}

}  // namespace berth::apiserver::openapi_paths
