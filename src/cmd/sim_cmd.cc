// berth sim node-add NAME: a simulated node joins the fleet of a running
// `berth serve` (its Node is created with the label sim.berth.dev/node=true;
// the server's simulated kubelets take it up: lease, Ready, pods run).
//
// berth sim node-down|node-up NAME --server URL: failure injection for the
// simulated nodes of `berth serve --sim-nodes`. Sets or clears the node's
// sim.berth.dev/down annotation; that node's simulated kubelet stops (or
// resumes) heartbeating and working, and the node lifecycle controller does
// the rest (Unknown, unreachable taints, evictions; Ready again). Nodes
// that are not simulated (no sim.berth.dev/node=true label) are refused.
//
// berth sim volume-health PV true|false --server URL: marks a
// PersistentVolume healthy or not (berth's health pre-check of CSI volumes):
// false sets the annotation sim.berth.dev/volume-healthy: "false", which the
// PV controller and the scheduler's volume filter read (they never bind an
// unhealthy volume); true removes it.

#include <cstdio>
#include <functional>

#include <boost/json.hpp>

#include "api/json_fields.h"
#include "api/quantity.h"
#include "client/http_client.h"
#include "client/rest_client.h"
#include "cmd/client_flags.h"
#include "cmd/commands.h"
#include "controllers/simnode/sim_nodes.h"
#include "controllers/volume/volume_matching.h"

