// meta/v1 messages (k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto).

#include "apiserver/schema/go_types.h"

namespace berth::apiserver::protobuf_schema {

// A status condition (meta/v1 Condition): Service, PodDisruptionBudget ...
const Message kCondition{"Condition",
                         {String(1, "type", kKeep), String(2, "status", kKeep).Go("v1.ConditionStatus"), Int(3, "observedGeneration").Go("int64"),
                          Time(4, "lastTransitionTime"), String(5, "reason", kKeep), String(6, "message", kKeep)}};

const Message kOwnerReference{"OwnerReference",
                              {String(1, "kind", kKeep), String(3, "name", kKeep), String(4, "uid", kKeep).Go("types.UID"),
                               String(5, "apiVersion", kKeep), Bool(6, "controller", kKeep),
                               Bool(7, "blockOwnerDeletion", kKeep)}};
const Message kManagedFieldsEntry{"ManagedFieldsEntry",
                                  {String(1, "manager"), String(2, "operation").Go("v1.ManagedFieldsOperationType"), String(3, "apiVersion"),
                                   Time(4, "time"), String(6, "fieldsType"),
                                   FieldsV1(7, "fieldsV1"),
                                   String(8, "subresource")}};
const Message kObjectMeta{"ObjectMeta",
                          {String(1, "name"), String(2, "generateName"), String(3, "namespace"),
                           String(4, "selfLink"), String(5, "uid").Go("types.UID"), String(6, "resourceVersion"),
                           Int(7, "generation").Go("int64"), Time(8, "creationTimestamp"), Time(9, "deletionTimestamp"),
                           Int(10, "deletionGracePeriodSeconds", kKeep).Go("int64"), StringMap(11, "labels"),
                           StringMap(12, "annotations"), NestedList(13, "ownerReferences", kOwnerReference),
                           Strings(14, "finalizers"), NestedList(17, "managedFields", kManagedFieldsEntry)}};

const Message kLabelSelectorRequirement{
    "LabelSelectorRequirement", {String(1, "key", kKeep), String(2, "operator", kKeep).Go("v1.LabelSelectorOperator"), Strings(3, "values")}};
const Message kLabelSelector{"LabelSelector",
                             {StringMap(1, "matchLabels"), NestedList(2, "matchExpressions", kLabelSelectorRequirement)}};

// DeleteOptions: a request body, not a stored kind (kubectl drain's typed
// client sends it). Every field is a pointer in Go, so a zero there was meant
// (gracePeriodSeconds: 0).
const Message kPreconditions{"Preconditions", {String(1, "uid", kKeep).Go("types.UID"), String(2, "resourceVersion", kKeep)}};
const Message kDeleteOptions{"DeleteOptions",
                             {Int(1, "gracePeriodSeconds", kKeep).Go("int64"), Nested(2, "preconditions", kPreconditions),
                              Bool(3, "orphanDependents", kKeep), String(4, "propagationPolicy", kKeep).Go("v1.DeletionPropagation"),
                              Strings(5, "dryRun"), Bool(6, "ignoreStoreReadErrorWithClusterBreakingPotential", kKeep)}};

}  // namespace berth::apiserver::protobuf_schema
