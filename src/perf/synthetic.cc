#include "perf/synthetic.h"

#include <stdexcept>

#include "api/quantity.h"

namespace berth::perf {
namespace {

// The builders' JSON is well-formed by construction: a failure to decode it
// is a broken invariant (a quantity the caller did not check, say).
api::ObjectPtr DecodeOrThrow(const std::string& json) {
  auto object = api::Object::Decode(json);
  if (!object.ok()) throw std::invalid_argument("synthetic object: " + object.status().ToString());
  return object.value();
}

}  // namespace

std::string SyntheticNodeName(int64_t index) { return "node-" + std::to_string(index); }

std::string SyntheticNodeJson(const std::string& name, int64_t index, const NodeShape& shape) {
  const std::string resources = R"({"cpu":")" + shape.cpu + R"(","memory":")" + shape.memory +
                                R"(","pods":")" + std::to_string(shape.max_pods) + R"("})";
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
         R"(","labels":{"kubernetes.io/hostname":")" + name +
         R"(","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","topology.kubernetes.io/zone":"zone-)" +
         std::to_string(index % 3) + R"("}},"spec":{},"status":{"capacity":)" + resources +
         R"(,"allocatable":)" + resources + R"(,"conditions":[{"type":"Ready","status":"True"}]}})";
}

api::ObjectPtr SyntheticNode(const std::string& name, int64_t index, const NodeShape& shape) {
  return DecodeOrThrow(SyntheticNodeJson(name, index, shape));
}

std::string SyntheticPodJson(const std::string& ns, const std::string& name,
                             const PodShape& shape) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         ns +
         R"(","labels":{"app":"sample","tier":"web"},"annotations":{"example.com/owner":"bench"}},)"
         R"("spec":{"schedulerName":"default-scheduler","restartPolicy":"Always",)"
         R"("terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",)"
         R"("containers":[{"name":"app","image":"registry.k8s.io/pause:3.9",)"
         R"("ports":[{"containerPort":8080,"protocol":"TCP"}],)"
         R"("resources":{"requests":{"cpu":")" +
         shape.cpu + R"(","memory":")" + shape.memory + R"("}}}]},"status":{"phase":"Pending"}})";
}

api::ObjectPtr SyntheticPod(const std::string& ns, const std::string& name, const PodShape& shape) {
  return DecodeOrThrow(SyntheticPodJson(ns, name, shape));
}

Result<PodShape> ParsePodShape(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || !api::Quantity::Parse(text.substr(0, slash)).ok() ||
      !api::Quantity::Parse(text.substr(slash + 1)).ok()) {
    return Status::BadRequest(text + ": expected CPU/MEMORY such as 100m/128Mi");
  }
  return PodShape{text.substr(0, slash), text.substr(slash + 1)};
}

}  // namespace berth::perf
