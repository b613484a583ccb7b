#include "cluster/sim_fleet.h"

#include "api/quantity.h"
#include "api/time/duration.h"

namespace berth::cluster {

namespace {

std::string ZoneName(int z) {
  static constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyz";
  return z < 26 ? "zone-" + std::string(1, kLetters[static_cast<size_t>(z)]) : "zone-" + std::to_string(z);
}

}  // namespace

Result<controllers::SimNodesOptions> BuildSimFleet(const SimFleetFlags& f) {
  controllers::SimNodesOptions sim;
  if (f.nodes < 0) return Status::BadRequest("--sim-nodes " + std::to_string(f.nodes) + ": must be at least 0");
  for (const auto& [flag, value] : {std::pair{"--sim-cpu", f.cpu}, {"--sim-memory", f.memory}}) {
    if (!api::Quantity::Parse(value).ok()) return Status::BadRequest(std::string(flag) + " " + value + ": not a quantity");
  }
  if (f.pods < 1) return Status::BadRequest("--sim-pods must be at least 1");
  if (f.zones < 0) return Status::BadRequest("--sim-zones must be at least 0");
  if (f.nodes > 0) {
    controllers::SimNodeGroup g;
    g.count = f.nodes;
    g.name_prefix = f.node_prefix;
    g.cpu = f.cpu;
    g.memory = f.memory;
    g.pods = f.pods;
    for (int z = 0; z < f.zones; ++z) g.zones.push_back(ZoneName(z));
    sim.groups.push_back(std::move(g));
  }
  if (!f.config_file.empty()) {
    auto groups = controllers::LoadSimNodeGroups(f.config_file);
    if (!groups.ok()) return Status::BadRequest("--sim-config " + groups.status().message());
    for (auto& g : groups.value()) sim.groups.push_back(std::move(g));
  }
  auto heartbeat = api::ParseGoDuration(f.heartbeat_period);
  if (!heartbeat || heartbeat->count() <= 0) {
    return Status::BadRequest("--sim-heartbeat-period " + f.heartbeat_period + ": expected a duration such as 10s");
  }
  sim.heartbeat_period = *heartbeat;
  auto run = api::ParseGoDuration(f.default_run_duration);
  if (!run) {
    return Status::BadRequest("--sim-default-run-duration " + f.default_run_duration +
                              ": expected a duration such as 2s");
  }
  sim.default_run_duration = *run;
  return sim;
}

}  // namespace berth::cluster