namespace berth::cmd {
namespace {

namespace json = boost::json;

struct SimOptions {
  std::string node;
  std::string volume;
  std::string healthy;  // "true" or "false"
  ClientFlags client;
  // node-add
  std::string cpu = "8";
  std::string memory = "32Gi";
  int64_t pods = 110;
  std::string zone;
  std::vector<std::string> labels;  // KEY=VALUE
  std::vector<std::string> taints;  // KEY[=VALUE]:EFFECT
};

int AddNode(const SimOptions& o) {
  controllers::SimNodeGroup g;
  for (const auto& [flag, q] : {std::pair{"--cpu", &o.cpu}, std::pair{"--memory", &o.memory}}) {
    if (!api::Quantity::Parse(*q).ok()) {
      std::fprintf(stderr, "berth sim node-add: %s %s: not a quantity\n", flag, q->c_str());
      return 2;
    }
  }
  if (o.pods < 1) {
    std::fprintf(stderr, "berth sim node-add: --pods %lld: must be at least 1\n", static_cast<long long>(o.pods));
    return 2;
  }
  g.cpu = o.cpu;
  g.memory = o.memory;
  g.pods = o.pods;
  if (!o.zone.empty()) g.zones = {o.zone};
  for (const auto& l : o.labels) {
    auto eq = l.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "berth sim node-add: --label %s: expected KEY=VALUE\n", l.c_str());
      return 2;
    }
    g.labels.emplace_back(l.substr(0, eq), l.substr(eq + 1));
  }
  for (const auto& t : o.taints) {
    auto colon = t.rfind(':');
    std::string effect = colon == std::string::npos ? "" : t.substr(colon + 1);
    if (colon == std::string::npos || colon == 0 ||
        (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")) {
      std::fprintf(stderr,
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
  auto http = o.client.Connect("berth-sim");
  if (!http.ok()) {
    std::fprintf(stderr, "berth sim node-add: %s\n", http.status().message().c_str());
    return 2;
  }
  // A node added this way has no fleet index: its InternalIP comes from the
  // 10.1.0.0/16 block, by a hash of its name (only shown, never routed).
  uint32_t h = static_cast<uint32_t>(std::hash<std::string>{}(o.node) % 65534) + 1;
  std::string ip = "10.1." + std::to_string(h >> 8) + "." + std::to_string(h & 255);
  json::object node = controllers::SimNodeObject(g, o.node, 0, ip);
  auto r = http.value()->Request("POST", "/api/v1/nodes", json::serialize(node), "application/json");
  if (!r.ok()) {
    std::fprintf(stderr, "berth sim node-add: %s: %s\n", http.value()->server().c_str(), r.status().message().c_str());
    return 1;
  }
  if (r.value().status != 201) {
    Status s = client::StatusFromResponse(r.value().status, r.value().body);
    std::fprintf(stderr, "berth sim node-add: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("node/%s added\n", o.node.c_str());
  return 0;
}

int SetDown(const SimOptions& o, bool down) {
  const char* verb = down ? "node-down" : "node-up";
  auto http = o.client.Connect("berth-sim");
  if (!http.ok()) {
    std::fprintf(stderr, "berth sim %s: %s\n", verb, http.status().message().c_str());
    return 2;
  }
  // Only the fleet's own nodes can be taken down or brought up: any other
  // node's kubelet would never read the annotation.
  auto got = http.value()->Request("GET", "/api/v1/nodes/" + o.node);
  if (!got.ok()) {
    std::fprintf(stderr, "berth sim %s: %s: %s\n", verb, http.value()->server().c_str(), got.status().message().c_str());
    return 1;
  }
  if (got.value().status != 200) {
    Status s = client::StatusFromResponse(got.value().status, got.value().body);
    std::fprintf(stderr, "berth sim %s: %s\n", verb, s.message().c_str());
    return 1;
  }
  auto node = api::Object::Decode(got.value().body);
  if (!node.ok() || node.value()->labels().Get(controllers::kSimManagedLabel) != "true") {
    std::fprintf(stderr,
                 "berth sim %s: node %s is not a simulated node (it has no label %s=true): only the nodes of "
                 "`berth serve --sim-nodes` or --sim-config can be taken down or brought up\n",
                 verb, o.node.c_str(), controllers::kSimManagedLabel);
    return 1;
  }
  // The resourceVersion makes the patch fail if the node changed meanwhile.
  std::string patch = std::string(R"({"metadata":{"resourceVersion":")") + std::string(api::StringAt(api::Metadata(*node.value()), "resourceVersion")) +
                      R"(","annotations":{")" + controllers::kSimDownAnnotation + "\":" +
                      (down ? "\"true\"" : "null") + "}}}";
  auto r = http.value()->Request("PATCH", "/api/v1/nodes/" + o.node, patch, "application/merge-patch+json");
  if (!r.ok()) {
    std::fprintf(stderr, "berth sim %s: %s: %s\n", verb, http.value()->server().c_str(), r.status().message().c_str());
    return 1;
  }
  if (r.value().status != 200) {
    Status s = client::StatusFromResponse(r.value().status, r.value().body);
    std::fprintf(stderr, "berth sim %s: %s\n", verb, s.message().c_str());
    return 1;
  }
  std::printf("node/%s %s\n", o.node.c_str(), down ? "down" : "up");
  return 0;
}

int SetVolumeHealth(const SimOptions& o) {
  if (o.healthy != "true" && o.healthy != "false") {
    std::fprintf(stderr, "berth sim volume-health: HEALTHY must be true or false, not \"%s\"\n", o.healthy.c_str());
    return 2;
  }
  auto http = o.client.Connect("berth-sim");
  if (!http.ok()) {
    std::fprintf(stderr, "berth sim volume-health: %s\n", http.status().message().c_str());
    return 2;
  }
  const bool healthy = o.healthy == "true";
  // Removing an absent annotation is a no-op; a missing volume is NotFound.
  std::string patch = std::string(R"({"metadata":{"annotations":{")") + controllers::kVolumeHealthyAnnotation +
                      "\":" + (healthy ? "null" : "\"false\"") + "}}}";
  auto r = http.value()->Request("PATCH", "/api/v1/persistentvolumes/" + o.volume, patch,
                                 "application/merge-patch+json");
  if (!r.ok()) {
    std::fprintf(stderr, "berth sim volume-health: %s: %s\n", http.value()->server().c_str(), r.status().message().c_str());
    return 1;
  }
  if (r.value().status != 200) {
    Status s = client::StatusFromResponse(r.value().status, r.value().body);
    std::fprintf(stderr, "berth sim volume-health: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("persistentvolume/%s %s\n", o.volume.c_str(), healthy ? "healthy" : "unhealthy");
  return 0;
}

}  // namespace

void AddSimCommand(CLI::App& app) {
  static SimOptions o;
  auto* sim = app.add_subcommand("sim", "Failure injection for simulated nodes and volumes");
  sim->require_subcommand(1);
  auto* down = sim->add_subcommand("node-down", "Stop a simulated node's heartbeat and kubelet");
  auto* up = sim->add_subcommand("node-up", "Restart a simulated node's heartbeat and kubelet");
  for (auto* cmd : {down, up}) {
    cmd->add_option("NAME", o.node, "The node")->required();
    o.client.AddTo(cmd, 50, 100);
  }
  auto* add = sim->add_subcommand("node-add", "Add a simulated node (with a kubelet) to a running server");
  add->add_option("NAME", o.node, "The node's name")->required();
  o.client.AddTo(add, 50, 100);
  add->add_option("--cpu", o.cpu, "Capacity: CPU")->capture_default_str();
  add->add_option("--memory", o.memory, "Capacity: memory")->capture_default_str();
  add->add_option("--pods", o.pods, "Capacity: pods")->capture_default_str();
  add->add_option("--zone", o.zone, "The topology.kubernetes.io/zone label");
  add->add_option("--label", o.labels, "A label KEY=VALUE (repeatable)");
  add->add_option("--taint", o.taints, "A taint KEY[=VALUE]:EFFECT (repeatable)");
  add->callback([] { SetExitCode(AddNode(o)); });
  auto* health = sim->add_subcommand("volume-health", "Mark a PersistentVolume healthy (true) or unhealthy (false)");
  health->add_option("PV", o.volume, "The PersistentVolume")->required();
  health->add_option("HEALTHY", o.healthy, "true or false")->required();
  o.client.AddTo(health, 50, 100);
  health->callback([] { SetExitCode(SetVolumeHealth(o)); });
  down->callback([] { SetExitCode(SetDown(o, true)); });
  up->callback([] { SetExitCode(SetDown(o, false)); });
}

}  // namespace berth::cmd
