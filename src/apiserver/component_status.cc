#include "apiserver/component_status.h"

#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "apiserver/api_server.h"
#include "apiserver/printers/table.h"

namespace berth::apiserver {

namespace json = boost::json;

namespace {

constexpr std::string_view kPath = "/api/v1/componentstatuses";
constexpr std::string_view kDeprecation = "v1 ComponentStatus is deprecated in v1.19+";

json::object Item(const HealthCheck& component) {
  Status health = component.check();
  json::object condition{{"type", "Healthy"}, {"status", health.ok() ? "True" : "False"}};
  if (health.ok()) {
    condition["message"] = component.name.starts_with("etcd-") ? R"({"health":"true","reason":""})" : "ok";
  } else {
    condition["error"] = health.message();
  }
  return json::object{{"kind", "ComponentStatus"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{{"name", component.name}, {"creationTimestamp", nullptr}}},
                      {"conditions", json::array{std::move(condition)}}};
}

// kube's printComponentStatus: Name, Status (Healthy / Unhealthy), Message, Error.
json::object Table(const std::vector<json::object>& items) {
  auto column = [](const char* name, const char* format, const char* description) {
    return json::object{{"name", name}, {"type", "string"}, {"format", format}, {"description", description},
                        {"priority", 0}};
  };
  json::array columns{column("Name", "name", "Name must be unique within a namespace."),
                      column("Status", "", "Status of the component conditions"),
                      column("Message", "", "Message of the component conditions"),
                      column("Error", "", "Error of the component conditions")};
  json::array rows;
  for (const auto& item : items) {
    const json::object& condition = item.at("conditions").as_array().at(0).as_object();
    const bool healthy = condition.at("status") == "True";
    auto text = [&](std::string_view key) {
      const json::value* v = condition.if_contains(key);
      return v && v->is_string() ? json::string(v->get_string()) : json::string();
    };
    json::object metadata{{"name", item.at("metadata").at("name")}, {"creationTimestamp", nullptr}};
    rows.push_back(json::object{
        {"cells", json::array{item.at("metadata").at("name"), healthy ? "Healthy" : "Unhealthy", text("message"),
                              text("error")}},
        {"object", json::object{{"kind", "PartialObjectMetadata"},
                                {"apiVersion", "meta.k8s.io/v1"},
                                {"metadata", std::move(metadata)}}}});
  }
  return json::object{{"kind", "Table"},
                      {"apiVersion", "meta.k8s.io/v1"},
                      {"metadata", json::object()},
                      {"columnDefinitions", std::move(columns)},
                      {"rows", std::move(rows)}};
}

}  // namespace

std::optional<Response> ServeComponentStatuses(Request& request, const std::vector<HealthCheck>& components) {
  std::string_view path = request.path;
  if (!path.starts_with(kPath)) return std::nullopt;
  std::string_view name = path.substr(kPath.size());
  if (!name.empty() && name.front() != '/') return std::nullopt;
  if (!name.empty()) name.remove_prefix(1);
  if (name.find('/') != std::string_view::npos) return std::nullopt;
  if (request.method != "GET") return MethodNotAllowed();

  std::vector<json::object> items;
  for (const auto& component : components) {
    if (name.empty() || component.name == name) items.push_back(Item(component));
  }
  Response answer;
  if (!name.empty() && items.empty()) {
    answer = ErrorResponse(Status(StatusCode::kNotFound, "componentstatuses \"" + std::string(name) + "\" not found"),
                           StatusDetails{std::string(name), "", "componentstatuses"});
  } else if (WantsTable(request.accept)) {
    answer = JsonResponse(200, json::serialize(Table(items)));
    answer.content_type = "application/json;as=Table;v=v1;g=meta.k8s.io";
  } else if (!name.empty()) {
    answer = JsonResponse(200, json::serialize(items.front()));
  } else {
    json::array list;
    for (auto& item : items) list.push_back(std::move(item));
    answer = JsonResponse(200, json::serialize(json::object{{"kind", "ComponentStatusList"},
                                                            {"apiVersion", "v1"},
                                                            {"metadata", json::object()},
                                                            {"items", std::move(list)}}));
  }
  answer.headers.emplace_back("Warning", "299 - \"" + std::string(kDeprecation) + "\"");
  return answer;
}

}  // namespace berth::apiserver
