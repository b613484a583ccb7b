// The environment the kubelet gives a container (api/container/environment.h):
// what kube's e2e Secrets, ConfigMap, Downward API, Variable Expansion and
// service-link specs read back with `env`.

#include "api/container/environment.h"

#include <map>

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace berth::api::container {
namespace {

namespace json = boost::json;

ObjectPtr Parse(std::string_view text) {
  auto object = Object::Decode(std::string(text));
  EXPECT_TRUE(object.ok()) << object.status().message();
  return object.ok() ? object.value() : nullptr;
}

// A few objects, found by kind, namespace and name.
class Objects {
 public:
  void Add(std::string_view text) { objects_.push_back(Parse(text)); }
  Sources AsSources() const {
    return {.get = [this](Kind kind, std::string_view ns, std::string_view name) -> ObjectPtr {
              for (const auto& o : objects_) {
                if (o->kind() == kind && o->namespace_name() == ns && o->name() == name) return o;
              }
              return nullptr;
            },
            .list = [this](Kind kind, std::string_view ns) {
              std::vector<ObjectPtr> out;
              for (const auto& o : objects_) {
                if (o->kind() == kind && o->namespace_name() == ns) out.push_back(o);
              }
              return out;
            }};
  }

 private:
  std::vector<ObjectPtr> objects_;
};

std::map<std::string, std::string> AsMap(const EnvVars& env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) out[name] = value;
  return out;
}

EnvVars EnvOf(const Object& pod, const Objects& objects) {
  const json::object& container = pod.json().at("spec").at("containers").at(0).as_object();
  return ContainerEnvironment(pod, container, objects.AsSources());
}

TEST(ContainerEnvironment, ConfigMapsAndSecretsByKeyAndWhole) {
  Objects objects;
  objects.Add(R"j({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns"},
    "data":{"data-1":"value-1","data-2":"value-2"}})j");
  objects.Add(R"j({"kind":"Secret","apiVersion":"v1","metadata":{"name":"sec","namespace":"ns"},
    "data":{"data-1":"dmFsdWUtMQ=="}})j");
  auto pod = Parse(R"j({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},
    "spec":{"containers":[{"name":"c","image":"busybox",
      "envFrom":[{"configMapRef":{"name":"cm"}},{"prefix":"p_","secretRef":{"name":"sec"}},
                 {"configMapRef":{"name":"missing","optional":true}}],
      "env":[{"name":"CONFIG_DATA_1","valueFrom":{"configMapKeyRef":{"name":"cm","key":"data-1"}}},
             {"name":"SECRET_DATA","valueFrom":{"secretKeyRef":{"name":"sec","key":"data-1"}}},
             {"name":"NO_KEY","valueFrom":{"secretKeyRef":{"name":"sec","key":"none","optional":true}}}]}]}})j");
  EnvVars env = EnvOf(*pod, objects);
  EXPECT_EQ(env, (EnvVars{{"HOSTNAME", "p"},
                          {"data-1", "value-1"},
                          {"data-2", "value-2"},
                          {"p_data-1", "value-1"},
                          {"CONFIG_DATA_1", "value-1"},
                          {"SECRET_DATA", "value-1"}}));
}

TEST(ContainerEnvironment, ValuesExpandWhatIsDefinedBefore) {
  auto pod = Parse(R"j({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},
    "spec":{"containers":[{"name":"c","image":"busybox",
      "env":[{"name":"FOO","value":"foo-value"},{"name":"BAR","value":"bar-value"},
             {"name":"FOOBAR","value":"$(FOO);;$(BAR)"},{"name":"LATER","value":"$(AFTER)"},
             {"name":"AFTER","value":"x"}]}]}})j");
  auto env = AsMap(EnvOf(*pod, Objects()));
  EXPECT_EQ(env["FOOBAR"], "foo-value;;bar-value");
  EXPECT_EQ(env["LATER"], "$(AFTER)");  // defined after: not expanded, as in kube
  EXPECT_EQ(AsMap(LiteralEnvironment(pod->json().at("spec").at("containers").at(0).as_object()))["FOOBAR"],
            "foo-value;;bar-value");
}

