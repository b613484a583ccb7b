// Validation of storage.k8s.io kinds (CSIDriver, CSINode,
// CSIStorageCapacity, VolumeAttachment) and node.k8s.io RuntimeClass.

#include <gtest/gtest.h>

#include "validation_cases.h"

namespace berth::api {
namespace {

using testing::Obj;
using testing::Problems;
using testing::UpdateProblems;

TEST(StorageValidation, VolumeAttachments) {
  auto attachment = [](const std::string& spec) {
    return Obj("storage.k8s.io/v1", "VolumeAttachment", "va", R"("spec":)" + spec, false);
  };
  const std::string p = "VolumeAttachment.storage.k8s.io \"va\" is invalid: ";
  const std::string valid = attachment(
      R"({"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv1"}})");
  EXPECT_EQ(Problems(valid), "");
  EXPECT_EQ(Problems(attachment(R"({"source":{"persistentVolumeName":"pv1"}})")),
            p + "[spec.attacher: Required value, spec.nodeName: Required value]");
  EXPECT_EQ(Problems(attachment(R"({"attacher":"csi.example.com","nodeName":"n1","source":{}})")),
            p + "spec.source: Required value: must specify exactly one of inlineVolumeSpec and "
                "persistentVolumeName");
  EXPECT_EQ(
      UpdateProblems(
          attachment(
              R"({"attacher":"csi.example.com","nodeName":"n2","source":{"persistentVolumeName":"pv1"}})"),
          valid)
          .starts_with(p + "spec: Invalid value: "),
      true);
}

TEST(StorageValidation, CsiNodesDriversAndCapacities) {
  EXPECT_EQ(
      Problems(Obj("storage.k8s.io/v1", "CSINode", "n1",
                   R"("spec":{"drivers":[{"name":"csi.example.com","nodeID":"n1"}]})", false)),
      "");
  EXPECT_EQ(
      Problems(Obj(
          "storage.k8s.io/v1", "CSINode", "n1",
          R"("spec":{"drivers":[{"name":"csi.example.com"},{"name":"csi.example.com","nodeID":"x"}]})",
          false)),
      "CSINode.storage.k8s.io \"n1\" is invalid: [spec.drivers[0].nodeID: Required value, spec.drivers[1].name: "
      "Duplicate value: "
      "\"csi.example.com\"]");
  EXPECT_EQ(Problems(Obj("storage.k8s.io/v1", "CSIDriver", "csi.example.com",
                         R"("spec":{"volumeLifecycleModes":["Forever"]})", false)),
            "CSIDriver.storage.k8s.io \"csi.example.com\" is invalid: spec.volumeLifecycleModes[0]: Unsupported "
            "value: \"Forever\": "
            "supported values: \"Ephemeral\", \"Persistent\"");
  EXPECT_EQ(Problems(Obj("storage.k8s.io/v1", "CSIStorageCapacity", "cap",
                         R"("storageClassName":"fast","capacity":"-1Gi")")),
            "CSIStorageCapacity.storage.k8s.io \"cap\" is invalid: capacity: Invalid value: \"-1Gi\": must be "
            "greater than or equal to 0");
}

TEST(NodeValidation, RuntimeClassHandlers) {
  auto runtime_class = [](const std::string& handler) {
    return Obj("node.k8s.io/v1", "RuntimeClass", "gvisor", R"("handler":")" + handler + "\"",
               false);
  };
  EXPECT_EQ(Problems(runtime_class("runsc")), "");
  EXPECT_EQ(Problems(runtime_class("run_sc")),
            "RuntimeClass.node.k8s.io \"gvisor\" is invalid: handler: Invalid value: \"run_sc\": a lowercase "
            "RFC 1123 label must "
            "consist of lower case alphanumeric characters or '-', and must start and end with an "
            "alphanumeric "
            "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
  EXPECT_EQ(
      UpdateProblems(runtime_class("kata"), runtime_class("runsc")),
      "RuntimeClass.node.k8s.io \"gvisor\" is invalid: handler: Invalid value: \"kata\": field is immutable");
}

TEST(UpdateValidation, PodsAndPriorityClassesGoThroughTheirOwnRules) {
  const std::string pod =
      Obj("v1", "Pod", "p", R"("spec":{"containers":[{"name":"c","image":"a"}],"nodeName":"n1"})");
  const std::string moved =
      Obj("v1", "Pod", "p", R"("spec":{"containers":[{"name":"c","image":"a"}],"nodeName":"n2"})");
  EXPECT_NE(UpdateProblems(moved, pod).find("pod updates may not change fields"),
            std::string::npos);
  auto priority = [](int value) {
    return Obj("scheduling.k8s.io/v1", "PriorityClass", "high",
               R"("value":)" + std::to_string(value), false);
  };
  EXPECT_EQ(
      UpdateProblems(priority(2), priority(1)),
      "PriorityClass.scheduling.k8s.io \"high\" is invalid: value: Forbidden: may not be changed in an update.");
  // Kinds without update rules accept any valid update.
  EXPECT_EQ(
      UpdateProblems(Obj("v1", "ServiceAccount", "sa", R"("automountServiceAccountToken":false)"),
                     Obj("v1", "ServiceAccount", "sa", "")),
      "");
}

}  // namespace
}  // namespace berth::api
