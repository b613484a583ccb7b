#pragma once
// Building pods and nodes for scheduler tests from short JSON fragments.

#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "api/object.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/snapshot.h"

namespace berth::scheduler::testing {

// A pod named `name` in "default" with `spec` (JSON object text) and optional labels.
inline PodInfoPtr Pod(const std::string& name, const std::string& spec = R"({"containers":[{"name":"c","image":"i"}]})",
                      const std::string& labels = "{}") {
  auto object = api::Object::Decode(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                                    R"(","namespace":"default","uid":"uid-)" + name + R"(","labels":)" + labels +
                                    R"(},"spec":)" + spec + "}");
  EXPECT_TRUE(object.ok()) << object.status().message();
  return MakePodInfo(object.value());
}

// A pod requesting cpu/memory (quantities), in one container.
inline PodInfoPtr PodRequesting(const std::string& name, const std::string& cpu, const std::string& memory,
                                const std::string& extra_spec = "") {
  std::string requests = "{";
  if (!cpu.empty()) requests += R"("cpu":")" + cpu + "\"";
  if (!memory.empty()) requests += std::string(cpu.empty() ? "" : ",") + R"("memory":")" + memory + "\"";
  requests += "}";
  return Pod(name, R"({"containers":[{"name":"c","image":"i","resources":{"requests":)" + requests + "}}]" +
                       extra_spec + "}");
}

// A node with allocatable cpu/memory/pods, labels and extra spec (JSON members).
inline api::ObjectPtr NodeObject(const std::string& name, const std::string& cpu = "4", const std::string& memory = "8Gi",
                                 const std::string& labels = "{}", const std::string& spec = "{}",
                                 const std::string& pods = "110") {
  std::string resources = R"({"cpu":")" + cpu + R"(","memory":")" + memory + R"(","pods":")" + pods + "\"}";
  auto object = api::Object::Decode(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
                                    R"(","labels":)" + labels + R"(},"spec":)" + spec + R"(,"status":{"capacity":)" +
                                    resources + R"(,"allocatable":)" + resources + "}}");
  EXPECT_TRUE(object.ok()) << object.status().message();
  return object.value();
}

inline std::shared_ptr<NodeInfo> Node(const std::string& name, const std::string& cpu = "4",
                                      const std::string& memory = "8Gi", const std::string& labels = "{}",
                                      const std::string& spec = "{}", const std::string& pods = "110") {
  return std::make_shared<NodeInfo>(NodeObject(name, cpu, memory, labels, spec, pods));
}

// A Handle for plugin tests: namespaces by name; bindings recorded.
class FakeHandle : public Handle {
 public:
  std::map<std::string, api::Labels> namespaces;
  mutable std::vector<std::pair<std::string, std::string>> bound;  // (pod, node)
  std::shared_ptr<const api::Labels> NamespaceLabels(std::string_view ns) const override {
    auto it = namespaces.find(std::string(ns));
    return it == namespaces.end() ? nullptr : std::make_shared<const api::Labels>(it->second);
  }
  Status BindPod(const api::Object& pod, const std::string& node) const override {
    bound.emplace_back(pod.name(), node);
    return Status::Ok();
  }
};

}  // namespace berth::scheduler::testing
