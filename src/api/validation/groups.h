#pragma once
// Internal to validation/: the checks of each API group's kinds, one file
// per group (validation/core.cc, validation/apps.cc, validation/batch.cc,
// validation/autoscaling.cc, validation/networking.cc for networking and
// discovery, validation/rbac.cc, validation/node.cc, validation/storage.cc),
// and the pieces they share (validation/common.cc); each group's file lists
// its kinds' rules (kind_rules.h). Other modules include validation.h.
//
// kube validates an object after its strategy defaulted it; berth's callers
// may not have run ApplyDefaults (defaults.h) yet, so a field kube would
// default passes when absent wherever kube's default would pass. Struct
// values kube prints with Go's %#v are shown that way for label selectors and
// role references (the messages users search for), and as JSON otherwise.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <set>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "api/labels.h"
#include "api/object.h"
#include "api/validation/field_errors.h"

namespace berth::api::validation {

// ---- Shared pieces (validation/common.cc) ----

// The member `key` unless absent or JSON null.
const boost::json::value* Present(const boost::json::object* o, std::string_view key);
std::string IndexPath(std::string_view base, size_t i);
std::string KeyPath(std::string_view base, std::string_view key);  // base[key]
// An integer field, when present, is ≥ 0 ("must be greater than or equal to 0").
void NonNegative(const boost::json::object* o, std::string_view key, const std::string& path,
                 FieldErrors& errors);
// kube's ValidateLabels: every key a qualified name, every value a label value.
void ValidateLabelMap(const boost::json::object* labels, const std::string& path,
                      FieldErrors& errors);
// kube's IsValidPortNum at `path`: an integer 1-65535.
void ValidatePortNumber(const boost::json::value& port, const std::string& path,
                        FieldErrors& errors);
// kube's ValidatePortNumOrName: a port number or an IANA service name.
void ValidatePortNumberOrName(const boost::json::value& port, const std::string& path,
                              FieldErrors& errors);
// A non-negative integer or a percentage up to 100% (kube's
// ValidatePositiveIntOrPercent and IsNotMoreThan100Percent); its value, a
// percentage's number, in `*amount`.
void ValidateIntOrPercent(const boost::json::value& value, const std::string& path,
                          FieldErrors& errors, int64_t* amount = nullptr);
// The labels of a pod template ("template.metadata.labels").
Labels TemplateLabels(const boost::json::object* tmpl);
// kube's ValidatePodTemplateSpec at `path` ("spec.template"): the template's
// labels and annotations, and its pod spec (ValidatePodSpec).
void ValidatePodTemplateSpec(const boost::json::object* tmpl, const std::string& path,
                             FieldErrors& errors, const std::set<std::string>& more_volumes = {});
// A structured label selector at `path` matching the template's labels:
// parse errors, the empty selector ("empty selector is invalid for <what>"),
// and "`selector` does not match template `labels`". Required when absent.
void ValidateSelectorForTemplate(const boost::json::object* spec, const std::string& path,
                                 std::string_view what, FieldErrors& errors);
// Workloads whose pods run forever: the template's restartPolicy is Always
// (absent defaults to it) and it sets no activeDeadlineSeconds ("… in <kind> is
// not Supported").
void ValidateRestartAlways(const boost::json::object* tmpl, const std::string& path,
                           std::string_view kind, FieldErrors& errors);
// metav1's ValidateLabelSelector at `path` (pod_spec.cc): matchLabels,
// operators, keys and values. Nothing when absent.
void LabelSelectorRules(const boost::json::value* selector, const std::string& path, FieldErrors& errors);
// A label selector as kube's messages print a *metav1.LabelSelector (Go's %#v):
//   v1.LabelSelector{MatchLabels:map[string]string{"app":"web"},
//   MatchExpressions:[]v1.LabelSelectorRequirement(nil)}
std::string GoLabelSelector(const boost::json::value* selector);
// kube's ValidateImmutableField: `path: Invalid value: <next>: field is immutable`
// when the two differ (absent and null are equal).
void CheckImmutable(const boost::json::value* next, const boost::json::value* current,
                    const std::string& path, FieldErrors& errors);
// A Go []string as %#v prints it: []string{"a", "b"}.
std::string GoStrings(const boost::json::array* values, std::string_view type = "[]string");
// An IPv4 or IPv6 address in text form; only that family when `family` is
// AF_INET or AF_INET6.
bool IsIpAddress(std::string_view text, int family = 0);
// kube's IsValidIP and ValidateNonSpecialIP for an endpoint address.
void ValidateEndpointIp(std::string_view ip, const std::string& path, FieldErrors& errors);

// ---- Pod spec fields the scheduler and controllers read (validation/pod_spec.cc) ----
// kube's ValidateTolerations at `path` ("spec.tolerations").
void ValidateTolerations(const boost::json::array* tolerations, const std::string& path, FieldErrors& errors);
// Tolerations, node and pod (anti-)affinity, topology spread constraints,
// dnsPolicy and priorityClassName of the pod spec at `path`.
void ValidateSchedulingFields(const boost::json::object& spec, const std::string& path, FieldErrors& errors);
// The spec's volumes (exactly one source each, unique DNS-label names);
// returns their names.
std::set<std::string> ValidateVolumes(const boost::json::object& spec, const std::string& path,
                                      FieldErrors& errors);
// A container's volume mounts at `path` ("spec.containers[0]"): each names
// one of `volumes`, mount paths unique.
void ValidateVolumeMounts(const boost::json::object& container, const std::set<std::string>& volumes,
                          const std::string& path, FieldErrors& errors);
// A container's ports at `path`: names valid and unique, numbers 1-65535, protocol.
void ValidateContainerPorts(const boost::json::object& container, const std::string& path, FieldErrors& errors);
// A node's spec.taints: keys, values, effects, unique by key and effect.
void ValidateNodeTaints(const boost::json::array* taints, const std::string& path, FieldErrors& errors);

// ---- core/v1 (validation/core.cc) ----
// A Secret's data and a ConfigMap's binaryData hold base64: BadRequest (as
// kube's decoder answers, before validation) naming the first bad byte.
Status CheckBase64Fields(const Object& object);
void ValidateConfigMap(const Object& object, FieldErrors& errors);
void ValidateSecret(const Object& object, FieldErrors& errors);
void ValidateService(const Object& object, FieldErrors& errors);
void ValidateEndpoints(const Object& object, FieldErrors& errors);
void ValidateLimitRange(const Object& object, FieldErrors& errors);
void ValidateResourceQuota(const Object& object, FieldErrors& errors);
void ValidatePodTemplate(const Object& object, FieldErrors& errors);
void ValidateReplicationController(const Object& object, FieldErrors& errors);
void ValidateConfigMapUpdate(const Object& next, const Object& current, FieldErrors& errors);
void ValidateSecretUpdate(const Object& next, const Object& current, FieldErrors& errors);
void ValidateServiceUpdate(const Object& next, const Object& current, FieldErrors& errors);
void ValidatePersistentVolumeClaimUpdate(const Object& next, const Object& current,
                                         FieldErrors& errors);
void ValidateResourceQuotaUpdate(const Object& next, const Object& current, FieldErrors& errors);

// ---- admissionregistration.k8s.io/v1 (validation/admissionregistration.cc) ----
// kube's webhook.ValidateWebhookURL (https only) and ValidateWebhookService,
// for every clientConfig (admission webhooks, CRD conversion webhooks).
void ValidateWebhookUrl(std::string_view url, const std::string& path, FieldErrors& errors);
void ValidateWebhookService(const boost::json::object& service, const std::string& path, FieldErrors& errors);

// ---- apps/v1 (validation/apps.cc) ----
void ValidateDeploymentOrReplicaSet(const Object& object, FieldErrors& errors);
void ValidateStatefulSet(const Object& object, FieldErrors& errors);
void ValidateDaemonSet(const Object& object, FieldErrors& errors);
void ValidateControllerRevision(const Object& object, FieldErrors& errors);
// Deployment, ReplicaSet, DaemonSet: spec.selector never changes.
void ValidateSelectorUpdate(const Object& next, const Object& current, FieldErrors& errors);
void ValidateStatefulSetUpdate(const Object& next, const Object& current, FieldErrors& errors);
void ValidateControllerRevisionUpdate(const Object& next, const Object& current,
                                      FieldErrors& errors);

// ---- batch/v1 (validation/batch.cc) ----
void ValidateJob(const Object& object, FieldErrors& errors);
void ValidateCronJob(const Object& object, FieldErrors& errors);
void ValidateJobUpdate(const Object& next, const Object& current, FieldErrors& errors);

// ---- autoscaling/v2 (validation/autoscaling.cc) ----
// core/v1 Event: kube's legacyValidateEvent (validation/events.cc).
void ValidateEventLegacy(const Object& object, FieldErrors& errors);
void ValidateHorizontalPodAutoscaler(const Object& object, FieldErrors& errors);

// ---- networking.k8s.io/v1, discovery.k8s.io/v1 (validation/networking.cc) ----
void ValidateIngress(const Object& object, FieldErrors& errors);
void ValidateIngressClass(const Object& object, FieldErrors& errors);
void ValidateNetworkPolicy(const Object& object, FieldErrors& errors);
void ValidateEndpointSlice(const Object& object, FieldErrors& errors);
void ValidateIngressClassUpdate(const Object& next, const Object& current, FieldErrors& errors);
void ValidateEndpointSliceUpdate(const Object& next, const Object& current, FieldErrors& errors);

// ---- rbac.authorization.k8s.io/v1 (validation/rbac.cc) ----
void ValidateRole(const Object& object, FieldErrors& errors);  // Role and ClusterRole
void ValidateRoleBinding(const Object& object,
                         FieldErrors& errors);  // RoleBinding and ClusterRoleBinding
void ValidateRoleBindingUpdate(const Object& next, const Object& current, FieldErrors& errors);

// ---- node.k8s.io/v1 (validation/node.cc) ----
void ValidateRuntimeClass(const Object& object, FieldErrors& errors);
void ValidateRuntimeClassUpdate(const Object& next, const Object& current, FieldErrors& errors);

// ---- storage.k8s.io/v1 (validation/storage.cc) ----
void ValidateCSIDriver(const Object& object, FieldErrors& errors);
void ValidateCSINode(const Object& object, FieldErrors& errors);
void ValidateCSIStorageCapacity(const Object& object, FieldErrors& errors);
void ValidateVolumeAttachment(const Object& object, FieldErrors& errors);
void ValidateVolumeAttachmentUpdate(const Object& next, const Object& current, FieldErrors& errors);

}  // namespace berth::api::validation
