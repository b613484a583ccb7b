#pragma once
// The synthetic nodes and pods every benchmark and demo uses (bench, perf's
// own tests, api-bench over HTTP, the store's bench and demo data), written
// once and shaped like the objects real clusters hold: a Ready node with
// kube's well-known labels (hostname, os, arch, one of three zones) and the
// same capacity and allocatable; a pod of one container with requests, a
// port, labels and an annotation, Pending, for the default scheduler.
//
// Quantities are Kubernetes quantity strings ("16", "100m", "64Gi"); they
// are not checked here (see ParseSize and the API's validation).

#include <cstdint>
#include <string>

#include "api/object.h"
#include "api/status.h"

namespace berth::perf {

struct NodeShape {
  std::string cpu = "4";
  std::string memory = "32Gi";
  int64_t max_pods = 110;
};

struct PodShape {
  std::string cpu = "100m";
  std::string memory = "128Mi";
};

// "node-<index>" in zone "zone-<index % 3>".
std::string SyntheticNodeName(int64_t index);
std::string SyntheticNodeJson(const std::string& name, int64_t index, const NodeShape& shape);
api::ObjectPtr SyntheticNode(const std::string& name, int64_t index, const NodeShape& shape);

std::string SyntheticPodJson(const std::string& ns, const std::string& name, const PodShape& shape);
api::ObjectPtr SyntheticPod(const std::string& ns, const std::string& name, const PodShape& shape);

// "CPU/MEMORY" (such as 100m/128Mi) into a shape; BadRequest naming `text`
// when either half is not a quantity.
Result<PodShape> ParsePodShape(const std::string& text);

}  // namespace berth::perf
