#include "cmd/sample_objects.h"

#include <stdexcept>

namespace berth::cmd {
namespace {

api::ObjectPtr DecodeOrThrow(const std::string& json) {
  auto object = api::Object::Decode(json);
  if (!object.ok()) throw std::runtime_error(object.status().ToString());
  return object.value();
}

}  // namespace

api::ObjectPtr SamplePod(const std::string& ns, const std::string& name, int64_t milli_cpu,
                         int64_t memory_bytes) {
  return DecodeOrThrow(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
      ns + R"(","labels":{"app":"sample","tier":"web"},"annotations":{"example.com/owner":"bench"}},)" +
      R"("spec":{"schedulerName":"default-scheduler","restartPolicy":"Always",)" +
      R"("terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",)" +
      R"("containers":[{"name":"app","image":"registry.k8s.io/pause:3.9",)" +
      R"("ports":[{"containerPort":8080,"protocol":"TCP"}],)" +
      R"("resources":{"requests":{"cpu":")" + std::to_string(milli_cpu) + R"(m","memory":")" +
      std::to_string(memory_bytes) + R"("}}}]},"status":{"phase":"Pending"}})");
}

api::ObjectPtr SampleNode(const std::string& name, int64_t milli_cpu, int64_t memory_bytes) {
  std::string cpu = std::to_string(milli_cpu) + "m";
  std::string mem = std::to_string(memory_bytes);
  return DecodeOrThrow(
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
      R"(","labels":{"kubernetes.io/hostname":")" + name +
      R"(","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64"}},)" +
      R"("spec":{},"status":{"capacity":{"cpu":")" + cpu + R"(","memory":")" + mem +
      R"(","pods":"110"},"allocatable":{"cpu":")" + cpu + R"(","memory":")" + mem +
      R"(","pods":"110"},"conditions":[{"type":"Ready","status":"True"}]}})");
}

}  // namespace berth::cmd
