#pragma once
// A list of resource amounts as the scheduler counts them: CPU in millicores,
// everything else in whole units (bytes, pods). The four common resources are
// fields; extended resources and hugepages sit in a small sorted vector.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/fwd.hpp>

#include "api/status.h"

namespace berth::api {

inline constexpr std::string_view kResourceCpu = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";
inline constexpr std::string_view kResourceStorage = "storage";

struct ResourceList {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t pods = 0;
  // Every other resource (extended resources, hugepages-*), sorted by name.
  std::vector<std::pair<std::string, int64_t>> scalars;

  // The amount of `name` ("cpu" in millicores); 0 when absent.
  int64_t Get(std::string_view name) const;
  void Set(std::string_view name, int64_t amount);
  // Whether `name` has an entry (the four common resources always have one).
  bool HasScalar(std::string_view name) const;
  void Add(const ResourceList& other);
  void Subtract(const ResourceList& other);
  // Each resource becomes the larger of the two.
  void SetMax(const ResourceList& other);
  bool operator==(const ResourceList&) const = default;
};

// The member of ResourceList that holds `name` when it is one of the four
// common resources ("cpu" → &ResourceList::milli_cpu), else nullptr: resolved
// once, it saves the name comparisons of Get in per-node loops.
int64_t ResourceList::*CommonResourceField(std::string_view name);

// Parses a JSON map of resource name to quantity ({"cpu":"100m","memory":"1Gi"}).
// `path` names the map in errors ("spec.containers[0].resources.requests").
// `present`, when given, receives the names that were in the map.
Result<ResourceList> ParseResourceList(const boost::json::value& value, std::string_view path,
                                       std::vector<std::string>* present = nullptr);

}  // namespace berth::api
