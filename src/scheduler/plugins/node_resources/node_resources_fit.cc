#include "scheduler/plugins/node_resources/node_resources_fit.h"

#include <algorithm>
#include <cmath>

#include <boost/json/serialize.hpp>

namespace berth::scheduler {

namespace json = boost::json;

namespace {

// kube's IsExtendedResourceName without its quota-name check
// (api/resource_names.h), which would allocate on every node filtered: a
// pod's resource names passed validation. Native resources (hugepages-*,
// kubernetes.io/…) are always checked, whatever ignoredResources lists.
bool IsExtendedResource(std::string_view name) {
  return name.find('/') != std::string_view::npos && name.find("kubernetes.io/") == std::string_view::npos &&
         !name.starts_with("requests.");
}

bool IsIgnored(const NodeResourcesFit& fit, std::string_view name) {
  if (!IsExtendedResource(name)) return false;
  for (const auto& r : fit.ignored_resources) {
    if (r == name) return true;
  }
  size_t slash = name.find('/');
  if (slash != std::string_view::npos) {
    for (const auto& g : fit.ignored_resource_groups) {
      if (g == name.substr(0, slash)) return true;
    }
  }
  return false;
}

// What kube's resource scorers compare for one resource: the node's
// allocatable and its requests with the pod placed. Allocatable 0 leaves the
// resource out of the score: the node does not have it, the pod does not ask
// for an extended resource, or the resource is not one a scorer counts
// ("pods").
struct ScoredAmount {
  int64_t allocatable = 0;
  int64_t requested = 0;
};

// `non_zero`: cpu and memory count a container without a request as 100m /
// 200Mi, on the node (NodeInfo's non-zero sums) and for the pod, as
// NodeResourcesFit's strategies do; BalancedAllocation counts real requests.
ScoredAmount AmountOf(const NodeInfo& node, const PodInfo& pod, const ResourceWeight& r, bool non_zero) {
  const api::ResourceList& pod_requests = non_zero ? pod.view->non_zero_requests : pod.view->requests;
  const api::ResourceList& node_requests = non_zero ? node.non_zero_requested() : node.requested();
  int64_t api::ResourceList::*field = r.field ? r.field : api::CommonResourceField(r.name);
  if (field == &api::ResourceList::milli_cpu || field == &api::ResourceList::memory) {
    return {node.allocatable().*field, node_requests.*field + pod_requests.*field};
  }
  if (field == &api::ResourceList::ephemeral_storage) {
    return {node.allocatable().ephemeral_storage,
            node.requested().ephemeral_storage + pod.view->requests.ephemeral_storage};
  }
  if (field != nullptr) return {};  // pods
  int64_t wanted = pod.view->requests.Get(r.name);
  if (wanted == 0) return {};
  return {node.allocatable().Get(r.name), node.requested().Get(r.name) + wanted};
}

int64_t Interpolate(const std::vector<ShapePoint>& shape, int64_t utilization) {
  if (utilization <= shape.front().utilization) return shape.front().score;
  for (size_t i = 1; i < shape.size(); ++i) {
    if (utilization <= shape[i].utilization) {
      const ShapePoint& a = shape[i - 1];
      const ShapePoint& b = shape[i];
      return a.score + (b.score - a.score) * (utilization - a.utilization) / (b.utilization - a.utilization);
    }
  }
  return shape.back().score;
}

Result<std::vector<ResourceWeight>> ParseResources(const json::value& v, std::string_view field) {
  std::vector<ResourceWeight> out;
  if (!v.is_array()) return Status::BadRequest(std::string(field) + ": expected a list");
  const auto& array = v.get_array();
  for (size_t i = 0; i < array.size(); ++i) {
    std::string here = std::string(field) + "[" + std::to_string(i) + "]";
    if (!array[i].is_object()) return Status::BadRequest(here + ": expected an object");
    const auto& o = array[i].get_object();
    ResourceWeight r;
    if (auto it = o.find("name"); it != o.end() && it->value().is_string()) r.name = it->value().get_string();
    if (r.name.empty()) return Status::BadRequest(here + ".name: Required value");
    if (auto it = o.find("weight"); it != o.end()) {
      if (!it->value().is_int64()) return Status::BadRequest(here + ".weight: expected an integer");
      r.weight = it->value().get_int64();
      // kube's defaulting turns an unset or zero weight into 1 before validating.
      if (r.weight == 0) r.weight = 1;
      if (r.weight < 1 || r.weight > 100) {
        return Status::BadRequest(here + ".weight: Invalid value: " + std::to_string(r.weight) +
                                  ": resource weight of " + r.name + " not in valid range (0, 100]");
      }
    }
    r.field = api::CommonResourceField(r.name);
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<std::string>> ParseStrings(const json::value& v, std::string_view field) {
  std::vector<std::string> out;
  if (!v.is_array()) return Status::BadRequest(std::string(field) + ": expected a list");
  for (const auto& e : v.get_array()) {
    if (!e.is_string()) return Status::BadRequest(std::string(field) + ": expected strings");
    out.emplace_back(e.get_string());
  }
  return out;
}

}  // namespace

PluginStatus NodeResourcesFit::PreFilter(CycleState&, const PodInfo&) const { return {}; }

std::vector<std::string> NodeResourcesFit::InsufficientResources(const PodInfo& pod, const NodeInfo& node) const {
  std::vector<std::string> reasons;
  const api::ResourceList& want = pod.view->requests;
  const api::ResourceList& alloc = node.allocatable();
  const api::ResourceList& used = node.requested();
  if (used.pods + 1 > alloc.pods) reasons.emplace_back("Too many pods");
  auto usable = [&](int64_t allocatable) {
    return headroom_percent == 0 ? allocatable : allocatable / 100 * (100 - headroom_percent) +
                                                     allocatable % 100 * (100 - headroom_percent) / 100;
  };
  if (want.milli_cpu == 0 && want.memory == 0 && want.ephemeral_storage == 0 && want.scalars.empty()) {
    return reasons;
  }
  if (want.milli_cpu > 0 && want.milli_cpu > usable(alloc.milli_cpu) - used.milli_cpu) {
    reasons.emplace_back("Insufficient cpu");
  }
  if (want.memory > 0 && want.memory > usable(alloc.memory) - used.memory) {
    reasons.emplace_back("Insufficient memory");
  }
  if (want.ephemeral_storage > 0 &&
      want.ephemeral_storage > usable(alloc.ephemeral_storage) - used.ephemeral_storage) {
    reasons.emplace_back("Insufficient ephemeral-storage");
  }
  for (const auto& [name, amount] : want.scalars) {
    if (amount == 0 || IsIgnored(*this, name)) continue;
    if (amount > usable(alloc.Get(name)) - used.Get(name)) reasons.push_back("Insufficient " + name);
  }
  return reasons;
}

PluginStatus NodeResourcesFit::Filter(const CycleState&, const PodInfo& pod, const NodeInfo& node) const {
  std::vector<std::string> reasons = InsufficientResources(pod, node);
  if (reasons.empty()) return {};
  return {Code::kUnschedulable, std::move(reasons)};
}

PluginStatus NodeResourcesFit::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node,
                                     int64_t* score) const {
  int64_t weighted = 0, weights = 0;
  for (const auto& r : resources) {
    const auto [capacity, requested] = AmountOf(node, pod, r, /*non_zero=*/true);
    if (capacity == 0) continue;
    int64_t s = 0;
    switch (strategy) {
      case Strategy::kLeastAllocated:
        s = requested > capacity ? 0 : (capacity - requested) * kMaxNodeScore / capacity;
        break;
      case Strategy::kMostAllocated:
        s = std::min(requested, capacity) * kMaxNodeScore / capacity;
        break;
      case Strategy::kRequestedToCapacityRatio: {
        int64_t utilization = requested > capacity ? 100 : requested * 100 / capacity;
        s = Interpolate(shape, utilization);
        // kube averages only the resources that score above zero.
        if (s == 0) continue;
        break;
      }
    }
    weighted += s * r.weight;
    weights += r.weight;
  }
  if (weights == 0) {
    *score = 0;
  } else if (strategy == Strategy::kRequestedToCapacityRatio) {
    // Rounded to the nearest (halves away from zero), where the other strategies truncate.
    *score = std::llround(static_cast<double>(weighted) / static_cast<double>(weights));
  } else {
    *score = weighted / weights;
  }
  return {};
}

PluginStatus NodeResourcesBalancedAllocation::Score(const CycleState&, const PodInfo& pod, const NodeInfo& node,
                                                    int64_t* score) const {
  double fractions[8];
  size_t n = 0;
  for (const auto& r : resources) {
    if (n == 8) break;
    const auto [capacity, requested] = AmountOf(node, pod, r, /*non_zero=*/false);
    if (capacity == 0) continue;
    double f = static_cast<double>(requested) / static_cast<double>(capacity);
    fractions[n++] = std::min(f, 1.0);
  }
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::abs(fractions[0] - fractions[1]) / 2;
  } else if (n > 2) {
    double mean = 0;
    for (size_t i = 0; i < n; ++i) mean += fractions[i];
    mean /= static_cast<double>(n);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += (fractions[i] - mean) * (fractions[i] - mean);
    std_dev = std::sqrt(sum / static_cast<double>(n));
  }
  *score = static_cast<int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
  return {};
}

Result<std::shared_ptr<Plugin>> NewNodeResourcesFit(const json::object& args, const Handle&) {
  auto fit = std::make_shared<NodeResourcesFit>();
  for (const auto& entry : args) {
    std::string_view key(entry.key().data(), entry.key().size());
    const json::value& v = entry.value();
    if (key == "headroomPercent") {
      if (!v.is_int64() || v.get_int64() < 0 || v.get_int64() > 99) {
        return Status::BadRequest("headroomPercent: Invalid value: " + json::serialize(v) +
                                  ": must be an integer between 0 and 99");
      }
      fit->headroom_percent = v.get_int64();
    } else if (key == "ignoredResources") {
      auto list = ParseStrings(v, "ignoredResources");
      if (!list.ok()) return list.status();
      fit->ignored_resources = std::move(list).value();
    } else if (key == "ignoredResourceGroups") {
      auto list = ParseStrings(v, "ignoredResourceGroups");
      if (!list.ok()) return list.status();
      fit->ignored_resource_groups = std::move(list).value();
    } else if (key == "scoringStrategy") {
      if (!v.is_object()) return Status::BadRequest("scoringStrategy: expected an object");
      for (const auto& s : v.get_object()) {
        std::string_view skey(s.key().data(), s.key().size());
        if (skey == "type") {
          std::string type = s.value().is_string() ? std::string(s.value().get_string()) : "";
          if (type == "LeastAllocated") {
            fit->strategy = NodeResourcesFit::Strategy::kLeastAllocated;
          } else if (type == "MostAllocated") {
            fit->strategy = NodeResourcesFit::Strategy::kMostAllocated;
          } else if (type == "RequestedToCapacityRatio") {
            fit->strategy = NodeResourcesFit::Strategy::kRequestedToCapacityRatio;
          } else {
            return Status::BadRequest("scoringStrategy.type: Unsupported value: \"" + type +
                                      "\": supported values: \"LeastAllocated\", \"MostAllocated\", "
                                      "\"RequestedToCapacityRatio\"");
          }
        } else if (skey == "resources") {
          auto list = ParseResources(s.value(), "scoringStrategy.resources");
          if (!list.ok()) return list.status();
          // An empty list keeps the default resources, as kube's defaulting does.
          if (!list.value().empty()) fit->resources = std::move(list).value();
        } else if (skey == "requestedToCapacityRatio") {
          const json::value* shape = s.value().is_object() ? s.value().get_object().if_contains("shape") : nullptr;
          if (!shape || !shape->is_array()) {
            return Status::BadRequest("scoringStrategy.requestedToCapacityRatio.shape: Required value");
          }
          const auto& points = shape->get_array();
          for (size_t i = 0; i < points.size(); ++i) {
            std::string here = "scoringStrategy.requestedToCapacityRatio.shape[" + std::to_string(i) + "]";
            const json::object* p = points[i].if_object();
            const json::value* u = p ? p->if_contains("utilization") : nullptr;
            const json::value* sc = p ? p->if_contains("score") : nullptr;
            if (!u || !u->is_int64() || u->get_int64() < 0 || u->get_int64() > 100) {
              return Status::BadRequest(here + ".utilization: Invalid value: must be an integer in [0, 100]");
            }
            if (!sc || !sc->is_int64() || sc->get_int64() < 0 || sc->get_int64() > 10) {
              return Status::BadRequest(here + ".score: Invalid value: must be an integer in [0, 10]");
            }
            if (!fit->shape.empty() && u->get_int64() <= fit->shape.back().utilization) {
              return Status::BadRequest(here + ".utilization: Invalid value: utilization values must be sorted "
                                               "in increasing order");
            }
            fit->shape.push_back({u->get_int64(), sc->get_int64()});
          }
        } else {
          return Status::BadRequest("scoringStrategy." + std::string(skey) + ": unknown field");
        }
      }
    } else {
      return Status::BadRequest(std::string(key) + ": unknown field");
    }
  }
  if (fit->strategy == NodeResourcesFit::Strategy::kRequestedToCapacityRatio) {
    if (fit->shape.empty()) return Status::BadRequest("scoringStrategy.requestedToCapacityRatio.shape: Required value");
    // The config's scores are 0–10; node scores are 0–100.
    for (auto& p : fit->shape) p.score *= kMaxNodeScore / 10;
  }
  return std::shared_ptr<Plugin>(std::move(fit));
}

Result<std::shared_ptr<Plugin>> NewNodeResourcesBalancedAllocation(const json::object& args, const Handle&) {
  auto plugin = std::make_shared<NodeResourcesBalancedAllocation>();
  for (const auto& entry : args) {
    if (entry.key() == "resources") {
      auto list = ParseResources(entry.value(), "resources");
      if (!list.ok()) return list.status();
      if (!list.value().empty()) plugin->resources = std::move(list).value();
    } else {
      return Status::BadRequest(std::string(entry.key()) + ": unknown field");
    }
  }
  return std::shared_ptr<Plugin>(std::move(plugin));
}

}  // namespace berth::scheduler
