// rbac.authorization.k8s.io/v1 messages (k8s.io/api/rbac/v1/generated.proto).

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

const Message kPolicyRule{"PolicyRule",
                          {Strings(1, "verbs"), Strings(2, "apiGroups"), Strings(3, "resources"),
                           Strings(4, "resourceNames"), Strings(5, "nonResourceURLs")}};
const Message kAggregationRule{"AggregationRule", {NestedList(1, "clusterRoleSelectors", kLabelSelector)}};
const Message kSubject{"Subject",
                       {String(1, "kind", kKeep), String(2, "apiGroup"), String(3, "name", kKeep),
                        String(4, "namespace")}};
const Message kRoleRef{"RoleRef", {String(1, "apiGroup", kKeep), String(2, "kind", kKeep), String(3, "name", kKeep)}};

const Message kRole{"Role", {Nested(1, "metadata", kObjectMeta), NestedList(2, "rules", kPolicyRule)}};
const Message kClusterRole{"ClusterRole",
                           {Nested(1, "metadata", kObjectMeta), NestedList(2, "rules", kPolicyRule),
                            Nested(3, "aggregationRule", kAggregationRule)}};
const Message kRoleBinding{"RoleBinding",
                           {Nested(1, "metadata", kObjectMeta), NestedList(2, "subjects", kSubject),
                            Nested(3, "roleRef", kRoleRef)}};
const Message kClusterRoleBinding{"ClusterRoleBinding",
                                  {Nested(1, "metadata", kObjectMeta), NestedList(2, "subjects", kSubject),
                                   Nested(3, "roleRef", kRoleRef)}};

const KindMessage kRbacKindList[] = {
    {api::Kind::kRole, &kRole},
    {api::Kind::kClusterRole, &kClusterRole},
    {api::Kind::kRoleBinding, &kRoleBinding},
    {api::Kind::kClusterRoleBinding, &kClusterRoleBinding},
};
const std::span<const KindMessage> kRbacKinds = kRbacKindList;

}  // namespace berth::apiserver::protobuf_schema
