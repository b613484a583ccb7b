#include "cluster/sim_fleet_edits.h"

#include <boost/json.hpp>
#include <functional>

#include "api/json_fields.h"
#include "api/quantity.h"
#include "client/rest_client.h"
#include "controllers/simnode/sim_nodes.h"
#include "controllers/volume/volume_matching.h"

namespace berth::cluster {

namespace json = boost::json;

int AddSimNode(const SimNodeAddFlags& o, const SimConnect& connect, std::FILE* out, std::FILE* err) {
  controllers::SimNodeGroup g;
  for (const auto& [flag, q] : {std::pair{"--cpu", &o.cpu}, std::pair{"--memory", &o.memory}}) {
    if (!api::Quantity::Parse(*q).ok()) {
      std::fprintf(err, "berth sim node-add: %s %s: not a quantity\n", flag, q->c_str());
      return 2;
    }
  }
  if (o.pods < 1) {
    std::fprintf(err, "berth sim node-add: --pods %lld: must be at least 1\n", static_cast<long long>(o.pods));
    return 2;
  }
  g.cpu = o.cpu;
  g.memory = o.memory;
  g.pods = o.pods;
  if (!o.zone.empty()) g.zones = {o.zone};
  for (const auto& l : o.labels) {
    auto eq = l.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(err, "berth sim node-add: --label %s: expected KEY=VALUE\n", l.c_str());
      return 2;
    }
    g.labels.emplace_back(l.substr(0, eq), l.substr(eq + 1));
  }
  for (const auto& t : o.taints) {
    auto colon = t.rfind(':');
    std::string effect = colon == std::string::npos ? "" : t.substr(colon + 1);
    if (colon == std::string::npos || colon == 0 ||
        (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")) {
      std::fprintf(err,
                   "berth sim node-add: --taint %s: expected KEY[=VALUE]:EFFECT with EFFECT NoSchedule, "
                   "PreferNoSchedule or NoExecute\n",
                   t.c_str());
      return 2;
    }
    std::string kv = t.substr(0, colon);
    auto eq = kv.find('=');
    json::object taint{{"key", kv.substr(0, eq)}, {"effect", effect}};
    if (eq != std::string::npos) taint["value"] = kv.substr(eq + 1);
    g.taints.push_back(std::move(taint));
  }
  auto http = connect();
  if (!http.ok()) {
    std::fprintf(err, "berth sim node-add: %s\n", http.status().message().c_str());
    return 2;
  }
  // A node added this way has no fleet index: its InternalIP comes from the
  // 10.1.0.0/16 block, by a hash of its name (only shown, never routed).
  uint32_t h = static_cast<uint32_t>(std::hash<std::string>{}(o.node) % 65534) + 1;
  std::string ip = "10.1." + std::to_string(h >> 8) + "." + std::to_string(h & 255);
  json::object node = controllers::SimNodeObject(g, o.node, 0, ip);
  auto r = http.value()->Request("POST", "/api/v1/nodes", json::serialize(node), "application/json");
  if (!r.ok()) {
    std::fprintf(err, "berth sim node-add: %s: %s\n", http.value()->server().c_str(), r.status().message().c_str());
    return 1;
  }
  if (r.value().status != 201) {
    Status s = client::StatusFromResponse(r.value().status, r.value().body);
    std::fprintf(err, "berth sim node-add: %s\n", s.message().c_str());
    return 1;
  }
  std::fprintf(out, "node/%s added\n", o.node.c_str());
  return 0;
}

int SetSimNodeDown(const std::string& name, bool down, const SimConnect& connect, std::FILE* out,
                   std::FILE* err) {
  const char* verb = down ? "node-down" : "node-up";
  auto http = connect();
  if (!http.ok()) {
    std::fprintf(err, "berth sim %s: %s\n", verb, http.status().message().c_str());
    return 2;
  }
  // Only the fleet's own nodes can be taken down or brought up: any other
  // node's kubelet would never read the annotation.
  auto got = http.value()->Request("GET", "/api/v1/nodes/" + name);
  if (!got.ok()) {
    std::fprintf(err, "berth sim %s: %s: %s\n", verb, http.value()->server().c_str(), got.status().message().c_str());
    return 1;
  }
  if (got.value().status != 200) {
    Status s = client::StatusFromResponse(got.value().status, got.value().body);
    std::fprintf(err, "berth sim %s: %s\n", verb, s.message().c_str());
    return 1;
  }
  auto node = api::Object::Decode(got.value().body);
  if (!node.ok() || node.value()->labels().Get(controllers::kSimManagedLabel) != "true") {
    std::fprintf(err,
                 "berth sim %s: node %s is not a simulated node (it has no label %s=true): only the nodes of "
                 "`berth serve --sim-nodes` or --sim-config can be taken down or brought up\n",
                 verb, name.c_str(), controllers::kSimManagedLabel);
    return 1;
  }
  // The resourceVersion makes the patch fail if the node changed meanwhile.
  std::string patch = std::string(R"({"metadata":{"resourceVersion":")") + std::string(api::StringAt(api::Metadata(*node.value()), "resourceVersion")) +
                      R"(","annotations":{")" + controllers::kSimDownAnnotation + "\":" +
                      (down ? "\"true\"" : "null") + "}}}";
  auto r = http.value()->Request("PATCH", "/api/v1/nodes/" + name, patch, "application/merge-patch+json");
  if (!r.ok()) {
    std::fprintf(err, "berth sim %s: %s: %s\n", verb, http.value()->server().c_str(), r.status().message().c_str());
    return 1;
  }
  if (r.value().status != 200) {
    Status s = client::StatusFromResponse(r.value().status, r.value().body);
    std::fprintf(err, "berth sim %s: %s\n", verb, s.message().c_str());
    return 1;
  }
  std::fprintf(out, "node/%s %s\n", name.c_str(), down ? "down" : "up");
  return 0;
}

int SetVolumeHealth(const std::string& volume, const std::string& healthy_argument, const SimConnect& connect,
                    std::FILE* out, std::FILE* err) {
  if (healthy_argument != "true" && healthy_argument != "false") {
    std::fprintf(err, "berth sim volume-health: HEALTHY must be true or false, not \"%s\"\n", healthy_argument.c_str());
    return 2;
  }
  auto http = connect();
  if (!http.ok()) {
    std::fprintf(err, "berth sim volume-health: %s\n", http.status().message().c_str());
    return 2;
  }
  const bool healthy = healthy_argument == "true";
  // Removing an absent annotation is a no-op; a missing volume is NotFound.
  std::string patch = std::string(R"({"metadata":{"annotations":{")") + controllers::kVolumeHealthyAnnotation +
                      "\":" + (healthy ? "null" : "\"false\"") + "}}}";
  auto r = http.value()->Request("PATCH", "/api/v1/persistentvolumes/" + volume, patch,
                                 "application/merge-patch+json");
  if (!r.ok()) {
    std::fprintf(err, "berth sim volume-health: %s: %s\n", http.value()->server().c_str(), r.status().message().c_str());
    return 1;
  }
  if (r.value().status != 200) {
    Status s = client::StatusFromResponse(r.value().status, r.value().body);
    std::fprintf(err, "berth sim volume-health: %s\n", s.message().c_str());
    return 1;
  }
  std::fprintf(out, "persistentvolume/%s %s\n", volume.c_str(), healthy ? "healthy" : "unhealthy");
  return 0;
}

}  // namespace berth::cluster
