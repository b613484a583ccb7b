// Checks the protobuf tables against Kubernetes' own round-trip fixtures:
// k8s.io/api's testdata/HEAD/<group>.<version>.<Kind>.pb (every field set,
// in the "k8s\0" envelope) and the .json of the same object. Each kind berth
// decodes must read the .pb without an error, every value it reads must equal
// the .json's at the same path, and all the .json holds must be read.
//
// The fixtures are read from a local git mirror of k8s.io/api (or
// k8s.io/apiextensions-apiserver); without one the test is skipped. Set
// BERTH_KUBE_API_MIRROR / BERTH_KUBE_APIEXTENSIONS_MIRROR to a git directory.

#include <gtest/gtest.h>

#include <array>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "api/kinds.h"
#include "apiserver/schema/protobuf.h"

namespace berth::apiserver {
namespace {

namespace json = boost::json;

std::string MirrorDir(const char* env, const char* fallback) {
  const char* dir = std::getenv(env);
  return dir ? dir : fallback;
}

// `git show HEAD:path` in `repo`, or nullopt.
std::optional<std::string> GitShow(const std::string& repo, const std::string& path) {
  std::string command = "git -C '" + repo + "' show 'HEAD:" + path + "' 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 65536> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  if (pclose(pipe) != 0) return std::nullopt;
  return out;
}

// Every value of `got` equals `want`'s at the same path (mismatches), and the
// paths of `want` that `got` lacks (missing).
void Compare(const json::value& got, const json::value& want, const std::string& path,
             std::vector<std::string>& mismatches, std::vector<std::string>& missing) {
  if (got.is_object() && want.is_object()) {
    for (const auto& [key, value] : got.get_object()) {
      const json::value* w = want.get_object().if_contains(key);
      if (!w) {
        mismatches.push_back(path + "/" + std::string(key) + " (not in the fixture)");
        continue;
      }
      Compare(value, *w, path + "/" + std::string(key), mismatches, missing);
    }
    for (const auto& [key, value] : want.get_object()) {
      if (!got.get_object().contains(key)) missing.push_back(path + "/" + std::string(key));
    }
    return;
  }
  if (got.is_array() && want.is_array()) {
    if (got.get_array().size() != want.get_array().size()) {
      mismatches.push_back(path + " (length)");
      return;
    }
    for (size_t i = 0; i < got.get_array().size(); ++i)
      Compare(got.get_array()[i], want.get_array()[i], path + "/" + std::to_string(i), mismatches,
              missing);
    return;
  }
  if (got.is_number() && want.is_number() && got.to_number<double>() == want.to_number<double>())
    return;
  if (got != want)
    mismatches.push_back(path + ": " + json::serialize(got) + " != " + json::serialize(want));
}

struct Fixture {
  const char* file;  // testdata/HEAD/<file>.pb|.json
  bool apiextensions;
};

class ProtobufFixtures : public ::testing::TestWithParam<Fixture> {};

TEST_P(ProtobufFixtures, DecodesKubesFixtureAsItsJson) {
  const Fixture& fixture = GetParam();
  std::string repo = fixture.apiextensions
                         ? MirrorDir("BERTH_KUBE_APIEXTENSIONS_MIRROR",
                                     "/work/.mirror/kubernetes+apiextensions-apiserver/repo")
                         : MirrorDir("BERTH_KUBE_API_MIRROR", "/work/.mirror/kubernetes+api/repo");
  std::string dir = fixture.apiextensions ? "pkg/apis/testdata/HEAD/" : "testdata/HEAD/";
  if (!std::filesystem::exists(repo)) GTEST_SKIP() << "no k8s.io/api mirror at " << repo;
  auto pb = GitShow(repo, dir + fixture.file + ".pb");
  auto js = GitShow(repo, dir + fixture.file + ".json");
  if (!pb || !js) GTEST_SKIP() << fixture.file << " not in the mirror";
  json::value want = json::parse(*js);
  auto kind =
      api::KindFromApiVersion(want.at("apiVersion").as_string(), want.at("kind").as_string());
  ASSERT_TRUE(kind.has_value());
  auto decoded = DecodeProtobuf(*pb, *kind);
  ASSERT_TRUE(decoded.ok()) << decoded.status().message();
  std::vector<std::string> mismatches, missing;
  Compare(decoded.value(), want, "", mismatches, missing);
  for (const auto& m : mismatches) ADD_FAILURE() << fixture.file << ": " << m;
  for (const auto& m : missing) ADD_FAILURE() << fixture.file << ": not decoded: " << m;
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, ProtobufFixtures,
    ::testing::Values(
        Fixture{"core.v1.Namespace"}, Fixture{"core.v1.Node"}, Fixture{"core.v1.Pod"},
        Fixture{"core.v1.Binding"}, Fixture{"core.v1.Event"}, Fixture{"core.v1.PersistentVolume"},
        Fixture{"core.v1.PersistentVolumeClaim"}, Fixture{"core.v1.ConfigMap"},
        Fixture{"core.v1.Secret"}, Fixture{"core.v1.Service"}, Fixture{"core.v1.Endpoints"},
        Fixture{"core.v1.ServiceAccount"}, Fixture{"core.v1.LimitRange"},
        Fixture{"core.v1.ResourceQuota"}, Fixture{"core.v1.PodTemplate"},
        Fixture{"core.v1.ReplicationController"}, Fixture{"apps.v1.ReplicaSet"},
        Fixture{"apps.v1.Deployment"}, Fixture{"apps.v1.StatefulSet"}, Fixture{"apps.v1.DaemonSet"},
        Fixture{"apps.v1.ControllerRevision"}, Fixture{"batch.v1.Job"}, Fixture{"batch.v1.CronJob"},
        Fixture{"autoscaling.v2.HorizontalPodAutoscaler"}, Fixture{"coordination.k8s.io.v1.Lease"},
        Fixture{"discovery.k8s.io.v1.EndpointSlice"}, Fixture{"networking.k8s.io.v1.Ingress"},
        Fixture{"networking.k8s.io.v1.IngressClass"}, Fixture{"networking.k8s.io.v1.NetworkPolicy"},
        Fixture{"policy.v1.PodDisruptionBudget"}, Fixture{"rbac.authorization.k8s.io.v1.Role"},
        Fixture{"rbac.authorization.k8s.io.v1.ClusterRole"},
        Fixture{"rbac.authorization.k8s.io.v1.RoleBinding"},
        Fixture{"rbac.authorization.k8s.io.v1.ClusterRoleBinding"},
        Fixture{"node.k8s.io.v1.RuntimeClass"}, Fixture{"scheduling.k8s.io.v1.PriorityClass"},
        Fixture{"storage.k8s.io.v1.StorageClass"}, Fixture{"storage.k8s.io.v1.CSIDriver"},
        Fixture{"storage.k8s.io.v1.CSINode"}, Fixture{"storage.k8s.io.v1.CSIStorageCapacity"},
        Fixture{"storage.k8s.io.v1.VolumeAttachment"},
        Fixture{"apiextensions.k8s.io.v1.CustomResourceDefinition", true}),
    [](const ::testing::TestParamInfo<Fixture>& info) {
      std::string name = info.param.file;
      for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace berth::apiserver