TEST(ContainerEnvironment, DownwardApiFieldsAndResources) {
  Objects objects;
  objects.Add(R"j({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"},
    "status":{"allocatable":{"cpu":"4","memory":"8Gi"}}})j");
  auto pod = Parse(R"j({"kind":"Pod","apiVersion":"v1",
    "metadata":{"name":"p","namespace":"ns","uid":"u-1","labels":{"app":"web"}},
    "spec":{"nodeName":"n1","serviceAccountName":"sa","containers":[{"name":"c","image":"busybox",
      "resources":{"limits":{"cpu":"1250m","memory":"64Mi"},"requests":{"cpu":"250m","memory":"32Mi"}},
      "env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
             {"name":"POD_NAMESPACE","valueFrom":{"fieldRef":{"fieldPath":"metadata.namespace"}}},
             {"name":"POD_UID","valueFrom":{"fieldRef":{"fieldPath":"metadata.uid"}}},
             {"name":"APP","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['app']"}}},
             {"name":"SA","valueFrom":{"fieldRef":{"fieldPath":"spec.serviceAccountName"}}},
             {"name":"POD_IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},
             {"name":"HOST_IP","valueFrom":{"fieldRef":{"fieldPath":"status.hostIP"}}},
             {"name":"CPU_LIMIT","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}},
             {"name":"CPU_REQUEST_M","valueFrom":{"resourceFieldRef":{"resource":"requests.cpu","divisor":"1m"}}},
             {"name":"MEMORY_LIMIT","valueFrom":{"resourceFieldRef":{"resource":"limits.memory"}}},
             {"name":"MEMORY_REQUEST_MI","valueFrom":{"resourceFieldRef":{"resource":"requests.memory","divisor":"1Mi"}}}]}]},
    "status":{"podIP":"10.0.0.5","hostIP":"192.168.0.1"}})j");
  auto env = AsMap(EnvOf(*pod, objects));
  EXPECT_EQ(env["POD_NAME"], "p");
  EXPECT_EQ(env["POD_NAMESPACE"], "ns");
  EXPECT_EQ(env["POD_UID"], "u-1");
  EXPECT_EQ(env["APP"], "web");
  EXPECT_EQ(env["SA"], "sa");
  EXPECT_EQ(env["POD_IP"], "10.0.0.5");
  EXPECT_EQ(env["HOST_IP"], "192.168.0.1");
  EXPECT_EQ(env["CPU_LIMIT"], "2");  // 1250m in whole cores, rounded up
  EXPECT_EQ(env["CPU_REQUEST_M"], "250");
  EXPECT_EQ(env["MEMORY_LIMIT"], "67108864");
  EXPECT_EQ(env["MEMORY_REQUEST_MI"], "32");
}

TEST(ContainerEnvironment, AnUnsetLimitIsTheNodesAllocatable) {
  Objects objects;
  objects.Add(R"j({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"},
    "status":{"allocatable":{"cpu":"4","memory":"8Gi"}}})j");
  auto pod = Parse(R"j({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},
    "spec":{"nodeName":"n1","containers":[{"name":"c","image":"busybox",
      "env":[{"name":"CPU_LIMIT","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}},
             {"name":"MEMORY_LIMIT","valueFrom":{"resourceFieldRef":{"resource":"limits.memory","divisor":"1Gi"}}}]}]}})j");
  auto env = AsMap(EnvOf(*pod, objects));
  EXPECT_EQ(env["CPU_LIMIT"], "4");
  EXPECT_EQ(env["MEMORY_LIMIT"], "8");
}

TEST(ContainerEnvironment, ServiceLinksOfTheNamespaceAndTheKubernetesService) {
  Objects objects;
  objects.Add(R"j({"kind":"Service","apiVersion":"v1","metadata":{"name":"kubernetes","namespace":"default"},
    "spec":{"clusterIP":"10.96.0.1","ports":[{"name":"https","port":443,"protocol":"TCP"}]}})j");
  objects.Add(R"j({"kind":"Service","apiVersion":"v1","metadata":{"name":"foo-service","namespace":"ns"},
    "spec":{"clusterIP":"10.96.0.9","ports":[{"port":8765,"protocol":"TCP"}]}})j");
  objects.Add(R"j({"kind":"Service","apiVersion":"v1","metadata":{"name":"headless","namespace":"ns"},
    "spec":{"clusterIP":"None","ports":[{"port":80}]}})j");
  auto pod = Parse(R"j({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},
    "spec":{"containers":[{"name":"c","image":"busybox","env":[{"name":"FOO_SERVICE_HOST","value":"mine"}]}]}})j");
  auto env = AsMap(EnvOf(*pod, objects));
  EXPECT_EQ(env["FOO_SERVICE_HOST"], "mine");  // the container's own definition wins
  EXPECT_EQ(env["FOO_SERVICE_SERVICE_HOST"], "10.96.0.9");
  EXPECT_EQ(env["FOO_SERVICE_SERVICE_PORT"], "8765");
  EXPECT_EQ(env["FOO_SERVICE_PORT"], "tcp://10.96.0.9:8765");
  EXPECT_EQ(env["FOO_SERVICE_PORT_8765_TCP"], "tcp://10.96.0.9:8765");
  EXPECT_EQ(env["FOO_SERVICE_PORT_8765_TCP_PROTO"], "tcp");
  EXPECT_EQ(env["FOO_SERVICE_PORT_8765_TCP_PORT"], "8765");
  EXPECT_EQ(env["FOO_SERVICE_PORT_8765_TCP_ADDR"], "10.96.0.9");
  EXPECT_EQ(env["KUBERNETES_SERVICE_HOST"], "10.96.0.1");
  EXPECT_EQ(env["KUBERNETES_SERVICE_PORT_HTTPS"], "443");
  EXPECT_FALSE(env.contains("HEADLESS_SERVICE_HOST"));
  auto unlinked = Parse(R"j({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},
    "spec":{"enableServiceLinks":false,"containers":[{"name":"c","image":"busybox"}]}})j");
  auto only_master = AsMap(EnvOf(*unlinked, objects));
  EXPECT_FALSE(only_master.contains("FOO_SERVICE_SERVICE_HOST"));
  EXPECT_EQ(only_master["KUBERNETES_SERVICE_HOST"], "10.96.0.1");
}

}  // namespace
}  // namespace berth::api::container
