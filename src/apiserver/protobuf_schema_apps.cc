// apps/v1 messages (k8s.io/api/apps/v1/generated.proto).

#include "apiserver/protobuf_schema.h"

namespace berth::apiserver::protobuf_schema {

const Message kRollingUpdateDeployment{"RollingUpdateDeployment",
                                       {IntOrString(1, "maxUnavailable"), IntOrString(2, "maxSurge")}};
const Message kDeploymentStrategy{"DeploymentStrategy",
                                  {String(1, "type"), Nested(2, "rollingUpdate", kRollingUpdateDeployment)}};
const Message kDeploymentSpec{"DeploymentSpec",
                              {Int(1, "replicas", kKeep), Nested(2, "selector", kLabelSelector),
                               Nested(3, "template", kPodTemplateSpec), Nested(4, "strategy", kDeploymentStrategy),
                               Int(5, "minReadySeconds"), Int(6, "revisionHistoryLimit", kKeep), Bool(7, "paused"),
                               Int(9, "progressDeadlineSeconds", kKeep)}};
const Message kDeployment{"Deployment",
                          {Nested(1, "metadata", kObjectMeta), Nested(2, "spec", kDeploymentSpec),
                           Nested(3, "status", kIgnoredStatus)}};

}  // namespace berth::apiserver::protobuf_schema
